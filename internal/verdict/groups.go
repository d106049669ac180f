package verdict

import (
	"fmt"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// block is a round of one repeat: the cells of a run's group ran their
// round r together, interleaved, so their figures in it share the
// machine's moment. A repeat without rounds is one block.
type block struct{ repeat, round int }

// sample is a group's figures, each with the block it ran in (none for
// per-second figures).
type sample struct {
	values []float64
	blocks []block
}

// grouped is a run's groups with their samples beside them: the rates'
// and the costs' (a group without a cost sample has none).
type grouped struct {
	res    *results.Results
	groups []results.Group
	rates  []sample
	costs  []sample
}

// groupsOf builds the groups of the ok cells in plan order, and compares
// every two keys of the same shape.
func groupsOf(r *results.Results) *grouped {
	a := &grouped{res: r}
	index := map[string]int{}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Status != results.StatusOK {
			continue
		}
		id := fmt.Sprintf("%s\x00%s\x00%d\x00%d", c.Key, c.Task(), c.Clients, c.RowsBefore)
		g, ok := index[id]
		if !ok {
			g = len(a.groups)
			index[id] = g
			a.groups = append(a.groups, results.Group{Key: c.Key, Workload: c.Workload, Variant: c.Variant, SharedBuffers: c.SharedBuffers, PgMajor: c.PgMajor, Clients: c.Clients, Rows: c.RowsBefore,
				RateUnit: c.Kind().Unit()})
		}
		a.groups[g].Cells = append(a.groups[g].Cells, i)
	}
	a.rates, a.costs = make([]sample, len(a.groups)), make([]sample, len(a.groups))
	dev := DeviceOf(r)
	for gi := range a.groups {
		a.rates[gi] = rateSample(r, &a.groups[gi])
		a.groups[gi].P99MS, _ = r.RoundsP99(&a.groups[gi])
		a.costs[gi] = costSample(r, &a.groups[gi], dev)
	}
	a.compareShapes()
	return a
}

// workParts are the counts the work's parts (Work: CPU, reads, writes,
// WAL, flushes, in that order) are priced from.
var workParts = [5]results.RoundFigure{
	results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.ServerAllCPUMS }),
	results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.ServerReads }),
	results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.ServerWrites }),
	results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.WALBytes }),
	results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.WALFlushes }),
}

// costSample fills the group's cost (Group.Cost) and returns its sample:
// its rounds' work per transaction on dev (WorkOf), where every round of
// it measured one, with the work's parts' medians and what it left out.
func costSample(r *results.Results, g *results.Group, dev results.Device) sample {
	var s sample
	c := &results.GroupCost{Figure: results.CostFigure}
	var parts [5][]float64
	missing := map[string]bool{}
	for _, i := range g.Cells {
		rounds := r.Cells[i].Rounds
		if g.Unit != results.UnitRounds { // one window (or a run) a sample: its cost, not compared
			if r.Cells[i].Cost == nil {
				return sample{}
			}
			rounds = []results.Round{{Cost: r.Cells[i].Cost}}
		}
		from := len(s.values)
		for _, rd := range rounds {
			if rd.Cost == nil {
				return sample{} // a file of an earlier round
			}
			w, miss, ok := Work(rd.Cost, dev)
			if !ok {
				c.Unavailable = WorkOf(rd.Cost, dev).Reason()
				g.Cost = c
				return sample{}
			}
			for _, m := range miss {
				if !missing[m] {
					missing[m] = true
					c.Missing = append(c.Missing, m)
				}
			}
			for k, v := range []float64{w.CPUMS, w.ReadMS, w.WriteMS, w.WALMS, w.FlushMS} {
				parts[k] = append(parts[k], v)
			}
			s.values = append(s.values, total(w))
			s.blocks = append(s.blocks, block{r.Cells[i].Repeat, rd.Round})
		}
		c.CellMeans = append(c.CellMeans, results.WorkStatistic.Of(s.values[from:]))
	}
	c.Summary, c.Mean = stats.Summarize(s.values), results.WorkStatistic.Of(s.values)
	var of [5]float64
	sum := 0.0
	for k, v := range parts {
		of[k] = workParts[k].Statistic.Of(v) // each part as its count is shown
		sum += of[k]
	}
	if sum > 0 {
		c.Shares = results.WorkShares{CPU: of[0] / sum, Reads: of[1] / sum, Writes: of[2] / sum, WAL: of[3] / sum, Flushes: of[4] / sum}
	}
	g.Cost = c
	if g.Unit != results.UnitRounds {
		c.Unavailable = "one window per key: its work is measured, not compared (--rounds " + fmt.Sprint(stats.MinBlocks) + " or more compares it)"
		return sample{}
	}
	return s
}

// rateOf is the rate of a sample as every output shows it: its geometric
// mean (the statistic of its ratios), or its median where a value is not
// positive (a second that ran nothing).
func rateOf(v []float64) float64 {
	if m := stats.GeoMean(v); m > 0 || len(v) == 0 {
		return m
	}
	return stats.Summarize(v).Median
}

// rateSample sets the group's unit and rate summary and returns its
// sample: every round of its cells when they ran in rounds, else one
// figure per cell when it was repeated, else the per-second figures (for
// the charts and the median only).
func rateSample(r *results.Results, g *results.Group) sample {
	var s sample
	rounds := 0
	for _, i := range g.Cells {
		rounds += len(r.Cells[i].Rounds)
	}
	switch {
	case rounds >= 2:
		g.Unit = results.UnitRounds
		for _, i := range g.Cells {
			from := len(s.values)
			for _, rd := range r.Cells[i].Rounds {
				s.values = append(s.values, rd.Rate)
				s.blocks = append(s.blocks, block{r.Cells[i].Repeat, rd.Round})
			}
			g.CellRates = append(g.CellRates, rateOf(s.values[from:]))
		}
	case len(g.Cells) >= 2 || r.Cells[g.Cells[0]].Kind().StepsTimeline:
		// Repeated cells, or one cell whose timeline holds its workload's
		// steps (a load's chunks): the cell's own rate is the sample (a
		// load's is its rows over the whole load, index build included).
		g.Unit = results.UnitRuns
		for _, i := range g.Cells {
			s.values = append(s.values, r.Cells[i].Rate())
			s.blocks = append(s.blocks, block{r.Cells[i].Repeat, 0})
			g.CellRates = append(g.CellRates, r.Cells[i].Rate())
		}
	default:
		g.Unit = results.UnitSeconds
		for _, i := range g.Cells {
			from := len(s.values)
			for _, sec := range r.Cells[i].Timeline {
				s.values = append(s.values, r.Cells[i].SecondRate(sec))
			}
			g.CellRates = append(g.CellRates, rateOf(s.values[from:]))
		}
	}
	g.TPS, g.Rate = stats.Summarize(s.values), rateOf(s.values)
	if g.Unit == results.UnitRounds && len(g.Cells) == 1 && len(s.values) >= 5 {
		order := make([]float64, len(s.values))
		for i := range order {
			order[i] = float64(i)
		}
		rho := stats.Spearman(order, s.values)
		g.Drift = &rho
	}
	return s
}

// shapeMembers are the run's shapes (workload, clients, table size) in
// plan order, each its groups' indexes.
func (a *grouped) shapeMembers() [][]int {
	var out [][]int
	at := map[string]int{}
	for i := range a.groups {
		k := a.groups[i].Shape()
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out
}

// compareShapes compares every two groups of each shape, adjusts each
// shape's p-values with Holm's method, and sets each group's comparison
// with the group before it and with the shape's first. Keys that ran in
// the same blocks (rounds or repeats) are compared within them
// (stats.Blocks); others by ranks. With a sequential design, keys that
// ran in the rounds of one run are decided by it, its looks replayed over
// their rates (the decisions that stopped the rounds). Groups whose
// samples are not independent are not tested: their comparisons say how
// many samples are needed.
func (a *grouped) compareShapes() {
	for _, shape := range a.shapeMembers() {
		a.compareShape(shape)
	}
}

// compareShape compares the keys of one shape: their rates (the design's
// decisions when it decided the shape's rounds, else within the blocks
// or by ranks) and their costs, the two families adjusted together.
func (a *grouped) compareShape(shape []int) {
	design := a.res.Plan.Sequential
	if design != nil && common(pick(shape, a.costs)) == nil {
		design = design.Whole() // no work beside the rates: they decide at the whole level, as the runner did
	}
	rates := common(pick(shape, a.rates))
	layout, _ := stats.NewBlocks(rates)
	var tested []*stats.Comparison
	pair := map[[2]int]*stats.Comparison{}
	sequential := design != nil && layout != nil && a.oneRun(shape)
	if sequential {
		decisions, _ := design.Decide(rates)
		for _, d := range decisions {
			c := d.Comparison
			pair[[2]int{d.A, d.B}] = &c
			tested = append(tested, &c)
		}
	}
	if !sequential {
		var all []*stats.Comparison
		pair, all = a.comparePairs(shape, func(x, y int) stats.Comparison {
			if layout != nil {
				return layout.Compare(x, y)
			}
			return a.byRanks(shape[x], shape[y])
		})
		for _, c := range all {
			if !c.TooFew {
				tested = append(tested, c)
			}
		}
	}
	var used *stats.Sequential
	if sequential {
		used = design
	}
	correction := a.adjust(shape, tested, used)
	// What an untestable pair needs: rounds (or repeats) enough for
	// a block layout, whatever the number of keys.
	for _, c := range pair {
		if c.TooFew {
			c.Needed = stats.MinBlocks
		}
	}
	a.compareWAL(shape)
	compared := a.versusAll(shape, pair)
	for x, gi := range shape {
		g := &a.groups[gi]
		g.Correction, g.Compared, g.Sequential = correction, compared[x], used != nil
		if x > 0 { // where the question asked the pair
			g.VsPrevious = versusKey(g.Compared, a.groups[shape[x-1]].Key)
			g.VsFirst = versusKey(g.Compared, a.groups[shape[0]].Key)
		}
	}
}

// adjust compares the shape's costs and adjusts both families' p-values
// together (Holm over the rates' and the costs' comparisons), or, where a
// sequential design decided the rates, leaves each family to its design;
// it returns how the shape's comparisons were corrected.
func (a *grouped) adjust(shape []int, tested []*stats.Comparison, design *stats.Sequential) string {
	if design != nil {
		// The rates' design runs at its share of Alpha; the costs' at the other.
		costDesign := a.res.Plan.CostSequential
		costs, settleCosts := a.compareCosts(shape, costDesign)
		if costDesign == nil {
			stats.HolmShare(costs, stats.Families)
		}
		settleCosts()
		return fmt.Sprintf("a group-sequential design over %d comparisons (%s)", len(tested), design.Describe())
	}
	costs, settleCosts := a.compareCosts(shape, nil)
	// Holm over both families: the rates' and the costs'.
	stats.Holm(append(append([]*stats.Comparison(nil), tested...), costs...))
	stats.TooFewFor(tested)
	settleCosts()
	switch {
	case len(tested) > 0 && len(costs) > 0:
		return fmt.Sprintf("holm over %d comparisons (%d of rates, %d of costs)", len(tested)+len(costs), len(tested), len(costs))
	case len(tested) > 0:
		return fmt.Sprintf("holm over %d comparisons", len(tested))
	}
	return ""
}

// versusAll lays out the pairs of a shape (stored as pair[{x, y}], x < y:
// y's figure over x's) as each group's comparisons with every other: its
// figure over the other's, in the shape's order.
func (a *grouped) versusAll(shape []int, pair map[[2]int]*stats.Comparison) [][]results.Versus {
	for _, c := range pair {
		c.Practical(margin(a.res))
	}
	out := make([][]results.Versus, len(shape))
	for x := range shape {
		for y, other := range shape {
			key := a.groups[other].Key
			switch {
			case x == y || pair[[2]int{min(x, y), max(x, y)}] == nil: // itself, or a pair the question does not ask
				continue
			case y < x: // stored as other → g: this group's over the other's
				out[x] = append(out[x], results.Versus{Key: key, Comparison: *pair[[2]int{y, x}]})
			default: // stored as g → other: invert
				out[x] = append(out[x], results.Versus{Key: key, Comparison: invert(*pair[[2]int{x, y}])})
			}
		}
	}
	return out
}

// compareCosts compares the shape's costs within the rounds every group
// measured one in (each group's Cost.Compared: its cost over the other's),
// and returns the comparisons to adjust; none, with the reason in each
// group's Cost, when the shape's costs cannot be laid out in rounds.
func (a *grouped) compareCosts(shape []int, design *stats.Sequential) (tested []*stats.Comparison, settle func()) {
	settle = func() {}
	why := ""
	for _, gi := range shape {
		switch g := &a.groups[gi]; {
		case g.Cost == nil:
			return nil, settle
		case g.Cost.Unavailable != "" && why == "":
			why = g.Cost.Unavailable
		}
	}
	var costs [][]float64
	if why == "" {
		if costs = common(pick(shape, a.costs)); costs == nil {
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
		for _, gi := range shape {
			a.groups[gi].Cost.Unavailable = why
		}
		return nil, settle
	}
	pair := map[[2]int]*stats.Comparison{}
	if design != nil { // decided as the run's looks decided them: nothing left to adjust
		decisions, _ := design.Against(a.keysOf(shape)).Decide(costs)
		for _, d := range decisions {
			c := d.Comparison
			pair[[2]int{d.A, d.B}] = &c
		}
	} else {
		pair, tested = a.comparePairs(shape, layout.Compare)
	}
	// The adjustment is made on the pairs, then copied into the groups.
	settle = func() {
		for x, vs := range a.versusAll(shape, pair) {
			a.groups[shape[x]].Cost.Compared = vs
		}
	}
	return tested, settle
}

// comparePairs compares the pairs of the shape the question asks (every
// pair x < y, or each with the reference: Plan.Against), pair[{x, y}]
// being y's figure over x's, and lists them in order.
func (a *grouped) comparePairs(shape []int, compare func(x, y int) stats.Comparison) (map[[2]int]*stats.Comparison, []*stats.Comparison) {
	pair := map[[2]int]*stats.Comparison{}
	var all []*stats.Comparison
	ref := a.reference(shape)
	for x := range shape {
		for y := x + 1; y < len(shape); y++ {
			if ref >= 0 && x != ref && y != ref {
				continue // the question asks each key against the reference only
			}
			c := compare(x, y)
			pair[[2]int{x, y}] = &c
			all = append(all, &c)
		}
	}
	return pair, all
}

// versusKey is the comparison with key among vs (nil: not compared).
func versusKey(vs []results.Versus, key string) *results.Versus {
	for i := range vs {
		if vs[i].Key == key {
			return &vs[i]
		}
	}
	return nil
}

// reference is the index in the shape of the key the question compares
// every other with (Plan.Against), -1 where it asks about every pair or
// the shape lacks the key.
func (a *grouped) reference(shape []int) int {
	if a.res.Plan.Against == "" {
		return -1
	}
	for x, gi := range shape {
		if a.groups[gi].Key == a.res.Plan.Against {
			return x
		}
	}
	return -1
}

// keysOf are the shape's keys, in its order.
func (a *grouped) keysOf(shape []int) []string {
	out := make([]string, len(shape))
	for x, gi := range shape {
		out[x] = a.groups[gi].Key
	}
	return out
}

// oneRun says whether the shape's blocks are the rounds of one run (one
// repeat): the layout a sequential design decided as its rounds went.
func (a *grouped) oneRun(shape []int) bool {
	for _, gi := range shape {
		bs := a.rates[gi].blocks
		for _, b := range bs {
			if b.repeat != bs[0].repeat || b.round == 0 {
				return false
			}
		}
	}
	return true
}

// common lays out samples (each value with the block it ran in) by the
// blocks every one of them measured: out[sample][block]; nil when there
// are fewer than stats.MinBlocks of them: a group without blocks
// (per-second samples), or keys that did not run together.
func common(of []sample) [][]float64 {
	count := map[block]int{}
	for _, sm := range of {
		seen := map[block]bool{}
		for _, b := range sm.blocks {
			if seen[b] {
				return nil // two samples in one block: not a block layout
			}
			seen[b] = true
			count[b]++
		}
	}
	var shared []block
	for _, b := range of[0].blocks { // in the order the first ran them
		if count[b] == len(of) {
			shared = append(shared, b)
		}
	}
	if len(shared) < stats.MinBlocks {
		return nil
	}
	out := make([][]float64, len(of))
	for x, sm := range of {
		at := map[block]float64{}
		for i, b := range sm.blocks {
			at[b] = sm.values[i]
		}
		for _, b := range shared {
			out[x] = append(out[x], at[b])
		}
	}
	return out
}

// pick is the samples of the shape's groups, in its order.
func pick(shape []int, all []sample) []sample {
	out := make([]sample, len(shape))
	for x, gi := range shape {
		out[x] = all[gi]
	}
	return out
}

// byRanks is group y against group x by ranks: y's rate over x's.
func (a *grouped) byRanks(x, y int) stats.Comparison {
	gx, gy := &a.groups[x], &a.groups[y]
	if !gx.Independent() || !gy.Independent() {
		return stats.Comparison{N: 0, M: 0, P: 1, PAdjusted: 1, TooFew: true, Needed: stats.MinBlocks,
			Ratio: ratioOf(gx.TPS.Median, gy.TPS.Median)}
	}
	return stats.Compare(a.rates[x].values, a.rates[y].values)
}

func ratioOf(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return b / a
}

// invert turns "b over a" into "a over b".
// margin is the run's equivalence margin: its plan's, or stats.DefaultMargin.
func margin(res *results.Results) float64 {
	if m := res.Plan.MinEffect; m > 0 {
		return m
	}
	return stats.DefaultMargin
}

func invert(c stats.Comparison) stats.Comparison {
	c.N, c.M = c.M, c.N
	inv := func(v float64) float64 {
		if v == 0 {
			return 0
		}
		return 1 / v
	}
	c.Ratio, c.Effect = inv(c.Ratio), inv(c.Effect)
	c.Lo, c.Hi = inv(c.Hi), inv(c.Lo)
	return c
}

// Layouts are a task's cells' rates and work (WorkOf on dev) over their
// first done rounds, [cell][round], as the analysis reads them: what the
// runner's sequential designs look at after each round. nil when a cell
// is behind the others, or (costs) when a round recorded none.
func Layouts(cs []results.Cell, idx []int, done int, dev results.Device) (rates, costs [][]float64) {
	rates, costs = make([][]float64, len(idx)), make([][]float64, len(idx))
	for i, k := range idx {
		for _, rd := range cs[k].Rounds {
			rates[i] = append(rates[i], rd.Rate)
			if costs == nil {
				continue
			}
			v, ok := 0.0, false
			if rd.Cost != nil {
				v, ok = WorkOf(rd.Cost, dev).Get()
			}
			if !ok {
				costs = nil
			} else {
				costs[i] = append(costs[i], v)
			}
		}
		if len(rates[i]) != done {
			return nil, nil // a cell behind the others (it cannot be): go on
		}
	}
	return rates, costs
}
