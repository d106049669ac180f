package report

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
)

// measureDelta is one measure of B against A, as the table says it: its
// mark — "*" with its direction, "=" the same in practice, "~" none found
// — from the interval printed beside it, at the level it was decided at.
func measureDelta(r verdict.Row, m verdict.Measure) string {
	c := m.Cmp
	switch {
	case c == nil:
		return "- (" + m.Why + ")"
	case c.TooFew:
		return fmt.Sprintf("? too few samples (A: %s, B: %s; %d a side)", sampleCount(r.UnitA, m.SamplesA), sampleCount(r.UnitB, m.SamplesB), c.Needed)
	case c.Uninformative():
		return "~ " + c.ChangeText() // spans a hundredfold: nothing said
	case !c.Significant:
		return mark(c) + " " + c.ChangeText()
	}
	return fmt.Sprintf("* %s %s (p=%.2g)", m.Direction(), c.ChangeText(), c.PAdjusted)
}

func sampleCount(unit string, n int) string {
	if unit == results.UnitSeconds {
		return "one window"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func sizeDelta(r verdict.Row) string {
	if !r.HasSize || r.SizeA == 0 {
		return "-"
	}
	if r.RowsA > 0 && r.RowsB > 0 && math.Abs(float64(r.RowsB)/float64(r.RowsA)-1) > 0.01 {
		// Tables of different rows: their sizes compare per row.
		pa, pb := float64(r.SizeA)/float64(r.RowsA), float64(r.SizeB)/float64(r.RowsB)
		return fmt.Sprintf("%.0f → %.0f B / row (%+.0f%%; %s and %s rows)", pa, pb, (pb/pa-1)*100, results.Thousands(r.RowsA), results.Thousands(r.RowsB))
	}
	return fmt.Sprintf("%s → %s (%+.0f%%)", results.Bytes(r.SizeA), results.Bytes(r.SizeB), (float64(r.SizeB)/float64(r.SizeA)-1)*100)
}

// CompareDoc is a comparison as tables and notes, as the console, the
// page and --export show it: what the runs ran with differently first,
// then each measurement's rate (both runs') and each measure of B against
// A with its interval.
func CompareDoc(c *verdict.Comparison) *Doc {
	d := &Doc{}
	d.Printf("A: %s", c.A)
	d.Printf("B: %s", c.B)
	if len(c.Differences) == 0 {
		d.Println("The two runs ran with the same server, settings, keys, rows, caches, clients and rate.")
	}
	for _, s := range c.Differences {
		d.Printf("differs: %s", s)
	}
	header := []string{"key", "workload", "clients", "rows before", "A: rate", "B: rate"}
	for _, m := range verdict.Measures {
		header = append(header, m.Name+" B vs A")
	}
	t := NewTable(append(header, "size A → B")...).AlignRight(2, 3, 4, 5)
	for _, r := range c.Rows {
		row := []any{r.Key, r.Workload, r.Clients, r.Rows, rateOf(r.Measures[0].A), rateOf(r.Measures[0].B)}
		for _, m := range r.Measures {
			row = append(row, measureDelta(r, m))
		}
		t.AppendRow(append(row, sizeDelta(r))...)
	}
	d.Add(t)
	d.Println("rate: each run's rate, the " + results.RateFigure.Statistic.String() + " of its rounds' (or runs') rates, as the run's own outputs give it.")
	var geometric, medians []string
	for _, m := range verdict.Measures {
		if m.Geometric() {
			geometric = append(geometric, m.Name)
		} else {
			medians = append(medians, m.Name)
		}
	}
	d.Printf("B vs A: B's over A's, %%, with its interval at the level its adjusted p-value is decided at (Holm's correction over every row and measure, alpha %.2f): %s (each a transaction's where it is one; the work each run's priced on its own disk) as the ratio of the runs' geometric means, the figures the runs print, by Welch's t over their rounds' logarithms; %s (each round's latency percentiles) as the ratio of the runs' medians, by Mann-Whitney's U and the Hodges–Lehmann interval; %s (= the same in practice: an interval inside ±%s); rate: higher is better, the rest lower; size: per row where the runs' tables hold different rows.",
		stats.Alpha, strings.Join(geometric, ", "), strings.Join(medians, ", "), marks, stats.Percent(stats.DefaultMargin))
	for _, s := range c.OnlyA {
		d.Printf("only in A: %s", s)
	}
	for _, s := range c.OnlyB {
		d.Printf("only in B: %s", s)
	}
	return d
}

// rateOf is a run's rate in its column, in one style for every row (the
// first screen's: never "11.4k" above "8386").
func rateOf(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

// RenderComparison renders the comparison as a self-contained HTML page with a chart.
func RenderComparison(c *verdict.Comparison) ([]byte, error) {
	var cats []string
	var ya, yb []float64
	for _, r := range c.Rows {
		cats = append(cats, fmt.Sprintf("%s (%d rows, %d cl.)", r.Key, r.Rows, r.Clients))
		ya, yb = append(ya, r.Measures[0].A), append(yb, r.Measures[0].B)
	}
	svgText := ""
	if len(c.Rows) > 0 {
		s, err := groupedBars("Rate, A and B (each the geometric mean of its rounds)", "transactions per second", cats,
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
