package report

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
)

// delta is B against A, as the table says it.
func delta(r verdict.Row) string {
	switch {
	case r.Cmp.TooFew:
		return fmt.Sprintf("? too few samples (A: %s, B: %s; --rounds %d)", sampleCount(r.UnitA, r.A), sampleCount(r.UnitB, r.B), r.Cmp.Needed)
	case !r.Cmp.Significant:
		return fmt.Sprintf("~ (p=%.2g)", r.Cmp.PAdjusted)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%] (p=%.2g)", (r.Cmp.Effect-1)*100, (r.Cmp.EffectLo-1)*100, (r.Cmp.EffectHi-1)*100, r.Cmp.PAdjusted)
}

func sampleCount(unit string, s stats.MedianCI) string {
	if unit == results.UnitSeconds {
		return "one window"
	}
	return fmt.Sprintf("%d %s", s.N, unit)
}

// workDelta is B's work per transaction against A's.
func workDelta(r verdict.Row) string {
	w := r.Work
	switch {
	case w == nil:
		return "- (no work: a run without rounds' counts)"
	case w.TooFew:
		return "? too few rounds"
	case !w.Significant:
		return fmt.Sprintf("~ (p=%.2g)", w.PAdjusted)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%] (p=%.2g)", (w.Effect-1)*100, (w.EffectLo-1)*100, (w.EffectHi-1)*100, w.PAdjusted)
}

func sizeDelta(r verdict.Row) string {
	if !r.HasSize || r.SizeA == 0 {
		return "-"
	}
	return fmt.Sprintf("%s → %s (%+.0f%%)", results.Bytes(r.SizeA), results.Bytes(r.SizeB), (float64(r.SizeB)/float64(r.SizeA)-1)*100)
}

// CompareDoc is a comparison as a table and its notes, as the console,
// the page and --export show it.
func CompareDoc(c *verdict.Comparison) *Doc {
	t := NewTable("key", "workload", "clients", "rows before", "A: rate [CI]", "B: rate [CI]", "B vs A [95% interval]", "work B vs A", "size A → B").AlignRight(2, 3, 4, 5, 8)
	for _, r := range c.Rows {
		t.AppendRow(r.Key, r.Workload, r.Clients, r.Rows, ci(r.A), ci(r.B), delta(r), workDelta(r), sizeDelta(r))
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
func RenderComparison(c *verdict.Comparison) ([]byte, error) {
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
	CompareDoc(c).Write(&txt, 0)
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
