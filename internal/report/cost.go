package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// The cost verdict: what each key costs the server per transaction (its
// backends' CPU and IO time), compared within the rounds as the rates
// are, said first: on a busy machine the rates drown in other processes'
// noise while a transaction's cost hardly moves. Every word of it is read
// from the run: the ratios, their intervals, the figures that explain
// them, the machine's load.

// busyShare is the share of the machine's CPU other processes took above
// which the summary says the machine was busy.
const busyShare = 0.10

// busyLine says, when other processes (or the host's other guests: the
// hypervisor's steal) took more than busyShare of the machine's CPU during
// the rounds, how much, and what it cost the run.
func busyLine(res *results.Results) string {
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
		return ""
	}
	other, steal := stats.Summarize(others).Median, stats.Summarize(steals).Median
	if other+steal <= busyShare {
		return ""
	}
	var took []string
	if other > 0.005 {
		took = append(took, fmt.Sprintf("other processes took %.0f%% of its CPU", other*100))
	}
	if steal > 0.005 {
		took = append(took, fmt.Sprintf("the host's other guests %.0f%% (steal)", steal*100))
	}
	line := "A busy machine: " + strings.Join(took, " and ") + " in the median round"
	if len(waits) > 0 {
		line += fmt.Sprintf("; the server's backends waited %.2f ms per transaction for a CPU", stats.Summarize(waits).Median)
	}
	return line + ". The rates move with that load; a transaction's cost hardly does, and the verdict leads with it."
}

// costFigure is a per-round cost figure that explains a key's cost.
type costFigure struct {
	words string
	get   func(*results.RoundCost) results.M[float64]
}

// explaining are the figures a cost verdict explains itself with, in the order said.
var explaining = []costFigure{
	{"the WAL", func(c *results.RoundCost) results.M[float64] { return c.WALBytes }},
	{"the full-page images", func(c *results.RoundCost) results.M[float64] { return c.WALFPI }},
	{"the blocks read", func(c *results.RoundCost) results.M[float64] { return c.BlocksRead }},
	{"the CPU", func(c *results.RoundCost) results.M[float64] { return c.ServerCPUMS }},
	{"the IO time", func(c *results.RoundCost) results.M[float64] { return c.IOMS }},
}

// roundMedian is the median over a group's rounds of a cost figure.
func roundMedian(res *results.Results, g *results.Group, get func(*results.RoundCost) results.M[float64]) (float64, bool) {
	var rounds []results.Round
	for _, i := range g.Cells {
		c := &res.Cells[i]
		rounds = append(rounds, c.Rounds...)
		if len(c.Rounds) == 0 && c.Cost != nil { // one window: its cost stands for its only sample
			rounds = append(rounds, results.Round{Cost: c.Cost})
		}
	}
	return costMedian(rounds, get)
}

// costMedian is the median over rounds of a cost figure, where measured.
func costMedian(rounds []results.Round, get func(*results.RoundCost) results.M[float64]) (float64, bool) {
	var v []float64
	for _, rd := range rounds {
		if rd.Cost == nil {
			continue
		}
		if x, ok := get(rd.Cost).Get(); ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return stats.Summarize(v).Median, true
}

// explain says which figures make g cost more (or less) than base: each
// whose medians differ by more than a tenth, the largest first.
func explain(res *results.Results, g, base *results.Group) string {
	type part struct {
		text string
		far  float64
	}
	var parts []part
	for _, f := range explaining {
		a, okA := roundMedian(res, g, f.get)
		b, okB := roundMedian(res, base, f.get)
		if !okA || !okB || b <= 0 || a <= 0 {
			continue
		}
		r := a / b
		if math.Abs(math.Log(r)) < math.Log(1.1) {
			continue
		}
		parts = append(parts, part{fmt.Sprintf("%.2g× %s", r, f.words), math.Abs(math.Log(r))})
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].far > parts[j].far })
	var out []string
	for i, p := range parts {
		if i == 3 {
			break
		}
		out = append(out, p.text)
	}
	return strings.Join(out, ", ")
}

// costVerdict is each shape's cost verdict, a line a key: the keys ranked
// by their server time per transaction against the cheapest, each with
// its interval, what explains it and how its rate compared; then which
// family to trust where they disagree.
func costVerdict(res *results.Results, groups []results.Group) []string {
	var out []string
	for _, sh := range shapesOf(groups) {
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
		if len(shapesOf(groups)) > 1 {
			prefix = sh.Title + ": "
		}
		how := "compared within rounds, Holm over the costs and the rates together, each interval at its adjusted level"
		if sequentialGroups(groups) {
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
			if e := explain(res, g, cheapest); e != "" {
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
