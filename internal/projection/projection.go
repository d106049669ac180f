// Package projection carries a run's measurements to the user's scale:
// sizes at their row count, the key index's size against their cache, and
// the insert rate to expect there relative to a reference key, read off the
// curve the run measured.
//
// Its stance: a key's cost is driven by its index's size relative to the
// cache, not by row counts (a uuidv4 index that fits the cache costs little
// more than bigint's; one sixteen times the cache costs a read per insert).
// So every measured point is placed by that ratio, and a projection is read
// off the key's curve of "rate relative to the reference key at the same
// table size" against log(ratio): interpolated between measured points, and
// extrapolated beyond them along the least-squares line through the nearer
// half of the points — marked "outside the measured range", which a user
// should read as a trend, not a measurement.
// Every projection carries the error its curve's own checks measured at
// its distance from the measured points (validate.go), and the interval the
// rounds give each point, read through the curve; where the curve,
// extended, falls below what a rate can be, it states no rate.
//
// What it assumes: the same class of hardware (a disk and CPU like the
// run's: rates relative to the reference key travel better than rates), the
// same workload shape (clients, statement mix, row size), and the cache
// ratio as the variable that drives the difference. What it ignores: the
// OS page cache beyond shared_buffers (the embedded server ran cold, with
// direct IO), autovacuum and checkpoints at a scale the run never reached,
// replication, and anything else on the user's server.
package projection

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// Point is one measured size of a key: its key index's size over the
// cache it ran with, and its figure over the reference key's at that size
// (Relative): its rate on a rate curve (Projection), its work on a work
// curve (Work), named in JSON for neither, as it holds either.
type Point struct {
	RowsBefore int64 `json:"rows_before"`
	// SharedBuffers is the cache the point was measured at when the run
	// measured several (--shared-buffers; 0: the run's one cache).
	SharedBuffers int64   `json:"shared_buffers,omitempty"`
	Ratio         float64 `json:"key_index_cache_ratio"`
	Relative      float64 `json:"over_reference"`
	// Interval is the interval of the rate relative to the reference key
	// at this point: the paired rounds' (the geometric mean of the
	// per-round ratios), none when the run had too few rounds for one.
	stats.Interval
	// Measurements are the sizes pooled into the point (pool): more than
	// one where the run measured the same index over cache at several
	// scales (the scale preset), 0 or 1 otherwise.
	Measurements int `json:"measurements,omitempty"`

	cell    *results.Cell
	members []Point // the points pooled into this one // the cell measured (the group's last), for the cost model
	// se and df are the log ratio's standard error and degrees of
	// freedom where the paired rounds' test gave them (0: not known):
	// what pool combines, at any level, instead of the ends of intervals
	// drawn at different levels.
	se, df float64
}

// Curve is a key's measured points, by ratio.
type Curve struct {
	Key    string  `json:"key"`
	Points []Point `json:"points"`
}

// At reads the curve at ratio: interpolated in log(ratio) between the
// points around it, or extrapolated along the least-squares line through
// the nearer half of the points (two at least) when outside them (outside
// is true then). A curve of one point answers its value, outside
// unless ratio is that point's.
func (c Curve) At(ratio float64) (value float64, outside bool) {
	v, outside := c.at(ratio, func(i int) float64 { return c.Points[i].Relative })
	if math.IsNaN(v) {
		return v, outside
	}
	return math.Max(v, 0), outside
}

// at is At of the values y gives the points, unclamped: the curve is
// linear in them (an interpolation, or a least-squares line), so at of a
// unit value is the weight that point has at ratio (IntervalAt).
func (c Curve) at(ratio float64, y func(i int) float64) (value float64, outside bool) {
	p := c.Points
	switch {
	case len(p) == 0 || ratio <= 0:
		return math.NaN(), true
	case len(p) == 1:
		// One ratio, measured at several scales (pool): a level near it.
		return y(0), math.Abs(math.Log2(ratio/p[0].Ratio)) > poolDoublings
	}
	x := math.Log(ratio)
	i := sort.Search(len(p), func(i int) bool { return p[i].Ratio >= ratio })
	outside = i == 0 && ratio < p[0].Ratio || i == len(p)
	if outside {
		// Beyond the points: the least-squares line through the nearer
		// half of them (two at least), not through the last two alone,
		// whose noise a long extrapolation would multiply.
		n := max(2, (len(p)+1)/2)
		first := len(p) - n
		if i == 0 {
			first = 0
		}
		return fitLog(p[first:first+n], func(j int) float64 { return y(first + j) }, x), true
	}
	if i == 0 {
		i = 1
	}
	x0, x1 := math.Log(p[i-1].Ratio), math.Log(p[i].Ratio)
	y0, y1 := y(i-1), y(i)
	if x1 == x0 {
		return (y0 + y1) / 2, outside
	}
	return y0 + (y1-y0)*(x-x0)/(x1-x0), outside
}

// fitLog is the least-squares line of the values y gives the points over
// log(Ratio), read at x (their mean where every ratio is the same).
func fitLog(p []Point, y func(i int) float64, x float64) float64 {
	var sx, sy, sxx, sxy float64
	n := float64(len(p))
	for i, q := range p {
		lx, v := math.Log(q.Ratio), y(i)
		sx, sy, sxx, sxy = sx+lx, sy+v, sxx+lx*lx, sxy+lx*v
	}
	d := n*sxx - sx*sx
	if d <= 1e-12*n*n {
		return sy / n
	}
	b := (n*sxy - sx*sy) / d
	return sy/n + b*(x-sx/n)
}

// RatioWhere is the smallest ratio at which the measured curve (between
// its points, not beyond) comes down to relative, or false when it never does.
func (c Curve) RatioWhere(relative float64) (float64, bool) {
	p := c.Points
	for i := 1; i < len(p); i++ {
		y0, y1 := p[i-1].Relative, p[i].Relative
		if (y0-relative)*(y1-relative) <= 0 && y0 != y1 {
			f := (relative - y0) / (y1 - y0)
			return math.Exp(math.Log(p[i-1].Ratio) + f*(math.Log(p[i].Ratio)-math.Log(p[i-1].Ratio))), true
		}
	}
	return 0, false
}

// Curves are the run's keys' curves (of its first workload and read
// variant): for every key, table size and cache with a key index, its rate
// over the reference key's rate at the same size, clients and cache,
// placed at its key index's ratio to the cache. A run that measured
// several caches (--shared-buffers) puts all of them on one curve: the
// ratio is the variable, and points of two caches that fall on one line
// are the evidence that it is. ref is the reference key ("bigint" when the
// run has it, else its first key).
func Curves(r *results.Results) (curves []Curve, ref string, err error) {
	curves, ref, _, err = CurvesAt(r, 0)
	return curves, ref, err
}

// errNotAnalysed: a projection reads the groups of the run's analysis
// (package verdict), which results read by verdict.Read always carry.
var errNotAnalysed = errors.New("the results carry no analysis (read them with verdict.Read)")

// CurvesAt are the curves of one shape: the run's first workload and read
// variant at clients clients (0: the first group's), as Curves; other lists
// the client counts the run also measured, whose points are not pooled
// into these curves (a key's rate at 8 clients and at 64 are two curves).
func CurvesAt(r *results.Results, clients int) (curves []Curve, ref string, _ []int, err error) {
	if r.Analysis == nil {
		return nil, "", nil, errNotAnalysed
	}
	all := r.Analysis.Groups
	if len(all) > 0 && clients == 0 {
		clients = all[0].Clients
	}
	groups, other := groupsAt(all, clients)
	if len(all) > 0 && len(groups) == 0 {
		return nil, "", other, fmt.Errorf("the run measured no cell at %d clients (it measured %v)", clients, other)
	}
	ref = referenceOf(groups)
	refRate, refSummary := map[string]float64{}, map[string]stats.MedianCI{}
	for _, g := range groups {
		if g.Key == ref {
			refRate[g.Shape()], refSummary[g.Shape()] = g.TPS.Median, g.TPS
		}
	}
	byKey := map[string]*Curve{}
	var order []string
	for i := range groups {
		g := &groups[i]
		base := refRate[g.Shape()]
		ratio, ok := cacheRatio(r, r.Last(g))
		if !ok || base <= 0 || g.TPS.Median <= 0 {
			continue
		}
		c := byKey[g.Key]
		if c == nil {
			c = &Curve{Key: g.Key}
			byKey[g.Key] = c
			order = append(order, g.Key)
		}
		pt := Point{RowsBefore: g.Rows, SharedBuffers: g.SharedBuffers, Ratio: ratio, Relative: g.TPS.Median / base, cell: r.Last(g)}
		if g.Key == ref {
			pt.Interval = stats.Interval{Lo: 1, Hi: 1, Level: 1}
		}
		for _, v := range g.Compared {
			if v.Key == ref && v.Level > 0 && v.Lo > 0 {
				pt.Interval, pt.se, pt.df = v.Interval, v.SE, v.DF
			}
		}
		if rt := refSummary[g.Shape()]; pt.Lo == 0 && g.Key != ref && g.TPS.HasInterval() && rt.HasInterval() && rt.Lo > 0 {
			// No paired interval (too few pairs, or the pairs' test gave
			// none): the two medians' own intervals, divided end by end
			// (wider: it ignores that the rounds were paired), at the
			// level both cover at once at least (Bonferroni).
			pt.Interval = stats.Interval{Lo: g.TPS.Lo / rt.Hi, Hi: g.TPS.Hi / rt.Lo, Level: g.TPS.Level + rt.Level - 1}
		}
		c.Points = append(c.Points, pt)
	}
	for _, k := range order {
		c := byKey[k]
		sort.Slice(c.Points, func(i, j int) bool { return c.Points[i].Ratio < c.Points[j].Ratio })
		curves = append(curves, *c)
	}
	if len(all) == 0 {
		return nil, "", nil, fmt.Errorf("no cell finished")
	}
	if len(curves) == 0 {
		return nil, ref, other, fmt.Errorf("no cell recorded its key index's ratio to the cache (a run of keybench 0.1 before the projection, or keys without an index)")
	}
	return curves, ref, other, nil
}

// groupsAt are one workload's groups, the run's first (a key's rates under
// two workloads are not one curve), at one client count; other are the
// client counts the run measured beside it.
func groupsAt(all []results.Group, clients int) (groups []results.Group, other []int) {
	for _, g := range all {
		if g.Workload != all[0].Workload || !slices.Equal(g.Variant, all[0].Variant) {
			continue
		}
		if g.Clients != clients {
			if !slices.Contains(other, g.Clients) {
				other = append(other, g.Clients)
			}
			continue
		}
		groups = append(groups, g)
	}
	return groups, other
}

// ReferenceKey is the key the curves are relative to when the run measured
// it (the ordered baseline of every source write-up); else the run's first.
const ReferenceKey = "bigint"

// referenceOf is the key the curves of groups are relative to.
func referenceOf(groups []results.Group) string {
	for _, g := range groups {
		if g.Key == ReferenceKey {
			return ReferenceKey
		}
	}
	if len(groups) > 0 {
		return groups[0].Key
	}
	return ""
}

// Scale is the user's: rows, cache, insert rate, bytes per row (results.Scale).
type Scale = results.Scale

// SizeAt is a key's table and indexes at the user's rows: each its bytes
// per row at the key's largest table of the run, times the rows (the rows
// wider or narrower by RowBytes where given); 0 where the run did not
// measure it.
type SizeAt struct {
	Key           string `json:"key"`
	FromRows      int64  `json:"from_rows"`
	TableBytes    int64  `json:"table_bytes"`
	KeyIndexBytes int64  `json:"key_index_bytes"`
	// OtherIndexBytes are its indexes but the key's.
	OtherIndexBytes int64 `json:"other_index_bytes"`
}

// SizesAt are the run's keys' sizes at rows (Report.Sizes).
func SizesAt(r *results.Results, rows int64) []SizeAt {
	var out []SizeAt
	best := map[string]*results.Cell{}
	var order []string
	for i := range r.Cells {
		c := &r.Cells[i]
		n := c.RowsAtEnd()
		if c.Status != results.StatusOK || n <= 0 {
			continue
		}
		if b, ok := best[c.Key]; !ok || n > b.RowsAtEnd() {
			if !ok {
				order = append(order, c.Key)
			}
			best[c.Key] = c
		}
	}
	for _, k := range order {
		c := best[k]
		n := float64(c.RowsAtEnd())
		at := func(m results.M[int64]) int64 {
			v, ok := m.Get()
			if !ok {
				return 0
			}
			return int64(float64(v) / n * float64(rows))
		}
		s := SizeAt{Key: k, FromRows: int64(n), TableBytes: at(c.Metrics.TableBytes), KeyIndexBytes: at(c.Metrics.KeyIndexBytes)}
		if all := at(c.Metrics.IndexBytes); all > s.KeyIndexBytes {
			s.OtherIndexBytes = all - s.KeyIndexBytes
		}
		out = append(out, s)
	}
	return out
}

// Projection is one key at the user's scale.
type Projection struct {
	Key string `json:"key"`
	// TableBytes and KeyIndexBytes are the sizes at Scale.Rows: the run's
	// bytes per row at its largest table times the rows.
	TableBytes    int64 `json:"table_bytes"`
	KeyIndexBytes int64 `json:"key_index_bytes"`
	// KeyIndexDensity is the key index's leaf density the size assumes,
	// and DensityFrom the cell it was measured in (0 and "": the largest
	// cell's size taken as it was, its density unknown).
	KeyIndexDensity float64 `json:"key_index_leaf_density,omitempty"`
	DensityFrom     string  `json:"key_index_density_from,omitempty"`
	// Ratio is the key index over the cache.
	Ratio float64 `json:"key_index_cache_ratio"`
	// Relative is the insert rate to expect relative to the reference key,
	// Outside when read beyond the measured ratios (extrapolated), with
	// its interval read off the points' intervals (none: the run had too
	// few rounds for one). NotSupported replaces them where the curve,
	// extended, falls below what a rate can be (0 and none then): "not
	// supported by the measurements beyond ratio R".
	Relative float64 `json:"relative_rate,omitempty"`
	stats.Interval
	Outside      bool   `json:"outside_measured_range,omitempty"`
	NotSupported string `json:"not_supported,omitempty"`
	// WALPerDay is the WAL written per day at Scale.InsertRate (the run's
	// WAL per row at the measured ratio nearest), and FPIShare the share of
	// it that is full-page images (counted as 8 kB each: an upper bound,
	// less with wal_compression or pages with holes).
	WALPerDay results.M[float64] `json:"wal_bytes_per_day,omitzero"`
	FPIShare  results.M[float64] `json:"fpi_share,omitzero"`
	// WALFrom says which WAL per row the day's WAL is: the steady state
	// at PostgreSQL's default checkpoint spacing at the insert rate, the
	// cell's pages-first-touched model carried to the projected sizes, or,
	// where the run could not derive it, the rounds' own (a checkpoint
	// before each round: more images than a server writes).
	WALFrom string `json:"wal_from,omitempty"`
	// WALSteady says WALFrom is the steady state (the model), not the
	// rounds' own WAL.
	WALSteady bool `json:"wal_steady,omitempty"`
	// Validation is the error the curve's own checks measured at this
	// projection's distance from the measured points (+0.1: the check
	// said 10% faster than was measured), or that it is beyond them;
	// none for the reference key, 1 by definition.
	Validation *Validation `json:"validation,omitempty"`
	// BeyondScale, when set, says the user's rows or cache lie beyond what
	// any run tested (TestedScale): the checked error does not apply there.
	BeyondScale string `json:"beyond_tested_scale,omitempty"`
	// Checks are all of the curve's checks, by distance: the error by
	// distance the validation picks from.
	Checks []Check `json:"checks,omitempty"`
	Curve  Curve   `json:"curve"`
	// Model is the cost model's rate on the user's machine (Scale.Machine)
	// with the part that limits it, ModelRelative that over the reference
	// key's, ModelWhy why there is none.
	Model *Prediction `json:"model,omitempty"`

	ModelRelative float64 `json:"model_relative_rate,omitempty"`
	ModelWhy      string  `json:"model_unavailable,omitempty"`
}

// pooledError is the standard error (log scale) of the mean of the
// points' log values and its degrees of freedom (Welch–Satterthwaite),
// where every point has its own: each point's variance, plus, where
// Cochran's Q says the scales disagree beyond their noise (at 1%, read
// against F for errors estimated from few rounds: at 5% the test, wrong
// one time in twenty, widened a pooled 95% interval to cover 97% of
// simulated runs), the variance between them (DerSimonian and Laird's
// τ²), over n².
// A level that drifts with the scale widens the interval by what the
// drift is; one that does not is not widened by its points' scatter a
// second time.
func pooledError(ps []Point) (se, df float64, ok bool) {
	n := float64(len(ps))
	var sw, sw2, swx float64
	for _, p := range ps {
		if p.se <= 0 || p.df <= 0 || p.Relative <= 0 {
			return 0, 0, false
		}
		w := 1 / (p.se * p.se)
		sw, sw2, swx = sw+w, sw2+w*w, swx+w*math.Log(p.Relative)
	}
	mean := swx / sw
	q := 0.0
	for _, p := range ps {
		d := math.Log(p.Relative) - mean
		q += d * d / (p.se * p.se)
	}
	spread := func(tau2 float64) (se, df float64) {
		var v, dfDen float64
		for _, p := range ps {
			vi := (p.se*p.se + tau2) / (n * n)
			v += vi
			dfDen += vi * vi / p.df
		}
		return math.Sqrt(v), v * v / dfDen
	}
	se, df = spread(0)
	// The points' errors are estimated from few rounds each: Q over its
	// degrees of freedom is F-distributed then (Welch's test of equal
	// means for two), not χ².
	if q/(n-1) > stats.FQuantile(0.99, n-1, df) {
		se, df = spread(math.Max(0, (q-(n-1))/(sw-sw2/sw)))
	}
	return se, df, true
}

// poolDoublings is how close two measured points' ratios (index over
// cache) are, in doublings, to be one ratio measured twice: a line
// through them would say nothing of a slope (its lever, their distance,
// is too short), their mean says the level there.
const poolDoublings = 0.5

// pool merges the points (sorted by ratio) whose ratios lie within
// poolDoublings of their group's first into one: a run that measured the
// same index over cache at several scales (the scale preset) measured one
// level several times. The pooled point's ratio and rate relative to the
// reference are the geometric means of its points', its interval in
// log terms the points' half-widths added in quadrature over their
// count (independent measurements of one level), widened by the spread
// of their values (a level that drifts with the scale is less certain);
// its cell is the largest table's.
func pool(ps []Point) []Point {
	var out []Point
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && math.Log2(ps[j].Ratio/ps[i].Ratio) <= poolDoublings {
			j++
		}
		if j-i == 1 {
			out = append(out, ps[i])
			i = j
			continue
		}
		group := ps[i:j]
		n := float64(len(group))
		var lr, lv, lo2, hi2 float64
		minV, maxV := math.Inf(1), math.Inf(-1)
		intervals := true
		largest := group[0]
		for _, p := range group {
			lr += math.Log(p.Ratio)
			lv += math.Log(p.Relative)
			minV, maxV = math.Min(minV, math.Log(p.Relative)), math.Max(maxV, math.Log(p.Relative))
			if p.Lo > 0 && p.Hi > 0 {
				lo2 += math.Pow(math.Log(p.Relative/p.Lo), 2)
				hi2 += math.Pow(math.Log(p.Hi/p.Relative), 2)
			} else {
				intervals = false
			}
			if p.RowsBefore > largest.RowsBefore {
				largest = p
			}
		}
		q := largest
		floor := 1.0
		for _, p := range group {
			floor = math.Min(floor, p.Level)
		}
		q.Ratio, q.Relative, q.Measurements = math.Exp(lr/n), math.Exp(lv/n), len(group)
		q.members = append([]Point(nil), group...)
		q.Interval = stats.Interval{}
		if se, df, ok := pooledError(group); ok {
			// The level's 95% interval from its measurements' own errors,
			// the scales' disagreement beyond them counted once (τ²).
			half := stats.TQuantile(0.975, df) * se
			q.Lo, q.Hi, q.Level, q.se, q.df = q.Relative*math.Exp(-half), q.Relative*math.Exp(half), 0.95, se, df
		} else if intervals {
			spread := maxV - minV
			q.Lo = q.Relative * math.Exp(-math.Sqrt(lo2/(n*n)+spread*spread))
			q.Hi = q.Relative * math.Exp(math.Sqrt(hi2/(n*n)+spread*spread))
			q.Level = floor
		}
		out = append(out, q)
		i = j
	}
	return out
}

// MinPoints is the fewest measured sizes of a key a projection reads a
// curve from: one point is a level, not a curve, and carried hundreds of
// times beyond itself it would be a guess.
const MinPoints = 2

// Project carries every key of the run with a curve to the scale; every
// other key of the run is named in the report's NotProjected with why.
func Project(r *results.Results, s Scale) (Report, error) {
	rep := Report{Rows: s.Rows, CacheBytes: s.CacheBytes, InsertRate: s.InsertRate, Sizes: SizesAt(r, s.Rows)}
	if s.Rows <= 0 || s.CacheBytes <= 0 {
		return rep, fmt.Errorf("the rows and the cache to project to must be positive")
	}
	curves, ref, other, err := CurvesAt(r, s.Clients)
	rep.Reference = ref
	if err != nil {
		return rep, err
	}
	if len(curves) > 0 && len(curves[0].Points) > 0 {
		rep.Clients = cmp.Or(s.Clients, r.Analysis.Groups[0].Clients)
	}
	rep.OtherClients = append(rep.OtherClients, other...)
	have := map[string]bool{}
	skip := func(key, why string) {
		if !have[key] {
			have[key] = true
			rep.NotProjected = append(rep.NotProjected, NotProjected{Key: key, Why: why})
		}
	}
	if rep.Work, err = workAt(r, s, ref); err != nil {
		return rep, err
	}
	rep.WorkPairs = workPairs(rep.Work)
	rep.Counts = countsAt(r, s)
	for _, c := range curves {
		p, why, err := projectCurve(r, c, s, ref)
		switch {
		case err != nil:
			return rep, err
		case why != "":
			skip(c.Key, why)
			continue
		}

		have[c.Key] = true
		rep.Keys = append(rep.Keys, p)
	}
	if s.Hardware != nil {
		model(r, s, &rep)
	}
	// The run's other keys: no curve of the projection's task.
	for _, c := range r.Cells {
		if have[c.Key] {
			continue
		}
		switch {
		case c.Status != results.StatusOK:
			skip(c.Key, "its cells did not finish")
		case c.Metrics.KeyIndexBytes.Reason() != "" || c.Metrics.KeyIndexBytes.IsZero():
			skip(c.Key, "no key index to measure against the cache (index=none, or its size unavailable)")
		default:
			skip(c.Key, "not measured under the projection's task, or beside no "+ref+" of the same shape")
		}
	}
	return rep, nil
}

// projectCurve is one key's projection to the scale s along its curve c
// (ref the reference key), or why there is none.
func projectCurve(r *results.Results, c Curve, s Scale, ref string) (Projection, string, error) {
	c.Points = pool(c.Points)
	level := len(c.Points) == 1 && c.Points[0].Measurements > 1
	if len(c.Points) < MinPoints && !level {
		return Projection{}, fmt.Sprintf("measured at %d size (a curve needs %d: a growth run measures several)", len(c.Points), MinPoints), nil
	}
	p, why, err := sizesAt(r, c.Key, s)
	if why != "" || err != nil {
		return p, why, err
	}
	p.Curve = c
	if level && math.Abs(math.Log2(p.Ratio/c.Points[0].Ratio)) > poolDoublings {
		return Projection{}, fmt.Sprintf("measured at one index over cache (%s×, at %d scales), %.1f doublings from yours (%s×): a level there, not a curve to carry",
			results.Digits(c.Points[0].Ratio, 2), c.Points[0].Measurements, math.Abs(math.Log2(p.Ratio/c.Points[0].Ratio)), results.Digits(p.Ratio, 2)), nil
	}
	p.Relative, p.Outside = c.At(p.Ratio)
	if p.Lo, p.Hi, _ = c.IntervalAt(p.Ratio); p.Lo > 0 {
		p.Level = c.levelFloor()
	}
	if c.Key != ref {
		v := c.ValidationAt(p.Ratio)
		p.Validation = &v
		p.Checks = c.Checks()
		if !level {
			// A pooled level's interval already holds its scales'
			// disagreement (pool's spread), which is all its check
			// measures (each scale read as the others' level): adding the
			// check too would count that disagreement twice.
			p.Lo, p.Hi = withShapeError(p.Relative, p.Lo, p.Hi, v.Error)
		}
	}
	if end := c.supportEnd(); p.Outside && p.Ratio >= end {
		p.Relative, p.Interval = 0, stats.Interval{}
		p.NotSupported = fmt.Sprintf("not supported by the measurements beyond an index %s× the cache (the curve, extended, falls below %.2f there)", results.Digits(end, 2), LeastSupported)
	}
	p.BeyondScale = beyondScale(r, s)
	p.WALPerDay, p.FPIShare, p.WALFrom, p.WALSteady = wal(r, c.Key, p.Ratio, s, p)
	return p, "", p.check()
}

// sizesAt are a key's table and key index at the scale's rows (its bytes
// per row at its largest table, at the leaf density inserts leave where
// the run grew one by inserts alone) and the key index over the scale's
// cache, or why not.
func sizesAt(r *results.Results, key string, s Scale) (Projection, string, error) {
	largest := largestCell(r, key)
	if largest == nil {
		return Projection{}, "no cell of the key finished", nil
	}
	rows := float64(largest.RowsAtEnd())
	tb, ok1 := largest.Metrics.TableBytes.Get()
	kb, ok2 := largest.Metrics.KeyIndexBytes.Get()
	if !ok1 || !ok2 || rows <= 0 {
		return Projection{}, "its largest cell recorded no table or key index size", nil
	}
	perRow := float64(tb) / rows
	if s.RowBytes > 0 {
		perRow = s.RowBytes
	}
	tableBytes, indexBytes := perRow*float64(s.Rows), float64(kb)/rows*float64(s.Rows)
	if tableBytes >= math.MaxInt64/2 || indexBytes >= math.MaxInt64/2 {
		return Projection{}, "", fmt.Errorf("%s: at %d rows its table would be %g bytes: beyond any size", key, s.Rows, tableBytes)
	}
	p := Projection{Key: key, TableBytes: int64(tableBytes), KeyIndexBytes: int64(indexBytes)}
	// A table that reaches the user's rows by inserts has the leaf
	// density inserts leave, not the largest cell's (built by CREATE
	// INDEX after its fill, then one window of inserts).
	if at, ok := largest.Metrics.LeafDensity.Get(); ok && at > 0 {
		p.KeyIndexDensity, p.DensityFrom = at, fmt.Sprintf("the largest cell's (%d rows before)", largest.RowsBefore)
		if grown := grownCell(r, key); grown != nil {
			if d, ok := grown.Metrics.LeafDensity.Get(); ok && d > 0 {
				p.KeyIndexBytes = int64(float64(p.KeyIndexBytes) * at / d)
				p.KeyIndexDensity, p.DensityFrom = d, fmt.Sprintf("its index grown by inserts alone (the cell from an empty table, %d rows)", grown.RowsAtEnd())
			}
		}
	}
	p.Ratio = float64(p.KeyIndexBytes) / float64(s.CacheBytes)
	return p, "", nil
}

// withShapeError widens the sampling interval [lo, hi] around v by the
// error the curve's checks measured at the projection's distance (the
// shape of the curve, which the points' own intervals do not hold): each
// side's log half-width and the check's log error added in quadrature.
// Unchanged where nothing was checked (the validation says so) or there
// is no interval.
func withShapeError(v, lo, hi float64, checked results.M[float64]) (float64, float64) {
	e, ok := checked.Get()
	if !ok || v <= 0 || lo <= 0 || hi <= 0 || e <= -1 {
		return lo, hi
	}
	shape := math.Abs(math.Log(1 + e))
	down, up := math.Log(v/lo), math.Log(hi/v)
	return v * math.Exp(-math.Hypot(down, shape)), v * math.Exp(math.Hypot(up, shape))
}

// TestedScale is how far beyond the run's largest table and cache a
// projection may go and still be called checked at its distance: the
// scale preset showed each key's ratio holding across 64× (4M and 16M
// rows beside 250k), and no run here tested beyond it.
const TestedScale = 64

// beyondScale says, when the user's rows or cache lie more than
// TestedScale times beyond the run's largest table or cache, that the
// projection carries the curve (index over cache) where no run tested it
// ("" within).
func beyondScale(r *results.Results, s Scale) string {
	var rows, cache int64
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Status != results.StatusOK {
			continue
		}
		rows = max(rows, c.RowsAtEnd())
		cb := c.SharedBuffers
		if v, ok := c.Metrics.CacheBytes.Get(); ok && cb == 0 {
			cb = v
		}
		if cb == 0 {
			cb, _ = ParseBytes(r.Environment.Settings["shared_buffers"])
		}
		cache = max(cache, cb)
	}
	if rows <= 0 || cache <= 0 {
		return ""
	}
	fr, fc := float64(s.Rows)/float64(rows), float64(s.CacheBytes)/float64(cache)
	if fr <= TestedScale && fc <= TestedScale {
		return ""
	}
	return fmt.Sprintf("your rows are %s× and your cache %s× the run's largest: the curve is carried by index over cache alone, untested beyond %d× (keybench run scale tests 64×)", results.Significant(fr), results.Significant(fc), TestedScale)
}

// check refuses a projection whose figures are not numbers a size or a
// rate can be: what a results file's figures carried far enough give.
func (p Projection) check() error {
	for name, v := range map[string]float64{"table size": float64(p.TableBytes), "key index size": float64(p.KeyIndexBytes),
		"key index / cache": p.Ratio, "relative rate": p.Relative} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v >= math.MaxInt64/2 {
			return fmt.Errorf("%s: the %s comes out as %g: the results file's figures are beyond what can be projected", p.Key, name, v)
		}
	}
	return nil
}

// NotProjected is a key of the run the projection could not carry, and why.
type NotProjected struct {
	Key string `json:"key"`
	Why string `json:"why"`
}

// wal is the WAL per day at the scale's insert rate and its full-page
// image share, from the key's cell whose ratio is nearest to ratio, and
// which WAL per row it is: the cell's steady state (its model of the pages
// first touched, at PostgreSQL's default checkpoint spacing at the insert
// rate, each relation whose hot set was all of it grown to the projected
// size p), or the rounds' own where the cell has none.
func wal(r *results.Results, key string, ratio float64, s Scale, p Projection) (_, _ results.M[float64], from string, steady bool) {
	rate := s.InsertRate
	if rate <= 0 {
		return results.Unavailable[float64]("no --insert-rate given"), results.Unavailable[float64]("no --insert-rate given"), "", false
	}
	var best *results.Cell
	bestD := math.Inf(1)
	for i := range r.Cells {
		c := &r.Cells[i]
		cr, ok := cacheRatio(r, c)
		if c.Key != key || c.Status != results.StatusOK || !ok || cr <= 0 {
			continue
		}
		if d := math.Abs(math.Log(cr / ratio)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == nil {
		return results.Unavailable[float64]("no cell of the key measured WAL"), results.Unavailable[float64]("no cell of the key measured WAL"), "", false
	}
	if st, ok := best.Metrics.SteadyWAL.Get(); ok && len(st.Model.Relations) > 0 {
		grow := func(role string) float64 {
			for _, rel := range st.Model.Relations {
				if rel.Role == role && role == results.RoleKeyIndex && rel.Pages > 0 {
					return float64(p.KeyIndexBytes) / float64(rel.Pages*8192)
				}
			}
			if before := best.RowsBefore; before > 0 {
				return float64(s.Rows) / float64(before)
			}
			return 1
		}
		if at, err := st.Model.At(rate, results.DefaultCheckpointSettings, grow); err == nil {
			from := fmt.Sprintf("steady state at %s: %.0f B and %.3f full-page images per row, from the pages first touched in the cell of %d rows, "+
				"the hot sets that were whole relations grown to the projected sizes", at.Spacing, at.WALBytesPerRow, at.FPIPerRow, best.RowsBefore)
			return results.Of(at.WALBytesPerRow * rate * 86400), share(at.FPIPerRow, at.WALBytesPerRow, imageBytes(best)), from, true
		}
	}
	perRow, ok := best.Metrics.WALBytesPerRow.Get()
	if !ok {
		why := "WAL per row: " + best.Metrics.WALBytesPerRow.Reason()
		return results.Unavailable[float64](why), results.Unavailable[float64](why), "", false
	}
	from = "the rounds' own WAL per row (a checkpoint before each round: more full-page images than a server whose checkpoints are minutes apart writes)"
	if why := best.Metrics.SteadyWAL.Reason(); why != "" {
		from += "; no steady state: " + why
	}
	day := results.Of(perRow * rate * 86400)
	fpi, ok := best.Metrics.WALFPIPerRow.Get()
	if !ok || perRow <= 0 {
		return day, results.Unavailable[float64]("full-page images per row: " + best.Metrics.WALFPIPerRow.Reason()), from, false
	}
	return day, share(fpi, perRow, imageBytes(best)), from, false
}

// share is the share of the WAL that full-page images of imageBytes each
// are.
func share(fpiPerRow, walPerRow, imageBytes float64) results.M[float64] {
	if walPerRow <= 0 {
		return results.Unavailable[float64]("no WAL per row")
	}
	return results.Of(math.Min(1, fpiPerRow*imageBytes/walPerRow))
}

// imageBytes is a full-page image's mean size in the cell's WAL, as its
// rounds measured it (the steady state's model: a page with a hole, or
// compressed, is smaller than 8 kB: 7.4 kB for uuidv4's index pages, 5.9
// kB for bigint's, in one growth run); 8 kB, an upper bound, where the
// cell did not measure it.
func imageBytes(c *results.Cell) float64 {
	if st, ok := c.Metrics.SteadyWAL.Get(); ok && st.Model.ImageBytes > 0 {
		return st.Model.ImageBytes
	}
	return 8192
}

// cacheRatio is the cell's key index over the cache it ran with: recorded
// by the run, or, for a run that did not record it, its key index's size
// over the shared_buffers of the run's settings.
func cacheRatio(r *results.Results, c *results.Cell) (float64, bool) {
	if v, ok := c.Metrics.KeyIndexCacheRatio.Get(); ok {
		return v, true
	}
	kb, ok := c.Metrics.KeyIndexBytes.Get()
	if !ok || !c.Metrics.KeyIndexCacheRatio.IsZero() {
		return 0, false
	}
	cache, err := ParseBytes(r.Environment.Settings["shared_buffers"])
	if err != nil {
		return 0, false
	}
	return float64(kb) / float64(cache), true
}

// Report is a run carried to a scale, as `keybench project --json` prints
// it: every key of the run, projected (Keys) or not, with why (NotProjected).
type Report struct {
	Reference  string  `json:"reference"`
	Rows       int64   `json:"rows"`
	CacheBytes int64   `json:"cache_bytes"`
	InsertRate float64 `json:"insert_rate,omitempty"`
	// Clients is the client count whose curves were read; OtherClients
	// the counts the run also measured, not pooled with them (--clients
	// projects those).
	Clients      int   `json:"clients,omitempty"`
	OtherClients []int `json:"other_clients,omitempty"`
	// Sizes are each key's table and indexes at the rows.
	Sizes []SizeAt `json:"sizes,omitempty"`
	// Work is each key's work per transaction over the reference key's at
	// the scale: the figure a projection leads with (work.go).
	Work []WorkProjection `json:"work"`
	// WorkPairs are the projected keys' work over each other (work.go).
	WorkPairs []WorkPair `json:"work_pairs,omitempty"`
	// Counts are each key's own counts behind the work at the scale, each
	// through its model (counts.go).
	Counts       []CountProjection `json:"counts,omitempty"`
	Keys         []Projection      `json:"keys"`
	NotProjected []NotProjected    `json:"not_projected,omitempty"`
}

// largestCell is the key's ok cell with the most rows before its window.
func largestCell(r *results.Results, key string) *results.Cell {
	var best *results.Cell
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Key == key && c.Status == results.StatusOK && (best == nil || c.RowsBefore > best.RowsBefore) {
			best = c
		}
	}
	return best
}

// grownCell is the key's ok cell that began with an empty table (its
// index grown by the window's inserts alone), the one that inserted most.
func grownCell(r *results.Results, key string) *results.Cell {
	var best *results.Cell
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Key == key && c.Status == results.StatusOK && c.RowsBefore == 0 && c.RowsInserted > 0 && (best == nil || c.RowsInserted > best.RowsInserted) {
			best = c
		}
	}
	return best
}

// model prices each projected key's parts, read at its projected ratio, on
// the user's machine.
func model(r *results.Results, s Scale, rep *Report) {
	parts, missing, err := PartsCurves(r, s.Clients)
	var refTPS float64
	for i := range rep.Keys {
		p := &rep.Keys[i]
		pc := parts[p.Key]
		switch {
		case err != nil:
			p.ModelWhy = err.Error()
		case len(pc) == 0:
			p.ModelWhy = "its cells lack a part: " + missing[p.Key]
		default:
			pred := Predict(pc.At(p.Ratio), p.KeyIndexBytes, rep.Clients, *s.Hardware)
			p.Model = &pred
			if p.Key == rep.Reference {
				refTPS = pred.TPS
			}
		}
	}
	for i := range rep.Keys {
		if p := &rep.Keys[i]; p.Model != nil && refTPS > 0 {
			p.ModelRelative = p.Model.TPS / refTPS
		}
	}
}
