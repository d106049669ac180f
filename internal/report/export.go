package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
)

// Export formats (--export): a Markdown summary short enough to paste into
// a discussion (hyperfine's --export-markdown), a CSV of every cell's
// figures, or the results as JSON.
const (
	ExportMarkdown = "md"
	ExportCSV      = "csv"
	ExportJSON     = "json"
)

// ExportFormats are the formats --export takes.
var ExportFormats = []string{ExportMarkdown, ExportCSV, ExportJSON}

// Export renders res in format.
func Export(res *results.Results, format string) ([]byte, error) {
	return export(format, func() string { return Markdown(res) }, func() ([]byte, error) { return CSV(res) }, res)
}

// ExportDoc renders a command's answer in format (compare, project,
// advise): its console document as Markdown (paragraphs and tables) or
// CSV (each of its tables, a blank line between them), or value, the
// command's own typed answer, as JSON.
func ExportDoc(d *Doc, value any, format string) ([]byte, error) {
	return export(format, d.Markdown, d.CSV, value)
}

func export(format string, md func() string, csv func() ([]byte, error), value any) ([]byte, error) {
	switch format {
	case ExportMarkdown:
		return []byte(md()), nil
	case ExportCSV:
		return csv()
	case ExportJSON:
		return json.MarshalIndent(value, "", "  ")
	}
	return nil, fmt.Errorf("--export takes %s, not %q", strings.Join(ExportFormats, ", "), format)
}

// mdCell writes text into Markdown: a name read from a server or a
// results file is text, never markup ("<script>" in a table's name must not
// become HTML where the Markdown is rendered), and never ends a table cell.
var mdCell = strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;")

// Markdown is the doc as Markdown: a paragraph a line of text, a GitHub
// table a table (figures right-aligned), and the legend of the write-ups
// it cites, as the console ends with it.
func (d *Doc) Markdown() string {
	var b strings.Builder
	cell := mdCell // a name read from a server or a results file is text, never markup
	for _, bl := range d.withLegend() {
		t := bl.Table
		if t == nil {
			if strings.TrimSpace(bl.Text) != "" {
				b.WriteString(cell.Replace(bl.Text) + "\n\n")
			}
			continue
		}
		row := func(cells []string) {
			for _, c := range cells {
				b.WriteString("| " + cell.Replace(c) + " ")
			}
			b.WriteString("|\n")
		}
		row(t.Header)
		for i := range t.Header {
			if t.Right[i] {
				b.WriteString("|---:")
			} else {
				b.WriteString("|---")
			}
		}
		b.WriteString("|\n")
		for _, r := range t.Rows {
			row(r)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// CSV is the doc's tables as CSV, each with its header, a blank line
// between them.
func (d *Doc) CSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	first := true
	for _, bl := range d.Blocks {
		if bl.Table == nil {
			continue
		}
		if !first {
			w.Flush()
			buf.WriteString("\n")
		}
		first = false
		if err := w.Write(bl.Table.Header); err != nil {
			return nil, err
		}
		if err := w.WriteAll(bl.Table.Rows); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// Markdown is the run's verdict as a Markdown table: the machine's load
// when it was busy, then per shape a row a key with its median rate, the
// rounds' mean of each figure of the verdict and its explanation (the
// declared round figures: the server's CPU, WAL, full-page images, blocks
// read, CPU, IO time per transaction), and its cost and rate against the
// least costly key — every figure from results.json.
func Markdown(res *results.Results) string {
	var b strings.Builder
	a := analysisOf(res)
	fmt.Fprintf(&b, "**keybench %s** (PostgreSQL %s): %s\n\n", mdCell.Replace(res.Scenario), mdCell.Replace(res.Environment.ServerVersion), mdCell.Replace(strings.Join(res.Plan.Keys, ", ")))
	for _, l := range answerLines(res, a) {
		fmt.Fprintf(&b, "**%s**\n\n", mdCell.Replace(l))
	}
	if line := busyLine(a); line != "" {
		fmt.Fprintf(&b, "%s\n\n", line)
	}
	figs := results.WorkCounts()
	for _, sh := range shapesOf(a) {
		title := sh.Title
		if p := res.Last(sh.Groups[0]).Pace; p != nil {
			title += fmt.Sprintf(", at a fixed %s tps", results.Kilo(p.RateTPS))
		}
		fmt.Fprintf(&b, "%s\n\n", mdCell.Replace(title))
		b.WriteString("| key | " + present.Rate.Header + " | " + present.Work.Header + " | latency mean ± sd (all txns) | " + present.P99Column.Header + " |")
		for _, f := range figs {
			b.WriteString(" " + f.Header + " |")
		}
		base, baseName, self := sh.rateBase()
		b.WriteString(" work vs " + sh.anchor() + " | rate vs " + baseName + " |\n|---|---:|---:|---:|---:|" + strings.Repeat("---:|", len(figs)) + "---|---|\n")
		cheapest := sh.group(sh.Least)
		for _, g := range sh.Groups {
			c := res.Last(g)
			fmt.Fprintf(&b, "| %s | %s | %s | %s ± %s ms | %s |", mdCell.Replace(g.Key), present.Rate.Text(res, g), present.Work.Text(res, g),
				results.Significant(c.LatencyMS.Mean), results.Significant(c.LatencyMS.StdDev), present.P99Column.Text(res, g))
			for _, f := range figs {
				v, ok := res.RoundMean(g, f)
				b.WriteString(" " + f.Text(v, ok) + " |")
			}
			fmt.Fprintf(&b, " %s | %s |\n", costAgainst(g, cheapest, sh.Against), rateVersus(g, base, self, true))
		}
		b.WriteString("\n")
	}
	b.WriteString(present.NotesOf(a.Groups, present.Rate, present.Work, present.P99Column) + " " + results.StatisticNote(figs) + ".\n\n")
	b.WriteString("Marks: " + marks + " (intervals: each comparison's own level). Made with keybench; every figure is in results.json.\n")
	return b.String()
}

func costAgainst(g, cheapest *results.Group, against bool) string {
	v, text := costVersus(g, cheapest, against)
	if v == nil {
		return text
	}
	return versusShort(v, true)
}

// costVersus is g's cost comparison with the cheapest key, or the text
// that stands for it when there is none ("-", "least"; "reference" where
// the question compares every key with the cheapest key given, mine).
func costVersus(g, cheapest *results.Group, against bool) (*results.Versus, string) {
	switch {
	case cheapest == nil:
		return nil, "-"
	case g == cheapest && against:
		return nil, "reference"
	case g == cheapest:
		return nil, "least"
	}
	if v := g.Cost.Versus(cheapest.Key); v != nil {
		return v, ""
	}
	return nil, "-"
}

// rateVersus is a key's rate against base's: self for base itself, "-"
// without one, "?" untested, else the mark and the ratio, with its
// interval when asked.
func rateVersus(g, base *results.Group, self string, interval bool) string {
	switch {
	case base == nil:
		return "?" // not compared: the legend's "? untested"
	case g == base:
		return self
	}
	v := versusOf(g, base.Key)
	return versusShort(&v, interval)
}

// CSV is every cell's figures, a row a cell: what it ran, its rate and
// latency, then every figure its metrics record (metrics.FigureNames, each
// declared once by its collector, then the workload's own summary): a
// number a column, an object's numbers a column each ("io.clients_io_ms"),
// a list as its JSON, an unmeasured figure empty with its reason in
// "NAME.unavailable"; then its cost per transaction, each round figure
// (results.RoundFigures) as "cost.NAME": its rounds' mean by its declared
// statistic, or its window's.
func CSV(res *results.Results) ([]byte, error) {
	rows := make([]map[string]string, len(res.Cells))
	var order []string
	seen := map[string]bool{}
	add := func(row map[string]string, col, v string) {
		if !seen[col] {
			seen[col] = true
			order = append(order, col)
		}
		row[col] = v
	}
	for i := range res.Cells {
		rows[i] = map[string]string{}
		if err := csvCell(res, i, func(col, v string) { add(rows[i], col, v) }); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(order); err != nil {
		return nil, err
	}
	for i, row := range rows {
		line := make([]string, len(order))
		for j, col := range order {
			v, ok := row[col]
			if !ok && countedIn(&res.Cells[i], col) {
				v = "0" // a count the cell measured and found none of: 0, never empty (empty is unmeasured)
			}
			line[j] = v
		}
		if err := w.Write(line); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// countedIn says that a column is a member of a count map the cell
// measured (its wait events' counts): a key it lacks is one it saw none of.
func countedIn(c *results.Cell, col string) bool {
	_, ok := c.Metrics.WaitEvents.Get()
	return ok && strings.HasPrefix(col, "wait_events.counts.")
}

// csvCell writes a cell's columns in order through add: its rate, p99 and
// work as every output names them (rate: the geometric mean of its rounds'
// rates; p99: the median of its rounds' p99; work: the geometric mean of
// its rounds' work per transaction on the run's device — a cell's
// window's where it ran one), then the same window's figures over all its
// transactions pooled under names of their own (tps_pooled, *_pooled_ms).
func csvCell(res *results.Results, i int, add func(col, v string)) error {
	c := &res.Cells[i]
	work, notCounted := workOfCell(res, i)
	for _, kv := range [][2]string{{"key", c.Key}, {"workload", c.Workload}, {"variant", strings.Join(c.Variant, " ")},
		{"clients", fmt.Sprint(c.Clients)}, {"rows_before", fmt.Sprint(c.RowsBefore)}, {"repeat", fmt.Sprint(c.Repeat)}, {"status", c.Status},
		{"txns", fmt.Sprint(c.Txns)}, {"rows_inserted", fmt.Sprint(c.RowsInserted)}, {"duration_s", fmt.Sprint(c.DurationS)},
		{present.Rate.Name, rateOfCell(res, i)}, {present.RateColumn.Name, medianRateOfCell(res, i)}, {present.P99Column.Name, fmt.Sprint(c.RoundsP99())}, {present.Work.Name, work}, {"work_not_counted", notCounted},
		{"tps_pooled", fmt.Sprint(c.TPS)}, {"rows_per_s", fmt.Sprint(c.RowsPerS)}, {"errors", fmt.Sprint(c.Errors)},
		{"mean_pooled_ms", fmt.Sprint(c.LatencyMS.Mean)}, {"stddev_pooled_ms", fmt.Sprint(c.LatencyMS.StdDev)},
		{"p50_pooled_ms", fmt.Sprint(c.LatencyMS.P50)}, {"p95_pooled_ms", fmt.Sprint(c.LatencyMS.P95)}, {"p99_pooled_ms", fmt.Sprint(c.LatencyMS.P99)},
		{"p999_pooled_ms", fmt.Sprint(c.LatencyMS.P999)}, {"max_ms", fmt.Sprint(c.LatencyMS.Max)}, {"rounds", fmt.Sprint(len(c.Rounds))}} {
		add(kv[0], kv[1])
	}
	b, err := json.Marshal(c.Metrics)
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	names := metrics.FigureNames()
	declared := map[string]bool{}
	for _, n := range names {
		declared[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(m)) { // the workload's own summary, after the collectors'
		if !declared[n] {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if raw, ok := m[n]; ok {
			flatten(n, raw, add)
		}
	}
	rounds := c.Rounds
	if len(rounds) == 0 && c.Cost != nil { // one window: its cost is its only sample
		rounds = []results.Round{{Cost: c.Cost}}
	}
	for _, f := range results.RoundFigures() {
		if v, ok := results.CostMean(rounds, f); ok {
			add("cost."+f.Name, fmt.Sprint(v))
		} else if why := results.CostReason(rounds, f.Get); why != "" {
			// Not measured (a server whose processes keybench cannot see): empty, with why.
			add("cost."+f.Name, "")
			add("cost."+f.Name+".unavailable", why)
		}
	}
	return nil
}

// flatten writes a JSON value as columns: a scalar as itself, an object's
// members under name.member, a list as its JSON, an unmeasured figure's
// reason under name.unavailable.
func flatten(name string, raw json.RawMessage, add func(col, v string)) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a byte count keeps its digits
	if dec.Decode(&v) != nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if why, ok := x["unavailable"].(string); ok && len(x) == 1 {
			add(name+".unavailable", why)
			return
		}
		var inner map[string]json.RawMessage
		_ = json.Unmarshal(raw, &inner)
		for _, k := range slices.Sorted(maps.Keys(inner)) {
			flatten(name+"."+k, inner[k], add)
		}
	case []any:
		add(name, string(raw))
	case nil:
	default:
		add(name, fmt.Sprint(x))
	}
}

// rateOfCell is cell i's rate as the first screen shows a key's (the
// geometric mean of its rounds' rates: Group.CellRates).
func rateOfCell(res *results.Results, i int) string {
	for _, g := range analysisOf(res).Groups {
		if v, ok := g.CellRate(i); ok {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// medianRateOfCell is cell i's median rate as the summary shows a key's
// (the median of its rounds' rates: the group's, for a key of one cell).
func medianRateOfCell(res *results.Results, i int) string {
	for _, g := range analysisOf(res).Groups {
		if len(g.Cells) == 1 && g.Cells[0] == i && g.TPS.N > 0 {
			return fmt.Sprint(g.TPS.Median)
		}
	}
	if v := res.Cells[i].RoundsMedianRate(); v > 0 {
		return fmt.Sprint(v)
	}
	return ""
}

// workOfCell is cell i's work per transaction as the first screen shows a
// key's (the geometric mean of its rounds' work on the run's device; its
// window's when it ran one: GroupCost.CellMeans) and the parts it leaves
// out, "; "-separated ("the server's CPU" on a server keybench cannot see
// into); "" where it has none.
func workOfCell(res *results.Results, i int) (work, notCounted string) {
	for _, g := range analysisOf(res).Groups {
		if w, ok := g.Cost.CellWork(&g, i); ok {
			return fmt.Sprint(w), strings.Join(g.Cost.Missing, "; ")
		}
	}
	return "", ""
}
