package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
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
		took = append(took, fmt.Sprintf("other processes took %.0f%% of its CPU", b.OthersShare*100))
	}
	if b.StealShare > 0.005 {
		took = append(took, fmt.Sprintf("the host's other guests %.0f%% (steal)", b.StealShare*100))
	}
	line := "A busy machine: " + strings.Join(took, " and ") + " in the median round"
	if w, ok := b.RunQueueMS.Get(); ok {
		line += fmt.Sprintf("; the server's backends waited %.2f ms per transaction for a CPU", w)
	}
	return line + ". The rates move with that load; a transaction's cost hardly does, and the verdict leads with it."
}

// explain says which figures make a key cost more than its shape's least
// costly key (the analysis's reasons), the three farthest.
func explain(why []results.Reason) string {
	var out []string
	for i, r := range why {
		if i == 3 {
			break
		}
		words := r.Figure
		if f, ok := metrics.RoundFigureNamed(r.Figure); ok {
			words = f.Words
		}
		out = append(out, fmt.Sprintf("%.2g× %s", r.Ratio, words))
	}
	return strings.Join(out, ", ")
}

// costVerdict is each shape's cost verdict, a line a key: the keys ranked
// by their server time per transaction against the cheapest, each with
// its interval, what explains it and how its rate compared; then which
// family to trust where they disagree.
func costVerdict(res *results.Results, a *results.Analysis) []string {
	var out []string
	shapes := shapesOf(a)
	for _, sh := range shapes {
		gs := sh.Groups
		if len(gs) < 2 || gs[0].Cost == nil {
			continue
		}
		if why := gs[0].Cost.Unavailable; why != "" {
			out = append(out, fmt.Sprintf("No cost verdict for %s: %s.", sh.Title, why))
			continue
		}
		ranked := append([]*results.Group(nil), gs...)
		sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Cost.Summary.Median < ranked[j].Cost.Summary.Median })
		cheapest := ranked[0]
		prefix := ""
		if len(shapes) > 1 {
			prefix = sh.Title + ": "
		}
		how := "compared within rounds, Holm over the costs and the rates together, each interval at its adjusted level"
		if sequentialGroups(a.Groups) {
			how = "compared within rounds by a group-sequential design at half the error rate, the rates' at the other half; repeated confidence intervals"
			if d := res.Plan.CostSequential; d != nil {
				how = fmt.Sprintf("compared within rounds by a group-sequential design (looks at %d to %d rounds) at half the error rate, the rates' at the other half; repeated confidence intervals", d.MinRounds, d.MaxRounds)
			}
		}
		out = append(out, fmt.Sprintf("%sServer time per transaction, the backends' CPU and IO (%s): %s's %.3g ms is the least.",
			prefix, how, cheapest.Key, cheapest.Cost.Summary.Median))
		var near []string
		disagree := 0
		for _, g := range ranked[1:] {
			v := g.Cost.Versus(cheapest.Key)
			rate := versusOf(g, cheapest.Key)
			if v == nil {
				continue
			}
			if !v.Significant {
				near = append(near, fmt.Sprintf("%s %.2f× %s", g.Key, v.Effect, v.IntervalText()))
				continue
			}
			line := fmt.Sprintf("  %s costs %.2f× %s's %s (%s)", g.Key, v.Effect, cheapest.Key, v.IntervalText(), v.PText())
			if e := explain(g.Cost.Why); e != "" {
				line += ": " + e
			}
			switch {
			case rate.TooFew:
			case rate.Significant && rate.Effect < 1:
				line += fmt.Sprintf("; its rate %.2f× (slower, %s)", rate.Effect, rate.PText())
			case rate.Significant:
				line += fmt.Sprintf("; yet its rate %.2f× (faster, %s)", rate.Effect, rate.PText())
				disagree++
			default:
				line += fmt.Sprintf("; its rate %.2f× %s, within noise (%s)", rate.Effect, rate.IntervalText(), rate.PText())
			}
			out = append(out, line+".")
		}
		if len(near) > 0 {
			out = append(out, fmt.Sprintf("  Within noise of %s's cost: %s.", cheapest.Key, strings.Join(near, ", ")))
		}
		if disagree > 0 {
			out = append(out, "  Where a key costs more yet ran faster, the cost is trusted: it counts what each transaction made the server do, which other processes' load does not change, while the rate of a round moves with that load.")
		}
	}
	return out
}
