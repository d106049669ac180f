package projection

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// The counts behind the work, checked one by one: each key's WAL bytes,
// full-page images, blocks read and server CPU per transaction, and its
// key index's bytes per row and leaf density, projected to a larger scale
// from each smaller one through a model whose constants that scale
// measured, and set beside what the larger scale measured.
//
// The models:
//   - full-page images and WAL: the cell's pages-first-touched model
//     (results.SteadyModel) evaluated at the larger scale's rows between
//     two checkpoints (a checkpoint precedes every round: a round's rows,
//     grown with the table where the windows are a share of it), each
//     relation whose hot set is all of it (a random key's index) grown
//     with the rows;
//   - blocks read: the share of a random key's index that misses the cache,
//     1 − cache/index, at the larger scale's index (grown with the rows)
//     over its cache; a key whose inserts touch only its right edge reads
//     what it read (a level);
//   - the CPU: a level;
//   - index bytes per row and leaf density: levels, measured once per
//     scale (no rounds).
//
// Each smaller scale's projection carries its rounds' standard error (log
// scale: the rounds' spread over their mean and count); the scales'
// projections are pooled as one level measured several times
// (pooledError: their own errors, their disagreement beyond them added
// once where Cochran's Q finds it). The figures measured once per scale
// have no rounds: their interval is the t prediction interval of a new
// scale from the smaller scales' spread (k−1 degrees of freedom: wide
// from two scales, as two points are).

// countFigure is one count the check projects per key: a round figure of
// the registry (results.RoundFigures: its name and header, every output's)
// or a figure of the cell, with what sets it in its model.
type countFigure struct {
	name, header string
	// stat is how its rounds make the level the run's outputs show (a
	// round figure's declared statistic; a cell's figure: Geometric).
	stat results.Statistic
	// round is the figure in one round's cost (per transaction).
	round func(*results.RoundCost) results.M[float64]
	// cell is the figure measured once per cell (no rounds), instead of
	// round.
	cell func(*results.Cell) (float64, bool)
	// factor is the model's ratio of the figure at scale to over at from;
	// why says why there is none.
	factor func(from, to countScale) (f float64, why string)
	// variable is what sets it in its model ("": a level the key's order
	// sets); model says how, where no number is carried.
	variable, model string
	// most is the figure's ceiling (a leaf is at most full; 0: none);
	// a ceiling of 1 makes it a share, printed in percent as the run
	// prints it.
	most float64
}

// What sets a count: the rows between two checkpoints (--insert-rate sets
// them) over the key index's pages, or the key index over the cache.
const (
	byCheckpoints = "rows between checkpoints over the key index's pages"
	byCache       = "key index / cache"
)

// roundCount is a count of the registry's round figures, projected through
// its model; where a round did not measure it, the narrower figure the work
// takes in its place (old: the client backends' CPU, the cell's tables'
// reads: verdict.Work).
func roundCount(get func(*results.RoundCost) *results.M[float64], old func(*results.RoundCost) results.M[float64], variable, model string, factor func(from, to countScale) (float64, string)) countFigure {
	f := results.RoundFigureOf(get)
	return countFigure{name: f.Name, header: f.Header, stat: f.Statistic, variable: variable, model: model, factor: factor, round: func(c *results.RoundCost) results.M[float64] {
		if _, ok := get(c).Get(); ok || old == nil {
			return *get(c)
		}
		return old(c)
	}}
}

// countScale is one key's cells at one scale, as the model reads them.
type countScale struct {
	rows, cache int64
	cells       []*results.Cell
	// share: the run's windows were a share of each table (the scale
	// preset), so a round's rows grew with it.
	share bool
	// rate is the user's insert rate (rows a second; 0: a scale of the
	// run, a checkpoint before each round): the rows between two
	// checkpoints are then those of PostgreSQL's default spacing.
	rate float64
}

// steady is the scale's pages-first-touched model (nil: none).
func (s countScale) steady() *results.SteadyModel {
	for _, c := range s.cells {
		if st, ok := c.Metrics.SteadyWAL.Get(); ok && len(st.Model.Relations) > 0 {
			return &st.Model
		}
	}
	return nil
}

// keyIndex is the scale's key index bytes (when its rounds began: the
// prefill's, what the rounds read), and whether it is a random key's
// (its hot set the whole index).
func (s countScale) keyIndex() (bytes float64, random bool) {
	m := s.steady()
	if m == nil {
		return 0, false
	}
	for _, r := range m.Relations {
		if r.Role == results.RoleKeyIndex {
			return float64(r.Pages * 8192), r.Whole
		}
	}
	return 0, false
}

// countFigures are the figures the check projects, in its order.
var countFigures = []countFigure{
	roundCount(func(c *results.RoundCost) *results.M[float64] { return &c.WALBytes }, nil, byCheckpoints,
		"the rounds' WAL less the images a cycle would not write", steadyFactor(true)),
	roundCount(func(c *results.RoundCost) *results.M[float64] { return &c.WALFPI }, nil, byCheckpoints,
		"the pages first touched in a cycle: frontier + H(1 − e^(−aS/H)) a relation", steadyFactor(false)),
	roundCount(func(c *results.RoundCost) *results.M[float64] { return &c.ServerReads }, func(c *results.RoundCost) results.M[float64] { return c.BlocksRead }, byCache,
		"the share of a random key's index that misses the cache, 1 − cache/index", missFactor),
	roundCount(func(c *results.RoundCost) *results.M[float64] { return &c.ServerAllCPUMS }, func(c *results.RoundCost) results.M[float64] { return c.ServerCPUMS }, byCache,
		"a level", func(countScale, countScale) (float64, string) { return 1, "" }),
	{name: "key_index_bytes_per_row", header: "key index bytes / row", cell: func(c *results.Cell) (float64, bool) {
		b, ok := c.Metrics.KeyIndexBytes.Get()
		n := c.RowsAtEnd()
		return float64(b) / float64(n), ok && n > 0 && b > 0
	}},
	{name: "leaf_density", header: "leaf density", most: 1, cell: func(c *results.Cell) (float64, bool) {
		d, ok := c.Metrics.LeafDensity.Get()
		return d, ok && d > 0
	}},
}

// roundRowsAt is a round's rows at scale to, from from's model: grown with
// the table where the windows are a share of it (the scale preset).
func roundRowsAt(m *results.SteadyModel, from, to countScale) float64 {
	if to.share && from.rows > 0 {
		return m.RoundRows * float64(to.rows) / float64(from.rows)
	}
	return m.RoundRows
}

// steadyFactor is the pages-first-touched model's ratio of the WAL (wal)
// or the full-page images per row at to over at from.
func steadyFactor(wal bool) func(from, to countScale) (float64, string) {
	return func(from, to countScale) (float64, string) {
		m := from.steady()
		if m == nil || m.RoundRows <= 0 || from.rows <= 0 {
			return 0, "no pages-first-touched model at the smaller scale"
		}
		grow := func(string) float64 { return float64(to.rows) / float64(from.rows) }
		at := func(s float64, g func(string) float64) float64 {
			if wal {
				return m.WALPerRow(s, g)
			}
			v, _ := m.Images(s, g)
			return v
		}
		spacing := roundRowsAt(m, from, to)
		if to.rate > 0 {
			st, err := m.At(to.rate, results.DefaultCheckpointSettings, grow)
			if err != nil {
				return 0, err.Error()
			}
			spacing = st.SpacingRows
		}
		here, there := at(m.RoundRows, nil), at(spacing, grow)
		if here <= 0 {
			return 0, "the model gives none at the smaller scale"
		}
		return there / here, ""
	}
}

// missFactor is the share of a random key's index that misses the cache at
// to over at from (1 for a key that touches its right edge only).
func missFactor(from, to countScale) (float64, string) {
	index, random := from.keyIndex()
	if index <= 0 {
		return 0, "no key index size at the smaller scale"
	}
	if !random {
		return 1, ""
	}
	if from.cache <= 0 || to.cache <= 0 || from.rows <= 0 {
		return 0, "no cache recorded"
	}
	miss := func(index, cache float64) float64 { return math.Max(0, 1-cache/index) }
	here := miss(index, float64(from.cache))
	there := miss(index*float64(to.rows)/float64(from.rows), float64(to.cache))
	if here <= 0 {
		return 0, "the key index fitted the cache at the smaller scale: no misses to carry"
	}
	return there / here, ""
}

// measuredLevel is a figure over the scale's rounds (its statistic), and its log
// standard error and degrees of freedom (0: fewer than two rounds).
func (f countFigure) measuredLevel(s countScale) (mean, se, df float64, ok bool) {
	var xs []float64
	for _, c := range s.cells {
		if f.cell != nil {
			if v, ok := f.cell(c); ok {
				xs = append(xs, v)
			}
			continue
		}
		for _, r := range c.Rounds {
			if r.Cost == nil {
				continue
			}
			if v, ok := f.round(r.Cost).Get(); ok {
				xs = append(xs, v)
			}
		}
	}
	if len(xs) == 0 {
		return 0, 0, 0, false
	}
	m := f.stat.Of(xs) // the figure the run's outputs show
	if m <= 0 {
		return 0, 0, 0, false
	}
	if len(xs) < 2 || f.cell != nil {
		return m, 0, 0, true
	}
	// Its log's standard error: the logs' spread where m is their mean's
	// exponential, else the spread relative to the mean.
	logs := make([]float64, len(xs))
	for i, x := range xs {
		logs[i] = math.Log(x)
	}
	sd := stat.StdDev(logs, nil)
	if slices.Min(xs) <= 0 {
		sd = stat.StdDev(xs, nil) / m
	}
	if sd <= 0 || math.IsNaN(sd) {
		return m, 0, 0, true
	}
	return m, sd / math.Sqrt(float64(len(xs))), float64(len(xs) - 1), true
}

// project is the figure at to from the scales below it: each scale's
// level times the model's factor, pooled; lo and hi its 95% interval.
func (f countFigure) project(below []countScale, to countScale) (v, lo, hi float64, p Point, why string) {
	var ps []Point
	var logs []float64
	for _, s := range below {
		mean, se, df, ok := f.measuredLevel(s)
		if !ok {
			return 0, 0, 0, Point{}, fmt.Sprintf("not measured at %s rows", results.Thousands(s.rows))
		}
		factor := 1.0
		if f.factor != nil {
			var w string
			if factor, w = f.factor(s, to); w != "" {
				return 0, 0, 0, Point{}, w
			}
		}
		if factor <= 0 {
			return 0, 0, 0, Point{}, "the model projects none"
		}
		ps = append(ps, Point{RowsBefore: s.rows, Relative: mean * factor, se: se, df: df})
		logs = append(logs, math.Log(mean*factor))
	}
	if len(ps) == 0 {
		return 0, 0, 0, Point{}, "no smaller scale"
	}
	if len(ps) == 1 && f.cell != nil { // one measurement: its value, no spread to draw an interval from
		return ps[0].Relative, 0, 0, Point{}, ""
	}
	if len(ps) == 1 { // one scale: its rounds' error
		q := ps[0]
		if q.se <= 0 || q.df <= 0 {
			return 0, 0, 0, Point{}, "too few rounds for an error"
		}
		half := stats.TQuantile(0.975, q.df) * q.se
		return q.Relative, q.Relative * math.Exp(-half), q.Relative * math.Exp(half), q, ""
	}
	if f.cell != nil { // measured once a scale: a new scale's t prediction interval
		v, lo, hi, why = predictNew(logs)
		if f.most > 0 {
			hi = math.Min(hi, f.most)
		}
		return v, lo, hi, p, why
	}
	se, df, ok := pooledError(ps)
	if !ok {
		return 0, 0, 0, Point{}, "too few rounds for an error"
	}
	mean := stat.Mean(logs, nil) // the mean whose error pooledError is
	half := stats.TQuantile(0.975, df) * se
	v = math.Exp(mean)
	return v, v * math.Exp(-half), v * math.Exp(half), Point{Relative: v, se: se, df: df}, ""
}

// predictNew is the 95% prediction interval of one more value of the logs'
// distribution (Student's t on k−1 degrees of freedom: mean ± t·s·√(1+1/k)),
// and its centre; it needs two values.
func predictNew(logs []float64) (v, lo, hi float64, why string) {
	k := float64(len(logs))
	if len(logs) < 2 {
		return 0, 0, 0, "measured once per scale: two smaller scales make its spread"
	}
	m, sd := stat.MeanStdDev(logs, nil)
	half := stats.TQuantile(0.975, k-1) * sd * math.Sqrt(1+1/k)
	v = math.Exp(m)
	return v, v * math.Exp(-half), v * math.Exp(half), ""
}

// countScales are each key's cells at each level, by key then level.
func countScales(r *results.Results, levels []scaleLevel, clients int) map[string][]countScale {
	if clients == 0 && len(r.Plan.Clients) > 0 {
		clients = r.Plan.Clients[0]
	}
	out := map[string][]countScale{}
	for _, l := range levels {
		byKey := map[string]*countScale{}
		var order []string
		for i := range r.Cells {
			c := &r.Cells[i]
			if c.Status != results.StatusOK || c.Clients != clients || c.RowsBefore != l.rows || c.SharedBuffers != l.cache {
				continue
			}
			s := byKey[c.Key]
			if s == nil {
				cache := l.cache
				if cache == 0 {
					cache, _ = c.Metrics.CacheBytes.Get()
				}
				s = &countScale{rows: l.rows, cache: cache, share: r.Plan.WindowTableShare > 0}
				byKey[c.Key] = s
				order = append(order, c.Key)
			}
			s.cells = append(s.cells, c)
		}
		for _, k := range order {
			out[k] = append(out[k], *byKey[k])
		}
	}
	return out
}

// checkCounts projects each key's counts at levels[i] from the levels of
// fewer rows, a CheckRow a key and figure.
func checkCounts(full *results.Results, levels []scaleLevel, i, clients int, cache int64, from []int64) []CheckRow {
	at := levels[i]
	var out []CheckRow
	scales := countScales(full, levels[:i+1], clients)
	for _, key := range keyOrder(full) {
		var below []countScale
		var to *countScale
		for k, s := range scales[key] {
			switch {
			case s.rows < at.rows:
				below = append(below, s)
			case s.rows == at.rows:
				to = &scales[key][k]
			}
		}
		if to == nil {
			continue
		}
		to.cache = cache
		for _, f := range countFigures {
			c := CheckRow{Rows: at.rows, CacheBytes: cache, Key: key, Figure: f.name, Header: f.header, Share: f.most == 1, From: from}
			var p Point
			c.Predicted, c.Lo, c.Hi, p, c.Unavailable = f.project(below, *to)
			if c.Unavailable == "" {
				c.Level = 0.95
			}
			mean, se, df, ok := f.measuredLevel(*to)
			if ok {
				c.Measured = mean
			}
			if p.se > 0 && se > 0 {
				c.predict([]Point{p}, stats.Comparison{SE: se, DF: df})
			}
			out = append(out, c.settle())
		}
	}
	return out
}

// keyOrder is the run's keys in its plan's order.
func keyOrder(r *results.Results) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range r.Cells {
		if !seen[c.Key] {
			seen[c.Key] = true
			out = append(out, c.Key)
		}
	}
	return out
}

// CountProjection is one of a key's counts carried to the user's scale
// through its model (countFigures), or why there is none.
type CountProjection struct {
	Key string `json:"key"`
	// Figure is the count's name, Header its name on every table (the
	// registry's: results.RoundFigures).
	Figure string `json:"figure"`
	Header string `json:"header"`
	// Share says the figure is a share (0 to 1), printed in percent.
	Share bool `json:"share,omitempty"`
	// Value is the figure at the scale, with its interval (none where the
	// run measured a figure once: one size).
	Value float64 `json:"value,omitempty"`
	stats.Interval
	// From are the run's scales (rows) it was carried from.
	From []int64 `json:"from_rows,omitempty"`
	// Variable is what sets the figure in its model, Beyond how many
	// times the user's value of it lies from the nearest the run measured
	// (1: at it; 0: the figure is a level, set by the key's order).
	Variable string  `json:"variable,omitempty"`
	Beyond   float64 `json:"beyond_measured,omitempty"`
	// Unavailable is why there is no number: not measured, no model, or
	// beyond WorkBeyond (the model and its inputs are said instead).
	Unavailable string `json:"unavailable,omitempty"`
}

// countsAt carries each key's counts (the reference's too: they are its
// own, not ratios) to the scale from every scale the run measured.
func countsAt(r *results.Results, s Scale) []CountProjection {
	levels := levelsOf(r, s.Clients)
	scales := countScales(r, levels, s.Clients)
	var out []CountProjection
	for _, key := range keyOrder(r) {
		from := scales[key]
		if len(from) == 0 {
			continue
		}
		sz, why, err := sizesAt(r, key, s)
		if err != nil || why != "" {
			continue // the work's line says why
		}
		to := countScale{rows: s.Rows, cache: s.CacheBytes, rate: s.InsertRate, share: from[0].share}
		for _, f := range countFigures {
			out = append(out, f.at(key, from, to, sz.Ratio))
		}
	}
	return out
}

// at is the figure carried from the run's scales to the user's (ratio: its
// key index over the cache there).
func (f countFigure) at(key string, all []countScale, to countScale, ratio float64) CountProjection {
	c := CountProjection{Key: key, Figure: f.name, Header: f.header, Share: f.most == 1, Variable: f.variable}
	if f.variable == byCheckpoints && to.rate <= 0 {
		c.Unavailable = "--insert-rate sets the rows between two checkpoints, and with them the images"
		return c
	}
	var use []countScale
	var why string
	for _, s := range all { // the scales the model carries from
		if _, _, _, ok := f.measuredLevel(s); !ok {
			why = fmt.Sprintf("not measured at %s rows", results.Thousands(s.rows))
			continue
		}
		if f.factor != nil {
			if _, w := f.factor(s, to); w != "" {
				why = w
				continue
			}
		}
		use = append(use, s)
	}
	if len(use) == 0 {
		c.Unavailable = why
		return c
	}
	for _, s := range use {
		c.From = append(c.From, s.rows)
	}
	if c.Beyond = f.beyond(use, to, ratio); c.Beyond > WorkBeyond {
		c.Unavailable = fmt.Sprintf("%.0f× from what the run measured of %s (more than %d×): no number is carried that far; %s", c.Beyond, c.Variable, WorkBeyond, f.inputs(use))
		return c
	}
	c.Value, c.Lo, c.Hi, _, c.Unavailable = f.project(use, to)
	if c.Lo > 0 {
		c.Level = 0.95
	}
	return c
}

// beyond is how many times the user's value of the figure's variable lies
// from the nearest the scales measured (0 for a level).
func (f countFigure) beyond(use []countScale, to countScale, ratio float64) float64 {
	nearest := math.Inf(1)
	near := func(measured, yours float64) {
		if measured > 0 && yours > 0 {
			nearest = math.Min(nearest, math.Exp(math.Abs(math.Log(yours/measured))))
		}
	}
	for _, s := range use {
		switch f.variable {
		case byCache:
			for _, c := range s.cells {
				if v, ok := c.Metrics.KeyIndexCacheRatio.Get(); ok {
					near(v, ratio)
				}
			}
		case byCheckpoints:
			m := s.steady()
			index, _ := s.keyIndex()
			if m == nil || index <= 0 || s.rows <= 0 {
				continue
			}
			grow := func(string) float64 { return float64(to.rows) / float64(s.rows) }
			st, err := m.At(to.rate, results.DefaultCheckpointSettings, grow)
			if err != nil {
				continue
			}
			// The rounds' first touches ran from a checkpoint to a round's
			// rows: fewer rows a page between checkpoints lie within them.
			measured, yours := m.RoundRows/index, st.SpacingRows/(index*grow(""))
			near(measured, math.Max(yours, measured))
		default:
			return 0
		}
	}
	if math.IsInf(nearest, 1) {
		return 0
	}
	return nearest
}

// inputs are the figure's measured levels and its model, said where no
// number is carried.
func (f countFigure) inputs(use []countScale) string {
	var ps []string
	for _, s := range use {
		mean, _, _, _ := f.measuredLevel(s)
		v := results.Significant(mean)
		if mean >= 1000 {
			v = results.Thousands(int64(math.Round(mean)))
		}
		ps = append(ps, fmt.Sprintf("%s at %s rows", v, results.Thousands(s.rows)))
	}
	return fmt.Sprintf("measured %s; model: %s", strings.Join(ps, ", "), f.model)
}
