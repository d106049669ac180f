package verdict

import (
	"slices"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// majorsOf answers a run over several PostgreSQL majors (nil for one):
// each major's cells analysed as a run of their own (its answer as that
// run would give it), and each key's work over the reference's on every
// major with how it moved from the first major's, the keys' moves tested
// as one family (Bonferroni over them, at stats.Alpha). The reference is
// the question's (--against) or the first major's least working key.
func majorsOf(res *results.Results) *results.Majors {
	var majors []int
	for _, c := range res.Cells {
		if c.PgMajor > 0 && !slices.Contains(majors, c.PgMajor) {
			majors = append(majors, c.PgMajor)
		}
	}
	if len(majors) < 2 {
		return nil
	}
	out := &results.Majors{}
	subs := make([]*results.Analysis, len(majors))
	for i, m := range majors {
		sub := *res
		sub.Cells, sub.Analysis, sub.Majors = nil, nil, nil
		for _, c := range res.Cells {
			if c.PgMajor == m {
				sub.Cells = append(sub.Cells, c)
			}
		}
		subs[i] = analysisOf(&sub)
		out.Answers = append(out.Answers, results.MajorAnswer{Major: m, Answer: subs[i].Answer})
	}
	first := headline(subs[0])
	if first == nil {
		return out
	}
	out.Reference = first.Least
	keys := subs[0].ShapeGroups(first)
	out.Level = 1 - stats.Alpha/float64(max(1, len(keys)-1))
	for _, g := range keys {
		if g.Key == out.Reference {
			continue
		}
		k := results.AcrossMajors{Key: g.Key}
		var base *stats.Comparison
		for i, a := range subs {
			sh := headline(a)
			if sh == nil {
				continue
			}
			v := a.GroupOf(sh, g.Key).Cost.Versus(out.Reference)
			if v == nil {
				continue
			}
			k.Ratios = append(k.Ratios, results.MajorRatio{Major: majors[i], Comparison: v.Comparison})
			if base == nil {
				base = &v.Comparison
				continue
			}
			if moved, ok := stats.RatioOfRatios(*base, v.Comparison, out.Level); ok {
				k.Moved = append(k.Moved, results.MajorMove{Major: majors[i], Comparison: moved})
			} else {
				k.Why = "too few rounds on a major for a standard error of its ratio"
			}
		}
		out.Keys = append(out.Keys, k)
	}
	return out
}

// headline is the shape an analysis answers for: the last whose keys'
// work was compared (answer's), nil when none was.
func headline(a *results.Analysis) *results.Shape {
	for i := len(a.Shapes) - 1; i >= 0; i-- {
		if a.Shapes[i].Least != "" {
			return &a.Shapes[i]
		}
	}
	return nil
}
