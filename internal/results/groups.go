package results

import (
	"fmt"

	"github.com/keybench/keybench/internal/stats"
)

// Group gathers the repetitions of one measurement (key, workload, clients,
// table size) and summarises them; results.json carries the groups so that
// every headline figure can be re-derived.
type Group struct {
	Key      string `json:"key"`
	Workload string `json:"workload"`
	Clients  int    `json:"clients"`
	Rows     int64  `json:"rows_before"`
	// Cells are the indexes of the group's ok cells in Results.Cells.
	Cells []int `json:"cells"`
	// Unit says what the TPS sample holds: "runs" (one figure per repetition,
	// with 5 or more) or "seconds" (the windows' per-second figures).
	Unit string        `json:"unit"`
	TPS  stats.Summary `json:"tps"`
	// VsPrevious compares with the group listed before it in the same
	// workload, clients and size; VsFirst with the first key at that size.
	VsPrevious *Versus `json:"vs_previous,omitempty"`
	VsFirst    *Versus `json:"vs_first,omitempty"`

	sample []float64
}

// Versus is a comparison with another group.
type Versus struct {
	Key string `json:"key"`
	stats.Comparison
}

// minRuns is the number of repetitions from which runs, not seconds, are the sample.
const minRuns = 5

// BuildGroups builds the groups of the ok cells in plan order.
func (r *Results) BuildGroups() []Group {
	var out []Group
	index := map[string]int{}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Status != StatusOK {
			continue
		}
		id := fmt.Sprintf("%s\x00%s\x00%d\x00%d", c.Key, c.Workload, c.Clients, c.RowsBefore)
		g, ok := index[id]
		if !ok {
			g = len(out)
			index[id] = g
			out = append(out, Group{Key: c.Key, Workload: c.Workload, Clients: c.Clients, Rows: c.RowsBefore})
		}
		out[g].Cells = append(out[g].Cells, i)
	}
	for gi := range out {
		g := &out[gi]
		if len(g.Cells) >= minRuns {
			g.Unit = "runs"
			for _, i := range g.Cells {
				g.sample = append(g.sample, r.Cells[i].Rate())
			}
		} else {
			g.Unit = "seconds"
			for _, i := range g.Cells {
				for _, s := range r.Cells[i].Timeline {
					g.sample = append(g.sample, r.Cells[i].SecondRate(s))
				}
			}
		}
		g.TPS = stats.Summarize(g.sample)
	}
	var prev, first *Group
	for gi := range out {
		g := &out[gi]
		same := func(o *Group) bool {
			return o != nil && o.Workload == g.Workload && o.Clients == g.Clients && o.Rows == g.Rows
		}
		if !same(prev) {
			prev, first = nil, nil
		}
		if prev != nil && len(prev.sample) > 0 && len(g.sample) > 0 {
			g.VsPrevious = &Versus{Key: prev.Key, Comparison: stats.Compare(prev.sample, g.sample)}
		}
		if first != nil && first != prev && len(first.sample) > 0 && len(g.sample) > 0 {
			g.VsFirst = &Versus{Key: first.Key, Comparison: stats.Compare(first.sample, g.sample)}
		} else if first != nil && first == prev {
			g.VsFirst = g.VsPrevious
		}
		if first == nil {
			first = g
		}
		prev = g
	}
	return out
}

// Sample is the group's TPS sample (per run or per second, as Unit says).
func (g *Group) Sample() []float64 { return g.sample }

// Median is the median of a figure over the group's cells that measured it.
func (r *Results) Median(g *Group, figure func(c *Cell) (float64, bool)) (float64, bool) {
	var v []float64
	for _, i := range g.Cells {
		if x, ok := figure(&r.Cells[i]); ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return stats.Summarize(v).Median, true
}

// Last is the group's last cell.
func (r *Results) Last(g *Group) *Cell { return &r.Cells[g.Cells[len(g.Cells)-1]] }

// First is the group's first cell.
func (r *Results) First(g *Group) *Cell { return &r.Cells[g.Cells[0]] }

// Float reads a measured figure as a float64 (for Median).
func Float[T int64 | float64](m M[T]) (float64, bool) {
	v, ok := m.Get()
	return float64(v), ok
}

// Rate is the cell's headline rate: transactions per second, or what its
// workload's summary says it is (rows per second for a load, rows consumed
// per second for a queue: a row is done when it has left the queue).
func (c *Cell) Rate() float64 {
	if c.Metrics.Summary != nil {
		if v, ok := c.Metrics.Summary.Rate(); ok {
			return v
		}
	}
	return c.TPS
}

// SecondRate is a second's figure of the rate Cell.Rate measures.
func (c *Cell) SecondRate(s Second) float64 { return c.Kind().SecondRate(s) }
