package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/results"
)

func TestHotSetFitsItsModel(t *testing.T) {
	for _, tc := range []struct{ hot, x, rounds float64 }{{2000, 0.9, 6}, {500, 3, 4}, {10000, 0.05, 10}} {
		d := tc.hot * (1 - math.Exp(-tc.x))
		u := tc.hot * (1 - math.Exp(-tc.rounds*tc.x))
		hot, x := hotSet(d, u, tc.rounds)
		if math.Abs(hot/tc.hot-1) > 1e-6 || math.Abs(x/tc.x-1) > 1e-6 {
			t.Errorf("%+v: fitted H %.1f, x %.4f", tc, hot, x)
		}
	}
	if hot, _ := hotSet(100, 100, 5); hot != 100 {
		t.Errorf("the same pages every round: H %.0f, want 100", hot)
	}
	if hot, x := hotSet(100, 500, 5); !math.IsInf(hot, 1) || x != 0 {
		t.Errorf("new pages every round: H %.0f, x %g", hot, x)
	}
}

// simulated is a cell's rounds of perRound rows after a checkpoint each:
// every row touches touch pages drawn from the old pages by pick; with a
// frontier, rows go to the newest page, a new one every frontier rows (a
// page made in a round writes no image in it: only the newest page found
// at the round's start does, once). A sequence's page writes one image a
// round. It returns the gathering and, by the same draws, the images per
// row of a cycle of s rows.
func simulated(rng *rand.Rand, rounds int, perRound int, touch int, old int64, frontier int, pick func() int64, s int) (*FirstTouches, float64) {
	f, _ := NewFirstTouches(16, &Extensions{Schema: map[string]string{"pg_walinspect": "public"}})
	newest := old // the frontier's page
	made := 0
	for range rounds {
		seen := map[int64]bool{}
		for range perRound {
			for range touch {
				if b := pick(); !seen[b] {
					seen[b] = true
					f.image("kb_cell_pkey", results.RoleKeyIndex, old, b, 8000)
				}
			}
			if frontier > 0 {
				if !seen[newest] && made == 0 {
					seen[newest] = true // found at the round's start
					f.image("kb_cell_pkey", results.RoleKeyIndex, old, newest, 8000)
				}
				if made++; made == frontier {
					newest, made = newest+1, 0
					seen[newest] = true // made now: no image
				}
			}
		}
		made = 0
		f.image("", "", 0, 0, 8000)
		f.EndRound(int64(perRound))
	}
	seen := map[int64]bool{}
	images := 1.0 // the sequence's
	if frontier > 0 {
		images++ // the frontier page the cycle found
	}
	for i := 0; i < s; i++ {
		for range touch {
			if b := pick(); !seen[b] {
				seen[b] = true
				images++
			}
		}
	}
	return f, images / float64(s)
}

// TestSteadyWALFromFirstTouches: rounds of a random key (its index's pages
// touched uniformly) and of an ordered one (a few pages again and again,
// a frontier of new pages) give the images per row of a checkpoint cycle
// 250 times a round's rows within 10% of what that cycle writes, and the
// WAL per row less the images saved.
func TestSteadyWALFromFirstTouches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const perRound, s = 4000, 1_000_000
	sp := Spacing{Timeout: time.Duration(float64(s)/1000) * time.Second, MaxWALBytes: 1 << 40, CompletionTarget: 0.9, Basis: "test"}
	for _, tc := range []struct {
		name  string
		pick  func() int64
		touch int
		front int
	}{
		{"uniform over 2000 pages", func() int64 { return rng.Int64N(2000) }, 1, 100},
		{"uniform over 20000 pages", func() int64 { return rng.Int64N(20000) }, 1, 100},
		{"three pages again and again", func() int64 { return rng.Int64N(3) }, 2, 300},
	} {
		f, want := simulated(rng, 6, perRound, tc.touch, 20000, tc.front, tc.pick, s)
		measured := 10_000.0 // the rounds' WAL per row, images included
		st, ok := f.Steady(results.Of(measured), 1000, sp).Get()
		if !ok {
			t.Fatalf("%s: unavailable", tc.name)
		}
		if math.Abs(st.FPIPerRow/want-1) > 0.1 || st.SpacingRows != s {
			t.Errorf("%s: %.6f images per row at %.0f rows, a cycle of %d writes %.6f", tc.name, st.FPIPerRow, st.SpacingRows, s, want)
		}
		var rows, images int64
		for i := range f.rows {
			rows, images = rows+f.rows[i], images+f.images[i]
		}
		saved := (float64(images)/float64(rows) - st.FPIPerRow) * 8000
		if math.Abs(st.WALBytesPerRow-(measured-saved)) > 1e-6 || st.KeyIndexFPIPerRow <= 0 || st.KeyIndexFPIPerRow > st.FPIPerRow {
			t.Errorf("%s: %+v (saved %.0f bytes a row)", tc.name, st, saved)
		}
	}
}

func TestSteadyWALSpacing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f, _ := simulated(rng, 4, 4000, 1, 2000, 0, func() int64 { return rng.Int64N(2000) }, 10)
	// 100 MB of max_wal_size, some 2 kB a row once the images thin out, comes before 300 s at 1000 rows/s.
	st, ok := f.Steady(results.Of(5000.0), 1000, Spacing{Timeout: 300 * time.Second, MaxWALBytes: 100 << 20, CompletionTarget: 0.9, Basis: "b"}).Get()
	if !ok || st.SpacingRows >= 300_000 || st.SpacingRows < 10_000 || !strings.Contains(st.Spacing, "of WAL") || st.WALBytesPerRow <= 0 {
		t.Errorf("max_wal_size's spacing: %+v", st)
	}
	if _, ok := f.Steady(results.Of(2000.0), 1, Spacing{Timeout: time.Second, MaxWALBytes: 1 << 30, CompletionTarget: 0.9}).Get(); ok {
		t.Error("a spacing shorter than the rounds was extrapolated")
	}
	one, _ := NewFirstTouches(16, &Extensions{Schema: map[string]string{"pg_walinspect": "public"}})
	one.EndRound(100)
	if m := one.Steady(results.Of(2000.0), 1000, DefaultSpacing); m.Reason() == "" {
		t.Error("one round extrapolated")
	}
	if f, why := NewFirstTouches(15, nil); f != nil || !strings.Contains(why, "16") {
		t.Errorf("PostgreSQL 15: %v %q", f, why)
	}
}

// TestDataIndexGrowsWithTheTable: touches that fall on a quarter of an
// index fit as a hot set of that quarter; the key index's stays that size
// at another scale, the data index's (its values uniform over the table's
// range) is the relation itself, grown with it.
func TestDataIndexGrowsWithTheTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f, _ := NewFirstTouches(16, &Extensions{Schema: map[string]string{"pg_walinspect": "public"}})
	for range 6 {
		seen := map[string]bool{}
		for range 4000 {
			for _, rel := range []struct{ name, role string }{{"kb_cell_pkey", results.RoleKeyIndex}, {"kb_cell_data", results.RoleDataIndex}} {
				b := rng.Int64N(5000)
				if k := fmt.Sprint(rel.name, b); !seen[k] {
					seen[k] = true
					f.image(rel.name, rel.role, 20000, b, 8000)
				}
			}
		}
		f.image("", "", 0, 0, 8000)
		f.EndRound(4000)
	}
	sp := Spacing{Timeout: time.Hour, MaxWALBytes: 1 << 40, CompletionTarget: 0.9, Basis: "test"}
	st, ok := f.Steady(results.Of(10_000.0), 1000, sp).Get()
	if !ok {
		t.Fatal("unavailable")
	}
	whole := map[string]bool{}
	for _, r := range st.Model.Relations {
		whole[r.Role] = r.Whole
		if r.HotPages > 10000 {
			t.Errorf("%s: a hot set of %.0f pages, touches over 5000", r.Role, r.HotPages)
		}
	}
	if whole[results.RoleKeyIndex] || !whole[results.RoleDataIndex] {
		t.Errorf("whole relations: %v, want the data index's alone", whole)
	}
	grow := func(string) float64 { return 1000 }
	if at, _ := st.Model.Images(3.6e6, grow); at <= func() float64 { v, _ := st.Model.Images(3.6e6, nil); return v }() {
		t.Errorf("images per row %.4f grown 1000-fold, no more than at the measured size: the data index did not grow", at)
	}
}
