package verdict

import (
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// The WAL family: a key's WAL bytes per transaction, compared within the
// rounds every key of a shape measured it in (the paired block layout the
// work's comparisons use), Holm over the shape's WAL comparisons alone —
// a family of its own, whose error rate is held at stats.Alpha apart from
// the rates' and the work's. The work prices the WAL on one disk, where at
// a sustainable rate a random key's extra WAL may cost little; what the
// WAL is for a server's standbys, archive and backups does not depend on
// that price.

// walSample is a group's WAL per transaction, a figure a round, in the
// blocks its rounds ran in (none: a round without it, or no rounds).
func walSample(r *results.Results, g *results.Group) (sample, string) {
	var s sample
	for _, i := range g.Cells {
		for _, rd := range r.Cells[i].Rounds {
			if rd.Cost == nil {
				return sample{}, "a round recorded no cost (a results file of an earlier keybench)"
			}
			w, ok := rd.Cost.WALBytes.Get()
			if !ok {
				return sample{}, "WAL per transaction: " + rd.Cost.WALBytes.Reason()
			}
			s.values = append(s.values, w)
			s.blocks = append(s.blocks, block{r.Cells[i].Repeat, rd.Round})
		}
	}
	if len(s.values) == 0 {
		return sample{}, "one window per key: its WAL is measured, not compared"
	}
	return s, ""
}

// compareWAL compares the WAL of the shape's groups, pair by pair within
// their common rounds (each against the question's reference where it has
// one), Holm over the shape's WAL comparisons, and sets each group's WAL.
func (a *grouped) compareWAL(shape []int) {
	samples := make([]sample, len(shape))
	why := ""
	for x, gi := range shape {
		g := &a.groups[gi]
		s, reason := walSample(a.res, g)
		samples[x] = s
		g.WAL = &results.GroupWAL{Mean: walStatistic.Of(s.values)}
		if reason != "" && why == "" {
			why = reason
		}
	}
	var layout *stats.Blocks
	if why == "" && len(shape) > 1 {
		wals := common(samples)
		ok := wals != nil
		if ok {
			layout, ok = stats.NewBlocks(wals)
		}
		if !ok {
			why = "the keys did not measure their WAL in the same rounds, or a round wrote none"
		}
	}
	if why != "" || layout == nil {
		for _, gi := range shape {
			a.groups[gi].WAL.Unavailable = why
		}
		return
	}
	pair, tested := a.comparePairs(shape, layout.Compare)
	stats.Holm(tested)
	for x, vs := range a.versusAll(shape, pair) {
		a.groups[shape[x]].WAL.Compared = vs
	}
}

// walLeast is the shape's key of the least WAL per transaction (the
// geometric mean over its rounds; the question's reference where it has
// one) where the keys' WAL was compared, and
// the rate a day's WAL is reckoned at: the fixed rate of a paced run,
// else that key's own rate.
func walLeast(res *results.Results, gs []*results.Group) (string, float64) {
	var best *results.Group
	for _, g := range gs {
		if g.WAL == nil || g.WAL.Unavailable != "" || g.WAL.Mean <= 0 {
			return "", 0
		}
		if best == nil || g.WAL.Mean < best.WAL.Mean {
			best = g
		}
	}
	if best == nil || len(gs) < 2 {
		return "", 0
	}
	if ref := groupNamed(gs, res.Plan.Against); ref != nil {
		best = ref // the question's reference: every key's WAL was compared with it alone
	}
	if p := res.Last(best).Pace; p != nil && p.RateTPS > 0 {
		return best.Key, p.RateTPS
	}
	return best.Key, best.Rate
}
