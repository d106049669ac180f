package projection

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/projection/projectiontest"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{"64GB": 64 << 30, "64G": 64 << 30, "512MB": 512 << 20, "16kB": 16 << 10, "1TB": 1 << 40, "4096": 4096, "1.5GiB": 3 << 29} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]int64{"1000000000": 1e9, "1e9": 1e9, "1B": 1e9, "800M": 8e8, "2.5k": 2500} {
		if got, err := ParseCount(in); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1GB", "12XB", "GB", "1e999"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

func TestCurveAt(t *testing.T) {
	c := Curve{Points: []Point{{Ratio: 0.5, Relative: 1}, {Ratio: 2, Relative: 0.8}, {Ratio: 8, Relative: 0.4}}}
	for _, tc := range []struct {
		ratio, want float64
		outside     bool
	}{
		{0.5, 1, false}, {1, 0.9, false}, {4, 0.6, false}, {8, 0.4, false},
		{16, 0.2, true},   // extrapolated from the last two: 0.2 per doubling
		{64, 0, true},     // not below zero
		{0.25, 1.1, true}, // and below the first
	} {
		got, out := c.At(tc.ratio)
		if math.Abs(got-tc.want) > 1e-9 || out != tc.outside {
			t.Errorf("At(%g) = %g, %v; want %g, %v", tc.ratio, got, out, tc.want, tc.outside)
		}
	}
	if r, ok := c.RatioWhere(0.6); !ok || math.Abs(r-4) > 1e-9 {
		t.Errorf("RatioWhere(0.6) = %g, %v", r, ok)
	}
	if _, ok := c.RatioWhere(0.1); ok {
		t.Error("RatioWhere beyond the measured points")
	}
	// Beyond five points, the line through the nearer three (4, 0.8),
	// (8, 0.85), (16, 0.6): -0.1 per doubling from 0.75 at 8, so 0.55 at 32.
	five := Curve{Points: []Point{{Ratio: 1, Relative: 1}, {Ratio: 2, Relative: 0.9}, {Ratio: 4, Relative: 0.8}, {Ratio: 8, Relative: 0.85}, {Ratio: 16, Relative: 0.6}}}
	if got, out := five.At(32); math.Abs(got-0.55) > 1e-9 || !out {
		t.Errorf("five points: At(32) = %g, %v; want 0.55, true", got, out)
	}
}

// TestChecksByDistance: each point projected from the points below it and
// from its neighbours, each check at its distance in doublings; a
// projection carries the check at its own distance, or says it is beyond.
func TestChecksByDistance(t *testing.T) {
	c := Curve{Points: []Point{{Ratio: 0.5, Relative: 1}, {Ratio: 2, Relative: 0.8}, {Ratio: 8, Relative: 0.4}}}
	checks := c.Checks()
	// (8, 0.4) from (0.5, 1) and (2, 0.8): 0.6 at 2 doublings past 2, 50% too high;
	// (2, 0.8) between (0.5, 1) and (8, 0.4): 0.7 interpolated, 12.5% too low.
	want := []Check{{Points: 2, Target: 2, Distance: 0, Error: 0.7/0.8 - 1}, {Points: 2, Target: 8, Distance: 2, Error: 0.5}}
	if len(checks) != len(want) {
		t.Fatalf("checks %+v", checks)
	}
	for i := range want {
		if g, w := checks[i], want[i]; g.Points != w.Points || g.Target != w.Target || math.Abs(g.Distance-w.Distance) > 1e-9 || math.Abs(g.Error-w.Error) > 1e-9 {
			t.Errorf("check %d: %+v, want %+v", i, g, w)
		}
	}
	for _, tc := range []struct {
		ratio, distance, err float64
		beyond               bool
	}{
		{4, 0, -0.125, false},  // between points: the interpolation check
		{16, 1, 0.5, false},    // one doubling out: the nearest check at least as far, at 2
		{32, 2, 0.5, false},    // two: the check at 2
		{128, 4, 0, true},      // four: beyond the farthest check by 2
		{0.125, 2, 0.5, false}, // below the first point, two doublings
	} {
		v := c.ValidationAt(tc.ratio)
		e, ok := v.Error.Get()
		if math.Abs(v.Distance-tc.distance) > 1e-9 || ok == tc.beyond || ok && math.Abs(e-tc.err) > 1e-9 {
			t.Errorf("ValidationAt(%g) = %+v (%s)", tc.ratio, v, v.Error.Reason())
		}
		if tc.beyond && (math.Abs(v.Beyond-2) > 1e-9 || !strings.Contains(v.Error.Reason(), "beyond anything validated (2.0 doublings")) {
			t.Errorf("ValidationAt(%g): %q", tc.ratio, v.Error.Reason())
		}
	}
	// Five points: checks one, two, three... steps back, at every distance they reach.
	five := Curve{Points: []Point{{Ratio: 1, Relative: 1}, {Ratio: 2, Relative: 0.9}, {Ratio: 4, Relative: 0.8}, {Ratio: 8, Relative: 0.7}, {Ratio: 16, Relative: 0.6}}}
	by := five.ErrorsByDistance(1, 2, 3)
	for _, d := range []float64{1, 2, 3} {
		ch, ok := by[d]
		if !ok || math.Abs(ch.Distance-d) > 1e-9 || math.Abs(ch.Error) > 1e-9 { // a straight line in log(ratio): every check exact
			t.Errorf("%g doublings: %+v, %v", d, ch, ok)
		}
	}
	if v := (Curve{Points: c.Points[:2]}).ValidationAt(4); v.Error.Reason() == "" {
		t.Errorf("two points cannot be checked: %+v", v)
	}
}

// TestIntervalAndSupport: the interval is read through the curve from
// each point's, in logarithms (a factor's bounds stay above zero); a curve
// that falls to zero stops being a rate.
func TestIntervalAndSupport(t *testing.T) {
	c := Curve{Points: []Point{{Ratio: 1, Relative: 1, Interval: stats.Interval{Lo: 0.9, Hi: 1.1, Level: 0.95}}, {Ratio: 4, Relative: 0.6, Interval: stats.Interval{Lo: 0.5, Hi: 0.7, Level: 0.95}}}}
	ln := math.Log
	// At 2, halfway between the points in log(ratio): the value 0.8, each
	// point's log half-widths weighing half.
	lo, hi, ok := c.IntervalAt(2)
	if wantLo, wantHi := 0.8*math.Exp(-(ln(1/0.9)+ln(0.6/0.5))/2), 0.8*math.Exp((ln(1.1)+ln(0.7/0.6))/2); !ok || math.Abs(lo-wantLo) > 1e-9 || math.Abs(hi-wantHi) > 1e-9 {
		t.Errorf("IntervalAt(2) = %g, %g, %v; want %g, %g", lo, hi, ok, wantLo, wantHi)
	}
	// Beyond the points the interval holds the extension's value and
	// widens with the lever: at 16 (two doublings past 4, whose line
	// through the points loses 0.2 a doubling) the value is 0.2, and each
	// point's log half-widths move it by its weight there (-1 and 2).
	v, _ := c.At(16)
	lo, hi, ok = c.IntervalAt(16)
	wantLo, wantHi := 0.2*math.Exp(-(ln(1.1)+2*ln(0.6/0.5))), 0.2*math.Exp(ln(1/0.9)+2*ln(0.7/0.6))
	if !ok || math.Abs(v-0.2) > 1e-9 || math.Abs(lo-wantLo) > 1e-9 || math.Abs(hi-wantHi) > 1e-9 || lo <= 0 || lo > v || hi < v {
		t.Errorf("IntervalAt(16) = %g, %g around %g; want %g, %g", lo, hi, v, wantLo, wantHi)
	}
	for _, r := range []float64{0.1, 0.5, 1, 3, 5, 100, 1e6} {
		v, _ := c.At(r)
		if lo, hi, _ := c.IntervalAt(r); lo > v+1e-12 || hi < v-1e-12 {
			t.Errorf("IntervalAt(%g) = [%g, %g] leaves out the value %g", r, lo, hi, v)
		}
	}
	c.Points[0].Lo = 0
	if _, _, ok := c.IntervalAt(2); ok {
		t.Error("a point without an interval gives the curve none")
	}
	// 0.2 lost per doubling from 0.6 at 4: below 0.05 past 4 × 2^2.75.
	if end := c.supportEnd(); math.Abs(end-4*math.Pow(2, 3)) > 1e-9 {
		t.Errorf("supportEnd = %g", end)
	}
}

// run is a growth-like run: bigint and uuidv4 at three sizes, the uuidv4
// index outgrowing a 16 MiB cache.
// run is the growth-like run, analysed as a run's results are.
func run() *results.Results {
	r := projectiontest.GrowthRun()
	verdict.Analyze(r)
	return r
}

// TestProjectSizes: sizes scale with rows (twice the rows, twice the
// bytes), the ratio is over the given cache, the relative rate comes off
// the measured curve, and every projection has its validation.
func TestProjectSizes(t *testing.T) {
	r := run()
	rep, err := Project(r, Scale{Rows: 1_000_000_000, CacheBytes: 16 << 30, InsertRate: 2000})
	one := rep.Keys
	if err != nil || rep.Reference != "bigint" || len(one) != 2 {
		t.Fatalf("%v %q %+v", err, rep.Reference, one)
	}
	rep2, _ := Project(r, Scale{Rows: 2_000_000_000, CacheBytes: 16 << 30, InsertRate: 2000})
	two := rep2.Keys
	for i := range one {
		if d := float64(two[i].TableBytes)/float64(one[i].TableBytes) - 2; math.Abs(d) > 1e-6 {
			t.Errorf("%s: table at 2B rows / at 1B = %g", one[i].Key, 2+d)
		}
		if d := float64(two[i].KeyIndexBytes)/float64(one[i].KeyIndexBytes) - 2; math.Abs(d) > 1e-6 {
			t.Errorf("%s: key index at 2B rows / at 1B = %g", one[i].Key, 2+d)
		}
		if v := one[i].Validation; one[i].Key != rep.Reference && (v == nil || v.Error.IsZero()) {
			t.Errorf("%s: no validation: %+v", one[i].Key, v)
		}
	}
	u := one[1]
	// 164 MiB over 4.1M rows: 40 B per row; at 1B rows 40 GB, 2.5 times a 16 GiB cache.
	wantIndex := float64(164<<20) / 4_100_000 * 1e9
	if u.Key != "uuidv4" || math.Abs(float64(u.KeyIndexBytes)/wantIndex-1) > 1e-6 || math.Abs(u.Ratio-wantIndex/float64(16<<30)) > 1e-6 {
		t.Errorf("uuidv4: %+v", u)
	}
	if want, _ := u.Curve.At(u.Ratio); u.Relative != want || u.Outside {
		t.Errorf("uuidv4 relative %g (outside %v), the curve says %g", u.Relative, u.Outside, want)
	}
	if w, ok := u.WALPerDay.Get(); !ok || math.Abs(w-500*2000*86400) > 1 {
		t.Errorf("WAL per day %+v", u.WALPerDay)
	}
	// With leaf densities: the largest cell's index (90% full after CREATE
	// INDEX) is carried at the density the empty-table cell's inserts left (70%).
	for i := range r.Cells {
		d := 0.9
		if r.Cells[i].Key == "uuidv4" && r.Cells[i].RowsBefore == 0 {
			d = 0.7
		}
		r.Cells[i].Metrics.LeafDensity = results.Of(d)
	}
	repDense, _ := Project(r, Scale{Rows: 1_000_000_000, CacheBytes: 16 << 30})
	dense := repDense.Keys
	if got := float64(dense[1].KeyIndexBytes) / float64(one[1].KeyIndexBytes); math.Abs(got-0.9/0.7) > 1e-6 || dense[1].KeyIndexDensity != 0.7 {
		t.Errorf("uuidv4 at the inserts' density: %g× the size (want %g), density %g from %q", got, 0.9/0.7, dense[1].KeyIndexDensity, dense[1].DensityFrom)
	}
	if dense[0].KeyIndexBytes != one[0].KeyIndexBytes {
		t.Errorf("bigint (90%% either way) changed: %d vs %d", dense[0].KeyIndexBytes, one[0].KeyIndexBytes)
	}
	if _, err := Project(r, Scale{Rows: 0, CacheBytes: 1}); err == nil {
		t.Error("no rows accepted")
	}
}

// TestCurvesPoolCaches: a run at two caches (--shared-buffers) gives each
// key one curve with the points of both, each relative to the reference
// key at its own cache (never at the other's), ordered by ratio.
func TestCurvesPoolCaches(t *testing.T) {
	r := run()
	var both []results.Cell
	for _, cache := range []int64{16 << 20, 64 << 20} {
		for _, c := range run().Cells {
			c.SharedBuffers = cache
			kb, _ := c.Metrics.KeyIndexBytes.Get()
			c.Metrics.CacheBytes, c.Metrics.KeyIndexCacheRatio = results.Of(cache), results.Of(float64(kb)/float64(cache))
			if cache == 64<<20 && c.Key == "bigint" {
				c.TPS *= 2 // the reference twice as fast at the larger cache
				c.Timeline = []results.Second{{T: 1, TPS: c.TPS}, {T: 2, TPS: c.TPS}}
			}
			both = append(both, c)
		}
	}
	r.Cells = both
	verdict.Analyze(r)
	curves, ref, err := Curves(r)
	if err != nil || ref != "bigint" || len(curves) != 2 {
		t.Fatalf("%v %q %+v", err, ref, curves)
	}
	u := curves[1]
	if u.Key != "uuidv4" || len(u.Points) != 6 {
		t.Fatalf("uuidv4's curve: %+v", u)
	}
	for i, p := range u.Points {
		if i > 0 && p.Ratio < u.Points[i-1].Ratio {
			t.Errorf("points out of order: %+v", u.Points)
		}
		want := map[int64]float64{0: 1, 1_000_000: 0.7, 4_000_000: 0.4}[p.RowsBefore]
		if p.SharedBuffers == 64<<20 {
			want /= 2
		}
		if math.Abs(p.Relative-want) > 1e-9 {
			t.Errorf("%d rows at %d: relative %g, want %g (against bigint at the same cache)", p.RowsBefore, p.SharedBuffers, p.Relative, want)
		}
	}
}

// TestEveryKeyIsNamed is issue 24's: a key measured at one size is not
// projected (it was carried ~500 times beyond its one point), a key without
// a key index vanished from the table; each is now named with why.
func TestEveryKeyIsNamed(t *testing.T) {
	r := run()
	one := r.Cells[0]
	one.Key, one.RowsBefore = "uuidv7", 1_000_000
	none := r.Cells[1]
	none.Key, none.Metrics.KeyIndexBytes, none.Metrics.KeyIndexCacheRatio = "uuidv4:index=none", results.Unavailable[int64]("no key index"), results.Unavailable[float64]("no key index")
	r.Cells = append(r.Cells, one, none)
	verdict.Analyze(r)
	rep, err := Project(r, Scale{Rows: 1e9, CacheBytes: 16 << 30})
	if err != nil {
		t.Fatal(err)
	}
	why := map[string]string{}
	for _, n := range rep.NotProjected {
		why[n.Key] = n.Why
	}
	if len(rep.Keys) != 2 || !strings.Contains(why["uuidv7"], "1 size") || !strings.Contains(why["uuidv4:index=none"], "no key index") {
		t.Errorf("projected %d keys; not projected: %v", len(rep.Keys), why)
	}
}

// TestAbsurdFiguresAreRefused: figures that carry beyond any size (an
// edited file's 1e300 ratio) are an error, never a NaN rate or a negative size.
func TestAbsurdFiguresAreRefused(t *testing.T) {
	r := run()
	for i := range r.Cells {
		if r.Cells[i].Key == "uuidv4" {
			r.Cells[i].Metrics.KeyIndexBytes = results.Of[int64](1 << 62)
		}
	}
	if rep, err := Project(r, Scale{Rows: 1e12, CacheBytes: 16 << 30}); err == nil {
		t.Errorf("projected %+v", rep.Keys)
	}
}

// TestSteadyWALAtScale: a key whose cell derived a steady state carries it
// to the user's scale: a random key's index (its hot set the whole index)
// grown to the projected size writes nearly an image per row at 100
// rows/s between checkpoints 5 minutes apart, where the run's 5,000-page
// index wrote few; an ordered key's few hot pages stay few. A key without
// a steady state keeps its rounds' WAL per row and says so.
func TestSteadyWALAtScale(t *testing.T) {
	r := run()
	model := func(whole bool, hot float64) results.SteadyModel {
		return results.SteadyModel{RoundWALBytesPerRow: 6000, RoundFPIPerRow: 0.6, ImageBytes: 8000, RoundRows: 4000, OtherPerCycle: 1,
			Relations: []results.SteadyRelation{{Name: "k", Role: results.RoleKeyIndex, Pages: 5000, HotPages: hot, Whole: whole, TouchesPerRow: 1}}}
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		switch {
		case c.Key == "uuidv4":
			c.Metrics.SteadyWAL = results.Of(results.SteadyWAL{Model: model(true, 5000)})
		case c.Key == "bigint":
			c.Metrics.SteadyWAL = results.Of(results.SteadyWAL{Model: model(false, 3)})
		}
	}
	rep, err := Project(r, Scale{Rows: 1_000_000_000, CacheBytes: 16 << 30, InsertRate: 100})
	if err != nil || len(rep.Keys) != 2 {
		t.Fatalf("%v %+v", err, rep)
	}
	b, u := rep.Keys[0], rep.Keys[1]
	s := 100.0 * 300 // rows between checkpoints (their WAL, 270 MB, within max_wal_size's)
	pages := float64(u.KeyIndexBytes) / 8192
	fpi := (1 + pages*(1-math.Exp(-s/pages))) / s
	want := (6000 - (0.6-fpi)*8000) * 100 * 86400
	if w, ok := u.WALPerDay.Get(); !ok || math.Abs(w/want-1) > 1e-9 || fpi < 0.95 || !strings.HasPrefix(u.WALFrom, "steady state") {
		t.Errorf("uuidv4: WAL per day %+v, want %.4g (%.3f images per row); %q", u.WALPerDay, want, fpi, u.WALFrom)
	}
	// bigint's 3 hot pages: an image each per cycle, nothing near a row's.
	wantB := (6000 - (0.6-4/s)*8000) * 100 * 86400
	if w, ok := b.WALPerDay.Get(); !ok || math.Abs(w/wantB-1) > 1e-9 {
		t.Errorf("bigint: WAL per day %+v, want %.4g; %q", b.WALPerDay, wantB, b.WALFrom)
	}
	if sh, ok := b.FPIShare.Get(); !ok || sh > 0.01 {
		t.Errorf("bigint's image share %+v", b.FPIShare)
	}
	for i := range r.Cells {
		if r.Cells[i].Key == "uuidv4" {
			r.Cells[i].Metrics.SteadyWAL = results.Unavailable[results.SteadyWAL]("PostgreSQL 15")
		}
	}
	rep, _ = Project(r, Scale{Rows: 1_000_000_000, CacheBytes: 16 << 30, InsertRate: 100})
	if u := rep.Keys[1]; !strings.Contains(u.WALFrom, "rounds' own") || !strings.Contains(u.WALFrom, "PostgreSQL 15") {
		t.Errorf("uuidv4 without a steady state: %q", u.WALFrom)
	}
}

// TestOneShapePerCurve: a run at two client counts gives two sets of
// curves, never one pooled; the projection names the counts it left out.
func TestOneShapePerCurve(t *testing.T) {
	r := run()
	n := len(r.Cells)
	for i := 0; i < n; i++ {
		c := r.Cells[i]
		c.Clients, c.TPS = 64, c.TPS/2
		c.Timeline = []results.Second{{T: 1, TPS: c.TPS}, {T: 2, TPS: c.TPS}}
		r.Cells = append(r.Cells, c)
	}
	verdict.Analyze(r)
	curves, _, other, err := CurvesAt(r, 0)
	if err != nil || len(curves) != 2 || len(curves[0].Points) != 3 || !slices.Equal(other, []int{64}) {
		t.Fatalf("%v: %d curves of %d points, others %v", err, len(curves), len(curves[0].Points), other)
	}
	verdict.Analyze(r)
	rep, err := Project(r, Scale{Rows: 1e9, CacheBytes: 16 << 30, Clients: 64})
	if err != nil || rep.Clients != 64 || !slices.Equal(rep.OtherClients, []int{8}) || len(rep.Keys[0].Curve.Points) != 3 {
		t.Errorf("at 64 clients: %v, %+v", err, rep)
	}
	verdict.Analyze(r)
	if _, err := Project(r, Scale{Rows: 1e9, CacheBytes: 16 << 30, Clients: 3}); err == nil || !strings.Contains(err.Error(), "no cell at 3 clients") {
		t.Errorf("3 clients: %v", err)
	}
}

// TestNoRateBeyondSupport: far enough past the points, the curve's line
// falls to zero; the projection then states no rate, only why.
func TestNoRateBeyondSupport(t *testing.T) {
	rep, err := Project(run(), Scale{Rows: 1e12, CacheBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Keys {
		if p.Key != "uuidv4" {
			continue
		}
		if p.Relative != 0 || !strings.HasPrefix(p.NotSupported, "not supported by the measurements beyond") {
			t.Errorf("uuidv4 at %g× the cache: %g, %q", p.Ratio, p.Relative, p.NotSupported)
		}
		return
	}
	t.Fatal("no uuidv4 projection")
}

// TestPredict: the model's limits from parts priced on a machine.
func TestPredict(t *testing.T) {
	hdd := Machine{Cores: 8, Disk: Disk{ReadMS: 8, WriteMBps: 100, FlushMS: 4}, SharedBuffers: 128 << 20, OSCache: 1 << 30, OSReadMS: 0.02}
	// A sequence's insert: 0.2 ms of CPU, nothing read or written back,
	// 300 B of WAL. Flush-bound: half of 8 clients share each 4 ms flush.
	seq := Parts{CPUMS: 0.2, WALBytes: 300, TxnsPerFlush: 1}
	p := Predict(seq, 100<<20, 8, hdd)
	group := 4 * 4 / 4.2
	want := 1000 / (4/group + 300/1e5)
	if p.Limit != LimitDiskFlushes || math.Abs(p.TPS-want) > 1e-6 {
		t.Errorf("sequence: %g (%s), want %g", p.TPS, p.Limit, want)
	}
	// A random key whose index is beyond the cache and the OS cache: a read
	// and a write-back per insert, each a seek.
	random := Parts{CPUMS: 0.3, Reads: 1, Writes: 1, WALBytes: 8000, TxnsPerFlush: 1}
	p = Predict(random, 3<<30, 8, hdd)
	missOS := 1 - float64(1<<30)/float64(3<<30-128<<20)
	if p.Limit != LimitDiskWrites || math.Abs(p.DiskReads-missOS) > 1e-9 || p.TPS > 1000/(8+8*missOS) {
		t.Errorf("random beyond the caches: %+v", p)
	}
	// The same index within the OS cache: reads cost the OS cache's 0.02 ms; writes still seek.
	p = Predict(random, 512<<20, 8, hdd)
	if p.DiskReads != 0 || p.Limit != LimitDiskWrites {
		t.Errorf("random within the OS cache: %+v", p)
	}
	// On an SSD with many clients, CPU.
	ssd := Machine{Cores: 2, Disk: Disk{ReadMS: 0.05, WriteMBps: 2000, FlushMS: 0.05}, SharedBuffers: 1 << 30}
	if p := Predict(Parts{CPUMS: 1, TxnsPerFlush: 4}, 1<<20, 64, ssd); p.Limit != LimitCPU || math.Abs(p.TPS-2000) > 1e-6 {
		t.Errorf("CPU-bound: %+v", p)
	}
	// Parts below the smallest measured ratio are the smallest's; beyond the largest, extrapolated.
	pc := PartsCurve{{Ratio: 1, Reads: 0.1, Writes: 0.1, CPUMS: 0.2}, {Ratio: 4, Reads: 0.5, Writes: 0.5, CPUMS: 0.2}}
	if got := pc.At(0.1); got.Reads != 0.1 || got.Ratio != 0.1 {
		t.Errorf("below: %+v", got)
	}
	if got := pc.At(16); math.Abs(got.Reads-0.9) > 1e-9 {
		t.Errorf("beyond: %+v", got)
	}
}

// TestAgainst000: every cell of 000's table gets a prediction with its
// limit, from the run's parts.
func TestAgainst000(t *testing.T) {
	r := withParts(run())
	verdict.Analyze(r)
	if _, err := Against000(r); err == nil || !strings.Contains(err.Error(), "seq-uuid-time") {
		t.Errorf("a run without 000's ordered uuid: %v", err)
	}
	for _, k := range []string{"seq-uuid-time"} {
		for _, c := range r.Cells[:] {
			if c.Key == "bigint" {
				c.Key = k
				r.Cells = append(r.Cells, c)
			}
		}
	}
	verdict.Analyze(r)
	rows, err := Against000(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(Table000)*len(Rows000) {
		t.Fatalf("%d rows", len(rows))
	}
	for _, row := range rows {
		if row.Prediction.TPS <= 0 || row.Prediction.Limit == "" || math.IsNaN(row.Error) {
			t.Errorf("%+v", row)
		}
	}
}

// withParts gives the run's cells the figures the cost model reads.
func withParts(r *results.Results) *results.Results {
	for i := range r.Cells {
		c := &r.Cells[i]
		c.Txns = 100_000
		reads := int64(c.RowsBefore / 20) // more reads per insert as the table grows
		c.Metrics.IO = results.Of(results.IO{Clients: results.IOCounts{reads}, All: results.IOCounts{reads, reads}})
		c.Metrics.CPU = results.Of(results.CPU{ServerS: results.Of(20.0)})
		c.Metrics.WALBytes = results.Of[int64](30 << 20)
	}
	return r
}

// TestProjectWithTheModel: with a machine, every projected key gets the
// model's rate and limit; a key whose cells lack a part says which.
func TestProjectWithTheModel(t *testing.T) {
	m := &Machine{Cores: 8, Disk: Disk{ReadMS: 8, WriteMBps: 100, FlushMS: 4}, SharedBuffers: 16 << 30, OSCache: 8 << 30, OSReadMS: OSReadMS}
	rep, err := Project(withParts(run()), Scale{Rows: 1e9, CacheBytes: 16 << 30, Hardware: m})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Keys {
		if p.Model == nil || p.Model.TPS <= 0 || p.Model.Limit == "" || p.ModelRelative <= 0 {
			t.Errorf("%s: %+v (%s)", p.Key, p.Model, p.ModelWhy)
		}
	}
	if u, b := rep.Keys[1], rep.Keys[0]; u.Model.Limit != LimitDiskWrites || u.ModelRelative >= 1 || b.ModelRelative != 1 {
		t.Errorf("uuidv4 beyond the caches on an HDD: %+v; bigint %+v", u.Model, b.Model)
	}
	rep, _ = Project(run(), Scale{Rows: 1e9, CacheBytes: 16 << 30, Hardware: m})
	if p := rep.Keys[0]; p.Model != nil || !strings.Contains(p.ModelWhy, "its cells lack a part: no transaction") {
		t.Errorf("cells without parts: %+v, %q", p.Model, p.ModelWhy)
	}
}

// TestBeyondTheTestedScale (issue 38): a projection to rows or a cache
// more than TestedScale times the run's largest says it is untested there;
// one within says nothing.
func TestBeyondTheTestedScale(t *testing.T) {
	r := run() // 4.1M rows at most, over a 16 MiB cache
	for _, tc := range []struct {
		s      Scale
		beyond bool
	}{
		{Scale{Rows: 8_000_000, CacheBytes: 64 << 20}, false},
		{Scale{Rows: 1_000_000_000, CacheBytes: 64 << 20}, true},
		{Scale{Rows: 8_000_000, CacheBytes: 16 << 30}, true},
	} {
		got := beyondScale(r, tc.s)
		if (got != "") != tc.beyond || tc.beyond && !strings.Contains(got, "untested beyond 64×") {
			t.Errorf("%d rows over %d bytes: %q", tc.s.Rows, tc.s.CacheBytes, got)
		}
	}
}

// TestScaleRunPredictsItsLargestScale (issue 38): the stored scale run
// (uuidv4, uuidv7 and bigint at 250k rows over 2 MB, 4M over 32 MB and
// 16M over 128 MB, the key index grown by inserts) without its largest
// scale, projected to that scale's rows and cache: each key's projected
// rate relative to bigint holds, inside its printed interval, the ratio
// the largest scale measured — the lab predicts a table 64 times larger —
// and the checked error printed beside it is the one of the estimator the
// projection used at its distance.
func TestScaleRunPredictsItsLargestScale(t *testing.T) {
	full, err := verdict.Parse(resultstest.ReadGzip(t, "testdata/scale.json.gz"), "scale", all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	// The run (keybench run scale, 2026-11-27, 8 min on this 2-core
	// machine) recorded each cell's cache as the shared_buffers it ran at.
	for _, c := range full.Cells {
		if cb, _ := c.Metrics.CacheBytes.Get(); cb != c.SharedBuffers {
			t.Fatalf("%s at %d rows: cache %d, shared_buffers %d", c.Key, c.RowsBefore, cb, c.SharedBuffers)
		}
	}
	largest := full.Plan.Rows[len(full.Plan.Rows)-1]
	measured, measuredWork := map[string]float64{}, map[string]float64{}
	var ref float64
	for _, g := range full.Analysis.Groups {
		if g.Rows != largest {
			continue
		}
		measured[g.Key] = g.TPS.Median
		if g.Cost != nil {
			measuredWork[g.Key] = g.Cost.Mean
		}
		if g.Key == "bigint" {
			ref = g.TPS.Median
		}
	}
	small := *full
	small.Cells = nil
	for _, c := range full.Cells {
		if c.RowsBefore != largest {
			small.Cells = append(small.Cells, c)
		}
	}
	small.Plan.Rows, small.Plan.SharedBuffers = full.Plan.Rows[:2], full.Plan.SharedBuffers[:2]
	verdict.Analyze(&small)
	cache := full.Plan.SharedBuffers[2]
	rep, err := Project(&small, Scale{Rows: largest, CacheBytes: cache})
	if err != nil {
		t.Fatal(err)
	}
	// The work, projected from the two smaller scales, holds what the
	// largest measured (issue 50).
	for _, w := range rep.Work {
		want := measuredWork[w.Key] / measuredWork["bigint"]
		t.Logf("%s: work projected %.2f [%.2f–%.2f, ≥%g] at %.2f; measured %.2f; %s%s", w.Key, w.Relative, w.Lo, w.Hi, w.Level, w.Ratio, want, w.Direction, w.Decide)
		if w.Unavailable != "" || want < w.Lo || want > w.Hi {
			t.Errorf("%s: the measured work %.2f is outside the projection [%.2f–%.2f] (%s)", w.Key, want, w.Lo, w.Hi, w.Unavailable)
		}
	}
	for _, p := range rep.Keys {
		if p.Key == "bigint" {
			continue
		}
		want := measured[p.Key] / ref
		t.Logf("%s: projected %.2f [%.2f–%.2f] at ratio %.2f (outside %v); measured at 16M rows / 128 MB: %.2f; checked error %+v",
			p.Key, p.Relative, p.Lo, p.Hi, p.Ratio, p.Outside, want, p.Validation)
		if p.Lo <= 0 || want < p.Lo || want > p.Hi {
			t.Errorf("%s: the measured %.2f is outside the projection's interval [%.2f–%.2f]", p.Key, want, p.Lo, p.Hi)
		}
		if p.BeyondScale != "" {
			t.Errorf("%s: 4× the largest small scale called beyond what was tested: %s", p.Key, p.BeyondScale)
		}
		// The two smaller scales measured one ratio: the projection is
		// their level, and its checked error each scale read as the other's
		// level, at distance 0.
		if v := p.Validation; p.Outside || v == nil || v.Check == nil || v.Check.Points != 1 || v.Check.Distance != 0 || v.Distance != 0 {
			t.Errorf("%s: the checked error is not the level's at its distance: outside %v, %+v", p.Key, p.Outside, v)
		}
		// Counted once (issue 50): the level's interval is the pool's,
		// which holds the scales' disagreement; the check, that same
		// disagreement, is shown beside it, not added to it again.
		lo, hi, _ := p.Curve.IntervalAt(p.Ratio)
		if math.Abs(p.Lo/lo-1) > 1e-9 || math.Abs(p.Hi/hi-1) > 1e-9 {
			t.Errorf("%s: the level's interval [%.3f–%.3f] widened past the pool's [%.3f–%.3f]: the scales' disagreement counted twice", p.Key, p.Lo, p.Hi, lo, hi)
		}
	}
}

// TestConstantsFromTheRun (issue 38): what the run measures enters the
// model instead of a constant: a full-page image's mean size (the steady
// state's model; 8 kB, an upper bound, only where the cell did not
// measure it), and, beside 000's table, a random key's leaf density grown
// by inserts alone (the run's cell from an empty table; 70% only without
// one) — the prediction moves when the run's figure does.
func TestConstantsFromTheRun(t *testing.T) {
	var c results.Cell
	if imageBytes(&c) != 8192 {
		t.Errorf("an image of a cell that measured none: %v", imageBytes(&c))
	}
	c.Metrics.SteadyWAL = results.Of(results.SteadyWAL{Model: results.SteadyModel{ImageBytes: 6000}})
	if got := share(0.5, 6000, imageBytes(&c)); math.Abs(got.Value()-0.5) > 1e-12 {
		t.Errorf("half a 6000-byte image a row in 6000 bytes of WAL: share %v", got.Value())
	}
	ratioAt := func(density float64) float64 {
		r := withParts(run())
		for _, k := range []string{"seq-uuid-time"} {
			for _, c := range r.Cells[:] {
				if c.Key == "bigint" {
					c.Key = k
					r.Cells = append(r.Cells, c)
				}
			}
		}
		for i := range r.Cells {
			if c := &r.Cells[i]; c.Key == "uuidv4" && c.RowsBefore == 0 {
				c.Metrics.LeafDensity = results.Of(density)
			}
		}
		verdict.Analyze(r)
		rows, err := Against000(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			if row.RunKey == "uuidv4" && row.Rows == 10_000_000 {
				return row.Ratio
			}
		}
		t.Fatal("no uuidv4 row")
		return 0
	}
	if a, b := ratioAt(0.70), ratioAt(0.56); math.Abs(b/a-0.70/0.56) > 1e-6 {
		t.Errorf("000's uuidv4 index at the run's densities 70%% and 56%%: ratios %v and %v", a, b)
	}
}

// TestShapeErrorWidensTheInterval (issue 38): a projection whose points'
// intervals are tight (±5%) but whose curve's checks erred by 20% at its
// distance — the curve's shape drifting where the points cannot say —
// carries that error in its interval: a truth 20% below the projection,
// outside the sampling interval, lies inside the printed one; with nothing
// checked the interval stays the points'.
func TestShapeErrorWidensTheInterval(t *testing.T) {
	v, lo, hi := 0.6, 0.57, 0.63
	truth := v / 1.2
	if truth >= lo {
		t.Fatal("the setup: the truth must lie outside the sampling interval")
	}
	wlo, whi := withShapeError(v, lo, hi, results.Of(0.2))
	if truth < wlo || truth > whi || wlo > lo || whi < hi {
		t.Errorf("checked error +20%%: [%.3f–%.3f] leaves out %.3f", wlo, whi, truth)
	}
	if a, b := withShapeError(v, lo, hi, results.Unavailable[float64]("nothing to check it against")); a != lo || b != hi {
		t.Errorf("nothing checked: [%v–%v]", a, b)
	}
}
