package report

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/results"
)

// The first screen: what a run prints when it ends, unless --verbose asks
// for every table. A DBA reads it in half a minute: the answer per shape
// (each key's rate and server time per transaction, each against the
// cheapest key with the comparison's interval or "~"), what makes the
// costliest key cost more, and where the rest is. It fits BriefLines lines
// at 80 columns for the presets' headline shapes; a run of more shapes
// shows its last (the largest table) and counts the others.

// BriefLines is the most lines the first screen takes.
const BriefLines = 20

// BriefWidth is the terminal width the first screen is laid out for.
const BriefWidth = 80

// Brief is the run's first screen.
func Brief(res *results.Results) *Doc {
	d := &Doc{}
	groups := res.BuildGroups()
	if res.Status != results.StatusOK {
		d.Printf("the run %s", results.StatusText(res.Status, res.Error))
	}
	if len(groups) == 0 {
		d.Println("no cell finished: there is nothing to summarise")
		return d
	}
	if b := busyLine(res); b != "" {
		d.Println(b)
	}
	shapes := shapesOf(groups)
	shown := shapes
	if len(shapes) > 1 && briefLength(shapes) > BriefLines-4 {
		shown = shapes[len(shapes)-1:]
	}
	for _, sh := range shown {
		briefShape(d, res, sh)
	}
	if n := len(shapes) - len(shown); n > 0 {
		d.Printf("%d other shapes (%s): --verbose or the report.", n, shapeList(shapes[:n]))
	}
	d.Println("vs least: * differs, ~ within noise, ? untested. Every table: --verbose; the page: report.html.")
	return d
}

// briefLength is the lines the shapes' tables take.
func briefLength(shapes []shape) int {
	n := 0
	for _, sh := range shapes {
		n += len(sh.Groups) + 5 // title, three rules, header
	}
	return n
}

func shapeList(shapes []shape) string {
	var out []string
	for _, sh := range shapes {
		out = append(out, sh.Title)
	}
	return strings.Join(out, "; ")
}

// briefShape is one shape's table and what explains its costliest key.
func briefShape(d *Doc, res *results.Results, sh shape) {
	cheapest := cheapestOf(sh.Groups)
	d.Println(sh.Title + ":")
	t := NewTable("key", "rate", "ms / txn", "cost vs least", "rate vs least").AlignRight(1, 2)
	for _, g := range sh.Groups {
		t.AppendRow(g.Key, fmt.Sprintf("%s %s", results.Kilo(g.TPS.Median), results.KindOf(g.Workload).Unit()),
			medianText(res, g, func(c *results.RoundCost) results.M[float64] { return c.ServerMS }, "%.3g"),
			briefCost(g, cheapest), briefRate(g, cheapest))
	}
	d.Add(t)
	switch costliest := costliestOf(sh.Groups, cheapest); {
	case cheapest == nil && len(sh.Groups) > 1:
		d.Printf("Not compared: %s (%s compares the keys).", unitWords(sh.Groups[0]), moreSamples(sh.Groups[0]))
	case costliest != nil:
		if e := explain(res, costliest, cheapest); e != "" {
			d.Printf("%s costs more than %s: %s.", costliest.Key, cheapest.Key, e)
		}
	}
}

// costliestOf is the key whose cost is significantly above the cheapest's
// by the most (nil: none is).
func costliestOf(gs []*results.Group, cheapest *results.Group) *results.Group {
	var worst *results.Group
	best := 1.0
	for _, g := range gs {
		if cheapest == nil || g == cheapest {
			continue
		}
		if v := g.Cost.Versus(cheapest.Key); v != nil && v.Significant && v.Effect > best {
			worst, best = g, v.Effect
		}
	}
	return worst
}

// briefCost is a key's server time against the cheapest's, short.
func briefCost(g, cheapest *results.Group) string {
	v, text := costVersus(g, cheapest)
	switch {
	case v == nil && text == "-" && cheapest != nil:
		return "?"
	case v == nil:
		return text
	case v.TooFew:
		return "?"
	}
	return shortVersusText(v)
}

// briefRate is a key's rate against the cheapest key's, short.
func briefRate(g, cheapest *results.Group) string {
	if cheapest == nil || g == cheapest {
		return "-"
	}
	v := versusOf(g, cheapest.Key)
	if v.TooFew {
		return "?"
	}
	return versusMark(v.Significant) + fmt.Sprintf("%.2f×", v.Effect)
}

// shortVersusText is "* 1.50× [1.02–2.20]" or "~ 0.98× [0.61–1.50]".
func shortVersusText(v *results.Versus) string {
	s := versusMark(v.Significant) + fmt.Sprintf("%.2f×", v.Effect)
	if v.EffectConfidence > 0 {
		s += fmt.Sprintf(" [%.2f–%.2f]", v.EffectLo, v.EffectHi)
	}
	return s
}
