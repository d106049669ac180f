package projection

import (
	"math"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// TestProjectWork: the work ratio read off its curve with the points'
// interval carried through it and the lowest level, its direction in
// words where the interval excludes 1, what run would decide it where it
// does not, and no number past WorkBeyond.
func TestProjectWork(t *testing.T) {
	largest := &results.Cell{RowsBefore: 1_000_000, RowsInserted: 0, Metrics: results.Metrics{KeyIndexCacheRatio: results.Of(4.0)}}
	c := Curve{Key: "uuidv4", Points: []Point{
		{Ratio: 1, Relative: 1.1, Interval: stats.Interval{Lo: 1.05, Hi: 1.15, Level: 0.95}},
		{Ratio: 4, Relative: 1.4, Interval: stats.Interval{Lo: 1.3, Hi: 1.5, Level: 0.999}},
	}}
	w := projectWork(c, 2, largest)
	if w.Unavailable != "" || w.Outside || w.Direction != "more" || w.Level != 0.95 || !(w.Lo < w.Relative && w.Relative < w.Hi) || w.Beyond != 0.5 {
		t.Errorf("between the points: %+v", w)
	}
	if w := projectWork(c, 16, largest); !w.Outside || w.Beyond != 4 || w.Unavailable != "" || w.Hi-w.Lo <= 0.2 {
		t.Errorf("4× past the largest: %+v", w)
	}
	if w := projectWork(c, 4*WorkBeyond*2, largest); w.Unavailable == "" || w.Relative != 0 || !strings.Contains(w.Unavailable, "4×: 1.40 [1.30–1.50, 99.9%]") {
		t.Errorf("past WorkBeyond: %+v", w)
	}
	flat := Curve{Key: "uuidv7", Points: []Point{{Ratio: 1, Relative: 1, Interval: stats.Interval{Lo: 0.9, Hi: 1.1, Level: 0.95}}, {Ratio: 4, Relative: 1.02, Interval: stats.Interval{Lo: 0.95, Hi: 1.1, Level: 0.95}}}}
	if w := projectWork(flat, 8, largest); w.Direction != "" || !strings.Contains(w.Decide, "2,000,000 rows") {
		t.Errorf("an interval holding 1: %+v", w)
	}
	one := Curve{Key: "uuidv4", Points: []Point{{Ratio: 2.5, Relative: 1.33, Interval: stats.Interval{Lo: 1.15, Hi: 1.54, Level: 0.999}}}}
	if w := projectWork(one, 2.4, largest); w.Outside || w.At != 2.5 || w.Direction != "more" || w.Decide != "" {
		t.Errorf("one level within half a doubling: %+v", w)
	}
	if w := projectWork(one, 24, largest); !w.Outside || w.Direction != "more" || !strings.Contains(w.Decide, "3.3 doublings") {
		t.Errorf("one level 3.3 doublings away: %+v", w)
	}
}

// TestWorkPairs (issue 50): two keys' projected work over each other is
// the ratio of their projections over the reference, its interval wider
// than either's, and its direction said only where the interval excludes 1.
func TestWorkPairs(t *testing.T) {
	ws := []WorkProjection{
		{Key: "uuidv4", Relative: 1.5, Interval: stats.Interval{Lo: 1.4, Hi: 1.6, Level: 0.99}},
		{Key: "uuidv7", Relative: 1.0, Interval: stats.Interval{Lo: 0.95, Hi: 1.05, Level: 0.95}},
		{Key: "ulid", Relative: 1.45, Interval: stats.Interval{Lo: 1.3, Hi: 1.6, Level: 0.95}},
		{Key: "gone", Unavailable: "too few points"},
	}
	pairs := workPairs(ws)
	if len(pairs) != 6 {
		t.Fatalf("%d pairs of three projected keys, want 6", len(pairs))
	}
	for _, p := range pairs {
		if p.Key == "uuidv4" && p.Against == "uuidv7" {
			if math.Abs(p.Relative-1.5) > 1e-9 || p.Direction != "more" || p.Lo >= 1.4/1.0 || p.Level != 0.95 {
				t.Errorf("uuidv4 over uuidv7: %+v", p)
			}
		}
		if p.Key == "uuidv4" && p.Against == "ulid" && p.Direction != "" {
			t.Errorf("uuidv4 over ulid (1.03×, both intervals wide) given a direction: %+v", p)
		}
	}
}

// TestWorkPairsFromMeasuredLevels (issue 50): two keys each read off one
// measured level with its paired rounds' standard error get a 95%
// interval from the two errors added (the run's default: uuidv4 1.31×
// uuidv7 named "more" at 1e9 rows, where the ≥99.9% ends added said
// "not known").
func TestWorkPairsFromMeasuredLevels(t *testing.T) {
	at := func(key string, rel, se float64) WorkProjection {
		p := Point{Ratio: 2, Relative: rel, Interval: stats.Interval{Lo: rel * math.Exp(-6.9*se), Hi: rel * math.Exp(6.9*se), Level: 0.999}, se: se, df: 5}
		return WorkProjection{Key: key, Relative: rel, Interval: stats.Interval{Lo: p.Lo, Hi: p.Hi, Level: 0.999}, At: 2, Points: []Point{p}}
	}
	pairs := workPairs([]WorkProjection{at("uuidv4", 1.34, 0.035), at("uuidv7", 1.02, 0.035)})
	p := pairs[0]
	if p.Key != "uuidv4" || p.Level != 0.95 || p.Direction != "more" || p.Lo <= 1 {
		t.Errorf("uuidv4 over uuidv7 from two measured levels: %+v", p)
	}
}
