package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"

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
	switch format {
	case ExportMarkdown:
		return []byte(Markdown(res)), nil
	case ExportCSV:
		return CSV(res)
	case ExportJSON:
		return json.MarshalIndent(res, "", "  ")
	}
	return nil, fmt.Errorf("--export takes %s, not %q", strings.Join(ExportFormats, ", "), format)
}

// ExportDoc renders a command's answer in format (compare, project,
// advise): its console document as Markdown (paragraphs and tables) or
// CSV (each of its tables, a blank line between them), or value, the
// command's own typed answer, as JSON.
func ExportDoc(d *Doc, value any, format string) ([]byte, error) {
	switch format {
	case ExportMarkdown:
		return []byte(d.Markdown()), nil
	case ExportCSV:
		return d.CSV()
	case ExportJSON:
		return json.MarshalIndent(value, "", "  ")
	}
	return nil, fmt.Errorf("--export takes %s, not %q", strings.Join(ExportFormats, ", "), format)
}

// Markdown is the doc as Markdown: a paragraph a line of text, a GitHub
// table a table (figures right-aligned), and the legend of the write-ups
// it cites, as the console ends with it.
func (d *Doc) Markdown() string {
	var b strings.Builder
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
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
// when it was busy, then per task a row a key with its median rate, its
// server time, WAL and blocks read per transaction, and its cost and rate
// against the cheapest key — every figure from results.json.
func Markdown(res *results.Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**keybench %s** (PostgreSQL %s): %s\n\n", res.Scenario, res.Environment.ServerVersion, strings.Join(res.Plan.Keys, ", "))
	if line := busyLine(res); line != "" {
		fmt.Fprintf(&b, "%s\n\n", line)
	}
	groups := res.BuildGroups()
	for _, sh := range shapesOf(groups) {
		fmt.Fprintf(&b, "%s\n\n", sh.Title)
		b.WriteString("| key | median rate | server ms / txn | WAL / txn | blocks read / txn | cost vs cheapest | rate vs cheapest |\n")
		b.WriteString("|---|---:|---:|---:|---:|---|---|\n")
		ranked := append([]*results.Group(nil), sh.Groups...)
		cheapest := cheapestOf(ranked)
		for _, g := range ranked {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", g.Key, present.RateText(g),
				medianText(res, g, func(c *results.RoundCost) results.M[float64] { return c.ServerMS }, "%.3g"),
				medianText(res, g, func(c *results.RoundCost) results.M[float64] { return c.WALBytes }, "%.0f B"),
				medianText(res, g, func(c *results.RoundCost) results.M[float64] { return c.BlocksRead }, "%.2f"),
				costAgainst(g, cheapest), rateAgainst(g, cheapest))
		}
		b.WriteString("\n")
	}
	b.WriteString("`*` significant, `~` within noise (intervals: each comparison's own level). Made with keybench; every figure is in results.json.\n")
	return b.String()
}

// cheapestOf is the group of least median server time (nil without costs).
func cheapestOf(gs []*results.Group) *results.Group {
	var best *results.Group
	for _, g := range gs {
		if g.Cost == nil || g.Cost.Unavailable != "" {
			return nil
		}
		if best == nil || g.Cost.Summary.Median < best.Cost.Summary.Median {
			best = g
		}
	}
	return best
}

func medianText(res *results.Results, g *results.Group, get func(*results.RoundCost) results.M[float64], format string) string {
	if v, ok := roundMedian(res, g, get); ok {
		return fmt.Sprintf(format, v)
	}
	return "-"
}

func costAgainst(g, cheapest *results.Group) string {
	v, text := costVersus(g, cheapest)
	if v == nil {
		return text
	}
	return versusMark(v.Comparison.Significant) + fmt.Sprintf("%.2f× %s", v.Effect, v.IntervalText())
}

// costVersus is g's cost comparison with the cheapest key, or the text
// that stands for it when there is none ("-", "least").
func costVersus(g, cheapest *results.Group) (*results.Versus, string) {
	switch {
	case cheapest == nil:
		return nil, "-"
	case g == cheapest:
		return nil, "least"
	}
	if v := g.Cost.Versus(cheapest.Key); v != nil {
		return v, ""
	}
	return nil, "-"
}

func rateAgainst(g, cheapest *results.Group) string { return rateVersus(g, cheapest, true) }

// rateVersus is a key's rate against the cheapest key's: "-" for the
// cheapest or without one, "?" untested, else the mark and the ratio, with
// its interval when asked.
func rateVersus(g, cheapest *results.Group, interval bool) string {
	if cheapest == nil || g == cheapest {
		return "-"
	}
	v := versusOf(g, cheapest.Key)
	if v.TooFew {
		return "?"
	}
	if !interval {
		return versusMark(v.Significant) + fmt.Sprintf("%.2f×", v.Effect)
	}
	return versusMark(v.Significant) + fmt.Sprintf("%.2f× %s", v.Effect, v.IntervalText())
}

func versusMark(significant bool) string {
	if significant {
		return "* "
	}
	return "~ "
}

// CSV is every cell's figures, a row a cell: what it ran, its rate and
// latency, its sizes, WAL and blocks, and its rounds' median cost.
func CSV(res *results.Results) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	header := []string{"key", "workload", "variant", "clients", "rows_before", "repeat", "status", "txns", "duration_s", "tps",
		"p50_ms", "p99_ms", "table_bytes", "key_index_bytes", "wal_bytes_per_row", "wal_fpi_per_row", "leaf_density",
		"rounds", "server_ms_per_txn", "wal_bytes_per_txn", "blocks_read_per_txn", "others_cpu_share"}
	if err := w.Write(header); err != nil {
		return nil, err
	}
	for i := range res.Cells {
		c := &res.Cells[i]
		m := c.Metrics
		median := func(get func(*results.RoundCost) results.M[float64]) string {
			if v, ok := costMedian(c.Rounds, get); ok {
				return fmt.Sprint(v)
			}
			return ""
		}
		row := []string{c.Key, c.Workload, strings.Join(c.Variant, " "), fmt.Sprint(c.Clients), fmt.Sprint(c.RowsBefore), fmt.Sprint(c.Repeat),
			c.Status, fmt.Sprint(c.Txns), fmt.Sprint(c.DurationS), fmt.Sprint(c.TPS), fmt.Sprint(c.LatencyMS.P50), fmt.Sprint(c.LatencyMS.P99),
			csvM(m.TableBytes), csvM(m.KeyIndexBytes), csvM(m.WALBytesPerRow), csvM(m.WALFPIPerRow), csvM(m.LeafDensity),
			fmt.Sprint(len(c.Rounds)),
			median(func(r *results.RoundCost) results.M[float64] { return r.ServerMS }),
			median(func(r *results.RoundCost) results.M[float64] { return r.WALBytes }),
			median(func(r *results.RoundCost) results.M[float64] { return r.BlocksRead }),
			median(func(r *results.RoundCost) results.M[float64] { return r.OthersCPUShare })}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// csvM is a figure for a CSV cell: its value, or empty when not measured.
func csvM[T int64 | float64](m results.M[T]) string {
	if v, ok := m.Get(); ok {
		return fmt.Sprint(v)
	}
	return ""
}
