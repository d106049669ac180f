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
	a := analysisOf(res)
	groups := a.Groups
	if res.Status != results.StatusOK {
		d.Printf("the run %s", results.StatusText(res.Status, res.Error))
	}
	if len(groups) == 0 {
		d.Println("no cell finished: there is nothing to summarise")
		return d
	}
	if b := busyLine(a); b != "" {
		d.Println(b)
	}
	shapes := shapesOf(a)
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
	if res.Last(sh.Groups[0]).Pace != nil {
		briefPace(d, res, sh)
		return
	}
	cheapest := sh.group(sh.Least)
	d.Println(sh.Title + ":")
	t := NewTable("key", "rate", "ms / txn", "cost vs least", "rate vs least").AlignRight(1, 2)
	for _, g := range sh.Groups {
		t.AppendRow(g.Key, fmt.Sprintf("%s %s", results.Kilo(g.TPS.Median), results.KindOf(g.Workload).Unit()),
			medianText(res, g, verdictFigure(), "%.3g"),
			briefCost(g, cheapest), briefRate(g, cheapest))
	}
	d.Add(t)
	switch costliest := sh.group(sh.Costliest); {
	case cheapest == nil && len(sh.Groups) > 1 && sh.NoCost != "":
		d.Printf("Not compared on cost: %s; --verbose compares the rates.", sh.NoCost)
	case cheapest == nil && len(sh.Groups) > 1:
		d.Printf("Not compared: %s (%s compares the keys).", unitWords(sh.Groups[0]), moreSamples(sh.Groups[0]))
	case costliest != nil:
		if e := explain(costliest.Cost.Why); e != "" {
			d.Printf("%s costs more than %s: %s.", costliest.Key, cheapest.Key, e)
		}
	}
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

// briefRate is a key's rate against the cheapest key's, short: without
// its interval.
func briefRate(g, cheapest *results.Group) string { return rateVersus(g, cheapest, false) }

// shortVersusText is "* 1.50× [1.02–2.20]" or "~ 0.98× [0.61–1.50]".
func shortVersusText(v *results.Versus) string {
	s := versusMark(v.Significant) + fmt.Sprintf("%.2f×", v.Effect)
	if v.EffectConfidence > 0 {
		s += fmt.Sprintf(" [%.2f–%.2f]", v.EffectLo, v.EffectHi)
	}
	return s
}

// briefPace is a shape run at a fixed rate (--rate): every key ran the same
// rate, so the keys are told apart by their latency from the schedule and
// by what the rate costs the server, per transaction and per second.
func briefPace(d *Doc, res *results.Results, sh shape) {
	cheapest := sh.group(sh.Least)
	d.Printf("%s, at a fixed %s tps:", sh.Title, results.Kilo(res.Last(sh.Groups[0]).Pace.RateTPS))
	t := NewTable("key", "ran", "p99", "p99 vs least", "cost vs least").AlignRight(1, 2)
	var lag, cpu, wal []string
	for _, g := range sh.Groups {
		c := res.Last(g)
		pk := sh.paceOf(g.Key)
		vs := "-"
		switch v := pk.Versus; {
		case g.Key == sh.Pace.Least:
			vs = "least"
		case v != nil && v.TooFew:
			vs = "?"
		case v != nil:
			vs = versusMark(v.Significant) + fmt.Sprintf("%.2f×", v.Effect)
		}
		ran := results.Kilo(c.TPS) + " tps"
		if !c.Held() {
			ran += fmt.Sprintf(" (%.0f%%)", 100*c.ScheduleShare())
		}
		t.AppendRow(g.Key, ran, millis(pk.P99MS), vs, briefCost(g, cheapest))
		cpuS, walS, _ := perSecond(res, g, c.TPS)
		lag, cpu, wal = append(lag, millis(c.Pace.LagMS.P99)), append(cpu, cpuS), append(wal, walS)
	}
	d.Add(t)
	d.Printf("Per second at that rate (%s): WAL %s; the server's CPU %s of a core; schedule lag p99 %s.",
		keyList(sh.Groups), strings.Join(wal, ", "), strings.Join(cpu, ", "), strings.Join(lag, ", "))
	for _, g := range sh.Groups {
		if c := res.Last(g); !c.Held() {
			d.Printf("%s did not keep up: it ran %.0f%% of its schedule; its latency is its queue's.", g.Key, 100*c.ScheduleShare())
		}
	}
}

// keyList names the groups' keys in order.
func keyList(gs []*results.Group) string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Key)
	}
	return strings.Join(out, ", ")
}
