package metrics

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/results"
)

// Elsewhere corrects a cell's metrics on an engine whose rows live
// elsewhere than the server keybench talks to (engine.Distributed): on
// Citus the coordinator's own pages, WAL, buffers and statistics are not
// the cell's (its tables there are empty shells), so every figure whose
// collector reads them (figure.blind) is replaced by the engine's reason,
// and the sizes are taken from Citus's functions over the shards. Figures
// keybench measures from its clients (rates, latencies, wait events of its
// sessions) stand.
func Elsewhere(ctx context.Context, conn *pgx.Conn, e engine.Engine, rel string, into *results.Metrics) {
	why := e.Blind()
	m := into
	for _, f := range figures() {
		if f.blind != nil {
			f.blind(why, m)
		}
	}
	if e.Kind != engine.Citus {
		return
	}
	// citus_table_size and citus_total_relation_size sum the shards on the workers.
	var table, total int64
	if err := conn.QueryRow(ctx, "SELECT citus_table_size($1::regclass), citus_total_relation_size($1::regclass)", rel).Scan(&table, &total); err != nil {
		u := results.Unavailable[int64]("citus_table_size: " + err.Error())
		m.TableBytes, m.IndexBytes, m.TotalBytes = u, u, u
		return
	}
	m.TableBytes, m.TotalBytes, m.IndexBytes = results.Of(table), results.Of(total), results.Of(total-table)
}
