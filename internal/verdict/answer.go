package verdict

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// answer is the run's answer (results.Answer), computed from the
// analysis alone, for the last shape whose keys' work was compared. It
// names only what the rounds decided:
//
//   - the group of least work: the key of least work and every key not
//     told apart from it or shown the same within the margin (a difference
//     shown whose interval lies inside the margin is the same in practice,
//     stats.Comparison.Practical), said as one group in the plan's order
//     with the span of their intervals — never the least of them alone,
//     whose place among them is noise;
//   - the keys shown to do more work beyond the margin: the ones to avoid,
//     each with its ratio and interval;
//   - one key is chosen only where the group is that key, or where a
//     measured fact sets one apart within it, in the order TieBreaks gives
//     (the facts and the rule are recorded): the same figures give the
//     same choice, so a rerun on the same machine chooses the same key;
//   - the keys whose WAL its own family found above the least WAL's, what
//     the work did not measure, and a budget that ended the rounds before
//     their question was decided.
//
// Asked against a reference (Shape.Against), the group is the keys shown
// to do less than the reference, or the reference and the keys not told
// apart from it.
func answer(res *results.Results, a *results.Analysis) *results.Answer {
	sh := headline(a)
	if sh == nil {
		for i := len(a.Shapes) - 1; i >= 0; i-- {
			why := a.Shapes[i].NoCost
			for _, g := range a.ShapeGroups(&a.Shapes[i]) {
				if why == "" && g.Cost != nil {
					why = g.Cost.Unavailable
				}
			}
			if why != "" && len(a.Shapes[i].Groups) > 1 {
				return &results.Answer{Shape: a.Shapes[i].Title, Text: "No key is chosen: the keys' work was not compared (" + why + ")."}
			}
		}
		return nil
	}
	least := a.GroupOf(sh, sh.Least)
	ans := &results.Answer{Shape: sh.Title, Margin: margin(res)}
	needed := 0
	var open []*results.Group
	for _, g := range a.ShapeGroups(sh) {
		v := g.Cost.Versus(least.Key)
		switch {
		case g == least:
			ans.Group = append(ans.Group, results.GroupKey{Key: g.Key, How: results.GroupLeast})
		case v == nil:
		case v.Equivalent():
			r := results.RatioOf(&v.Comparison)
			ans.Group = append(ans.Group, results.GroupKey{Key: g.Key, How: results.GroupSame, Ratio: &r})
		case !v.Significant:
			r := results.RatioOf(&v.Comparison)
			ans.Group = append(ans.Group, results.GroupKey{Key: g.Key, How: results.GroupOpen, Ratio: &r})
			open = append(open, g)
			needed = max(needed, v.Needed)
		case v.Effect > 1:
			ans.Costlier = append(ans.Costlier, results.KeyRatio{Key: g.Key, Ratio: results.RatioOf(&v.Comparison)})
		default: // shown to do less than the reference (a least key has none below it)
			ans.Cheaper = append(ans.Cheaper, results.KeyRatio{Key: g.Key, Ratio: results.RatioOf(&v.Comparison)})
		}
		if g.Cost != nil && slices.Contains(g.Cost.Missing, MissingCPU) && len(ans.NotMeasured) == 0 {
			ans.NotMeasured = append(ans.NotMeasured, "the server's CPU ("+cpuReason(res, g)+")")
		}
	}
	sort.SliceStable(ans.Costlier, func(i, j int) bool { return ans.Costlier[i].Ratio.Ratio > ans.Costlier[j].Ratio.Ratio })
	if len(ans.Cheaper) > 0 {
		// Asked against a reference: the keys shown to do less are the
		// group (they were not compared with each other).
		ans.Group = nil
		for _, k := range ans.Cheaper {
			r := k.Ratio
			ans.Group = append(ans.Group, results.GroupKey{Key: k.Key, How: results.GroupOpen, Ratio: &r})
		}
	}
	ans.Span = span(ans.Group)
	if c := a.GroupOf(sh, sh.Costliest); c != nil {
		v := c.Cost.Versus(least.Key)
		ans.Costliest = c.Key
		r := results.RatioOf(&v.Comparison)
		ans.Work = &r
	}
	if sh.WALLeast != "" {
		ans.WALLeast = sh.WALLeast
		for _, g := range a.ShapeGroups(sh) {
			if v := g.WAL.Versus(sh.WALLeast); v != nil && v.Significant && v.Effect >= results.WALMaterial {
				ans.WALMore = append(ans.WALMore, results.KeyRatio{Key: g.Key, Ratio: results.RatioOf(&v.Comparison)})
			}
		}
	}
	tieBreak(res, a, sh, ans)
	var early bool
	ans.Undecided, early = undecided(res, a, sh, len(open) > 0)
	ans.Text = answerText(ans, least, sh.Against, needed, early)
	return ans
}

// span is the span of the group's intervals against the least: from the
// lowest low to the highest high (nil for a group of one, or one whose
// members have no interval).
func span(group []results.GroupKey) *stats.Interval {
	var s *stats.Interval
	for _, k := range group {
		if k.Ratio == nil || !k.Ratio.Has() {
			continue
		}
		if s == nil {
			s = &stats.Interval{Lo: k.Ratio.Lo, Hi: k.Ratio.Hi, Level: k.Ratio.Level}
			continue
		}
		s.Lo, s.Hi, s.Level = min(s.Lo, k.Ratio.Lo), max(s.Hi, k.Ratio.Hi), min(s.Level, k.Ratio.Level)
	}
	return s
}

// TieBreak is one measured fact that may set a key apart within the
// answer's group: its name (results.Fact.Name), what it says of the key it
// chose, and its figure per key (ok false where the key has none).
type TieBreak struct {
	Name string
	// Says is the clause the answer gives the chosen key, its figure
	// against the others' in it: "its key index is the smallest (%s a
	// million rows)", "21.9 vs 30.7–40.3 MiB".
	Says string
	// Figure is the key's value of the fact, lower being better.
	Figure func(res *results.Results, a *results.Analysis, g *results.Group) (float64, bool)
	// Apart says whether the key of the least figure is set apart from
	// every other of the group.
	Apart func(res *results.Results, a *results.Analysis, best, other *results.Group, vb, vo float64) bool
}

// TieBreaks are the facts that may choose one key of a group, in order:
// the smallest key index per row (measured after the rounds: it fills the
// cache and every index that references the key), at least a tenth below
// every other key's; then the least WAL per transaction, found by its own
// family at least WALMaterial below every other key's. Neither is a
// difference in work (the group's work was not told apart); each is a
// cost a key carries for as long as the table lives. What a key reveals
// and where it is made are said, never used to choose: they weigh
// differently for every application.
var TieBreaks = []TieBreak{
	{
		Name: "key_index_bytes_per_row",
		Says: "its key index is the smallest (%s a million rows)",
		Figure: func(res *results.Results, _ *results.Analysis, g *results.Group) (float64, bool) {
			return keyIndexPerRow(res, g)
		},
		Apart: func(_ *results.Results, _ *results.Analysis, _, _ *results.Group, vb, vo float64) bool {
			return vo >= 1.1*vb
		},
	},
	{
		Name: "wal_bytes_per_txn",
		Says: "its WAL is the least (%s a transaction)",
		Figure: func(_ *results.Results, _ *results.Analysis, g *results.Group) (float64, bool) {
			if g.WAL == nil || g.WAL.Unavailable != "" || !(g.WAL.Mean > 0) {
				return 0, false
			}
			return g.WAL.Mean, true
		},
		Apart: func(_ *results.Results, _ *results.Analysis, best, other *results.Group, _, _ float64) bool {
			v := other.WAL.Versus(best.Key)
			return v != nil && v.Significant && v.Effect >= results.WALMaterial
		},
	},
}

// tieBreak chooses the group's one key: itself, or the key TieBreaks set
// apart (the first fact that does), recording the facts compared.
func tieBreak(res *results.Results, a *results.Analysis, sh *results.Shape, ans *results.Answer) {
	switch len(ans.Group) {
	case 0:
		return
	case 1:
		ans.Choose, ans.Rule = ans.Group[0].Key, "only"
		return
	}
	var members []*results.Group
	for _, k := range ans.Group {
		members = append(members, a.GroupOf(sh, k.Key))
	}
	for _, tb := range TieBreaks {
		values := make([]float64, len(members))
		all := true
		best := -1
		for i, g := range members {
			v, ok := tb.Figure(res, a, g)
			if !ok {
				all = false
				break
			}
			values[i] = v
			if best < 0 || v < values[best] {
				best = i
			}
		}
		if !all {
			continue
		}
		for i, g := range members {
			ans.Facts = append(ans.Facts, results.Fact{Key: g.Key, Name: tb.Name, Value: values[i]})
		}
		apart := true
		for i, g := range members {
			if i != best && !tb.Apart(res, a, members[best], g, values[best], values[i]) {
				apart = false
			}
		}
		if apart {
			ans.Choose, ans.Rule = members[best].Key, tb.Name
			return
		}
	}
	ans.Rule = "none"
}

// keyIndexPerRow is the group's key index bytes per row after its cells
// (their median): the key index's size over the rows the table then held.
func keyIndexPerRow(res *results.Results, g *results.Group) (float64, bool) {
	var per []float64
	for _, i := range g.Cells {
		c := &res.Cells[i]
		b, ok := c.Metrics.KeyIndexBytes.Get()
		rows := c.RowsAtEnd()
		if ok && b > 0 && rows > 0 {
			per = append(per, float64(b)/float64(rows))
		}
	}
	if len(per) == 0 {
		return 0, false
	}
	return stats.Summarize(per).Median, true
}

// undecided says why the shape's rounds ended with pairs open where the
// design allowed more (a budget stopped them), with the pace it measured
// and the budget that would let them decide; "" otherwise. early says the
// budget ended them before the planned rounds: the answer then leads with it.
func undecided(res *results.Results, a *results.Analysis, sh *results.Shape, open bool) (why string, early bool) {
	if !open {
		return "", false
	}
	for _, g := range a.ShapeGroups(sh) {
		for _, i := range g.Cells {
			if b := res.Cells[i].BudgetStop; b != nil {
				return fmt.Sprintf("the budget of %s ended the rounds at %d of the design's %d (a round of every key took %s on this machine); --budget %s would let them decide",
					fmtSeconds(b.BudgetS), b.Rounds, b.Most, fmtSeconds(b.RoundS), fmtSeconds(math.Ceil(b.RoundS*float64(b.Most)*1.2/10)*10)), b.Rounds < b.Planned
			}
		}
	}
	return "", false
}

// fmtSeconds is a duration in seconds as "1m46s".
func fmtSeconds(s float64) string {
	d := int(math.Round(s))
	if d < 60 {
		return fmt.Sprintf("%ds", d)
	}
	return fmt.Sprintf("%dm%02ds", d/60, d%60)
}

// cpuReason is why the group's rounds have no server CPU.
func cpuReason(res *results.Results, g *results.Group) string {
	for _, i := range g.Cells {
		for _, rd := range res.Cells[i].Rounds {
			if rd.Cost != nil && rd.Cost.ServerCPUMS.Reason() != "" {
				return rd.Cost.ServerCPUMS.Reason()
			}
		}
	}
	return "not read"
}

// answerText says the answer in a few short sentences, from its figures.
func answerText(ans *results.Answer, least *results.Group, against bool, needed int, early bool) string {
	var b strings.Builder
	more := "more rounds would tell"
	if needed > 0 {
		more = fmt.Sprintf("--rounds %d would tell", needed)
	}
	switch {
	case ans.Undecided != "" && early:
		fmt.Fprintf(&b, "Undecided: %s. ", ans.Undecided)
		more = "a larger --budget would tell"
	case ans.Undecided != "":
		more = ans.Undecided
	}
	keys := make([]string, len(ans.Group))
	for i, k := range ans.Group {
		keys[i] = k.Key
	}
	switch {
	case len(ans.Group) == 1 && against && ans.Group[0].Key == least.Key:
		fmt.Fprintf(&b, "Choose %s (the question's reference; no key shown to do less).", least.Key)
	case len(ans.Group) == 1 && against:
		fmt.Fprintf(&b, "Choose %s: it does less work than %s, the question's reference (%s).", keys[0], least.Key, ratioText(*ans.Group[0].Ratio))
	case len(ans.Group) == 1:
		fmt.Fprintf(&b, "Choose %s: every other key was shown to do more work.", keys[0])
	default:
		fmt.Fprintf(&b, "%s: %s.", andList(keys), groupWords(ans, least, against, more))
		if ans.Choose != "" {
			fmt.Fprintf(&b, " Choose %s: %s.", ans.Choose, factClause(ans))
		} else if len(ans.Facts) > 0 {
			b.WriteString(" No measured fact sets one of them apart (" + factsApart(ans) + ").")
		}
	}
	if len(ans.Costlier) > 0 {
		var avoid []string
		for i, k := range ans.Costlier {
			if i == 3 {
				avoid = append(avoid, fmt.Sprintf("%d more", len(ans.Costlier)-3))
				break
			}
			avoid = append(avoid, k.Key+" "+ratioText(k.Ratio))
		}
		label := "Avoid"
		if against {
			label = "Costlier than " + least.Key
		}
		fmt.Fprintf(&b, " %s: %s its work.", label, strings.Join(avoid, ", "))
	}
	sayWAL(&b, ans)
	sayUnmeasured(&b, ans)
	return b.String()
}

// groupWords says how the group's keys stand: "no difference in work
// found, each within 0.89–1.16× of the least (more rounds would tell)",
// "the same in practice (within 5%)".
func groupWords(ans *results.Answer, least *results.Group, against bool, more string) string {
	open, same := false, false
	for _, k := range ans.Group {
		open = open || k.How == results.GroupOpen
		same = same || k.How == results.GroupSame
	}
	of := "of the least"
	if against {
		of = "of " + least.Key + "'s, the question's reference"
	}
	within := ""
	if s := ans.Span; s != nil {
		if s.Uninformative() {
			within = fmt.Sprintf(" (%s: its rounds' work varied too much to say; %s)", s.UninformativeText(), more)
		} else {
			within = fmt.Sprintf(", each within %s–%s× %s", stats.BoundText(s.Lo), stats.BoundText(s.Hi), of)
		}
	}
	switch {
	case len(ans.Cheaper) > 0:
		return "each shown to do less work than " + least.Key + ", the question's reference, not compared with each other" + within
	case open && same:
		return fmt.Sprintf("no difference in work found, or the same in practice (within %s)%s", stats.Percent(ans.Margin), within)
	case open:
		w := "no difference in work found" + within
		if !strings.HasPrefix(within, " (") && ans.Choose == "" {
			// More rounds would tell them apart, or not; a key a fact chose
			// stays chosen either way.
			w += " (" + more + ")"
		}
		return w
	}
	return fmt.Sprintf("the same in practice (within %s)%s", stats.Percent(ans.Margin), within)
}

// factClause says the fact that chose: "its key index is the smallest
// (21.9 vs 30.7–40.3 MiB a million rows)".
func factClause(ans *results.Answer) string {
	for _, tb := range TieBreaks {
		if tb.Name != ans.Rule {
			continue
		}
		var mine float64
		var others []float64
		for _, f := range ans.Facts {
			if f.Name != tb.Name {
				continue
			}
			if f.Key == ans.Choose {
				mine = f.Value
			} else {
				others = append(others, f.Value)
			}
		}
		a, b := factValue(tb.Name, mine), factRange(tb.Name, others)
		if na, unit, ok := strings.Cut(a, " "); ok && strings.HasSuffix(b, " "+unit) {
			a = na // one unit: "21.9 vs 30.7–40.3 MiB"
		}
		return fmt.Sprintf(tb.Says, a+" vs "+b)
	}
	return "the only key of least work"
}

// factsApart says the facts compared when none set a key apart.
func factsApart(ans *results.Answer) string {
	var out []string
	for _, tb := range TieBreaks {
		var vs []float64
		for _, f := range ans.Facts {
			if f.Name == tb.Name {
				vs = append(vs, f.Value)
			}
		}
		if len(vs) > 0 {
			out = append(out, map[string]string{"key_index_bytes_per_row": "their key indexes ", "wal_bytes_per_txn": "their WAL "}[tb.Name]+factRange(tb.Name, vs))
		}
	}
	return strings.Join(out, "; ")
}

// factValue writes a fact's figure: a key index per row as its bytes a
// million rows, a WAL as bytes a transaction.
func factValue(name string, v float64) string {
	if name == "key_index_bytes_per_row" {
		return results.Bytes(int64(v * 1e6))
	}
	return results.Bytes(int64(math.Round(v)))
}

// factRange writes the figures' range: "30 MB", "30–31 MB".
func factRange(name string, vs []float64) string {
	if len(vs) == 0 {
		return ""
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	a, b := factValue(name, lo), factValue(name, hi)
	if a == b {
		return a
	}
	if na, ua, ok := strings.Cut(a, " "); ok {
		if _, ub, _ := strings.Cut(b, " "); ua == ub { // one unit: "28.6–29.1 MiB"
			return na + "–" + b
		}
	}
	return a + "–" + b
}

// sayWAL says the keys whose WAL is shown above the least WAL's (its
// key, a point estimate among keys whose WAL may not differ, is in
// WALLeast, not in the sentence: it would change from run to run).
func sayWAL(b *strings.Builder, ans *results.Answer) {
	if len(ans.WALMore) > 0 {
		var more []string
		for _, k := range ans.WALMore {
			more = append(more, k.Key+" "+ratioText(k.Ratio))
		}
		fmt.Fprintf(b, " More WAL: %s the least's.", strings.Join(more, ", "))
	}
}

// sayUnmeasured says what was not measured, the work then the IO counts.
func sayUnmeasured(b *strings.Builder, ans *results.Answer) {
	if len(ans.NotMeasured) > 0 {
		fmt.Fprintf(b, " Not measured: %s; the work is the IO counts.", strings.Join(ans.NotMeasured, ", "))
	}
}

// ratioText is "1.39× [1.09–1.77, 99.5%]", or "1.39×" without an interval.
func ratioText(r results.Ratio) string {
	if r.Level > 0 && r.Lo > 0 && r.Hi > r.Lo {
		return stats.RatioText(r.Ratio) + " " + r.RatioText()
	}
	return stats.RatioText(r.Ratio)
}

// andList joins names: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
