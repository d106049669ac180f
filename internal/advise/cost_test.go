package advise

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/projection/projectiontest"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestCost: a paying uuidv4 table is costed off the run's curves at its own
// rows and cache; a run of one size per key is refused as curves.
func TestCost(t *testing.T) {
	run := projectiontest.GrowthRun()
	verdict.Analyze(run)
	if err := CheckCurves(run); err != nil {
		t.Fatal(err)
	}
	one := &results.Results{Scenario: "war", Cells: run.Cells[:2]}
	verdict.Analyze(one)
	if err := CheckCurves(one); err == nil || !strings.Contains(err.Error(), "war run") {
		t.Errorf("a run of one size per key: %v", err)
	}
	random := &Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Correlation: results.Of(0.0), Kind: "primary key"}
	tables := []Table{table("hot", random, 1<<30, 500)}
	tables[0].Rows = results.Of[int64](20_000_000)
	Judge(tables, Server{SharedBuffers: 256 << 20}, Sample{Seconds: 60}, func(tb *Table) *Cost { return costOf(run, tb, Server{SharedBuffers: 256 << 20}) })
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
	// One figure on every output (issue 76): advise's cost is project's
	// at the table's rows, cache and insert rate, the same numbers.
	rep, err := projection.Project(run, projection.Scale{Rows: 20_000_000, CacheBytes: 256 << 20, InsertRate: 500})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]projection.Projection{}
	for _, p := range rep.Keys {
		byKey[p.Key] = p
	}
	mine, ordered := byKey[c.Key], byKey[c.Ordered]
	if c.Relative != mine.Relative/ordered.Relative || c.KeyIndexBytes != mine.KeyIndexBytes || c.OrderedKeyIndexBytes != ordered.KeyIndexBytes ||
		c.WALPerDay.Value() != mine.WALPerDay.Value() {
		t.Errorf("advise's cost %+v, project's %+v against %+v", c, mine, ordered)
	}
	if why := strings.Join(tables[0].Verdict.Why, " "); !strings.Contains(why, "of the ordered key's insert rate") {
		t.Errorf("why: %s", why)
	}
}

// TestCostCarriesItsIntervalAndStorage (issues 38, 39): the cost of a
// table's key carries its interval, and a table of text uuids is never
// given the projection of uuid keys: a run without a text-uuid curve says
// it has none.
func TestCostCarriesItsIntervalAndStorage(t *testing.T) {
	path := "../report/testdata/runs/growth.json.gz" // a real growth run: its points have intervals
	run, err := verdict.Parse(resultstest.ReadGzip(t, path), path, all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	cost := func(k *Key) (*Cost, string) {
		tables := []Table{table("hot", k, 1<<30, 500)}
		tables[0].Rows = results.Of[int64](2_000_000)
		Judge(tables, Server{SharedBuffers: 256 << 20}, Sample{Seconds: 60}, func(tb *Table) *Cost { return costOf(run, tb, Server{SharedBuffers: 256 << 20}) })
		return tables[0].Verdict.Cost, strings.Join(tables[0].Verdict.Why, " ")
	}
	c, why := cost(&Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Correlation: results.Of(0.0), Kind: "primary key"})
	if c == nil || c.Lo <= 0 || c.Hi < c.Lo || c.Relative < c.Lo || c.Relative > c.Hi {
		t.Fatalf("a uuid table's cost without its interval: %+v (%s)", c, why)
	}
	if !strings.Contains(why, "[") {
		t.Errorf("the interval is not said: %s", why)
	}
	c, why = cost(&Key{Columns: []string{"id"}, Type: "text", Made: "gen_random_uuid()", UUIDText: true, Correlation: results.Of(0.0), Kind: "primary key"})
	if c != nil || !strings.Contains(why, "no curve for uuidv4:as=text") {
		t.Errorf("a text-uuid table given the uuid curve: %+v (%s)", c, why)
	}
}
