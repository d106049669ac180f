package advise

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// CheckCurves refuses a results file advise cannot read a cost from: one
// without a key measured at several sizes (package projection's curves).
func CheckCurves(r *results.Results) error {
	curves, _, err := projection.Curves(r)
	if err != nil {
		return fmt.Errorf("no curves to project from: %v; a growth run measures them (keybench run growth)", err)
	}
	for _, c := range curves {
		if len(c.Points) >= projection.MinPoints {
			return nil
		}
	}
	return fmt.Errorf("a %s run, its keys measured at one size each: the cost of a key needs curves over several sizes (keybench run growth)", r.Scenario)
}

// orderedKeys are the run keys that stand for "an ordered key", best first.
var orderedKeys = []string{"bigint", "uuidv7", "int", "ulid"}

// costOf carries the run's curves to a paying table's rows, cache, insert
// rate and row width: its key's rate relative to an ordered key's, both
// key index sizes, both WAL per day. Nil, with the why added to the
// verdict, when the run has no curve for the table's key.
func costOf(run *results.Results, t *Table, s Server) *Cost {
	rows, ok := t.Rows.Get()
	if !ok || rows <= 0 {
		t.Verdict.Why = append(t.Verdict.Why, "No cost from the curves: the table's rows are unknown.")
		return nil
	}
	scale := projection.Scale{Rows: rows, CacheBytes: s.SharedBuffers}
	if ins, ok := t.InsertsPerS.Get(); ok && ins > 0 {
		scale.InsertRate = ins
	}
	if rb, ok := t.RowBytes.Get(); ok && rb > 0 {
		scale.RowBytes = rb + 28 // a tuple's header and line pointer over the columns' width
	}
	rep, err := projection.Project(run, scale)
	if err != nil {
		t.Verdict.Why = append(t.Verdict.Why, "No cost from the curves: "+err.Error()+".")
		return nil
	}
	spec, _, _ := labKey(t.Key)
	find := func(names ...string) *projection.Projection {
		for _, n := range names {
			for i := range rep.Keys {
				if rep.Keys[i].Key == n {
					return &rep.Keys[i]
				}
			}
		}
		return nil
	}
	// The table's key as it stores it: a text uuid's curve is a text
	// uuid's, never the uuid type's (whose index is half the size).
	mine := find(spec, strings.TrimSuffix(spec, ":index=unique"))
	ordered := find(orderedKeys...)
	switch {
	case spec == "" || mine == nil:
		t.Verdict.Why = append(t.Verdict.Why, fmt.Sprintf("No cost from the curves: the run has no curve for %s, the key as this table stores it (a growth run with --keys %s,bigint measures one).",
			orText(spec, t.Key.Type), orText(spec, "KEY")))
		return nil
	case ordered == nil:
		t.Verdict.Why = append(t.Verdict.Why, "No cost from the curves: the run has no curve for an ordered key ("+strings.Join(orderedKeys, ", ")+").")
		return nil
	case mine.NotSupported != "":
		t.Verdict.Why = append(t.Verdict.Why, fmt.Sprintf("No cost from the curves at this table's %s rows: %s.", humanCount(rows), mine.NotSupported))
		return nil
	}
	c := &Cost{Key: mine.Key, Ordered: ordered.Key, Relative: mine.Relative / ordered.Relative, Outside: mine.Outside || ordered.Outside,
		KeyIndexBytes: mine.KeyIndexBytes, OrderedKeyIndexBytes: ordered.KeyIndexBytes, WALPerDay: mine.WALPerDay, OrderedWALPerDay: ordered.WALPerDay}
	c.Interval = relativeInterval(mine, ordered)
	line := fmt.Sprintf("The measured curves (%s against %s at this table's %s rows and cache): %s of the ordered key's insert rate%s; key index %s against %s",
		mine.Key, ordered.Key, humanCount(rows), c.relativeText(), outsideText(c.Outside), results.Bytes(c.KeyIndexBytes), results.Bytes(c.OrderedKeyIndexBytes))
	if w, ok := c.WALPerDay.Get(); ok {
		if ow, ok := c.OrderedWALPerDay.Get(); ok {
			line += fmt.Sprintf("; WAL %s a day against %s", results.Bytes(int64(w)), results.Bytes(int64(ow)))
		}
	}
	t.Verdict.Why = append(t.Verdict.Why, line+".")
	return c
}

// relativeInterval is the interval of mine's rate over ordered's: mine's
// own where ordered is the curves' reference (its rate 1 by definition),
// else the two intervals divided end by end (wider: it ignores that the
// keys ran in the same rounds) at the level both cover at once at least
// (Bonferroni). None where either has none.
func relativeInterval(mine, ordered *projection.Projection) stats.Interval {
	switch {
	case mine.Lo <= 0 || mine.Hi <= 0:
		return stats.Interval{}
	case ordered.Relative == 1 && (ordered.Lo == 0 || ordered.Lo == 1):
		return mine.Interval
	case ordered.Lo <= 0 || ordered.Hi <= 0:
		return stats.Interval{}
	}
	return stats.Interval{Lo: mine.Lo / ordered.Hi, Hi: mine.Hi / ordered.Lo, Level: mine.Level + ordered.Level - 1}
}

// relativeText is the relative rate with its interval, said plainly when
// the interval spans 1 (the direction is not known at this scale) or when
// there is none.
func (c *Cost) relativeText() string {
	switch {
	case c.Lo <= 0:
		return fmt.Sprintf("%.2f (no interval: the curve's points have none)", c.Relative)
	case c.Lo < 1 && c.Hi > 1:
		return fmt.Sprintf("%.2f %s — the interval spans 1: at this scale the curves cannot tell which key inserts faster", c.Relative, c.Text(results.Formatted("%.2f")))
	}
	return fmt.Sprintf("%.2f %s", c.Relative, c.Text(results.Formatted("%.2f")))
}

func outsideText(outside bool) string {
	if outside {
		return " (beyond the measured ratios: extrapolated)"
	}
	return ""
}

func humanCount(n int64) string {
	switch {
	case n >= 1e9:
		return results.Significant(float64(n)/1e9) + "G"
	case n >= 1e6:
		return results.Significant(float64(n)/1e6) + "M"
	case n >= 1e3:
		return results.Significant(float64(n)/1e3) + "k"
	}
	return fmt.Sprint(n)
}
