package verdict

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// answer is the run's answer (results.Answer), computed from the
// analysis alone: for the last shape whose keys' work was compared, the
// key of least work and those shown the same within the margin are the
// ones to choose; the costliest key shown to do more is what a wrong
// choice costs in work, and the keys whose WAL per transaction its own
// family found above the least WAL's; the keys neither way
// decided are said open, with what would decide them; the parts of the
// work the run could not read are said too.
func answer(res *results.Results, a *results.Analysis) *results.Answer {
	var sh *results.Shape
	for i := range a.Shapes {
		if a.Shapes[i].Least != "" {
			sh = &a.Shapes[i]
		}
	}
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
	ans := &results.Answer{Shape: sh.Title, Choose: []string{least.Key}}
	needed := 0
	for _, g := range a.ShapeGroups(sh) {
		v := g.Cost.Versus(least.Key)
		switch {
		case g == least || v == nil:
		case v.Equivalent():
			ans.Choose, ans.Margin = append(ans.Choose, g.Key), v.Margin
		case !v.Significant:
			ans.Open = append(ans.Open, g.Key)
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
	sort.SliceStable(ans.Cheaper, func(i, j int) bool { return ans.Cheaper[i].Ratio.Ratio < ans.Cheaper[j].Ratio.Ratio })
	if len(ans.Cheaper) > 0 { // the least of the keys shown below the reference
		ans.Choose = []string{ans.Cheaper[0].Key}
	}
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
	ans.Text = answerText(ans, least, sh.Against, needed)
	return ans
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
func answerText(ans *results.Answer, least *results.Group, against bool, needed int) string {
	var b strings.Builder
	more := "more rounds would tell"
	if needed > 0 {
		more = fmt.Sprintf("--rounds %d would tell", needed)
	}
	if none := !against && len(ans.Costlier) == 0 && len(ans.Choose) == 1 && len(ans.Open) > 0; none {
		// Nothing told apart: no key is chosen, none ranked.
		fmt.Fprintf(&b, "No key was shown to do more work than another: %s not told apart (%s).", andList(append([]string{ans.Choose[0]}, ans.Open...)), more)
		sayWAL(&b, ans)
		sayUnmeasured(&b, ans)
		return b.String()
	}
	fmt.Fprintf(&b, "Choose %s", ans.Choose[0])
	switch {
	case against && len(ans.Cheaper) > 0:
		var less []string
		for _, k := range ans.Cheaper {
			less = append(less, k.Key+" "+ratioText(k.Ratio))
		}
		fmt.Fprintf(&b, " (less work than %s, the question's reference: %s)", least.Key, strings.Join(less, ", "))
	case against && len(ans.Choose) > 1:
		fmt.Fprintf(&b, " (the question's reference; no key shown to do less) or %s (the same within %s)", orList(ans.Choose[1:]), stats.Percent(ans.Margin))
	case against:
		b.WriteString(" (the question's reference; no key shown to do less)")
	case len(ans.Choose) > 1:
		fmt.Fprintf(&b, " (least work) or %s (the same within %s)", orList(ans.Choose[1:]), stats.Percent(ans.Margin))
	default:
		b.WriteString(" (least work)")
	}
	b.WriteString(".")
	if len(ans.Costlier) > 0 {
		var more []string
		for i, k := range ans.Costlier {
			if i == 3 {
				more = append(more, fmt.Sprintf("%d more", len(ans.Costlier)-3))
				break
			}
			more = append(more, k.Key+" "+ratioText(k.Ratio))
		}
		label := "Costlier"
		if against {
			label = "Costlier than " + least.Key
		}
		fmt.Fprintf(&b, " %s: %s its work a transaction.", label, strings.Join(more, ", "))
	} else {
		b.WriteString(" No key was shown to do more work.")
	}
	sayWAL(&b, ans)
	if len(ans.Open) > 0 {
		fmt.Fprintf(&b, " %s not told apart from %s (%s).", andList(ans.Open), least.Key, more)
	}
	sayUnmeasured(&b, ans)
	return b.String()
}

// sayWAL says the keys whose WAL is shown above the least WAL's.
func sayWAL(b *strings.Builder, ans *results.Answer) {
	if len(ans.WALMore) > 0 {
		var more []string
		for _, k := range ans.WALMore {
			more = append(more, k.Key+" "+ratioText(k.Ratio))
		}
		fmt.Fprintf(b, " WAL over %s's: %s, what every standby, archive and recovery carries.", ans.WALLeast, strings.Join(more, ", "))
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

// orList joins names: "a", "a or b", "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// andList joins names: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
