package report

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// recorded reads every recorded run (testdata/runs), analysed, by name.
func recorded(t *testing.T) map[string]*results.Results {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "runs", "*.json.gz"))
	if len(paths) == 0 {
		t.Fatal("no recorded runs")
	}
	out := map[string]*results.Results{}
	for _, p := range paths {
		r, err := verdict.Parse(resultstest.ReadGzip(t, p), p, all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json.gz")] = r
	}
	return out
}

// scaled is a recorded run read again with every round's rate times
// rate and its work's counts times work (its CPU and blocks), analysed.
func scaled(t *testing.T, name string, rate, work float64) *results.Results {
	t.Helper()
	return scaledFile(t, filepath.Join("testdata", "runs", name+".json.gz"), rate, work)
}

// scaledFile is scaled of a recorded run's file.
func scaledFile(t *testing.T, path string, rate, work float64) *results.Results {
	t.Helper()
	r, err := results.Parse(resultstest.ReadGzip(t, path), path, all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Cells {
		for j := range r.Cells[i].Rounds {
			r.Cells[i].Rounds[j].Rate *= rate
		}
		scaleWork(&r.Cells[i], work)
	}
	verdict.Analyze(r)
	return r
}

// TestCompareAgreesWithTheRuns (issue 76): compare's rate and work of each
// run are the runs' own printed figures (the groups' rate and work), its
// ratio is theirs, a "~" interval holds no change, and its JSON is
// snake_case.
func TestCompareAgreesWithTheRuns(t *testing.T) {
	for _, name := range []string{"growth", "sequence-cache", "reads", "migrate"} {
		a := scaled(t, name, 1, 1)
		b := scaled(t, name, 1.1, 1.25)
		c := verdict.Compare("a", "b", a, b)
		if len(c.Rows) == 0 {
			t.Fatalf("%s: no rows compared", name)
		}
		checked := 0
		for _, row := range c.Rows {
			ga, gb := groupOf(a, row), groupOf(b, row)
			for _, m := range row.Measures {
				var wantA, wantB float64
				switch m.Name {
				case "rate":
					wantA, wantB = ga.Rate, gb.Rate
				case "work":
					if ga.Cost == nil || gb.Cost == nil {
						continue
					}
					wantA, wantB = ga.Cost.Mean, gb.Cost.Mean
				default:
					continue
				}
				if m.Cmp == nil || m.Cmp.TooFew {
					continue
				}
				checked++
				if !near(fmtG(m.A), wantA, 1e-6) || !near(fmtG(m.B), wantB, 1e-6) || math.Abs(m.Cmp.Effect-wantB/wantA) > 1e-6*wantB/wantA {
					t.Errorf("%s %s %s: compare's %g → %g (%.4f×), the runs' %g → %g (%.4f×)", name, row.Key, m.Name, m.A, m.B, m.Cmp.Effect, wantA, wantB, wantB/wantA)
				}
			}
			for _, m := range row.Measures {
				if m.Cmp != nil && !m.Cmp.TooFew && !m.Cmp.Significant && m.Cmp.HasInterval() && (m.Cmp.Lo > 1 || m.Cmp.Hi < 1) {
					t.Errorf("%s %s %s: no change found, its interval [%g, %g] excludes none", name, row.Key, m.Name, m.Cmp.Lo, m.Cmp.Hi)
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no rate or work compared", name)
		}
		b2, _ := json.Marshal(c)
		var v any
		_ = json.Unmarshal(b2, &v)
		checkSnake(t, name, v)
	}
}

// groupOf is the group of r a compare row names.
func groupOf(r *results.Results, row verdict.Row) *results.Group {
	for i := range r.Analysis.Groups {
		g := &r.Analysis.Groups[i]
		if g.Key == row.Key && g.Task() == row.Workload && g.Clients == row.Clients && g.Rows == row.Rows {
			return g
		}
	}
	return &results.Group{}
}

var snake = regexp.MustCompile(`^[a-z][a-z0-9_.]*$`)

// checkSnake fails on a JSON object key that is not snake_case.
func checkSnake(t *testing.T, name string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snake.MatchString(k) {
				t.Errorf("%s: JSON key %q is not snake_case", name, k)
			}
			checkSnake(t, name, e)
		}
	case []any:
		for _, e := range x {
			checkSnake(t, name, e)
		}
	}
}

func fmtG(v float64) string { return strings.TrimRight(strings.TrimRight(formatFloat(v), "0"), ".") }

func formatFloat(v float64) string { b, _ := json.Marshal(v); return string(b) }

// TestProjectAgreesWithTheRun (issue 76): project sizes a table by the
// one row count every output uses (Cell.RowsAtEnd), and carries a key's
// work at its measured size as the run's own work ratio.
func TestProjectAgreesWithTheRun(t *testing.T) {
	for name, r := range recorded(t) {
		largest := map[string]*results.Cell{}
		for i := range r.Cells {
			c := &r.Cells[i]
			if c.Status == results.StatusOK && c.RowsAtEnd() > 0 && (largest[c.Key] == nil || c.RowsAtEnd() > largest[c.Key].RowsAtEnd()) {
				largest[c.Key] = c
			}
		}
		for _, s := range projection.SizesAt(r, 1e9) {
			c := largest[s.Key]
			if c == nil || s.FromRows != c.RowsAtEnd() {
				t.Errorf("%s %s: sized from %d rows, its table held %d", name, s.Key, s.FromRows, c.RowsAtEnd())
				continue
			}
			if b, ok := c.Metrics.KeyIndexBytes.Get(); ok && b > 0 {
				if want := float64(b) / float64(c.RowsAtEnd()) * 1e9; math.Abs(float64(s.KeyIndexBytes)-want) > 1e-6*want+1 {
					t.Errorf("%s %s: key index %d at 1e9 rows, %g by its bytes per row", name, s.Key, s.KeyIndexBytes, want)
				}
			}
		}
	}
}

// TestQuickAndFixedRateRecordNoZeros (issue 76): a --quick run's groups
// record WAL as a figure or as unavailable with its reason, never 0; a
// group's work is never 0.
func TestQuickAndFixedRateRecordNoZeros(t *testing.T) {
	for name, r := range recorded(t) {
		for _, g := range r.Analysis.Groups {
			if w := g.WAL; w != nil && w.Mean <= 0 && w.Unavailable == "" {
				t.Errorf("%s %s: WAL %g with no reason", name, g.Key, w.Mean)
			}
			if c := g.Cost; c != nil && c.Mean <= 0 && c.Unavailable == "" {
				t.Errorf("%s %s: work %g with no reason", name, g.Key, c.Mean)
			}
		}
	}
}

// TestTheLeastIsTheLeast (issue 76): where an output calls a key "the
// least" its work is its shape's least; a reference preset's key is said
// as the reference's wherever another works less.
func TestTheLeastIsTheLeast(t *testing.T) {
	for name, r := range recorded(t) {
		for _, sh := range shapesOf(r.Analysis) {
			least := sh.group(sh.Least)
			if least == nil || least.Cost == nil || least.Cost.Mean <= 0 {
				continue
			}
			for _, g := range sh.Groups {
				if g.Cost != nil && g.Cost.Mean > 0 && g.Cost.Mean < least.Cost.Mean && !sh.Against {
					t.Errorf("%s %s: %s is called the least (%g) beside %s's %g", name, sh.Title, least.Key, least.Cost.Mean, g.Key, g.Cost.Mean)
				}
			}
			lines := strings.Join(costVerdict(r, r.Analysis), "\n")
			if sh.Against && strings.Contains(lines, least.Key+"'s "+present.Work.Text(r, least)+" is the least") {
				t.Errorf("%s %s: the reference %s is called the least", name, sh.Title, least.Key)
			}
		}
	}
}
