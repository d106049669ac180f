// Package metrics watches the server from the inside while a cell runs and
// records what explains its numbers. A metric that cannot be collected is
// recorded as unavailable with the reason (results.M), never as zero.
package metrics

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// leafTables selects the tables that hold the rows of $1: the table itself,
// or the leaf partitions of a partitioned table.
const leafTables = `(SELECT c.oid FROM pg_class c WHERE c.oid = $1::regclass AND c.relkind <> 'p'
	UNION ALL SELECT t.relid FROM pg_partition_tree($1::regclass) t WHERE t.isleaf AND t.relid <> $1::regclass)`

// Partitions records a partitioned table's partitions (schema-qualified
// names in parts, oldest first) with their rows and sizes, each with its
// key index (keyIndexes, by partition; none: index=none).
func Partitions(ctx context.Context, conn *pgx.Conn, parts, keyIndexes []string, into *results.Metrics) {
	if len(parts) == 0 {
		return
	}
	out := make([]results.PartitionSize, len(parts))
	for i, p := range parts {
		ps := &out[i]
		_, ps.Name, _ = strings.Cut(p, ".")
		err := conn.QueryRow(ctx, `SELECT pg_table_size($1::regclass), (SELECT count(*) FROM `+p+`)`, p).Scan(&ps.TableBytes, &ps.Rows)
		if err == nil && i < len(keyIndexes) {
			err = conn.QueryRow(ctx, `SELECT pg_relation_size($1::regclass)`, keyIndexes[i]).Scan(&ps.KeyIndexBytes)
		}
		if err != nil {
			into.Partitions = results.Unavailable[[]results.PartitionSize](fmt.Sprintf("%s: %v", p, err))
			return
		}
	}
	into.Partitions = results.Of(out)
}

// KeyBytes records the mean stored size of the table's key column (column, quoted) over a
// sample of its rows (pg_column_size: a row's datum, its varlena header of
// one byte included).
func KeyBytes(ctx context.Context, conn *pgx.Conn, table, column string, into *results.Metrics) {
	var v *float64
	if err := conn.QueryRow(ctx, `SELECT avg(pg_column_size(k))::float8 FROM (SELECT `+column+` AS k FROM `+table+` LIMIT 10000) s`).Scan(&v); err != nil {
		into.KeyBytes = results.Unavailable[float64](err.Error())
		return
	}
	if v == nil {
		into.KeyBytes = results.Unavailable[float64]("the table holds no row")
		return
	}
	into.KeyBytes = results.Of(*v)
}

// Sizes records the table's sizes: table_bytes (heap with its maps and
// TOAST), toast_bytes, index_bytes and total_bytes; a partitioned table's
// are the sums over its partitions.
func Sizes(ctx context.Context, conn *pgx.Conn, table string, into *results.Metrics) {
	var heap, toast, idx, total int64
	err := conn.QueryRow(ctx, `SELECT coalesce(sum(pg_table_size(c.oid)), 0)::bigint,
		coalesce(sum(coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)), 0)::bigint,
		coalesce(sum(pg_indexes_size(c.oid)), 0)::bigint, coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM `+leafTables+` l JOIN pg_class c ON c.oid = l.oid`, table).
		Scan(&heap, &toast, &idx, &total)
	if err != nil {
		u := results.Unavailable[int64](err.Error())
		into.TableBytes, into.ToastBytes, into.IndexBytes, into.TotalBytes = u, u, u, u
		return
	}
	into.TableBytes, into.ToastBytes, into.IndexBytes, into.TotalBytes = results.Of(heap), results.Of(toast), results.Of(idx), results.Of(total)
}
