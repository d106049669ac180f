package advise

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// Measured is what a table's lab measured (advise --lab): the table's key
// against the ordered key of the least work the lab ran beside it,
// read from the lab's results at path — its cost per transaction and its
// rate, each a ratio with its interval and whether the direction is known
// — or why the lab gave no verdict (runErr: the lab did not finish).
func Measured(path string, lab *Lab, runErr error) *LabResult {
	out := &LabResult{Results: path, Key: lab.Key}
	res, err := verdict.Read(path, all.Kinds())
	switch {
	case err != nil && runErr != nil:
		out.Unavailable = "the lab failed: " + runErr.Error()
		return out
	case err != nil:
		out.Unavailable = "its results could not be read: " + err.Error()
		return out
	}
	groups := res.Analysis.Groups
	var mine *results.Group
	for i := range groups {
		if groups[i].Key == lab.Key {
			mine = &groups[i]
		}
	}
	if mine == nil {
		out.Unavailable = "the lab measured no cell of " + lab.Key
		if runErr != nil {
			out.Unavailable += " (" + runErr.Error() + ")"
		}
		return out
	}
	against := cheapestOther(groups, mine)
	if against == nil {
		out.Unavailable = "the lab measured no other key beside " + lab.Key
		return out
	}
	out.Against = against.Key
	if v := mine.Cost.Versus(against.Key); v != nil {
		out.Cost = labRatio(v.Comparison)
	}
	if out.Cost == nil {
		out.CostUnavailable = "too few rounds to compare"
		if mine.Cost == nil {
			out.CostUnavailable = "the lab's rounds recorded no cost"
		} else if mine.Cost.Unavailable != "" {
			out.CostUnavailable = mine.Cost.Unavailable
		}
	}
	for _, v := range mine.Compared {
		if v.Key == against.Key {
			out.Rate = labRatio(v.Comparison)
		}
	}
	if v := mine.WAL.Versus(against.Key); v != nil {
		out.WAL = labRatio(v.Comparison)
	}
	if mine.Cost != nil {
		for _, r := range mine.Cost.Why { // against the shape's least: against, where mine is not it
			if r.Lo > 1 || r.Hi > 0 && r.Hi < 1 {
				out.Counts = append(out.Counts, r)
			}
		}
	}
	var short []string
	for i := range groups {
		if g := &groups[i]; !res.Last(g).Held() { // its rate as every output gives it (the rounds' geometric mean)
			c := res.Last(g)
			short = append(short, fmt.Sprintf("%s ran %s of %s tps (%.0f%%)", g.Key, rate(g.Rate), rate(c.Pace.RateTPS), 100*c.ScheduleShare()))
		}
	}
	out.Shortfall = strings.Join(short, "; ")
	if out.Cost == nil && out.Rate == nil {
		out.Unavailable = fmt.Sprintf("%s and %s were not compared: too few rounds", lab.Key, against.Key)
		if mine.Cost != nil && mine.Cost.Unavailable != "" {
			out.Unavailable = mine.Cost.Unavailable
		}
	}
	return out
}

// cheapestOther is the key of mine's shape, other than mine, of the least
// work per transaction (of the highest median rate where
// the costs were not measured).
func cheapestOther(groups []results.Group, mine *results.Group) *results.Group {
	var best *results.Group
	better := func(g *results.Group) bool {
		if best == nil {
			return true
		}
		if g.Cost != nil && best.Cost != nil && g.Cost.Mean > 0 && best.Cost.Mean > 0 {
			return g.Cost.Mean < best.Cost.Mean
		}
		return g.Rate > best.Rate
	}
	for i := range groups {
		g := &groups[i]
		if g != mine && g.SameShape(mine) && better(g) {
			best = g
		}
	}
	return best
}

// labRatio is a comparison as the advice carries it (nil when it was not
// tested or has no interval).
func labRatio(c stats.Comparison) *LabRatio {
	if c.TooFew || c.Degenerate || c.Level <= 0 {
		return nil
	}
	return &LabRatio{Ratio: c.Effect, Interval: c.Interval, Significant: c.Significant}
}

// FollowLab makes each labbed table's class follow what its lab measured:
// a key whose work per transaction the lab found larger than the ordered
// key's keeps its class with the measurement first; one whose lab found no
// difference (or found it cheaper) is NoDifference, said with what would
// decide it; a lab without a cost comparison leaves the class, saying so.
// The tables are ordered and ranked again.
func FollowLab(tables []Table) {
	for i := range tables {
		t := &tables[i]
		r := t.LabResult
		if r == nil || t.Lab == nil {
			continue
		}
		at := fmt.Sprintf("at %s rows (its key index %s× the cache), %d clients", results.Thousands(t.Lab.Rows), results.Digits(t.Lab.Ratio, 2), t.Lab.Clients)
		if t.Lab.RateTPS > 0 {
			at += fmt.Sprintf(", %s tx/s", rate(t.Lab.RateTPS))
		} else {
			at += ", flat out"
		}
		if t.Lab.Mix != "" {
			at += ", replaying " + t.Lab.Mix
		} else {
			at += ", inserting"
		}
		c := r.Cost
		if counts := countsText(r.Counts); counts != "" {
			t.Verdict.Why = append(t.Verdict.Why, fmt.Sprintf("Its lab's counts per transaction, %s over %s's: %s.", r.Key, r.Against, counts))
		}
		if r.Shortfall != "" {
			t.Verdict.Why = append(t.Verdict.Why, "Its lab did not keep the table's rate: "+r.Shortfall+"; its latency is its queue's.")
		}
		moreWAL := r.WAL != nil && r.WAL.Significant && r.WAL.Lo > 1
		switch {
		case r.Unavailable != "" || c == nil:
			why := cmp.Or(r.Unavailable, r.CostUnavailable)
			t.Verdict.Why = append([]string{"Its lab gave no verdict on the work (" + why + "): the class stands on the figures read, not measured."}, t.Verdict.Why...)
		case c.Significant && c.Lo > 1:
			if t.Verdict.Class == NotShown {
				t.Verdict.Class = Pays // the lab shows the cost the figures read did not
			}
			t.Verdict.Why = append([]string{fmt.Sprintf("Measured by its lab %s: %s makes the server do %s the work per transaction of %s %s.",
				at, r.Key, stats.RatioText(c.Ratio), r.Against, labInterval(c))}, t.Verdict.Why...)
		case moreWAL:
			// The same work on this disk, but more WAL: what every standby
			// receives and every archive keeps, whatever the disk costs.
			if t.Verdict.Class == NotShown {
				t.Verdict.Class = Pays
			}
			t.Verdict.Why = append([]string{fmt.Sprintf("Measured by its lab %s: %s's work per transaction is %s %s's %s, but it writes %s %s's WAL %s, which every standby, archive and recovery carries.",
				at, r.Key, stats.RatioText(c.Ratio), r.Against, labInterval(c), stats.RatioText(r.WAL.Ratio), r.Against, labInterval(r.WAL))}, t.Verdict.Why...)
		default:
			found := "no difference found"
			if c.Significant {
				found = "less work than " + r.Against + "'s"
			}
			t.Verdict.Class, t.Verdict.Rank, t.Verdict.Cost = NoDifference, 0, nil
			t.Verdict.Why = append([]string{fmt.Sprintf("Measured by its lab %s: %s's work per transaction is %s %s's %s, %s. %s",
				at, r.Key, stats.RatioText(c.Ratio), r.Against, labInterval(c), found, flatOutSays(t))}, t.Verdict.Why...)
		}
	}
	order(tables)
}

// NeedsFlatOut says whether a table's lab, run at the table's rate,
// found no difference in work: the same lab is then run flat out (advise
// --lab), to say whether a busier table would pay.
func NeedsFlatOut(t *Table) bool {
	r := t.LabResult
	return t.Lab != nil && t.Lab.RateTPS > 0 && r != nil && r.Unavailable == "" && r.Cost != nil && !(r.Cost.Significant && r.Cost.Lo > 1)
}

// flatOutSays is what would decide a lab that found no difference: the
// flat-out lab's finding where it ran, else the larger table and rate
// that would show a random key's cost.
func flatOutSays(t *Table) string {
	more := fmt.Sprintf("A table further past its cache (--rows %s) or a higher rate would show a random key's reads and images; more rounds would narrow the interval.", results.Thousands(4*t.Lab.Rows))
	f := t.LabFlatOut
	switch {
	case f == nil:
		return more
	case f.Unavailable != "" || f.Cost == nil:
		return "The same lab flat out gave no verdict on the work (" + f.Unavailable + f.CostUnavailable + "). " + more
	case f.Cost.Significant && f.Cost.Lo > 1:
		return fmt.Sprintf("Flat out, the same lab found %s doing %s the work per transaction of %s %s: at a higher rate than yours the key costs.",
			f.Key, stats.RatioText(f.Cost.Ratio), f.Against, labInterval(f.Cost))
	}
	return fmt.Sprintf("Flat out, the same lab found no difference either (%s %s). %s", stats.RatioText(f.Cost.Ratio), labInterval(f.Cost), more)
}

// labInterval is a lab ratio's interval with its level.
func labInterval(c *LabRatio) string {
	return c.RatioText()
}

// countsText is a lab's counts that differ, in a line: "9.4× [8.9–9.9,
// 95%] the WAL, 49× [44–55, 95%] the full-page images" (at most four).
func countsText(rs []results.Reason) string {
	var parts []string
	for _, r := range rs[:min(4, len(rs))] {
		parts = append(parts, r.Text())
	}
	return strings.Join(parts, ", ")
}
