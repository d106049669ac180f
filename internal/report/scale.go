package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// The scale table (a run whose table sizes each ran at a cache of their
// own, grown together: the scale preset) answers whether the small lab
// predicts a larger table: each key's rate and work per
// transaction against the reference key at each scale, with the
// comparison's interval, and whether the scales agree, i.e. whether one
// ratio lies inside every scale's interval. Every figure is the run's.

// scaleTable writes the scale table of a scaled run.
func scaleTable(d *Doc, res *results.Results, groups []results.Group) {
	if !res.Plan.Scaled || len(res.Plan.Rows) < 2 {
		return
	}
	ref := scaleReference(res)
	scales := res.Plan.Rows
	header := []string{"against " + ref}
	for i, rows := range scales {
		header = append(header, fmt.Sprintf("%s rows / %s", results.Thousands(rows), results.Bytes(res.Plan.SharedBuffers[i])))
	}
	header = append(header, "across the scales")
	t := NewTable(header...)
	for _, key := range res.Plan.Keys {
		if key == ref {
			continue
		}
		for _, fam := range scaleFamilies {
			row := []any{key + ": " + fam.name}
			var vs []*results.Versus
			for i := range scales {
				var v *results.Versus
				untested := 0.0 // the ratio of the two figures, where no comparison was made
				if g, r := scaleGroup(groups, key, scales[i]), scaleGroup(groups, ref, scales[i]); g != nil {
					if v = fam.versus(g, ref); r != nil && fam.of(r) > 0 {
						untested = fam.of(g) / fam.of(r)
					}
				}
				vs = append(vs, v)
				row = append(row, scaleCell(v, untested))
			}
			row = append(row, agreement(vs))
			t.AppendRow(row...)
		}
	}
	d.Printf("At each scale (the table and its cache grown together, each window %s of its table's rows), each key against %s:", stats.Percent(res.Plan.WindowTableShare), ref)
	d.Add(t)
	d.Println("rate: the key's insert rate over " + ref + "'s; work: the CPU of every server process and its IO counted, per transaction, over " + ref + "'s; each with the interval of its comparison at that scale " +
		"(\"*\": a difference, \"~\": within noise). Across the scales: the ratios agree when one value lies inside every scale's interval, and the lab's ratio then carries to a larger table of the same index over cache; otherwise the ratio drifts with the scale.")
}

// scaleFamilies are the comparisons the scale table shows, each of a
// figure every output shows (a group's rate, its work).
var scaleFamilies = []struct {
	name   string
	versus func(g *results.Group, ref string) *results.Versus
	of     func(g *results.Group) float64
}{
	{"rate", func(g *results.Group, ref string) *results.Versus { v := versusOf(g, ref); return &v },
		func(g *results.Group) float64 { return g.Rate }},
	{"work", func(g *results.Group, ref string) *results.Versus { return g.Cost.Versus(ref) },
		func(g *results.Group) float64 { return g.Cost.MeanOrZero() }},
}

// scaleReference is the key the scale table compares with: the ordered
// reference of the projections when the run measured it, else its last key.
func scaleReference(res *results.Results) string {
	for _, k := range res.Plan.Keys {
		if k == projection.ReferenceKey {
			return k
		}
	}
	return res.Plan.Keys[len(res.Plan.Keys)-1]
}

// scaleGroup is the key's group at a table size.
func scaleGroup(groups []results.Group, key string, rows int64) *results.Group {
	for i := range groups {
		if groups[i].Key == key && groups[i].Rows == rows {
			return &groups[i]
		}
	}
	return nil
}

// scaleCell is a comparison at one scale as every table writes one;
// untested, the ratio of the two figures with a "?".
func scaleCell(v *results.Versus, untested float64) string {
	switch {
	case (v == nil || v.TooFew) && untested == 0:
		return "unmeasured: no rounds"
	case v == nil || v.TooFew:
		return "? " + stats.RatioText(untested) + " (untested: too few rounds)"
	}
	return versusShort(v, true)
}

// agreement says whether the scales' intervals share a value, and the
// ratios' spread.
func agreement(vs []*results.Versus) string {
	lo, hi := math.Inf(-1), math.Inf(1)
	var effects []string
	minE, maxE := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v == nil || v.TooFew || v.Level == 0 {
			return "unknown: a scale has no interval"
		}
		lo, hi = math.Max(lo, v.Lo), math.Min(hi, v.Hi)
		minE, maxE = math.Min(minE, v.Effect), math.Max(maxE, v.Effect)
		effects = append(effects, fmt.Sprintf("%.2f", v.Effect))
	}
	spread := fmt.Sprintf("%.0f%% apart", 100*(maxE/minE-1))
	if lo <= hi {
		return fmt.Sprintf("agree (%s; all hold %.2f–%.2f)", spread, lo, hi)
	}
	return fmt.Sprintf("drift: %s (%s)", strings.Join(effects, " → "), spread)
}
