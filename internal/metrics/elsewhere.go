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
// the cell's (its tables there are empty shells), so every figure read
// from them is replaced by the engine's reason, and the sizes are taken
// from Citus's functions over the shards. Figures keybench measures from
// its clients (rates, latencies, wait events of its sessions) stand.
func Elsewhere(ctx context.Context, conn *pgx.Conn, e engine.Engine, rel string, into *results.Metrics) {
	why := e.Blind()
	f, i := unavailable[float64](why), unavailable[int64](why)
	m := into
	m.KeyIndexBytes, m.IndexBytesAfterReindex, m.KeyIndexBytesAfterReindex, m.LeafPages = i, i, i, i
	m.BloatRatio, m.KeyIndexGrowthPerRow, m.KeyIndexCacheRatio, m.TableCacheRatio, m.LeafDensity, m.LeafFragmentation = f, f, f, f, f, f
	m.CacheBytes = i
	m.WALRecords, m.WALFPI, m.WALBytes = i, i, i
	m.WALBytesPerRow, m.WALFPIPerRow, m.WALRecordsPerRow, m.KeyIndexFPIPerRow = f, f, f, f
	m.WALFPIByRelation = unavailable[map[string]int64](why)
	m.BtreeSplits, m.BtreeSplitsPerRow = unavailable[results.BtreeSplits](why), f
	m.BlocksPerTxn, m.Blocks = unavailable[results.BlocksPerTxn](why), unavailable[results.Blocks](why)
	m.Tuples, m.Checkpoints, m.IO = unavailable[results.Tuples](why), unavailable[results.Checkpoints](why), unavailable[results.IO](why)
	m.BufferCache, m.SizesOverTime = unavailable[results.BufferCache](why), unavailable[[]results.SizeSample](why)
	m.Replication = unavailable[[]results.Standby](why)
	m.TableBytes, m.ToastBytes, m.IndexBytes, m.TotalBytes = i, i, i, i
	if e.Kind != engine.Citus {
		return
	}
	// citus_table_size and citus_total_relation_size sum the shards on the workers.
	var table, total int64
	if err := conn.QueryRow(ctx, "SELECT citus_table_size($1::regclass), citus_total_relation_size($1::regclass)", rel).Scan(&table, &total); err != nil {
		u := unavailable[int64]("citus_table_size: " + err.Error())
		m.TableBytes, m.IndexBytes, m.TotalBytes = u, u, u
		return
	}
	m.TableBytes, m.TotalBytes, m.IndexBytes = results.Of(table), results.Of(total), results.Of(total-table)
}
