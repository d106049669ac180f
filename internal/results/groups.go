package results

import (
	"fmt"
	"math"

	"github.com/keybench/keybench/internal/stats"
)

// Group gathers the repetitions of one measurement (key, workload, clients,
// table size) and summarises them: package verdict makes the groups, once
// per run (Analysis), and every output reads them from there.
type Group struct {
	Key      string `json:"key"`
	Workload string `json:"workload"`
	// Variant is the task's variant (Cell.Variant).
	Variant []string `json:"variant,omitempty"`
	Clients int      `json:"clients"`
	Rows    int64    `json:"rows_before"`
	// SharedBuffers is the cache the group ran at when the run measured
	// several (Cell.SharedBuffers).
	SharedBuffers int64 `json:"shared_buffers,omitempty"`
	// PgMajor is the PostgreSQL major the group ran on when the run
	// measured several (Cell.PgMajor).
	PgMajor int `json:"pg_major,omitempty"`
	// Cells are the indexes of the group's ok cells in Results.Cells.
	Cells []int `json:"cells"`
	// Unit says what the TPS sample holds: "rounds" (one figure per round,
	// --rounds), "runs" (one per run: --repeat, or a load's one run, whose
	// rate is its rows over the whole load) or "seconds" (one
	// window's per-second figures: not independent, so never tested).
	Unit string         `json:"unit"`
	TPS  stats.MedianCI `json:"median_rate"`
	// RateUnit is what the rate counts ("tps", "rows/s": its cells'
	// Kind.Unit), recorded so that the file says it whatever reads it.
	RateUnit string `json:"rate_unit"`
	// Rate is the geometric mean of the rate's sample: the statistic its
	// ratios to other keys' are of (the geometric mean of the rounds'
	// ratios, when they ran in the same rounds), said beside them — every
	// output's "rate" (the median where a sample is not positive).
	// CellRates are the same over each cell's part of the sample, in
	// Cells' order: a cell's rate as the CSV writes it.
	Rate      float64   `json:"rate"`
	CellRates []float64 `json:"cell_rates,omitempty"`
	// P99MS is the median of its rounds' p99 (RoundsP99), every output's p99.
	P99MS float64 `json:"p99_ms"`
	// Compared is the group against every other key of the same shape
	// (workload, clients, table size), its p-values adjusted together
	// (Correction says how).
	Compared   []Versus `json:"compared,omitempty"`
	Correction string   `json:"correction,omitempty"`
	// Sequential says the comparisons were decided by the plan's
	// group-sequential design (Correction then says which), not by one
	// test at the end.
	Sequential bool `json:"sequential,omitempty"`
	// Drift is the rank correlation (Spearman) of the group's rounds with
	// their order, when it ran five rounds or more: near ±1 the rate rose
	// or fell from round to round (the table or the machine changed).
	Drift *float64 `json:"drift,omitempty" kb:"signed"`
	// VsPrevious compares with the group listed before it in the same
	// workload, clients and size; VsFirst with the first key at that size.
	VsPrevious *Versus `json:"vs_previous,omitempty"`
	VsFirst    *Versus `json:"vs_first,omitempty"`
	// Cost is the group's work per transaction, one figure a round,
	// compared within the rounds with every other key of the same shape:
	// the second family of the verdict, beside the rates (nil when the
	// rounds recorded no cost: a file of an earlier round, one round).
	Cost *GroupCost `json:"cost,omitempty"`
	// WAL is the group's WAL per transaction, a family of its own beside
	// the work: every standby receives that WAL, every archive keeps it and
	// every point-in-time recovery replays it, whatever the disk costs.
	WAL *GroupWAL `json:"wal,omitempty"`
}

// GroupWAL is a group's WAL bytes per transaction over its rounds (Mean,
// their geometric mean) and each comparison with another key of the
// shape (this group's WAL over the other's), tested within the rounds
// they ran together, Holm over the shape's WAL comparisons: a family of
// its own, its error rate held at stats.Alpha; or why it was not compared.
type GroupWAL struct {
	Mean        float64  `json:"mean_bytes_per_txn,omitempty"` // absent, never 0, where Unavailable says why
	Compared    []Versus `json:"compared,omitempty"`
	Unavailable string   `json:"unavailable,omitempty"`
}

// Versus is this group's WAL comparison with key (nil: none).
func (w *GroupWAL) Versus(key string) *Versus {
	if w == nil {
		return nil
	}
	for i := range w.Compared {
		if w.Compared[i].Key == key {
			return &w.Compared[i]
		}
	}
	return nil
}

// GroupCost is a group's cost family: its work per transaction (CPU of
// every server process and its IO counts priced on a device: package
// verdict) over its rounds, and each comparison with another
// key of the shape — this group's cost over the other's, so above 1 is
// costlier — tested within the rounds as the rates are, the p-values
// adjusted with the rates' (Holm over both families), or why the cost
// could not be compared.
type GroupCost struct {
	Figure  string         `json:"figure"`
	Summary stats.MedianCI `json:"summary"`
	// Mean is the work over the rounds (WorkStatistic: their geometric
	// mean, the statistic of its ratios; ms per transaction on the run's
	// device), Shares its parts' shares of it, Missing the parts not
	// counted.
	Mean float64 `json:"mean"`
	// CellMeans are the same geometric mean over each of the group's
	// cells' rounds alone, in Cells' order: a cell's work as the CSV
	// writes it (0: a cell whose rounds recorded none).
	CellMeans []float64  `json:"cell_means,omitempty"`
	Shares    WorkShares `json:"shares"`
	Missing   []string   `json:"missing,omitempty"`
	Compared  []Versus   `json:"compared,omitempty"`
	// Unavailable is why the shape's costs were not compared.
	Unavailable string `json:"unavailable,omitempty"`
	// Why, for a key compared with its shape's least costly key, is what
	// makes its work more where it is significantly more, and, where no
	// difference was found, the counts that differ all the same: the
	// round figures whose medians differ from the least's by more than a
	// tenth, the farthest first.
	Why []Reason `json:"why,omitempty"`
}

// WorkParts are a transaction's work in its parts, ms on the run's device:
// the CPU of every server process, the blocks read, the blocks written,
// the WAL written and its flushes.
type WorkParts struct {
	CPUMS   float64 `json:"cpu_ms"`
	ReadMS  float64 `json:"read_ms"`
	WriteMS float64 `json:"write_ms"`
	WALMS   float64 `json:"wal_ms"`
	FlushMS float64 `json:"flush_ms"`
}

// WorkShares are the work's parts as shares of it: each part's rounds'
// mean (the statistic of the count it is priced from) over the sum of
// every part's, so that they add up to 1. A share, not a part's ms: the
// parts' own figures per transaction are the counts (RoundCost, each its
// RoundFigure.Statistic), and the work's geometric mean is not the sum of
// its parts' means.
type WorkShares struct {
	CPU     float64 `json:"cpu"`
	Reads   float64 `json:"blocks_read"`
	Writes  float64 `json:"blocks_written"`
	WAL     float64 `json:"wal"`
	Flushes float64 `json:"wal_flushes"`
}

// CostFigure is the figure the cost family compares: the work a
// transaction made the server do, priced on the run's device (package
// verdict: Work); WorkStatistic is how its rounds make a key's work, the
// statistic its ratios are of.
const (
	CostFigure    = "work_ms_per_txn"
	WorkStatistic = Geometric
)

// CellRate is the rate of the group's cell i (an index of Results.Cells)
// as CellRates holds it; false when the group has no such cell.
func (g *Group) CellRate(i int) (float64, bool) {
	for k, ci := range g.Cells {
		if ci == i && k < len(g.CellRates) {
			return g.CellRates[k], true
		}
	}
	return 0, false
}

// CellWork is the work of the group's cell i (an index of Results.Cells)
// as CellMeans holds it; false when the group has no such cell or it
// recorded no work.
func (c *GroupCost) CellWork(g *Group, i int) (float64, bool) {
	if c == nil {
		return 0, false
	}
	for k, ci := range g.Cells {
		if ci == i && k < len(c.CellMeans) && c.CellMeans[k] > 0 {
			return c.CellMeans[k], true
		}
	}
	return 0, false
}

// MeanOrZero is the group's work per transaction (0: none).
func (c *GroupCost) MeanOrZero() float64 {
	if c == nil {
		return 0
	}
	return c.Mean
}

// Versus is this group's cost comparison with key (nil: none).
func (c *GroupCost) Versus(key string) *Versus {
	if c == nil {
		return nil
	}
	for i := range c.Compared {
		if c.Compared[i].Key == key {
			return &c.Compared[i]
		}
	}
	return nil
}

// Versus is a comparison with another group: this group's rate over the other's.
type Versus struct {
	Key string `json:"key"`
	stats.Comparison
}

// RateUnitText is what the group's rate counts ("tps" where unrecorded).
func (g *Group) RateUnitText() string { return Kind{RateUnit: g.RateUnit}.Unit() }

// Task is what the group ran: its workload and read variant (Cell.Task).
func (g *Group) Task() string { return task(g.Workload, g.Variant, g.SharedBuffers, g.PgMajor) }

// Shape is what the group's keys are compared under: the task, clients and table size.
func (g *Group) Shape() string { return fmt.Sprintf("%s\x00%d\x00%d", g.Task(), g.Clients, g.Rows) }

// SameShape says whether two groups were measured under the same conditions.
func (g *Group) SameShape(o *Group) bool { return g.Shape() == o.Shape() }

// Independent says whether the group's samples may be tested.
func (g *Group) Independent() bool { return g.Unit != UnitSeconds }

// Sample units.
const (
	UnitRounds  = "rounds"
	UnitRuns    = "runs"
	UnitSeconds = "seconds"
)

// RoundShift is the group's last round's rate over its first round's (of
// its first cell that ran two rounds or more): how far the rate moved
// between the start and the end of the run.
func (r *Results) RoundShift(g *Group) (float64, bool) {
	for _, i := range g.Cells {
		if rd := r.Cells[i].Rounds; len(rd) >= 2 && rd[0].Rate > 0 {
			return rd[len(rd)-1].Rate / rd[0].Rate, true
		}
	}
	return 0, false
}

// Drifted says whether the group's rounds trend with their order.
func (g *Group) Drifted() bool { return g.Drift != nil && math.Abs(*g.Drift) >= stats.DriftThreshold }

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

// RoundsP99 is the group's p99 as every output names it: the median over
// its cells' rounds of their p99 (Cell.RoundP99s), with those p99s; the
// last cell's window's where no round recorded one.
func (r *Results) RoundsP99(g *Group) (float64, []float64) {
	var v []float64
	for _, i := range g.Cells {
		v = append(v, r.Cells[i].RoundP99s()...)
	}
	if len(v) == 0 {
		return r.Last(g).LatencyMS.P99, nil
	}
	return stats.Summarize(v).Median, v
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

// Rate is the cell's headline rate over its window, as its kind defines
// it (Kind.Rate): transactions per second, or a role's rows per second.
func (c *Cell) Rate() float64 {
	if c.DurationS <= 0 {
		return c.TPS
	}
	return c.Kind().Rate(c.Txns, c.RoleRows, c.DurationS)
}

// SecondRate is a second's figure of the rate Cell.Rate measures.
func (c *Cell) SecondRate(s Second) float64 { return c.Kind().SecondRate(s) }

// RoundMean is a figure of a group's rounds' cost as every output shows
// it (its declared statistic), where measured (a cell of one window: its cost stands
// for its only sample).
func (r *Results) RoundMean(g *Group, f RoundFigure) (float64, bool) {
	var rounds []Round
	for _, i := range g.Cells {
		c := &r.Cells[i]
		rounds = append(rounds, c.Rounds...)
		if len(c.Rounds) == 0 && c.Cost != nil {
			rounds = append(rounds, Round{Cost: c.Cost})
		}
	}
	return CostMean(rounds, f)
}

// CostReason is why no round measured a figure of their cost: the first
// round's reason ("" where one measured it).
func CostReason(rounds []Round, get func(*RoundCost) M[float64]) string {
	why := ""
	for _, rd := range rounds {
		if rd.Cost == nil {
			continue
		}
		m := get(rd.Cost)
		if _, ok := m.Get(); ok {
			return ""
		}
		if why == "" {
			why = m.Reason()
		}
	}
	if why == "" && len(rounds) > 0 {
		why = "not recorded in any round"
	}
	return why
}

// CostMean is a round figure over the rounds that measured it: its
// declared statistic (RoundFigure.Statistic) of their values.
func CostMean(rounds []Round, f RoundFigure) (float64, bool) {
	var v []float64
	for _, rd := range rounds {
		if rd.Cost == nil {
			continue
		}
		if x, ok := f.Get(rd.Cost).Get(); ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return f.Statistic.Of(v), true
}
