// Package present declares how a workload's cells are shown: its summary
// table's columns and their notes, what the report's verdict ranks, and the
// workload's own charts. A workload declares its View in its workload.Meta
// beside its results.Kind (which says what its cells hold and how their
// rate counts); package workload/all gathers them (Views) for the console
// and the report. results holds the schema, this package the presentation.
package present

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/results"
)

// View is how one workload's cells are shown.
type View struct {
	// Columns are the summary table's columns between key/workload and the
	// comparison; nil: the transactional ones.
	Columns []Column
	// Notes explain the table's columns (the noise line follows them);
	// Remarks come last.
	Notes, Remarks func(r *results.Results, groups []results.Group) []string
	// Headline, when set, says what the report's verdict ranks (the
	// default: keys ranked by median throughput at the headline's scale).
	Headline func(r *results.Results, groups []results.Group) string
	// Charts are the workload's own charts in the report.
	Charts []Chart
}

// Column is a column of a table of keys: its figure (results.Figure: its
// header, its words in a note where the header says more — "median
// rate", its interval's bracket in each cell —, what it is, in the notes
// under every table that shows it, and its name in the CSV and the
// JSON's groups), and a group's text.
type Column struct {
	results.Figure
	// Left aligns the text left (figures align right).
	Left bool
	Text func(r *results.Results, g *results.Group) string
}

// Notes are the columns' notes as a table's notes line: "header: note;"
// each, in the columns' order ("" where none has one).
func Notes(cols ...Column) string { return NotesOf(nil, cols...) }

// NotesOf is Notes for the groups shown: a note declared of "the
// rounds'" figures says what their samples were (runs, or one window's
// seconds, where the p99 is then all its transactions'): a legend says
// what was run, not what a run of rounds would have.
func NotesOf(groups []results.Group, cols ...Column) string {
	unit := results.UnitRounds
	for _, g := range groups {
		if g.Unit != results.UnitRounds {
			unit = g.Unit
		}
	}
	var out []string
	for _, c := range cols {
		if c.Note == "" {
			continue
		}
		note := c.Note
		switch unit {
		case results.UnitRuns:
			note = strings.ReplaceAll(note, "the rounds'", "the runs'")
		case results.UnitSeconds:
			note = strings.ReplaceAll(note, "the median of the rounds' p99", "its window's p99 over all its transactions (one window)")
			note = strings.ReplaceAll(note, "the rounds'", "its window's per-second")
		}
		out = append(out, c.Called()+": "+note+";")
	}
	return strings.Join(out, " ")
}

// Always are a view's Notes or Remarks that are the same for every run.
func Always(lines ...string) func(*results.Results, []results.Group) []string {
	return func(*results.Results, []results.Group) []string { return lines }
}

// Chart is one of a workload's own charts in the report: one series per
// key, drawn from each key's first cell, as lines (Points) or grouped bars
// (Categories and Values).
type Chart struct {
	// Heading names the chart on the page; Title is drawn in it.
	Heading, Title, XLabel, YLabel string
	// Caption explains the chart.
	Caption string
	// Keep selects the groups drawn (nil: all of them).
	Keep func(groups []*results.Group, g *results.Group) bool
	// Points are a line's points.
	Points func(c *results.Cell) (xs, ys []float64)
	// Categories and Values are grouped bars.
	Categories []string
	Values     func(c *results.Cell) ([]float64, bool)
	// LogY draws the bars on a logarithmic axis (figures orders of
	// magnitude apart: a scan's blocks beside an index's).
	LogY bool
	// Reference, when it has figures for the first key's cell, adds them
	// as a grey series (a write-up's).
	Reference func(c *results.Cell) (name string, ys []float64)
	// Missing says why the chart is left out when no key has its data.
	Missing string
}

// Views are the views of a catalog's workloads, by workload name
// (package workload/all makes them): the zero View, the transactional
// columns, for a workload it does not hold.
type Views map[string]View

// Of is how a workload's cells are shown.
func (vs Views) Of(workload string) View { return vs[workload] }

// The figures of a key every output shows, each declared once with its
// header, its statistic and its name in the CSV: the first screen's
// table, the summary, the page, the MD and the CSV take them from here.
var (
	// Rate is the group's rate: the geometric mean of its rounds' rates
	// (runs', or a window's seconds'; the median where one is not
	// positive), the statistic its ratios to other keys' are of.
	Rate = Column{Figure: results.RateFigure,
		Text: func(_ *results.Results, g *results.Group) string {
			// One style for the whole column (never "12.5k" above "6604").
			return fmt.Sprintf("%.0f %s", g.Rate, g.RateUnitText())
		}}
	// RateColumn is the group's median rate with its interval.
	RateColumn = Column{Figure: results.MedianRateFigure, Text: func(_ *results.Results, g *results.Group) string { return RateText(g) }}
	// P99Column is the group's p99 as every output names it, in the
	// tables' precision.
	P99Column = Column{Figure: results.P99Figure, Text: func(_ *results.Results, g *results.Group) string { return results.Millis(g.P99MS) }}
	// Work is the group's work per transaction: the geometric mean of its
	// rounds' (results.GroupCost.Mean), "-" where it has none.
	Work = Column{Figure: results.WorkFigure,
		Text: func(_ *results.Results, g *results.Group) string {
			if g.Cost == nil || g.Cost.Mean <= 0 {
				return "-"
			}
			return results.Significant(g.Cost.Mean) + " ms"
		}}
)

// BlocksColumn shows the blocks per transaction of the group's last cell
// under header, as text renders them.
func BlocksColumn(header string, text func(results.BlocksPerTxn) string) Column {
	return Column{Figure: results.Figure{Header: header}, Text: func(r *results.Results, g *results.Group) string { return r.Last(g).Metrics.BlocksPerTxn.Text(text) }}
}

// RateHeader names the median of a group's rounds' (or repeats') rates,
// a figure of its own beside its rate (their geometric mean, the first
// screen's): its interval's level is in each cell, as RateText writes it.
var RateHeader = results.MedianRateFigure.Header

// RateText is a group's median rate with its interval and the level the
// interval holds at, written as every interval's level is
// (stats.LevelText): "1234 tps [1200–1260, 99.2%]"; of too few samples
// for an interval (stats.HasInterval), the median alone.
func RateText(g *results.Group) string {
	s := g.TPS
	if s.N == 0 {
		return "-"
	}
	unit := g.RateUnitText()
	if !s.HasInterval() {
		return fmt.Sprintf("%.0f %s", s.Median, unit)
	}
	return fmt.Sprintf("%.0f %s %s", s.Median, unit, s.Text(results.Formatted("%.0f")))
}
