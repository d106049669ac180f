// Package projectiontest gives tests a small growth-like run to project
// from (a test analyses it, as a run's results are when written).
package projectiontest

import "github.com/keybench/keybench/internal/results"

// GrowthRun is a growth-like run: bigint and uuidv4 at three sizes, the
// uuidv4 index outgrowing a 16 MiB cache, uuidv4 falling to 0.4 of bigint.
func GrowthRun() *results.Results {
	const cache = 16 << 20
	cell := func(key string, rows int64, tps float64, table, index int64) results.Cell {
		return results.Cell{Key: key, Workload: "insert", Clients: 8, RowsBefore: rows, RowsInserted: 100_000, Status: results.StatusOK, TPS: tps,
			RowCheck: &results.RowCheck{Expected: rows + 100_000, Server: rows + 100_000, OK: true},
			Timeline: []results.Second{{T: 1, TPS: tps}, {T: 2, TPS: tps}},
			Metrics: results.Metrics{TableBytes: results.Of(table), KeyIndexBytes: results.Of(index), CacheBytes: results.Of[int64](cache),
				KeyIndexCacheRatio: results.Of(float64(index) / cache), WALBytesPerRow: results.Of(500.0), WALFPIPerRow: results.Of(0.03)}}
	}
	r := &results.Results{SchemaVersion: results.SchemaVersion, Scenario: "growth", Cells: []results.Cell{
		cell("bigint", 0, 1000, 10<<20, 2<<20), cell("uuidv4", 0, 1000, 10<<20, 4<<20),
		cell("bigint", 1_000_000, 1000, 110<<20, 22<<20), cell("uuidv4", 1_000_000, 700, 110<<20, 44<<20),
		cell("bigint", 4_000_000, 1000, 410<<20, 82<<20), cell("uuidv4", 4_000_000, 400, 410<<20, 164<<20),
	}}
	return r
}
