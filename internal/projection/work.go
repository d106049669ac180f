package projection

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// The work a key makes the server do per transaction (package verdict's
// work figure: the CPU of every server process and the counted blocks,
// WAL and flushes priced on the run's device), carried to the user's
// scale along the same variable as the rate: the key index's size over
// the cache. Counts move smoothly with scale where rates, which carry the
// machine's waits, do not; so the work is the figure a projection leads
// with, and the rate follows as the run's machine measured it.
//
// The interval is the points' own (each the rounds' paired interval of
// the key's work over the reference key's), read through the curve as
// IntervalAt does: every point erring the same way at once, which makes
// it at least as wide as the points' level says, so the level printed is
// a floor. Nothing else is added: the curve's checks (validate.go) are
// shown beside it, not folded into it a second time.

// WorkBeyond is how far beyond the largest measured index over cache (×)
// a work projection states a number: past it the line through the points
// has no measurement to hold it, and the projection prints the points it
// would be carried from instead.
const WorkBeyond = 16

// WorkProjection is a key's work per transaction at the user's scale over
// the reference key's, or why there is none.
type WorkProjection struct {
	Key     string `json:"key"`
	Against string `json:"against"`
	// Ratio is the key index over the cache at the scale; At is where the
	// figure was read: Ratio, or the one measured index over cache where
	// the run measured a single level out of reach of Ratio (the figure is
	// then that point's, not carried to the scale).
	Ratio float64 `json:"key_index_cache_ratio"`
	At    float64 `json:"read_at_ratio,omitempty"`
	// Relative's Interval's level is the lowest of the points' intervals:
	// the printed interval holds at least this.
	Relative float64 `json:"relative_work,omitempty"`
	stats.Interval
	// Beyond is the projected index over cache over the largest measured
	// one (≤ 1: within the measured range); Outside when extrapolated.
	Beyond  float64 `json:"beyond_largest_measured"`
	Outside bool    `json:"outside_measured_range,omitempty"`
	// Direction is "more", "less" (the interval excludes 1), or "" when
	// not known at this scale; Decide then says what run would decide it.
	Direction string `json:"direction,omitempty"`
	Decide    string `json:"decide,omitempty"`
	// Points are the measured points it was read from (index over cache:
	// relative work).
	Points []Point `json:"points,omitempty"`
	// Unavailable is why there is no number: too few points, no interval,
	// or beyond WorkBeyond (the points are then the model's inputs).
	Unavailable string `json:"unavailable,omitempty"`
}

// WorkPair is one key's projected work over another key's at the scale
// (neither the reference): the ratio of their projections over the
// reference, its interval — their standard errors added, at 95%, where
// both were read off one measured level (pairError); else their log
// half-widths added at the lower of their levels — and the direction it
// shows. Both carry the reference's noise, so the interval is wider than
// a comparison of the two alone would be: its level is a floor.
type WorkPair struct {
	Key      string  `json:"key"`
	Against  string  `json:"against"`
	Relative float64 `json:"relative_work"`
	stats.Interval
	Direction string `json:"direction,omitempty"`
}

// workPairs are every two projected keys' work over each other, each
// key against every other once (in the projections' order).
func workPairs(ws []WorkProjection) []WorkPair {
	var out []WorkPair
	for i, a := range ws {
		for j, b := range ws {
			if i == j || a.Unavailable != "" || b.Unavailable != "" || a.Relative <= 0 || b.Relative <= 0 || a.Lo <= 0 || b.Lo <= 0 {
				continue
			}
			r := a.Relative / b.Relative
			p := WorkPair{Key: a.Key, Against: b.Key, Relative: r}
			if se, df, ok := pairError(a, b); ok {
				// Both read off one measured level each: their standard
				// errors added, a 95% interval on their degrees of freedom.
				half := stats.TQuantile(0.975, df) * se
				p.Lo, p.Hi, p.Level = r*math.Exp(-half), r*math.Exp(half), 0.95
			} else {
				down := math.Hypot(math.Log(a.Relative/a.Lo), math.Log(b.Hi/b.Relative))
				up := math.Hypot(math.Log(a.Hi/a.Relative), math.Log(b.Relative/b.Lo))
				p.Lo, p.Hi, p.Level = r*math.Exp(-down), r*math.Exp(up), math.Min(a.Level, b.Level)
			}
			p.Direction = direction(p.Lo, p.Hi)
			out = append(out, p)
		}
	}
	return out
}

// pairError is the standard error (log scale) and degrees of freedom of
// a's projection over b's where each was read off one measured level
// with its own (the paired rounds' t statistic): their variances added
// (both over the same reference, whose noise they share: the sum
// overstates the pair's, so the interval is at least 95%).
func pairError(a, b WorkProjection) (se, df float64, ok bool) {
	if len(a.Points) != 1 || len(b.Points) != 1 || a.At != a.Points[0].Ratio || b.At != b.Points[0].Ratio {
		return 0, 0, false
	}
	pa, pb := a.Points[0], b.Points[0]
	if pa.se <= 0 || pb.se <= 0 || pa.df <= 0 || pb.df <= 0 {
		return 0, 0, false
	}
	va, vb := pa.se*pa.se, pb.se*pb.se
	return math.Sqrt(va + vb), (va + vb) * (va + vb) / (va*va/pa.df + vb*vb/pb.df), true
}

// workCurves are the run's keys' work curves over ref's at clients: each
// point a table size and cache, placed at its key index over the cache,
// its work over the reference key's in the same shape with the paired
// interval of the rounds.
func workCurves(r *results.Results, clients int, ref string) map[string]Curve {
	all := r.Analysis.Groups
	if len(all) > 0 && clients == 0 {
		clients = all[0].Clients
	}
	groups, _ := groupsAt(all, clients)
	refWork := map[string]float64{}
	for _, g := range groups {
		if g.Key == ref && g.Cost != nil && g.Cost.Mean > 0 {
			refWork[g.Shape()] = g.Cost.Mean
		}
	}
	out := map[string]Curve{}
	for i := range groups {
		g := &groups[i]
		base := refWork[g.Shape()]
		ratio, ok := cacheRatio(r, r.Last(g))
		if !ok || base <= 0 || g.Cost == nil || g.Cost.Mean <= 0 {
			continue
		}
		pt := Point{RowsBefore: g.Rows, SharedBuffers: g.SharedBuffers, Ratio: ratio, Relative: g.Cost.Mean / base, cell: r.Last(g)}
		if g.Key == ref {
			pt.Interval = stats.Interval{Lo: 1, Hi: 1, Level: 1}
		} else if v := g.Cost.Versus(ref); v != nil && v.Level > 0 && v.Lo > 0 && v.Effect > 0 {
			pt.Relative, pt.Interval, pt.se, pt.df = v.Effect, v.Interval, v.SE, v.DF
		}
		c := out[g.Key]
		c.Key = g.Key
		c.Points = append(c.Points, pt)
		out[g.Key] = c
	}
	for k, c := range out {
		sort.Slice(c.Points, func(i, j int) bool { return c.Points[i].Ratio < c.Points[j].Ratio })
		out[k] = c
	}
	return out
}

// projectWork reads a key's work curve at the projected index over cache
// (ratio): its value and interval, how far beyond the measured points,
// and whether the direction against the reference is known there.
func projectWork(c Curve, ratio float64, largest *results.Cell) *WorkProjection {
	c.Points = pool(c.Points)
	w := &WorkProjection{Points: c.Points}
	if len(c.Points) == 0 {
		w.Unavailable = "its rounds recorded no work beside the reference key's"
		return w
	}
	last := c.lastRatio()
	w.Beyond = ratio / last
	for _, p := range c.Points {
		if p.Lo <= 0 {
			w.Unavailable = fmt.Sprintf("the point at index %s× the cache has no interval (too few rounds)", results.Digits(p.Ratio, 2))
			return w
		}
	}
	level := c.levelFloor()
	if len(c.Points) == 1 {
		// One level (one size, or one index over cache at several scales):
		// its figure where it was measured, and whether that is yours.
		p := c.Points[0]
		w.At, w.Relative, w.Lo, w.Hi, w.Level = p.Ratio, p.Relative, p.Lo, p.Hi, level
		w.Direction = direction(p.Lo, p.Hi)
		switch d := math.Abs(math.Log2(ratio / p.Ratio)); {
		case d > poolDoublings:
			w.Outside = true
			w.Decide = fmt.Sprintf("%.1f doublings from the one measured; %s would measure it", d, decideRun(ratio, largest))
		case w.Direction == "":
			w.Decide = "no difference found where it was measured, within half a doubling of yours: more rounds there (--rounds) would narrow the interval"
		}
		return w
	}
	if w.Beyond > WorkBeyond {
		w.Unavailable = fmt.Sprintf("%.0f× beyond the largest measured index over cache (more than %d×): no number is carried that far; the line would run through %s",
			w.Beyond, WorkBeyond, pointsText(c.Points))
		return w
	}
	w.Relative, w.Outside = c.at(ratio, func(i int) float64 { return c.Points[i].Relative })
	lo, hi, ok := c.IntervalAt(ratio)
	if !ok || !(w.Relative > 0) {
		w.Unavailable = "the curve, carried to your scale, leaves what a work ratio can be (not positive)"
		w.Relative = 0
		return w
	}
	w.At, w.Lo, w.Hi, w.Level, w.Floor = ratio, lo, hi, level, true
	if w.Direction = direction(lo, hi); w.Direction == "" {
		w.Decide = decideRun(ratio, largest)
	}
	return w
}

// direction is what an interval of a work ratio says: "more" or "less"
// work than the reference, or "" (it holds 1).
func direction(lo, hi float64) string {
	switch {
	case lo > 1:
		return "more"
	case hi < 1:
		return "less"
	}
	return ""
}

// workAt is every key's work projection at the scale (the reference key's
// is 1 by definition and not listed): its index over the cache at the
// scale's rows and cache, read off its work curve.
func workAt(r *results.Results, s Scale, ref string) ([]WorkProjection, error) {
	curves := workCurves(r, s.Clients, ref)
	var keys []string // in the run's order
	for _, g := range r.Analysis.Groups {
		if _, ok := curves[g.Key]; ok && g.Key != ref && !slices.Contains(keys, g.Key) {
			keys = append(keys, g.Key)
		}
	}
	var out []WorkProjection
	for _, k := range keys {
		sz, why, err := sizesAt(r, k, s)
		if err != nil {
			return nil, err
		}
		if why != "" {
			out = append(out, WorkProjection{Key: k, Against: ref, Unavailable: why})
			continue
		}
		w := projectWork(curves[k], sz.Ratio, largestCell(r, k))
		w.Key, w.Against, w.Ratio = k, ref, sz.Ratio
		out = append(out, *w)
	}
	return out, nil
}

// decideRun is the run that would measure the work where the projection
// cannot say its direction: the key index at the projected size over the
// cache, with the run's cache.
func decideRun(ratio float64, largest *results.Cell) string {
	if largest == nil {
		return "a run whose key index is that size over its cache"
	}
	measured, ok := largest.Metrics.KeyIndexCacheRatio.Get()
	if !ok || measured <= 0 {
		return "a run whose key index is that size over its cache"
	}
	rows := float64(largest.RowsAtEnd()) * ratio / measured
	round := math.Pow(10, math.Floor(math.Log10(rows))-1) // two figures
	return fmt.Sprintf("a run at about %s rows with this run's cache (its key index %s× the cache, as yours)", results.Thousands(int64(math.Round(rows/round)*round)), results.Digits(ratio, 2))
}

// pointsText lists a curve's points, "0.5×: 1.10 [1.05–1.16, 95%]".
func pointsText(ps []Point) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("%s×: %.2f %s", results.Digits(p.Ratio, 2), p.Relative, p.Text(results.Formatted("%.2f"))))
	}
	return strings.Join(s, ", ")
}
