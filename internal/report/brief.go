package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/keybench/keybench/internal/results"
)

// The first screen: what a run prints when it ends, unless --verbose asks
// for every table. A DBA reads it in half a minute: the answer per shape
// (each key's rate and work per transaction, each against the
// cheapest key with the comparison's interval or "~"), what makes the
// costliest key cost more, and where the rest is. It fits BriefLines lines
// at 80 columns for the presets' headline shapes; a run of more shapes
// shows its last (the largest table) and counts the others.

// BriefLines is the most lines the first screen takes.
const BriefLines = 20

// BriefWidth is the terminal width the first screen is laid out for.
const BriefWidth = 80

// Brief is the run's first screen.
func Brief(res *results.Results) *Doc { return brief(res, false) }

// brief is the first screen; on the page (the verdict's first card) it
// leaves out the busy line, which the page says beside it, and where the
// rest is.
func brief(res *results.Results, page bool) *Doc {
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
	if b := busyLine(a); b != "" && !page {
		d.Println(b)
	}
	for _, l := range unreadWorkers(res) {
		d.Println(l)
	}
	shapes := shapesOf(a)
	shown := shapes
	if len(shapes) > 1 && briefLength(shapes) > BriefLines-4 {
		shown = shapes[len(shapes)-1:]
	}
	for _, sh := range shown {
		briefShape(d, res, a, sh)
	}
	if n := len(shapes) - len(shown); n > 0 {
		d.Printf("%d other shapes (%s): --verbose or the report.", n, shapeList(shapes[:n]))
	}
	legend := workLegend(a) + " vs least: * differs, ~ none found, = the same, ? untested; " + levelsOf(shown) + "."
	if !page {
		legend += " All: --verbose, report.html."
	}
	d.Println(legend)
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

// briefShape is one shape's table — each key's rate and work per
// transaction against the least working key's — and what makes the
// costliest key work more, each count with its ratio and interval.
func briefShape(d *Doc, res *results.Results, a *results.Analysis, sh shape) {
	if res.Last(sh.Groups[0]).Pace != nil {
		briefPace(d, res, sh)
		return
	}
	least := sh.group(sh.Least)
	d.Println(sh.Title + ":")
	t := NewTable("key", "rate", "work / txn", "work vs least", "rate vs least").AlignRight(1, 2)
	for _, g := range sh.Groups {
		t.AppendRow(g.Key, rateText(g), workText(g), briefWork(g, least), rateVersus(g, least, false))
	}
	d.Add(t)
	switch costliest := sh.group(sh.Costliest); {
	case least == nil && len(sh.Groups) > 1 && sh.NoCost != "":
		d.Printf("Not compared on work: %s; --verbose compares the rates.", sh.NoCost)
	case least == nil && len(sh.Groups) > 1:
		d.Printf("Not compared: %s (%s compares the keys).", unitWords(sh.Groups[0]), moreSamples(sh.Groups[0]))
	case costliest != nil:
		v := costliest.Cost.Versus(least.Key)
		line := fmt.Sprintf("%s does %s %s's work per transaction %s on %s", costliest.Key, ratio(v.Effect), least.Key, interval(v), deviceShort(a.Device))
		var parts []string
		for i, r := range costliest.Cost.Why {
			if i == 3 {
				break
			}
			parts = append(parts, reasonText(r))
		}
		if len(parts) > 0 {
			line += ": " + strings.Join(parts, ", ")
		}
		d.Println(line + ".")
	case len(sh.Groups) > 1:
		d.Println("No key was found to do more work per transaction than " + least.Key + "'s.")
	}
}

// briefWork is a key's work against the least's, short, with its
// interval (its level in the legend: levelsOf).
func briefWork(g, least *results.Group) string {
	v, text := costVersus(g, least)
	switch {
	case v == nil && text == "-" && least != nil:
		return "?"
	case v == nil:
		return text
	}
	s := mark(v) + " " + ratio(v.Effect)
	if v.EffectConfidence > 0 && !v.TooFew {
		s += " [" + bound(v.EffectLo) + "–" + bound(v.EffectHi) + "]"
	}
	return s
}

// levelsOf says the levels of the work intervals the shapes show:
// "[intervals] at 99.9%", or their range where they differ.
func levelsOf(shapes []shape) string {
	lo, hi := 2.0, 0.0
	for _, sh := range shapes {
		for _, g := range sh.Groups {
			if g.Cost == nil {
				continue
			}
			for _, v := range g.Cost.Compared {
				if c := v.EffectConfidence; c > 0 && !v.TooFew {
					lo, hi = math.Min(lo, c), math.Max(hi, c)
				}
			}
		}
	}
	switch {
	case hi == 0:
		return "no interval"
	case math.Floor(1000*lo) == math.Floor(1000*hi):
		return fmt.Sprintf("[intervals] at %g%%", math.Floor(1000*lo)/10)
	}
	return fmt.Sprintf("[intervals] at %g–%g%%, each its test's level", math.Floor(1000*lo)/10, math.Floor(1000*hi)/10)
}

// briefPace is a shape run at a fixed rate (--rate): every key ran the same
// rate, so the keys are told apart by their latency from the schedule and
// by what the rate costs the server, per transaction and per second.
func briefPace(d *Doc, res *results.Results, sh shape) {
	cheapest := sh.group(sh.Least)
	d.Printf("%s, at a fixed %s tps:", sh.Title, results.Kilo(res.Last(sh.Groups[0]).Pace.RateTPS))
	t := NewTable("key", "ran", "p99", "p99 vs least", "work vs least").AlignRight(1, 2)
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
		t.AppendRow(g.Key, ran, millis(pk.P99MS), vs, briefWork(g, cheapest))
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
