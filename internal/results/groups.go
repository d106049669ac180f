package results

import (
	"fmt"
	"math"

	"github.com/keybench/keybench/internal/stats"
)

// Group gathers the repetitions of one measurement (key, workload, clients,
// table size) and summarises them; results.json carries the groups so that
// every headline figure can be re-derived.
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
	// Cells are the indexes of the group's ok cells in Results.Cells.
	Cells []int `json:"cells"`
	// Unit says what the TPS sample holds: "rounds" (one figure per round,
	// --rounds), "runs" (one per run: --repeat, or a load's one run, whose
	// rate is its rows over the whole load) or "seconds" (one
	// window's per-second figures: not independent, so never tested).
	Unit string         `json:"unit"`
	TPS  stats.MedianCI `json:"tps"`
	// Compared is the group against every other key of the same shape
	// (workload, clients, table size), its p-values adjusted together
	// (Correction says how).
	Compared   []Versus `json:"compared,omitempty"`
	Correction string   `json:"correction,omitempty"`
	// Drift is the rank correlation (Spearman) of the group's rounds with
	// their order, when it ran five rounds or more: near ±1 the rate rose
	// or fell from round to round (the table or the machine changed).
	Drift *float64 `json:"drift,omitempty" kb:"signed"`
	// VsPrevious compares with the group listed before it in the same
	// workload, clients and size; VsFirst with the first key at that size.
	VsPrevious *Versus `json:"vs_previous,omitempty"`
	VsFirst    *Versus `json:"vs_first,omitempty"`
	// Cost is the group's server time per transaction, one figure a round,
	// compared within the rounds with every other key of the same shape:
	// the second family of the verdict, beside the rates (nil when the
	// rounds recorded no cost: a file of an earlier round, one round).
	Cost *GroupCost `json:"cost,omitempty"`

	sample []float64
	// blocks are the sample's blocks: blocks[i] is where sample[i] ran
	// (its repeat and round); none for per-second samples.
	blocks []block
}

// GroupCost is a group's cost family: its server time per transaction
// (RoundCost.ServerMS) over its rounds, and each comparison with another
// key of the shape — this group's cost over the other's, so above 1 is
// costlier — tested within the rounds as the rates are, the p-values
// adjusted with the rates' (Holm over both families), or why the cost
// could not be compared.
type GroupCost struct {
	Figure   string         `json:"figure"`
	Summary  stats.MedianCI `json:"summary"`
	Compared []Versus       `json:"compared,omitempty"`
	// Unavailable is why the shape's costs were not compared.
	Unavailable string `json:"unavailable,omitempty"`

	sample []float64
	blocks []block
}

// CostFigure is the figure the cost family compares.
const CostFigure = "server_ms_per_txn"

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

// block is a round of one repeat: the cells of a run's group ran their
// round r together, interleaved, so their rates in it share the machine's
// moment. A repeat without rounds is one block.
type block struct{ repeat, round int }

// Versus is a comparison with another group: this group's rate over the other's.
type Versus struct {
	Key string `json:"key"`
	stats.Comparison
}

// Task is what the group ran: its workload and read variant (Cell.Task).
func (g *Group) Task() string { return task(g.Workload, g.Variant, g.SharedBuffers) }

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

// BuildGroups builds the groups of the ok cells in plan order, and compares
// every two keys of the same shape.
func (r *Results) BuildGroups() []Group {
	var out []Group
	index := map[string]int{}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Status != StatusOK {
			continue
		}
		id := fmt.Sprintf("%s\x00%s\x00%d\x00%d", c.Key, c.Task(), c.Clients, c.RowsBefore)
		g, ok := index[id]
		if !ok {
			g = len(out)
			index[id] = g
			out = append(out, Group{Key: c.Key, Workload: c.Workload, Variant: c.Variant, SharedBuffers: c.SharedBuffers, Clients: c.Clients, Rows: c.RowsBefore})
		}
		out[g].Cells = append(out[g].Cells, i)
	}
	for gi := range out {
		r.sampleOf(&out[gi])
		r.costOf(&out[gi])
	}
	compareShapes(out, r.Plan.Sequential, r.Plan.CostSequential)
	return out
}

// costOf fills the group's cost sample: its rounds' server time per
// transaction, where every round of it measured one.
func (r *Results) costOf(g *Group) {
	if g.Unit != UnitRounds {
		return
	}
	c := &GroupCost{Figure: CostFigure}
	for _, i := range g.Cells {
		for _, rd := range r.Cells[i].Rounds {
			if rd.Cost == nil {
				return // a file of an earlier round
			}
			v, ok := rd.Cost.ServerMS.Get()
			if !ok {
				c.Unavailable = rd.Cost.ServerMS.Reason()
				g.Cost = c
				return
			}
			c.sample = append(c.sample, v)
			c.blocks = append(c.blocks, block{r.Cells[i].Repeat, rd.Round})
		}
	}
	c.Summary = stats.Summarize(c.sample)
	g.Cost = c
}

// sampleOf fills the group's sample: every round of its cells when they
// ran in rounds, else one figure per cell when it was repeated, else the
// per-second figures (for the charts and the median only).
func (r *Results) sampleOf(g *Group) {
	rounds := 0
	for _, i := range g.Cells {
		rounds += len(r.Cells[i].Rounds)
	}
	switch {
	case rounds >= 2:
		g.Unit = UnitRounds
		for _, i := range g.Cells {
			for _, rd := range r.Cells[i].Rounds {
				g.sample = append(g.sample, rd.Rate)
				g.blocks = append(g.blocks, block{r.Cells[i].Repeat, rd.Round})
			}
		}
	case len(g.Cells) >= 2 || !r.Cells[g.Cells[0]].Kind().SecondsTimeline:
		// Repeated cells, or one cell whose timeline holds its workload's
		// steps (a load's chunks): the cell's own rate is the sample (a
		// load's is its rows over the whole load, index build included).
		g.Unit = UnitRuns
		for _, i := range g.Cells {
			g.sample = append(g.sample, r.Cells[i].Rate())
			g.blocks = append(g.blocks, block{r.Cells[i].Repeat, 0})
		}
	default:
		g.Unit = UnitSeconds
		for _, i := range g.Cells {
			for _, s := range r.Cells[i].Timeline {
				g.sample = append(g.sample, r.Cells[i].SecondRate(s))
			}
		}
	}
	g.TPS = stats.Summarize(g.sample)
	if g.Unit == UnitRounds && len(g.Cells) == 1 && len(g.sample) >= 5 {
		order := make([]float64, len(g.sample))
		for i := range order {
			order[i] = float64(i)
		}
		rho := stats.Spearman(order, g.sample)
		g.Drift = &rho
	}
}

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

// compareShapes compares every two groups of the same shape (workload,
// clients, table size), adjusts each shape's p-values with Holm's method,
// and sets each group's comparison with the group before it and with the
// shape's first. Keys that ran in the same blocks (rounds or repeats) are
// compared within them (stats.Blocks); others by ranks. With a sequential
// design, keys that ran in the rounds of one run are decided by it, its
// looks replayed over their rates (the decisions that stopped the rounds).
// Groups whose samples are not independent are not tested: their
// comparisons say how many samples are needed.
func compareShapes(groups []Group, design, costDesign *stats.Sequential) {
	var order []string
	members := map[string][]*Group{}
	for i := range groups {
		k := groups[i].Shape()
		if _, ok := members[k]; !ok {
			order = append(order, k)
		}
		members[k] = append(members[k], &groups[i])
	}
	for _, k := range order {
		compareShape(members[k], design, costDesign)
	}
}

// compareShape compares the keys of one shape: their rates (the design's
// decisions when it decided the shape's rounds, else within the blocks
// or by ranks) and their costs, the two families adjusted together.
func compareShape(shape []*Group, design, costDesign *stats.Sequential) {
	rates := commonRates(shape)
	layout, _ := stats.NewBlocks(rates)
	var tested []*stats.Comparison
	pair := map[[2]int]*stats.Comparison{}
	sequential := design != nil && layout != nil && oneRun(shape)
	if sequential {
		decisions, _ := design.Decide(rates)
		for _, d := range decisions {
			c := d.Comparison
			pair[[2]int{d.A, d.B}] = &c
			tested = append(tested, &c)
		}
	}
	for x := 0; x < len(shape) && !sequential; x++ {
		for y := x + 1; y < len(shape); y++ {
			var c stats.Comparison
			if layout != nil {
				c = layout.Compare(x, y)
			} else {
				c = compareGroups(shape[x], shape[y])
			}
			pair[[2]int{x, y}] = &c
			if !c.TooFew {
				tested = append(tested, &c)
			}
		}
	}
	correction := ""
	if sequential {
		// The rates' design runs at its share of Alpha; the costs' at the other.
		costs, settleCosts := compareCosts(shape, costDesign)
		if costDesign == nil {
			stats.HolmShare(costs, stats.Families)
		}
		settleCosts()
		correction = fmt.Sprintf("a group-sequential design over %d comparisons (%s)", len(tested), design.Describe())
	} else {
		costs, settleCosts := compareCosts(shape, nil)
		// Holm over both families: the rates' and the costs'.
		stats.Holm(append(append([]*stats.Comparison(nil), tested...), costs...))
		stats.TooFewFor(tested)
		settleCosts()
		switch {
		case len(tested) > 0 && len(costs) > 0:
			correction = fmt.Sprintf("holm over %d comparisons (%d of rates, %d of costs)", len(tested)+len(costs), len(tested), len(costs))
		case len(tested) > 0:
			correction = fmt.Sprintf("holm over %d comparisons", len(tested))
		}
	}
	// What an untestable pair needs: rounds (or repeats) enough for
	// a block layout, whatever the number of keys.
	for _, c := range pair {
		if c.TooFew {
			c.Needed = stats.MinBlocks
		}
	}
	compared := versusAll(shape, pair)
	for x, g := range shape {
		g.Correction, g.Compared = correction, compared[x]
		if x > 0 {
			g.VsPrevious = &g.Compared[x-1]
			g.VsFirst = &g.Compared[0]
		}
	}
}

// versusAll lays out the pairs of a shape (stored as pair[{x, y}], x < y:
// y's figure over x's) as each group's comparisons with every other: its
// figure over the other's, in the shape's order.
func versusAll(shape []*Group, pair map[[2]int]*stats.Comparison) [][]Versus {
	out := make([][]Versus, len(shape))
	for x := range shape {
		for y, other := range shape {
			switch {
			case x == y:
				continue
			case y < x: // stored as other → g: this group's over the other's
				out[x] = append(out[x], Versus{Key: other.Key, Comparison: *pair[[2]int{y, x}]})
			default: // stored as g → other: invert
				out[x] = append(out[x], Versus{Key: other.Key, Comparison: invert(*pair[[2]int{x, y}])})
			}
		}
	}
	return out
}

// compareCosts compares the shape's costs within the rounds every group
// measured one in (each group's Cost.Compared: its cost over the other's),
// and returns the comparisons to adjust; none, with the reason in each
// group's Cost, when the shape's costs cannot be laid out in rounds.
func compareCosts(shape []*Group, design *stats.Sequential) (tested []*stats.Comparison, settle func()) {
	settle = func() {}
	why := ""
	for _, g := range shape {
		switch {
		case g.Cost == nil:
			return nil, settle
		case g.Cost.Unavailable != "" && why == "":
			why = g.Cost.Unavailable
		}
	}
	var costs [][]float64
	if why == "" {
		costs = commonSamples(shape, func(g *Group) ([]float64, []block) { return g.Cost.sample, g.Cost.blocks })
		if costs == nil {
			why = "the keys did not measure their cost in the same rounds"
		}
	}
	var layout *stats.Blocks
	if why == "" {
		var ok bool
		if layout, ok = stats.NewBlocks(costs); !ok {
			why = "a round's cost is not positive"
		}
	}
	if why != "" {
		for _, g := range shape {
			g.Cost.Unavailable = why
		}
		return nil, settle
	}
	pair := map[[2]int]*stats.Comparison{}
	if design != nil { // decided as the run's looks decided them: nothing left to adjust
		decisions, _ := design.Decide(costs)
		for _, d := range decisions {
			c := d.Comparison
			pair[[2]int{d.A, d.B}] = &c
		}
	} else {
		for x := range shape {
			for y := x + 1; y < len(shape); y++ {
				c := layout.Compare(x, y)
				pair[[2]int{x, y}] = &c
				tested = append(tested, &c)
			}
		}
	}
	// The adjustment is made on the pairs, then copied into the groups.
	settle = func() {
		for x, vs := range versusAll(shape, pair) {
			shape[x].Cost.Compared = vs
		}
	}
	return tested, settle
}

// oneRun says whether the shape's blocks are the rounds of one run (one
// repeat): the layout a sequential design decided as its rounds went.
func oneRun(shape []*Group) bool {
	for _, g := range shape {
		for _, b := range g.blocks {
			if b.repeat != g.blocks[0].repeat || b.round == 0 {
				return false
			}
		}
	}
	return true
}

// commonRates lays out the shape's samples by the blocks every group ran
// in (their rounds, or repeats): rates[group][block]; nil when there are
// fewer than stats.MinBlocks of them: a group without blocks (per-second
// samples), or keys that did not run together.
func commonRates(shape []*Group) [][]float64 {
	return commonSamples(shape, func(g *Group) ([]float64, []block) { return g.sample, g.blocks })
}

// commonSamples lays out a figure of the shape's groups (each sample with
// the block it ran in) by the blocks every group measured it in.
func commonSamples(shape []*Group, of func(*Group) ([]float64, []block)) [][]float64 {
	count := map[block]int{}
	for _, g := range shape {
		_, blocks := of(g)
		seen := map[block]bool{}
		for _, b := range blocks {
			if seen[b] {
				return nil // two samples in one block: not a block layout
			}
			seen[b] = true
			count[b]++
		}
	}
	var common []block
	_, first := of(shape[0])
	for _, b := range first { // in the order the first group ran them
		if count[b] == len(shape) {
			common = append(common, b)
		}
	}
	if len(common) < stats.MinBlocks {
		return nil
	}
	out := make([][]float64, len(shape))
	for x, g := range shape {
		sample, blocks := of(g)
		at := map[block]float64{}
		for i, b := range blocks {
			at[b] = sample[i]
		}
		for _, b := range common {
			out[x] = append(out[x], at[b])
		}
	}
	return out
}

// compareGroups is b against a by ranks: b's rate over a's.
func compareGroups(a, b *Group) stats.Comparison {
	if !a.Independent() || !b.Independent() {
		return stats.Comparison{N: 0, M: 0, P: 1, PAdjusted: 1, TooFew: true, Needed: stats.MinBlocks,
			Ratio: ratioOf(a.TPS.Median, b.TPS.Median)}
	}
	return stats.Compare(a.sample, b.sample)
}

func ratioOf(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return b / a
}

// invert turns "b over a" into "a over b".
func invert(c stats.Comparison) stats.Comparison {
	c.N, c.M = c.M, c.N
	inv := func(v float64) float64 {
		if v == 0 {
			return 0
		}
		return 1 / v
	}
	c.Ratio, c.Effect = inv(c.Ratio), inv(c.Effect)
	c.EffectLo, c.EffectHi = inv(c.EffectHi), inv(c.EffectLo)
	return c
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
