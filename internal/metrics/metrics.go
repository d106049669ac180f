// Package metrics watches the server from the inside while a cell runs and
// records what explains its numbers. A metric that cannot be collected is
// recorded as results.Unavailable with the reason, never as zero.
package metrics

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// Sizes records the table's sizes: table_bytes (heap with its maps and
// TOAST), toast_bytes, index_bytes and total_bytes.
func Sizes(ctx context.Context, conn *pgx.Conn, table string, into map[string]any) {
	var heap, toast, idx, total int64
	err := conn.QueryRow(ctx, `SELECT pg_table_size(c.oid), coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0),
		pg_indexes_size(c.oid), pg_total_relation_size(c.oid) FROM pg_class c WHERE c.oid = $1::regclass`, table).
		Scan(&heap, &toast, &idx, &total)
	if err != nil {
		for _, m := range []string{"table_bytes", "toast_bytes", "index_bytes", "total_bytes"} {
			into[m] = results.Unavailable{Unavailable: err.Error()}
		}
		return
	}
	into["table_bytes"], into["toast_bytes"], into["index_bytes"], into["total_bytes"] = heap, toast, idx, total
}
