// Package metrics watches the server from the inside while a cell runs and
// records what explains its numbers. A metric that cannot be collected is
// recorded as results.Unavailable with the reason, never as zero.
package metrics

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// Sizes records the table's heap (with TOAST and maps), index and total
// sizes: table_bytes, index_bytes, total_bytes.
func Sizes(ctx context.Context, conn *pgx.Conn, table string, into map[string]any) {
	var heap, idx, total int64
	err := conn.QueryRow(ctx, "SELECT pg_table_size($1::regclass), pg_indexes_size($1::regclass), pg_total_relation_size($1::regclass)", table).
		Scan(&heap, &idx, &total)
	if err != nil {
		for _, m := range []string{"table_bytes", "index_bytes", "total_bytes"} {
			into[m] = results.Unavailable{Unavailable: err.Error()}
		}
		return
	}
	into["table_bytes"], into["index_bytes"], into["total_bytes"] = heap, idx, total
}

// WAL measures the WAL written between Start and Stop from the insert LSN,
// which every server since 10 reports to any role.
type WAL struct {
	start string
	err   error
}

// StartWAL notes the current WAL position.
func StartWAL(ctx context.Context, conn *pgx.Conn) *WAL {
	w := &WAL{}
	w.err = conn.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&w.start)
	return w
}

// Stop records wal_bytes and wal_bytes_per_row (rows: rows inserted in between).
func (w *WAL) Stop(ctx context.Context, conn *pgx.Conn, rows int64, into map[string]any) {
	var bytes int64
	err := w.err
	if err == nil {
		err = conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint", w.start).Scan(&bytes)
	}
	if err != nil {
		into["wal_bytes"] = results.Unavailable{Unavailable: fmt.Sprintf("WAL position: %v", err)}
		into["wal_bytes_per_row"] = into["wal_bytes"]
		return
	}
	into["wal_bytes"] = bytes
	if rows > 0 {
		into["wal_bytes_per_row"] = float64(bytes) / float64(rows)
	} else {
		into["wal_bytes_per_row"] = results.Unavailable{Unavailable: "no rows inserted in the window"}
	}
}
