package report

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// Row is one measurement found in both runs.
type Row struct {
	Key, Workload string
	Clients       int
	Rows          int64
	A, B          stats.MedianCI
	UnitA, UnitB  string
	Cmp           stats.Comparison
	SizeA, SizeB  int64
	HasSize       bool
}

// Compare matches the groups of two runs, a read from nameA and b from
// nameB, by key, workload, clients and table size, and tests each
// difference (B against A).
func Compare(nameA, nameB string, a, b *results.Results) *Comparison {
	rows, onlyA, onlyB := compareGroups(a, b)
	return &Comparison{A: nameA, B: nameB, Rows: rows, OnlyA: onlyA, OnlyB: onlyB, OptionDiffs: results.OptionDifferences(a, b)}
}

func compareGroups(a, b *results.Results) (rows []Row, onlyA, onlyB []string) {
	ga, gb := a.BuildGroups(), b.BuildGroups()
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
			r.Cmp = stats.Compare(x.Sample(), y.Sample())
		} else { // one window per key: its per-second rates are never tested
			r.Cmp = stats.Comparison{P: 1, PAdjusted: 1, TooFew: true, Needed: stats.MinSamples()}
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
	}
	stats.Holm(tested)
	stats.TooFewFor(tested)
	return rows, onlyA, onlyB
}

func (r Row) delta() string {
	switch {
	case r.Cmp.TooFew:
		return fmt.Sprintf("? too few samples (A: %s, B: %s; --rounds %d)", r.sampleCount(r.UnitA, r.A), r.sampleCount(r.UnitB, r.B), r.Cmp.Needed)
	case !r.Cmp.Significant:
		return fmt.Sprintf("~ (p=%.2g)", r.Cmp.PAdjusted)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%] (p=%.2g)", (r.Cmp.Effect-1)*100, (r.Cmp.EffectLo-1)*100, (r.Cmp.EffectHi-1)*100, r.Cmp.PAdjusted)
}

func (r Row) sampleCount(unit string, s stats.MedianCI) string {
	if unit == results.UnitSeconds {
		return "one window"
	}
	return fmt.Sprintf("%d %s", s.N, unit)
}

func (r Row) sizeDelta() string {
	if !r.HasSize || r.SizeA == 0 {
		return "-"
	}
	return fmt.Sprintf("%s → %s (%+.0f%%)", results.Bytes(r.SizeA), results.Bytes(r.SizeB), (float64(r.SizeB)/float64(r.SizeA)-1)*100)
}

// Comparison is what compare found, as --export json writes it.
type Comparison struct {
	A, B         string
	Rows         []Row
	OnlyA, OnlyB []string
	// OptionDiffs are the workload options the two runs ran with differently.
	OptionDiffs []string
}

// Doc is the comparison as a table and its notes, as the console, the
// page and --export show it.
func (c *Comparison) Doc() *Doc {
	t := NewTable("key", "workload", "clients", "rows before", "A: rate [CI]", "B: rate [CI]", "B vs A [95% interval]", "size A → B").AlignRight(2, 3, 4, 5, 7)
	for _, r := range c.Rows {
		t.AppendRow(r.Key, r.Workload, r.Clients, r.Rows, ci(r.A), ci(r.B), r.delta(), r.sizeDelta())
	}
	d := &Doc{}
	d.Add(t)
	d.Printf("A: %s", c.A)
	d.Printf("B: %s", c.B)
	d.Printf("\"~\": within run-to-run noise (Mann-Whitney U over each run's rounds or runs, p >= %.2f after Holm's correction over the rows, or an interval of the effect that includes no change).", stats.Alpha)
	for _, s := range c.OnlyA {
		d.Printf("only in A: %s", s)
	}
	for _, s := range c.OnlyB {
		d.Printf("only in B: %s", s)
	}
	for _, s := range c.OptionDiffs {
		d.Printf("options differ: %s", s)
	}
	return d
}

func ci(s stats.MedianCI) string {
	if s.N == 0 {
		return "-"
	}
	if !s.HasInterval() {
		return fmt.Sprintf("%.0f", s.Median)
	}
	return fmt.Sprintf("%.0f [%.0f-%.0f, %.0f%%]", s.Median, s.Lo, s.Hi, 100*s.Confidence)
}

// RenderComparison renders the comparison as a self-contained HTML page with a chart.
func RenderComparison(c *Comparison) ([]byte, error) {
	var cats []string
	var ya, yb []float64
	for _, r := range c.Rows {
		cats = append(cats, fmt.Sprintf("%s (%d rows, %d cl.)", r.Key, r.Rows, r.Clients))
		ya, yb = append(ya, r.A.Median), append(yb, r.B.Median)
	}
	svgText := ""
	if len(c.Rows) > 0 {
		s, err := groupedBars("Median throughput, A and B", "transactions per second", cats,
			[]series{{name: "A", color: keyColor(0), ys: ya}, {name: "B", color: keyColor(1), ys: yb}})
		if err != nil {
			return nil, err
		}
		svgText = s
	}
	var txt bytes.Buffer
	c.Doc().Write(&txt, 0)
	var out bytes.Buffer
	err := compareTemplate.Execute(&out, map[string]any{"A": c.A, "B": c.B, "Chart": template.HTML(svgText), "Table": txt.String()})
	return out.Bytes(), err
}

var compareTemplate = template.Must(template.New("compare").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>keybench compare</title>
<style>body { font-family: system-ui, Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 62em; padding: 0 1em; }
figure svg { width: 100%; height: auto; } pre { background: #f7f7f7; padding: .8em; overflow-x: auto; font-size: .75em; }</style>
</head><body>
<h1>keybench compare</h1>
<p>A: {{.A}}<br>B: {{.B}}</p>
<figure>{{.Chart}}</figure>
<pre>{{.Table}}</pre>
</body></html>
`))

// Regressions are the rows whose B is significantly slower than A by more
// than by (a fraction: 0.05), each said with its effect, interval and
// p-value: what a regression gate fails on.
func Regressions(rows []Row, by float64) []string {
	var out []string
	for _, r := range rows {
		if c := r.Cmp; c.Significant && c.Effect > 0 && c.Effect < 1-by {
			out = append(out, fmt.Sprintf("%s (%s, %s, %s rows) %.0f%% slower %s (%s)", r.Key, r.Workload, results.Clients(r.Clients), thousands(r.Rows),
				(1-c.Effect)*100, c.IntervalText(), c.PText()))
		}
	}
	return out
}
