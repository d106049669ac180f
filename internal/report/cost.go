package report

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// The cost verdict: what each key costs the server per transaction (its
// backends' CPU and IO time), compared within the rounds as the rates
// are, said first: on a busy machine the rates drown in other processes'
// noise while a transaction's cost hardly moves. Every word of it is read
// from the run: the ratios, their intervals, the figures that explain
// them, the machine's load.

// busyLine says, when the analysis found the machine busy (other
// processes or the host's other guests took more than a tenth of its CPU
// during the rounds), how much, and what it cost the run.
func busyLine(a *results.Analysis) string {
	b := a.Busy
	if b == nil || !b.Busy {
		return ""
	}
	var took []string
	if b.OthersShare > 0.005 {
		took = append(took, "other processes took "+results.ShareText(b.OthersShare)+" of its CPU")
	}
	if b.StealShare > 0.005 {
		took = append(took, "the host's other guests "+results.ShareText(b.StealShare)+" (steal)")
	}
	line := "A busy machine: " + strings.Join(took, " and ") + " (the rounds' mean)"
	if w, ok := b.RunQueueMS.Get(); ok {
		line += fmt.Sprintf("; the backends waited %.2f ms per transaction for a CPU, apart from their work", w)
	}
	return line + "."
}

// costVerdict is each shape's work verdict, a line a key: the keys
// against the least working key on the work per transaction, each with
// its interval and level, the counts that explain it with theirs, and how
// its rate compared; the keys with no difference found or shown the same;
// then what the machine waited, apart.
func costVerdict(res *results.Results, a *results.Analysis) []string {
	var out []string
	shapes := shapesOf(a)
	for _, sh := range shapes {
		gs := sh.Groups
		if len(gs) < 2 || gs[0].Cost == nil {
			continue
		}
		if why := gs[0].Cost.Unavailable; why != "" {
			out = append(out, fmt.Sprintf("No work verdict for %s: %s.", sh.Title, why))
			continue
		}
		prefix := ""
		if len(shapes) > 1 {
			prefix = sh.Title + ": "
		}
		least := sh.group(sh.Least)
		counted := "the CPU of every server process and its IO counted"
		if why := cpuNotMeasured(res); why != "" {
			counted = "its IO counted; the server's CPU not measured: " + why
		}
		is := "is the least"
		if sh.Against {
			is = "is the reference's (the question compares each key with " + least.Key + ")"
		}
		out = append(out, fmt.Sprintf("%sWork per transaction (%s, priced on %s; %s): %s's %s %s%s.",
			prefix, counted, deviceShort(a.Device), workHow(res, a), least.Key, present.Work.Text(res, least), is, partsText(least.Cost)))
		out = append(out, workLines(sh, least)...)
		for _, line := range countsApart(sh, least, a.Device) {
			out = append(out, "  "+line)
		}
		if w := waitingLine(res, sh); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// workHow says how the work was compared.
func workHow(res *results.Results, a *results.Analysis) string {
	if sequentialGroups(a.Groups) {
		if d := res.Plan.CostSequential; d != nil {
			return fmt.Sprintf("compared within rounds by a group-sequential design (looks at %d to %d rounds; %s) at half the error rate, the rates' at the other half; repeated confidence intervals", d.MinRounds, d.MaxRounds, stats.FamilyWords(d.Family, d.Reference))
		}
		return "compared within rounds by a group-sequential design at half the error rate, the rates' at the other half; repeated confidence intervals"
	}
	return "compared within rounds, Holm over the work and the rates together, each interval at its adjusted level"
}

// workLines are a shape's keys against its least working key.
func workLines(sh shape, least *results.Group) []string {
	var out, none, same []string
	for _, g := range sh.Groups {
		v := g.Cost.Versus(least.Key)
		if g == least || v == nil {
			continue
		}
		switch {
		case v.Equivalent():
			same = append(same, fmt.Sprintf("%s %s %s", g.Key, stats.RatioText(v.Effect), interval(v)))
			continue
		case !v.Significant:
			none = append(none, fmt.Sprintf("%s %s %s", g.Key, stats.RatioText(v.Effect), interval(v)))
			continue
		}
		line := fmt.Sprintf("  %s does %s %s's work %s (%s)", g.Key, stats.RatioText(v.Effect), least.Key, interval(v), v.PText())
		var parts []string
		for _, r := range g.Cost.Why {
			parts = append(parts, r.Text())
		}
		if len(parts) > 0 {
			line += ": " + strings.Join(parts, ", ")
		}
		rate := versusOf(g, least.Key)
		if !rate.TooFew {
			line += fmt.Sprintf("; its rate %s %s", versusShort(&rate, true), map[bool]string{true: "(a difference)", false: "(no difference found)"}[rate.Significant])
		}
		out = append(out, line+".")
	}
	if len(same) > 0 {
		out = append(out, fmt.Sprintf("  The same work as %s within %s: %s.", least.Key, stats.Percent(sh.marginOf()), strings.Join(same, ", ")))
	}
	if len(none) > 0 {
		out = append(out, fmt.Sprintf("  No difference in work found from %s: %s.", least.Key, strings.Join(none, ", ")))
	}
	return out
}

// partsText is the least's work in its parts, each its share of it:
// " (CPU 32% + blocks read 0.2% + … of it)".
func partsText(c *results.GroupCost) string {
	sh := c.Shares
	var parts []string
	for _, x := range []struct {
		name  string
		share float64
	}{{"CPU", sh.CPU}, {"blocks read", sh.Reads}, {"blocks written", sh.Writes}, {"WAL", sh.WAL}, {"flushes", sh.Flushes}} {
		if x.share > 0 {
			parts = append(parts, x.name+" "+results.ShareText(x.share))
		}
	}
	out := " (" + strings.Join(parts, " + ") + " of it"
	if len(c.Missing) > 0 {
		out += "; not counted: " + strings.Join(c.Missing, ", ")
	}
	return out + ")"
}

// waitingLine is what the shape's keys waited per transaction, apart from
// their work: the backends' IO wait and their wait for a CPU (this
// machine's queues, not the key's work).
func waitingLine(res *results.Results, sh shape) string {
	var parts []string
	for _, g := range sh.Groups {
		io, okIO := res.RoundMean(g, results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.IOMS }))
		rq, okRQ := res.RoundMean(g, results.RoundFigureOf(func(c *results.RoundCost) *results.M[float64] { return &c.ServerRunQueueMS }))
		switch {
		case okIO && okRQ:
			parts = append(parts, fmt.Sprintf("%s %s + %s ms", g.Key, results.Significant(io), results.Significant(rq)))
		case okIO:
			parts = append(parts, fmt.Sprintf("%s %s ms IO", g.Key, results.Significant(io)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "  Waited per transaction, apart from the work (IO wait + wait for a CPU: this machine's queues, which another process's load lengthens): " + strings.Join(parts, "; ") + "."
}
