package projection

import (
	"fmt"
	"math"
	"sort"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// Checking a projection where it can be checked: a run that measured
// several scales (the scale preset: rows and cache grown together; growth:
// rows at one cache) is projected to each of its scales from the smaller
// ones alone, and each projected figure set beside what that scale
// measured. The figures checked are those a projection states with an
// interval: each key's work per transaction and its rate, both over the
// reference key's, and the counts behind the work, each key's own
// (counts.go). A row says whether the measurement fell where a
// measurement should (the projection's interval widened by the
// measurement's own error, where both are known); the share of rows that
// did is what the check shows.

// CheckRow is one key's figure at one scale: projected from the smaller
// scales, and measured.
type CheckRow struct {
	Rows       int64  `json:"rows"`
	CacheBytes int64  `json:"cache_bytes"`
	Key        string `json:"key"`
	Against    string `json:"against"`
	// Figure is "work" (per transaction over Against's) or "rate" (over
	// Against's), or one of the key's own counts (Against empty), named
	// as results.json's rounds name it, Header as every table does.
	Figure string `json:"figure"`
	Header string `json:"header,omitempty"`
	// Share says the figure is a share (0 to 1), printed in percent.
	Share     bool    `json:"share,omitempty"`
	Predicted float64 `json:"predicted,omitempty"`
	// Interval is the projection's (its level a floor for the work: work.go).
	stats.Interval
	Measured float64 `json:"measured,omitempty"`
	// Expect is where a measurement at the scale should fall (95%): the
	// projection's own error and the measurement's, each from its rounds,
	// added (none where either is not known: Interval then). Inside says
	// the measurement fell there: a measured figure carries its own noise,
	// which the projection's interval for the figure itself leaves out.
	Expect stats.Interval `json:"predicted_measurement,omitzero"`
	Inside bool           `json:"inside"`
	// From are the scales projected from (rows each).
	From []int64 `json:"from_rows"`
	// Beyond is the scale's key index over cache over the largest the
	// smaller scales measured (1: within them).
	Beyond float64 `json:"beyond_largest_measured,omitempty"`
	// Unavailable is why there is no projection or no measurement.
	Unavailable string `json:"unavailable,omitempty"`
}

// scaleLevel is one scale a run measured: its rows before the window and
// its cache (0: the run's one cache).
type scaleLevel struct {
	rows, cache int64
}

// CheckScales projects each scale of r with at least MinPoints smaller scales
// from those alone (analyze is verdict's analysis, run on each subset as
// on a run: the package lies below it), at clients (0: the run's first
// client count), and returns every checked figure, the largest scale's
// first. It fails when the run has fewer than MinPoints+1 scales.
func CheckScales(r *results.Results, clients int, analyze func(*results.Results) *results.Analysis) ([]CheckRow, error) {
	levels := levelsOf(r, clients)
	if len(levels) < MinPoints+1 {
		return nil, fmt.Errorf("a check projects a scale from %d smaller ones: the run measured %d (keybench run scale measures three)", MinPoints, len(levels))
	}
	var out []CheckRow
	for i := len(levels) - 1; i >= MinPoints; i-- {
		rows, err := checkLevel(r, levels, i, clients, analyze)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// levelsOf are the scales of r's ok cells at clients, by rows then cache.
func levelsOf(r *results.Results, clients int) []scaleLevel {
	if clients == 0 && len(r.Plan.Clients) > 0 {
		clients = r.Plan.Clients[0]
	}
	seen := map[scaleLevel]bool{}
	var out []scaleLevel
	for _, c := range r.Cells {
		l := scaleLevel{c.RowsBefore, c.SharedBuffers}
		if c.Status == results.StatusOK && c.Clients == clients && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].rows != out[b].rows {
			return out[a].rows < out[b].rows
		}
		return out[a].cache < out[b].cache
	})
	return out
}

// checkLevel projects levels[i] from the levels of fewer rows.
func checkLevel(full *results.Results, levels []scaleLevel, i, clients int, analyze func(*results.Results) *results.Analysis) ([]CheckRow, error) {
	at := levels[i]
	small, cache, from, err := below(full, levels, i)
	if err != nil {
		return nil, err
	}
	analyze(small)
	rep, err := Project(small, Scale{Rows: at.rows, CacheBytes: cache, Clients: clients})
	if err != nil {
		return nil, fmt.Errorf("projecting %s rows from the smaller scales: %w", results.Thousands(at.rows), err)
	}
	measured := measuredAt(full, at, clients)
	ref := rep.Reference
	var out []CheckRow
	row := func(key, figure string) CheckRow {
		return CheckRow{Rows: at.rows, CacheBytes: cache, Key: key, Against: ref, Figure: figure, From: from}
	}
	for _, w := range rep.Work {
		c := row(w.Key, "work")
		c.Predicted, c.Lo, c.Hi, c.Level, c.Beyond, c.Unavailable = w.Relative, w.Lo, w.Hi, w.Level, w.Beyond, w.Unavailable
		c.Measured = measured.relative(w.Key, ref, func(g *results.Group) float64 {
			if g.Cost == nil {
				return 0
			}
			return g.Cost.Mean
		})
		var se stats.Comparison
		if g := measured[w.Key]; g != nil && g.Cost != nil {
			if v := g.Cost.Versus(ref); v != nil {
				se = v.Comparison
			}
		}
		c.predict(w.Points, se)
		out = append(out, c.settle())
	}
	for _, p := range rep.Keys {
		if p.Key == ref {
			continue
		}
		c := row(p.Key, "rate")
		c.Predicted, c.Interval, c.Unavailable = p.Relative, p.Interval, p.NotSupported
		c.Measured = measured.relative(p.Key, ref, func(g *results.Group) float64 { return g.TPS.Median })
		var se stats.Comparison
		if g := measured[p.Key]; g != nil {
			for _, v := range g.Compared {
				if v.Key == ref {
					se = v.Comparison
				}
			}
		}
		c.predict(p.Curve.Points, se)
		out = append(out, c.settle())
	}
	return append(out, checkCounts(full, levels, i, clients, cache, from)...), nil
}

// predict sets where a measurement at the scale should fall: the
// projection's error (one pooled level's standard error, when the
// projection is one) and the measurement's (its paired rounds'), added,
// on Welch–Satterthwaite's degrees of freedom.
func (c *CheckRow) predict(points []Point, measured stats.Comparison) {
	if len(points) != 1 || points[0].se <= 0 || points[0].df <= 0 || measured.SE <= 0 || measured.DF <= 0 || c.Predicted <= 0 {
		return
	}
	vp, vm := points[0].se*points[0].se, measured.SE*measured.SE
	df := (vp + vm) * (vp + vm) / (vp*vp/points[0].df + vm*vm/measured.DF)
	half := stats.TQuantile(0.975, df) * math.Sqrt(vp+vm)
	c.Expect = stats.Interval{Lo: c.Predicted * math.Exp(-half), Hi: c.Predicted * math.Exp(half), Level: 0.95}
}

// below is the run with only the cells of fewer rows than levels[i] (its
// plan's sizes and caches cut alike), the cache levels[i] ran at, and the
// row counts it keeps.
func below(full *results.Results, levels []scaleLevel, i int) (small *results.Results, cache int64, from []int64, err error) {
	at := levels[i]
	cut := *full
	cut.Cells, cut.Analysis = nil, nil
	for _, l := range levels[:i] {
		if l.rows < at.rows && (len(from) == 0 || from[len(from)-1] != l.rows) {
			from = append(from, l.rows)
		}
	}
	for _, c := range full.Cells {
		switch {
		case c.RowsBefore < at.rows:
			cut.Cells = append(cut.Cells, c)
		case c.RowsBefore == at.rows && c.SharedBuffers == at.cache && cache == 0:
			cache, _ = c.Metrics.CacheBytes.Get()
		}
	}
	if at.cache > 0 {
		cache = at.cache
	}
	if cache <= 0 {
		return nil, 0, nil, fmt.Errorf("the scale of %s rows recorded no cache to project to", results.Thousands(at.rows))
	}
	cut.Plan.Rows, cut.Plan.SharedBuffers = nil, nil
	for k, rows := range full.Plan.Rows {
		if rows >= at.rows {
			continue
		}
		cut.Plan.Rows = append(cut.Plan.Rows, rows)
		if full.Plan.Scaled && k < len(full.Plan.SharedBuffers) {
			cut.Plan.SharedBuffers = append(cut.Plan.SharedBuffers, full.Plan.SharedBuffers[k])
		}
	}
	if !full.Plan.Scaled {
		cut.Plan.SharedBuffers = full.Plan.SharedBuffers
	}
	return &cut, cache, from, nil
}

// settle says whether the measurement lies inside the interval, and why
// a row cannot say (no interval, no measurement).
func (c CheckRow) settle() CheckRow {
	switch {
	case c.Unavailable != "":
	case c.Lo <= 0 || c.Hi <= 0:
		c.Unavailable = "no interval"
	case c.Measured <= 0:
		c.Unavailable = "not measured at this scale"
	case c.Expect.Lo > 0:
		c.Inside = c.Measured >= c.Expect.Lo && c.Measured <= c.Expect.Hi
	default:
		c.Inside = c.Measured >= c.Lo && c.Measured <= c.Hi
	}
	return c
}

// groupsAtLevel are the full run's groups at one scale, by key.
type groupsAtLevel map[string]*results.Group

func measuredAt(r *results.Results, at scaleLevel, clients int) groupsAtLevel {
	if clients == 0 && len(r.Plan.Clients) > 0 {
		clients = r.Plan.Clients[0]
	}
	out := groupsAtLevel{}
	for i := range r.Analysis.Groups {
		g := &r.Analysis.Groups[i]
		if g.Rows == at.rows && g.SharedBuffers == at.cache && g.Clients == clients {
			out[g.Key] = g
		}
	}
	return out
}

// relative is key's figure over ref's at the scale (0: either missing).
func (m groupsAtLevel) relative(key, ref string, of func(*results.Group) float64) float64 {
	g, base := m[key], m[ref]
	if g == nil || base == nil || of(base) <= 0 || of(g) <= 0 {
		return 0
	}
	return of(g) / of(base)
}
