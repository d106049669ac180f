package advise

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

// growthRun is a growth-like run: bigint and uuidv4 at three sizes, the
// uuidv4 index outgrowing a 16 MiB cache, uuidv4 falling to 0.4 of bigint.
func growthRun() *results.Results {
	const cache = 16 << 20
	cell := func(key string, rows int64, tps float64, table, index int64) results.Cell {
		return results.Cell{Key: key, Workload: "insert", Clients: 8, RowsBefore: rows, RowsInserted: 100_000, Status: results.StatusOK, TPS: tps,
			RowCheck: &results.RowCheck{Expected: rows + 100_000, Server: rows + 100_000, OK: true},
			Timeline: []results.Second{{T: 1, TPS: tps}, {T: 2, TPS: tps}},
			Metrics: results.Metrics{TableBytes: results.Of(table), KeyIndexBytes: results.Of(index), CacheBytes: results.Of[int64](cache),
				KeyIndexCacheRatio: results.Of(float64(index) / cache), WALBytesPerRow: results.Of(500.0), WALFPIPerRow: results.Of(0.03)}}
	}
	return &results.Results{SchemaVersion: results.SchemaVersion, Scenario: "growth", Cells: []results.Cell{
		cell("bigint", 0, 1000, 10<<20, 2<<20), cell("uuidv4", 0, 1000, 10<<20, 4<<20),
		cell("bigint", 1_000_000, 1000, 110<<20, 22<<20), cell("uuidv4", 1_000_000, 700, 110<<20, 44<<20),
		cell("bigint", 4_000_000, 1000, 410<<20, 82<<20), cell("uuidv4", 4_000_000, 400, 410<<20, 164<<20),
	}}
}

// TestCost: a paying uuidv4 table is costed off the run's curves at its own
// rows and cache; a run of one size per key is refused as curves.
func TestCost(t *testing.T) {
	run := growthRun()
	if err := CheckCurves(run); err != nil {
		t.Fatal(err)
	}
	one := &results.Results{Scenario: "war", Cells: run.Cells[:2]}
	if err := CheckCurves(one); err == nil || !strings.Contains(err.Error(), "war run") {
		t.Errorf("a run of one size per key: %v", err)
	}
	random := &Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Correlation: results.Of(0.0), Kind: "primary key"}
	tables := []Table{table("hot", random, 1<<30, 500)}
	tables[0].Rows = results.Of[int64](20_000_000)
	Judge(tables, Server{SharedBuffers: 256 << 20}, 60, func(tb *Table) *Cost { return costOf(run, tb, Server{SharedBuffers: 256 << 20}) })
	c := tables[0].Verdict.Cost
	if c == nil {
		t.Fatalf("no cost: %v", tables[0].Verdict.Why)
	}
	// 20M rows: uuidv4's index 20× the 4M cell's 164 MiB, over 256 MiB, beyond the measured ratios.
	if c.Key != "uuidv4" || c.Ordered != "bigint" || c.Relative <= 0 || c.Relative >= 0.7 || c.KeyIndexBytes <= c.OrderedKeyIndexBytes {
		t.Errorf("cost %+v", c)
	}
	if _, ok := c.WALPerDay.Get(); !ok {
		t.Errorf("WAL per day at 500 inserts/s: %s", c.WALPerDay.Reason())
	}
	if why := strings.Join(tables[0].Verdict.Why, " "); !strings.Contains(why, "of the ordered key's insert rate") {
		t.Errorf("why: %s", why)
	}
}
