package results

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Summary is a workload's own figures of a cell (a load's chunks, a queue's
// two rates and backlog), written into the cell's "metrics" object beside
// the collectors' figures: it must marshal as a JSON object whose names
// are not the collectors'.
//
// A summary holds figures; what a cell's rate counts is its Kind's
// (RateRole), one definition for the cell, its rounds and its seconds.
// It is a workload's own type, made by its Kind's NewSummary and read back
// into that type; a cell of a workload this keybench does not know keeps
// its summary as RawSummary.
type Summary interface {
	// WorkloadSummary marks the type as a workload's summary.
	WorkloadSummary()
}

// Kind says how the cells of one workload read: what their rate counts,
// which summary they carry, and how the summary table shows them. A
// workload registers its kind (Register) from its own file, so that
// results, the console and the report handle it without naming it.
type Kind struct {
	// RateUnit is what the headline rate counts ("" reads "tps").
	RateUnit string
	// RateLabel is the rate's axis label in charts ("" reads "transactions per second").
	RateLabel string
	// RateRole, when set, is the client role whose rows per second are the
	// rate (a queue's consumers: a row is done when it has left the
	// queue); otherwise the rate is transactions per second. It is the one
	// definition of a rate: of a cell, of its rounds and of its seconds (Rate).
	RateRole string
	// Upgrade, when set, fills in a cell read from an older results file
	// what that version did not record (a queue's rows per role).
	Upgrade func(c *Cell)
	// SecondsTimeline false: the timeline holds the workload's own steps
	// (a load's chunks), not seconds of a window.
	SecondsTimeline bool
	// NewSummary makes an empty summary to read a cell's into (nil: none).
	NewSummary func() Summary
	// Columns are the summary table's columns between key/workload and the
	// comparison; nil: the transactional ones.
	Columns []Column
	// Notes explain the table's columns (the noise line follows them);
	// Remarks come last.
	Notes, Remarks func(r *Results, groups []Group) []string
	// Headline, when set, says what the report's verdict ranks (the
	// default: keys ranked by median throughput at the headline's scale).
	Headline func(r *Results, groups []Group) string
	// Charts are the workload's own charts in the report.
	Charts []ChartSpec
}

// Column is a column of the summary table: a header and a group's text.
type Column struct {
	Header string
	// Left aligns the text left (figures align right).
	Left bool
	Text func(r *Results, g *Group) string
}

// ChartSpec is one of a workload's own charts in the report: one series per
// key, drawn from each key's first cell, as lines (Points) or grouped bars
// (Categories and Values).
type ChartSpec struct {
	// Heading names the chart on the page; Title is drawn in it.
	Heading, Title, XLabel, YLabel string
	// Caption explains the chart.
	Caption string
	// Keep selects the groups drawn (nil: all of them).
	Keep func(groups []*Group, g *Group) bool
	// Points are a line's points.
	Points func(c *Cell) (xs, ys []float64)
	// Categories and Values are grouped bars.
	Categories []string
	Values     func(c *Cell) ([]float64, bool)
	// LogY draws the bars on a logarithmic axis (figures orders of
	// magnitude apart: a scan's blocks beside an index's).
	LogY bool
	// Reference, when it has figures for the first key's cell, adds them
	// as a grey series (a write-up's).
	Reference func(c *Cell) (name string, ys []float64)
	// Missing says why the chart is left out when no key has its data.
	Missing string
}

var (
	kindsMu sync.RWMutex
	kinds   = map[string]Kind{}
)

// Register records the kind of the named workload's cells; workloads call
// it from init.
func Register(workload string, k Kind) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	kinds[workload] = k
}

// KindOf returns the kind of a workload's cells: the registered one, or a
// transactional kind for a workload this keybench does not know.
func KindOf(workload string) Kind {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	if k, ok := kinds[workload]; ok {
		return k
	}
	return Kind{SecondsTimeline: true}
}

// Rate is the kind's rate over a window of seconds in which the clients
// ran txns transactions and each role handled roleRows rows.
func (k Kind) Rate(txns int64, roleRows map[string]int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	if k.RateRole != "" {
		if n, ok := roleRows[k.RateRole]; ok {
			return float64(n) / seconds
		}
	}
	return float64(txns) / seconds
}

// Unit is what the kind's rate counts.
func (k Kind) Unit() string {
	if k.RateUnit == "" {
		return "tps"
	}
	return k.RateUnit
}

// RawSummary keeps the summary of a workload this keybench does not know,
// so that reading and writing results.json loses nothing.
type RawSummary map[string]json.RawMessage

// WorkloadSummary marks RawSummary as a summary.
func (RawSummary) WorkloadSummary() {}

// decodeSummary reads the workload's summary out of a cell's metrics object.
func decodeSummary(workload string, metrics []byte, known map[string]bool) (Summary, error) {
	k := KindOf(workload)
	if k.NewSummary != nil {
		s := k.NewSummary()
		if err := json.Unmarshal(metrics, s); err != nil {
			return nil, err
		}
		return s, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(metrics, &all); err != nil {
		return nil, err
	}
	raw := RawSummary{}
	for name, v := range all {
		if !known[name] {
			raw[name] = v
		}
	}
	if len(raw) == 0 {
		return nil, nil
	}
	return raw, nil
}

// Columns the workloads' tables share.
var (
	// RateColumn is the group's median rate with its interval.
	RateColumn = Column{Header: "median rate (95% CI)", Text: func(_ *Results, g *Group) string { return RateText(g) }}
	// P99Column is the group's 99th-percentile latency (of its last cell).
	P99Column = Column{Header: "p99", Text: func(r *Results, g *Group) string { return fmt.Sprintf("%.2f ms", r.Last(g).LatencyMS.P99) }}
)

// BlocksColumn shows the blocks per transaction of the group's last cell
// under header, as text renders them.
func BlocksColumn(header string, text func(BlocksPerTxn) string) Column {
	return Column{Header: header, Text: func(r *Results, g *Group) string { return r.Last(g).Metrics.BlocksPerTxn.Text(text) }}
}

// BlocksAndReads renders blocks per transaction as "touched (read)".
func BlocksAndReads(b BlocksPerTxn) string { return fmt.Sprintf("%.1f (%.2f)", b.Hit+b.Read, b.Read) }
