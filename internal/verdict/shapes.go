package verdict

import (
	"math"
	"sort"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// shapes lays the groups out in their shapes and decides each shape's
// least costly key, its costliest and why, and its latency at a fixed rate.
func (a *grouped) shapes() []results.Shape {
	var out []results.Shape
	for _, members := range a.shapeMembers() {
		s := results.Shape{Title: describeShape(&a.groups[members[0]]), Groups: members}
		gs := make([]*results.Group, len(members))
		for i, gi := range members {
			gs[i] = &a.groups[gi]
		}
		s.Tested, s.Ordered = testedOrdered(gs)
		s.Least, s.NoCost = least(gs)
		if ref := a.res.Plan.Against; s.Least != "" && groupNamed(gs, ref) != nil {
			s.Least, s.Against = ref, true // every ratio is against the question's reference
		}
		if s.Least != "" {
			base := groupNamed(gs, s.Least)
			for _, g := range gs {
				// What makes a key's work more, and, where no difference
				// was found, the counts that differ all the same (too
				// small on this disk to move the work).
				if v := g.Cost.Versus(s.Least); v != nil && !v.TooFew {
					g.Cost.Why = a.why(g, base)
				}
			}
			if worst := costliest(gs, s.Least); worst != nil {
				s.Costliest = worst.Key
			}
		}
		s.Pace = a.pace(gs)
		s.WALLeast, s.WALRate = walLeast(a.res, gs)
		out = append(out, s)
	}
	return out
}

// testedOrdered says whether a pair of the shape's rates was tested, and
// whether one differs.
func testedOrdered(gs []*results.Group) (tested, ordered bool) {
	for _, g := range gs {
		for _, v := range g.Compared {
			tested = tested || !v.TooFew
			ordered = ordered || v.Significant
		}
	}
	return tested, ordered
}

// least is the key of the least work (the geometric mean over its rounds,
// the statistic its ratios are of), or why the shape's keys were
// not compared on cost ("" with no key: one key, or no costs recorded).
func least(gs []*results.Group) (key, why string) {
	var best *results.Group
	for _, g := range gs {
		switch {
		case g.Cost == nil && g.Unit == results.UnitRounds:
			return "", g.Key + "'s rounds recorded no work (a results file of an earlier keybench)"
		case g.Cost == nil:
			return "", ""
		case g.Cost.Unavailable != "":
			if g.Unit == results.UnitRounds {
				why = g.Key + "'s work per transaction is unavailable (" + g.Cost.Unavailable + ")"
			}
			return "", why
		case best == nil || g.Cost.Mean < best.Cost.Mean:
			best = g
		}
	}
	if best == nil {
		return "", ""
	}
	return best.Key, ""
}

// costliest is the key whose cost is significantly above the least's by
// the most (nil: none is).
func costliest(gs []*results.Group, leastKey string) *results.Group {
	var worst *results.Group
	most := 1.0
	for _, g := range gs {
		if g.Key == leastKey {
			continue
		}
		if v := g.Cost.Versus(leastKey); v != nil && v.Significant && v.Effect > most {
			worst, most = g, v.Effect
		}
	}
	return worst
}

func groupNamed(gs []*results.Group, key string) *results.Group {
	for _, g := range gs {
		if g.Key == key {
			return g
		}
	}
	return nil
}

// explainAbove is how far apart two keys' counts must be for their figure
// to explain a difference of cost: a tenth.
const explainAbove = 1.1

// why are the counts that make g's work more (or less) than base's: each
// count of the work (results.WorkCounts) whose figures (each its statistic)
// differ by more than a tenth, the farthest first, each with its ratio
// and, where every round of both counted some (the figures are then
// geometric means, their ratio the paired rounds'), the ratio within the
// rounds both ran with its 95% interval (a count's noise from round to
// round is its own: about 1% for WAL and images, more for the CPU).
func (a *grouped) why(g, base *results.Group) []results.Reason {
	var out []results.Reason
	for _, f := range results.WorkCounts() {
		x, okX := a.res.RoundMean(g, f)
		y, okY := a.res.RoundMean(base, f)
		if !okX || !okY || x <= 0 || y <= 0 || math.Abs(math.Log(x/y)) < math.Log(explainAbove) {
			continue
		}
		r := results.Reason{Figure: f.Name, Ratio: results.Ratio{Ratio: x / y}, Of: x, Against: y}
		if v := g.WAL.Versus(base.Key); f.Name == walFigure && v != nil && !v.TooFew && v.Level > 0 {
			// The WAL's own family decided this pair: its interval, one
			// per pair on every output (a pair's alone was narrower).
			r.Ratio = results.RatioOf(&v.Comparison)
			out = append(out, r)
			continue
		}
		sx, allX := a.figureSample(g, f.Get)
		sy, allY := a.figureSample(base, f.Get)
		// An interval of the paired rounds' ratios is the interval of a
		// ratio of geometric means; a figure shown as its rounds'
		// arithmetic mean gets its ratio alone.
		if pair := common([]sample{sy, sx}); pair != nil && allX && allY && f.Statistic == results.Geometric {
			if layout, ok := stats.NewBlocks(pair); ok {
				if c := layout.Compare(0, 1); !c.TooFew && c.Level > 0 {
					r.Ratio = results.RatioOf(&c)
				}
			}
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return math.Abs(math.Log(out[i].Ratio.Ratio)) > math.Abs(math.Log(out[j].Ratio.Ratio))
	})
	return out
}

// walFigure is the round figure the WAL family compares, walStatistic how
// its rounds make a key's WAL.
var (
	walFigure    = results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.WALBytes }).Name
	walStatistic = results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.WALBytes }).Statistic
)

// figureSample is a round figure of the group's rounds, each with its
// block, and whether every round that measured it counted some.
func (a *grouped) figureSample(g *results.Group, get func(*results.RoundCost) results.M[float64]) (sample, bool) {
	var s sample
	all := true
	for _, i := range g.Cells {
		for _, rd := range a.res.Cells[i].Rounds {
			if rd.Cost == nil {
				continue
			}
			v, ok := get(rd.Cost).Get()
			switch {
			case ok && v > 0:
				s.values = append(s.values, v)
				s.blocks = append(s.blocks, block{a.res.Cells[i].Repeat, rd.Round})
			case ok:
				all = false
			}
		}
	}
	return s, all
}

// busyShare is the share of the machine's CPU other processes took above
// which the machine is called busy.
const busyShare = 0.10

// busy is the machine's load over the run's rounds, each figure their
// declared statistic, as a key's own are (nil when no round read it).
func busy(res *results.Results) *results.Busy {
	var others, steals, waits []float64
	for _, c := range res.Cells {
		for _, rd := range c.Rounds {
			if rd.Cost == nil {
				continue
			}
			o, okO := rd.Cost.OthersCPUShare.Get()
			st, okS := rd.Cost.StealShare.Get()
			if okO || okS {
				others, steals = append(others, o), append(steals, st)
			}
			if w, ok := rd.Cost.ServerRunQueueMS.Get(); ok {
				waits = append(waits, w)
			}
		}
	}
	if len(others) == 0 {
		return nil
	}
	of := func(get func(*results.RoundCost) *results.M[float64], v []float64) float64 {
		return results.RoundFigureOf(get).Statistic.Of(v) // as each key's own is shown
	}
	b := &results.Busy{OthersShare: of(func(c *results.RoundCost) *results.M[float64] { return &c.OthersCPUShare }, others),
		StealShare: of(func(c *results.RoundCost) *results.M[float64] { return &c.StealShare }, steals),
		RunQueueMS: results.Unavailable[float64]("no round read its backends' wait for a CPU")}
	if len(waits) > 0 {
		b.RunQueueMS = results.Of(of(func(c *results.RoundCost) *results.M[float64] { return &c.ServerRunQueueMS }, waits))
	}
	b.Busy = b.OthersShare+b.StealShare > busyShare
	return b
}

// pace compares, for a shape run at a fixed rate, each key's rounds' p99
// with the key of the least median p99, Holm-adjusted over the shape's
// comparisons (nil: the shape ran flat out).
func (a *grouped) pace(gs []*results.Group) *results.PaceShape {
	if a.res.Last(gs[0]).Pace == nil {
		return nil
	}
	type key struct {
		g      *results.Group
		median float64
		rounds []float64
	}
	ks := make([]key, len(gs))
	for i, g := range gs {
		ks[i].g = g
		ks[i].median, ks[i].rounds = a.res.RoundsP99(g)
	}
	best := 0
	for i := range ks {
		if ks[i].median < ks[best].median {
			best = i
		}
	}
	out := &results.PaceShape{Least: ks[best].g.Key}
	var all []*stats.Comparison
	for i, k := range ks {
		pk := results.PaceKey{Key: k.g.Key, P99MS: k.median}
		if i != best && len(ks[best].rounds) > 0 && len(k.rounds) > 0 {
			c := stats.Compare(ks[best].rounds, k.rounds)
			pk.Versus = &c
			all = append(all, pk.Versus)
		}
		out.Keys = append(out.Keys, pk)
	}
	stats.Holm(all)
	return out
}
