package projection

import (
	"fmt"
	"math"
	"sort"

	"github.com/keybench/keybench/internal/results"
)

// Validation by distance. A projection read far beyond the measured points
// deserves less trust than one read between them, so the check must be as
// far from its data as the projection is: every measured point is projected
// from the points below it — from all of them, and again from fewer, one,
// two, three steps back — and from its neighbours where it lies between
// two (distance 0: interpolation). Each such check is an error measured at
// a distance in doublings of the key index over the cache past the last
// point it used. A projection then carries the error of the check at its own
// distance (the nearest check at least as far, the worst of equally far
// ones), or says it is beyond anything checked.

// Check is one measured point projected from others.
type Check struct {
	// Points is how many points the projection used; Target the ratio
	// of the point it projected.
	Points int     `json:"points"`
	Target float64 `json:"target_ratio"`
	// Distance is in doublings of the ratio past the last point used (0:
	// between two points, interpolated).
	Distance float64 `json:"distance_doublings"`
	// Error is the projection over the measurement, less 1 (+0.1: the
	// projection said 10% faster than was measured).
	Error float64 `json:"error"`
}

// Checks projects each point from the points below it (every prefix of
// two points or more: the curve's line beyond them) and each interior
// point from its neighbours.
func (c Curve) Checks() []Check {
	p := c.Points
	var out []Check
	for j := 2; j < len(p); j++ {
		for i := 2; i <= j; i++ {
			prefix := Curve{Key: c.Key, Points: p[:i]}
			v, _ := prefix.At(p[j].Ratio)
			if p[j].Relative <= 0 || math.IsNaN(v) || p[j].Ratio <= p[i-1].Ratio {
				continue
			}
			out = append(out, Check{Points: i, Target: p[j].Ratio, Distance: math.Log2(p[j].Ratio / p[i-1].Ratio), Error: v/p[j].Relative - 1})
		}
	}
	for k := 1; k+1 < len(p); k++ {
		rest := append(append([]Point(nil), p[:k]...), p[k+1:]...)
		v, _ := Curve{Key: c.Key, Points: rest}.At(p[k].Ratio)
		if p[k].Relative <= 0 || math.IsNaN(v) {
			continue
		}
		out = append(out, Check{Points: len(rest), Target: p[k].Ratio, Distance: 0, Error: v/p[k].Relative - 1})
	}
	// A point pooled from one ratio measured at several scales: each scale
	// read as the level of the others (the estimator a level projection uses).
	for _, q := range p {
		for k, m := range q.members {
			var lv float64
			for i, o := range q.members {
				if i != k {
					lv += math.Log(o.Relative)
				}
			}
			if m.Relative > 0 {
				out = append(out, Check{Points: len(q.members) - 1, Target: m.Ratio, Distance: 0, Error: math.Exp(lv/float64(len(q.members)-1))/m.Relative - 1})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Distance < out[b].Distance })
	return out
}

// Validation is what a projection's checks say of it.
type Validation struct {
	// Distance is the projection's own, in doublings past the nearest
	// measured point (0: between measured points).
	Distance float64 `json:"distance_doublings"`
	// Error is the error of the check at that distance; Check is that check.
	Error results.M[float64] `json:"error"`
	Check *Check             `json:"check,omitempty"`
	// Beyond is how many doublings the projection lies past the farthest
	// check (0: within what was checked).
	Beyond float64 `json:"beyond_checked_doublings,omitempty"`
}

// distanceOf is how far ratio lies outside the curve's points, in doublings.
func (c Curve) distanceOf(ratio float64) float64 {
	p := c.Points
	if len(p) == 0 || ratio <= 0 {
		return math.Inf(1)
	}
	switch {
	case ratio > p[len(p)-1].Ratio:
		return math.Log2(ratio / p[len(p)-1].Ratio)
	case ratio < p[0].Ratio:
		return math.Log2(p[0].Ratio / ratio)
	}
	return 0
}

// levelDistance is distanceOf for a curve that is one level (one ratio
// measured at several scales: pool): 0 within poolDoublings of it.
func (c Curve) levelDistance(ratio float64) float64 {
	d := c.distanceOf(ratio)
	if len(c.Points) == 1 && c.Points[0].Measurements > 1 && d <= poolDoublings {
		return 0
	}
	return d
}

// ValidationAt is the check a projection at ratio carries.
func (c Curve) ValidationAt(ratio float64) Validation {
	v := Validation{Distance: c.levelDistance(ratio)}
	checks := c.Checks()
	if len(checks) == 0 {
		v.Error = results.Unavailable[float64](fmt.Sprintf("nothing to check it against: %d measured sizes (a check needs 3)", len(c.Points)))
		return v
	}
	// Checks are sorted by distance: the first at least as far, and the
	// worst of those equally far.
	var pick *Check
	for i := range checks {
		ch := &checks[i]
		if ch.Distance+1e-9 < v.Distance {
			continue
		}
		if pick != nil && ch.Distance > pick.Distance+1e-9 {
			break
		}
		if pick == nil || math.Abs(ch.Error) > math.Abs(pick.Error) {
			pick = ch
		}
	}
	if pick == nil {
		far := checks[len(checks)-1].Distance
		v.Beyond = v.Distance - far
		v.Error = results.Unavailable[float64](fmt.Sprintf("beyond anything validated (%.1f doublings past the last check, at %.1f)", v.Beyond, far))
		return v
	}
	v.Check, v.Error = pick, results.Of(pick.Error)
	return v
}

// ErrorsByDistance are a curve's checks nearest to each of the given
// distances (doublings): the figures a note quotes for one, two, three
// doublings. A distance with no check at least as far is left out.
func (c Curve) ErrorsByDistance(distances ...float64) map[float64]Check {
	out := map[float64]Check{}
	for _, d := range distances {
		v := c.ValidationAt(c.lastRatio() * math.Pow(2, d))
		if v.Check != nil {
			out[d] = *v.Check
		}
	}
	return out
}

func (c Curve) lastRatio() float64 {
	if len(c.Points) == 0 {
		return 0
	}
	return c.Points[len(c.Points)-1].Ratio
}

// IntervalAt reads the curve's interval at ratio from every point's
// interval, in logarithms (a rate relative to another errs by a factor,
// and a factor's bounds stay above zero however far they are carried).
// levelFloor is the lowest level of the curve's points' intervals: an
// interval read off the curve, every point erring the same way at once,
// holds at least this.
func (c Curve) levelFloor() float64 {
	level := 1.0
	for _, p := range c.Points {
		if p.Level > 0 {
			level = math.Min(level, p.Level)
		}
	}
	return level
}

// False when a point has no interval, or the curve no value there.
func (c Curve) IntervalAt(ratio float64) (lo, hi float64, ok bool) {
	if len(c.Points) == 0 {
		return 0, 0, false
	}
	for _, p := range c.Points {
		if p.Lo <= 0 || p.Hi <= 0 || p.Relative <= 0 {
			return 0, 0, false
		}
	}
	// The curve at ratio is a weighted sum of its points' values (At is
	// linear in them); each point's interval moves it by its weight, a
	// negative weight (a line extended past its points) the other way.
	// The ends add up, as if every point erred the same way at once:
	// between two points that is the line between their intervals' ends,
	// and beyond them the interval widens as the extension's lever does.
	v, _ := c.at(ratio, func(i int) float64 { return c.Points[i].Relative })
	if math.IsNaN(v) || v <= 0 {
		return 0, 0, false
	}
	var down, up float64
	for j, p := range c.Points {
		w, _ := c.at(ratio, func(i int) float64 {
			if i == j {
				return 1
			}
			return 0
		})
		below, above := math.Max(math.Log(p.Relative/p.Lo), 0), math.Max(math.Log(p.Hi/p.Relative), 0)
		if w >= 0 {
			down, up = down+w*below, up+w*above
		} else {
			down, up = down-w*above, up-w*below
		}
	}
	return v * math.Exp(-down), v * math.Exp(up), true
}

// LeastSupported is the lowest rate relative to the reference a projection
// states: below it the curve, extended past its points, has left what
// the measurements support (a line in log(ratio) reaches zero, a rate
// cannot).
const LeastSupported = 0.05

// supportEnd is the ratio beyond which the curve's extension falls below
// LeastSupported (searched in quarter doublings up to 40 doublings past
// its last point; +Inf when it never does).
func (c Curve) supportEnd() float64 {
	last := c.lastRatio()
	for d := 0.0; d <= 40; d += 0.25 {
		r := last * math.Pow(2, d)
		if v, _ := c.At(r); v < LeastSupported {
			return r
		}
	}
	return math.Inf(1)
}
