package advise

import (
	"fmt"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
)

// Measured is what a table's lab measured (advise --lab): the table's key
// against the ordered key of the least work the lab ran beside it,
// read from the lab's results at path — its cost per transaction and its
// rate, each a ratio with its interval and whether the direction is known
// — or why the lab gave no verdict (runErr: the lab did not finish).
func Measured(path string, lab *Lab, runErr error) *LabResult {
	out := &LabResult{Results: path, Key: lab.Key}
	res, err := verdict.Read(path)
	switch {
	case err != nil && runErr != nil:
		out.Unavailable = "the lab failed: " + runErr.Error()
		return out
	case err != nil:
		out.Unavailable = "its results could not be read: " + err.Error()
		return out
	}
	groups := res.Analysis.Groups
	var mine *results.Group
	for i := range groups {
		if groups[i].Key == lab.Key {
			mine = &groups[i]
		}
	}
	if mine == nil {
		out.Unavailable = "the lab measured no cell of " + lab.Key
		if runErr != nil {
			out.Unavailable += " (" + runErr.Error() + ")"
		}
		return out
	}
	against := cheapestOther(groups, mine)
	if against == nil {
		out.Unavailable = "the lab measured no other key beside " + lab.Key
		return out
	}
	out.Against = against.Key
	if v := mine.Cost.Versus(against.Key); v != nil {
		out.Cost = labRatio(v.Comparison)
	}
	if out.Cost == nil {
		out.CostUnavailable = "too few rounds to compare"
		if mine.Cost == nil {
			out.CostUnavailable = "the lab's rounds recorded no cost"
		} else if mine.Cost.Unavailable != "" {
			out.CostUnavailable = mine.Cost.Unavailable
		}
	}
	for _, v := range mine.Compared {
		if v.Key == against.Key {
			out.Rate = labRatio(v.Comparison)
		}
	}
	if out.Cost == nil && out.Rate == nil {
		out.Unavailable = fmt.Sprintf("%s and %s were not compared: too few rounds", lab.Key, against.Key)
		if mine.Cost != nil && mine.Cost.Unavailable != "" {
			out.Unavailable = mine.Cost.Unavailable
		}
	}
	return out
}

// cheapestOther is the key of mine's shape, other than mine, of the least
// work per transaction (of the highest median rate where
// the costs were not measured).
func cheapestOther(groups []results.Group, mine *results.Group) *results.Group {
	var best *results.Group
	better := func(g *results.Group) bool {
		if best == nil {
			return true
		}
		if g.Cost != nil && best.Cost != nil && g.Cost.Mean > 0 && best.Cost.Mean > 0 {
			return g.Cost.Mean < best.Cost.Mean
		}
		return g.TPS.Median > best.TPS.Median
	}
	for i := range groups {
		g := &groups[i]
		if g != mine && g.SameShape(mine) && better(g) {
			best = g
		}
	}
	return best
}

// labRatio is a comparison as the advice carries it (nil when it was not
// tested or has no interval).
func labRatio(c stats.Comparison) *LabRatio {
	if c.TooFew || c.Degenerate || c.EffectConfidence <= 0 {
		return nil
	}
	return &LabRatio{Ratio: c.Effect, Lo: c.EffectLo, Hi: c.EffectHi, Confidence: c.EffectConfidence, Significant: c.Significant}
}
