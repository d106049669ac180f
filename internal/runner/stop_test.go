package runner

import (
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/stats"
)

// roundsOf are n rounds of a key whose rate scatters by rateNoise and
// whose work is work per transaction within workNoise (counts to about a
// percent: its WAL and its CPU).
func roundsOf(rng *rand.Rand, n int, rate, rateNoise, work, workNoise float64) []results.Round {
	var out []results.Round
	for i := 1; i <= n; i++ {
		w := work * (1 + workNoise*rng.NormFloat64())
		out = append(out, results.Round{Round: i, Rate: rate * (1 + rateNoise*rng.NormFloat64()), Txns: 1000,
			Cost: &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(w), WALBytes: results.Of(1000.0)}})
	}
	return out
}

// TestRoundsStopOnceTheWorkIsDecided (issue 48): the verdict decides on
// the work, so a task's rounds stop once the work's design has settled
// every pair — here after its first looks, the work of two keys a third
// apart at 2% noise — though the rates, 20% noisy, are undecided; without
// work the rates decide alone, at the whole of Alpha; before it, in
// every branch, the work let no round stop before the planned eighth.
func TestRoundsStopOnceTheWorkIsDecided(t *testing.T) {
	rate, cost := stats.NewRateDesign(8, 0.05), stats.NewCostDesign(8, 0.05, stats.FamilyPairs)
	r := &run{cfg: Config{Plan: &scenario.Experiment{Sequential: &rate, CostSequential: &cost, Budget: time.Hour}}, ui: NewUI(io.Discard),
		res: &results.Results{}}
	rng := rand.New(rand.NewPCG(48, 1))
	cells := func(done int, withWork bool) []results.Cell {
		cs := []results.Cell{{Key: "uuidv4", Workload: "insert", Status: results.StatusOK, Rounds: roundsOf(rng, done, 1000, 0.2, 0.40, 0.02)},
			{Key: "bigint", Workload: "insert", Status: results.StatusOK, Rounds: roundsOf(rng, done, 1100, 0.2, 0.30, 0.02)}}
		if !withWork {
			for i := range cs {
				for j := range cs[i].Rounds {
					cs[i].Rounds[j].Cost = nil
				}
			}
		}
		return cs
	}
	stopAt := func(rates func(n int) []results.Cell) int {
		for done := 1; done <= 8; done++ {
			cs := rates(done)
			decided := map[string]bool{}
			if !r.decide([]*cellRun{{}, {}}, cs, make([]error, 2), done, 8, decided, time.Now()) {
				return done
			}
		}
		return 9
	}
	n := stopAt(func(n int) []results.Cell { return cells(n, true) })
	if n >= 8 {
		t.Errorf("the work was decided, the rates open: the rounds stopped after %d of 8", n)
	}
	t.Logf("work a third apart at 2%% noise, rates 20%% noisy: the rounds stopped after %d of 8", n)
	// Without work, rates far apart at 2% noise: decided by the rates alone.
	clear := func(n int) []results.Cell {
		return []results.Cell{{Key: "a", Workload: "insert", Status: results.StatusOK, Rounds: roundsOf(rng, n, 1000, 0.02, 0, 0)},
			{Key: "b", Workload: "insert", Status: results.StatusOK, Rounds: roundsOf(rng, n, 2000, 0.02, 0, 0)}}
	}
	noWork := func(n int) []results.Cell {
		cs := clear(n)
		for i := range cs {
			for j := range cs[i].Rounds {
				cs[i].Rounds[j].Cost = nil
			}
		}
		return cs
	}
	if n := stopAt(noWork); n >= 8 {
		t.Errorf("rates twofold apart without work ran all %d rounds", n)
	}
}

// TestProgressSaysWhenTheRunEnds (issue 52): a round's progress line says
// when its group ends from the rounds' own length, and, with groups after
// it, when the run ends: their estimate at this group's pace (paceOf) —
// rounds twice as long as estimated double what a later group like this
// one is said to take.
func TestProgressSaysWhenTheRunEnds(t *testing.T) {
	r := &run{cfg: Config{Plan: &scenario.Experiment{Budget: time.Hour}}, ahead: ahead{later: time.Minute, perRound: 10 * time.Second, total: time.Minute, groups: 1}}
	// Round 3 of 5 begins: 2 rounds took 40 s (20 s each, twice the estimate); 2 cells.
	got := r.roundsLeft(3, 5, 5, 2, 40*time.Second)
	// This group: 3 rounds × 20 s + 2 cells' evidence (3 s each) = 66 s; the later group 60 s × 2.
	want := "this group ends in about 1m6s; the run in about 3m6s"
	if got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
	r.ahead = ahead{}
	if got := r.roundsLeft(3, 5, 5, 2, 40*time.Second); got != "this group ends in about 1m6s" {
		t.Errorf("the last group's progress line %q names the run", got)
	}
	// A group that stops once decided expects the rounds the plan's
	// estimate does (the most less one), and its own estimated evidence:
	// 8 rounds at most, 2 done at 20 s: 5 more and 5 s of evidence.
	seq := stats.NewSequential(8, 0.05)
	r.cfg.Plan.Sequential = &seq
	r.ahead = ahead{evidence: 5 * time.Second}
	if got := r.roundsLeft(3, 8, 8, 2, 40*time.Second); got != "this group ends in about 1m45s" {
		t.Errorf("a sequential group's progress line %q", got)
	}
	// Issue 62: the round that begins is counted, past what was expected
	// (round 6 of 6 planned, expected to stop at 5: one 20 s round and 5 s
	// of evidence left, not the evidence alone), and "at most" is never
	// said below "about" (a budget shorter than the rounds left).
	if got := r.roundsLeft(6, 6, 6, 2, 100*time.Second); got != "this group ends in about 25s" {
		t.Errorf("the last planned round's progress line %q", got)
	}
	r.cfg.Plan.Budget = 30 * time.Second
	if got := r.roundsLeft(3, 6, 12, 2, 40*time.Second); strings.Contains(got, "at most") {
		t.Errorf("a budget shorter than the rounds left: %q", got)
	}
}

// TestPaceOfGroupsLeft (issue 52): groups like those done are expected
// at their pace; groups unlike them at that pace weighed by the share of
// the estimate the groups done are: a first group of a tenth of the run
// that took twice its estimate moves a larger rest by a tenth of that.
func TestPaceOfGroupsLeft(t *testing.T) {
	for _, tc := range []struct {
		took, planned time.Duration
		done          int
		rest          time.Duration
		left          int
		want          float64
	}{
		{20 * time.Second, 10 * time.Second, 1, 90 * time.Second, 9, 2},    // alike: 10 s each
		{20 * time.Second, 10 * time.Second, 1, 90 * time.Second, 2, 1.1},  // unlike: 45 s each
		{180 * time.Second, 90 * time.Second, 1, 10 * time.Second, 1, 1.9}, // unlike, most of the run done
		{5 * time.Second, 10 * time.Second, 2, 10 * time.Second, 2, 0.5},   // alike, faster
	} {
		if got := paceOf(tc.took, tc.planned, tc.done, tc.rest, tc.left); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("paceOf(%s, %s, %d, %s, %d) = %v, want %v", tc.took, tc.planned, tc.done, tc.rest, tc.left, got, tc.want)
		}
	}
}
