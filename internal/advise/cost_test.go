package advise

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/projection/projectiontest"
	"github.com/keybench/keybench/internal/results"
)

// TestCost: a paying uuidv4 table is costed off the run's curves at its own
// rows and cache; a run of one size per key is refused as curves.
func TestCost(t *testing.T) {
	run := projectiontest.GrowthRun()
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
