package verdict

import (
	"fmt"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// Row is one measurement found in both runs of a comparison: each run's
// rate summary and sample unit, B's rate over A's tested, and each run's
// total size.
type Row struct {
	Key, Workload string
	Clients       int
	Rows          int64
	A, B          stats.MedianCI
	UnitA, UnitB  string
	Cmp           stats.Comparison
	// Work is B's work per transaction over A's, each run's rounds priced
	// on its own device (nil: a run without work to compare); WorkA and
	// WorkB its summaries.
	Work         *stats.Comparison
	WorkA, WorkB stats.MedianCI
	SizeA, SizeB int64
	HasSize      bool
}

// Comparison is what compare found, as --export json writes it.
type Comparison struct {
	A, B         string
	Rows         []Row
	OnlyA, OnlyB []string
	// OptionDiffs are the workload options the two runs ran with differently.
	OptionDiffs []string
}

// Compare matches the groups of two runs (each with its analysis), a read
// from nameA and b from nameB, by key, workload, clients and table size,
// and tests each difference (B against A): Mann-Whitney over each run's
// rounds or runs, Holm's correction over the rows.
func Compare(nameA, nameB string, a, b *results.Results) *Comparison {
	rows, onlyA, onlyB := compareRuns(ensure(a), ensure(b))
	return &Comparison{A: nameA, B: nameB, Rows: rows, OnlyA: onlyA, OnlyB: onlyB, OptionDiffs: results.OptionDifferences(a, b)}
}

func compareRuns(a, b *results.Results) (rows []Row, onlyA, onlyB []string) {
	ga, gb := a.Analysis.Groups, b.Analysis.Groups
	id := func(g *results.Group) string {
		return fmt.Sprintf("%s, %s, %s, %d rows", g.Key, g.Task(), results.Clients(g.Clients), g.Rows)
	}
	inB := map[string]*results.Group{}
	for i := range gb {
		inB[id(&gb[i])] = &gb[i]
	}
	seen := map[string]bool{}
	for i := range ga {
		x := &ga[i]
		y, ok := inB[id(x)]
		if !ok {
			onlyA = append(onlyA, id(x))
			continue
		}
		seen[id(x)] = true
		r := Row{Key: x.Key, Workload: x.Task(), Clients: x.Clients, Rows: x.Rows, A: x.TPS, B: y.TPS, UnitA: x.Unit, UnitB: y.Unit}
		if x.Independent() && y.Independent() {
			r.Cmp = stats.Compare(rateSample(a, x).values, rateSample(b, y).values)
		} else { // one window per key: its per-second rates are never tested
			r.Cmp = stats.Comparison{P: 1, PAdjusted: 1, TooFew: true, Needed: stats.MinSamples()}
		}
		cx, cy := *x, *y // costSample sets a group's Cost: the analysis's stays as it is
		if wa, wb := costSample(a, &cx, DeviceOf(a)), costSample(b, &cy, DeviceOf(b)); len(wa.values) > 0 && len(wb.values) > 0 {
			w := stats.Compare(wa.values, wb.values)
			r.Work, r.WorkA, r.WorkB = &w, stats.Summarize(wa.values), stats.Summarize(wb.values)
		}
		total := func(c *results.Cell) (float64, bool) { return results.Float(c.Metrics.TotalBytes) }
		sa, okA := a.Median(x, total)
		sb, okB := b.Median(y, total)
		r.SizeA, r.SizeB, r.HasSize = int64(sa), int64(sb), okA && okB
		rows = append(rows, r)
	}
	for i := range gb {
		if !seen[id(&gb[i])] {
			onlyB = append(onlyB, id(&gb[i]))
		}
	}
	// The rows are tested together: their p-values are adjusted with Holm's method.
	var tested []*stats.Comparison
	for i := range rows {
		if !rows[i].Cmp.TooFew {
			tested = append(tested, &rows[i].Cmp)
		}
		if w := rows[i].Work; w != nil && !w.TooFew {
			tested = append(tested, w)
		}
	}
	stats.Holm(tested)
	stats.TooFewFor(tested)
	return rows, onlyA, onlyB
}

// Regressions are the rows whose B is significantly slower than A, or
// does significantly more work per transaction, by more than by (a
// fraction: 0.05), each said with its effect, interval and p-value: what
// a regression gate fails on.
func Regressions(rows []Row, by float64) []string {
	var out []string
	for _, r := range rows {
		what := fmt.Sprintf("%s (%s, %s, %s rows)", r.Key, r.Workload, results.Clients(r.Clients), results.Thousands(r.Rows))
		if c := r.Cmp; c.Significant && c.Effect > 0 && c.Effect < 1-by {
			out = append(out, fmt.Sprintf("%s %.0f%% slower %s (%s)", what, (1-c.Effect)*100, c.IntervalText(), c.PText()))
		}
		if w := r.Work; w != nil && w.Significant && w.Effect > 1+by {
			out = append(out, fmt.Sprintf("%s %.0f%% more work per transaction %s (%s)", what, (w.Effect-1)*100, w.IntervalText(), w.PText()))
		}
	}
	return out
}
