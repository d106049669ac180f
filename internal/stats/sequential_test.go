package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBoundariesAgainstTheTables checks the spending functions' nominal
// levels against Jennison and Turnbull's tables (Group Sequential Methods,
// 2000, table 7.6: Lan–DeMets spending, five equally spaced looks,
// two-sided α = 0.05): O'Brien–Fleming-type critical values 4.877, 3.357,
// 2.680, 2.290, 2.031; Pocock-type 2.438, 2.427, 2.410, 2.397, 2.386. A
// single look is the level itself.
func TestBoundariesAgainstTheTables(t *testing.T) {
	for spending, want := range map[string][]float64{
		SpendOBF:    {4.877, 3.357, 2.680, 2.290, 2.031},
		SpendPocock: {2.438, 2.427, 2.410, 2.397, 2.386},
	} {
		b := boundaries(spending, 0.05, 1, 5)
		for i, p := range b {
			if z := zOf(p); math.Abs(z-want[i]) > 0.01 {
				t.Errorf("%s look %d: critical value %.3f, want %.3f", spending, i+1, z, want[i])
			}
		}
	}
	if b := boundaries(SpendPocock, 0.01, 4, 4); len(b) != 1 || math.Abs(b[0]-0.01) > 1e-9 {
		t.Errorf("one look: %v", b)
	}
	// Brownian motion observed at the looks crosses the boundaries with the level's probability.
	rng := rand.New(rand.NewPCG(7, 8))
	b := boundaries(SpendPocock, 0.05, 3, 10)
	crossed := 0
	const paths = 100_000
	for range paths {
		w := 0.0
		for n := 1; n <= 10; n++ {
			w += rng.NormFloat64()
			if n >= 3 && math.Abs(w)/math.Sqrt(float64(n)) >= zOf(b[n-3]) {
				crossed++
				break
			}
		}
	}
	if got := float64(crossed) / paths; math.Abs(got-0.05) > 0.003 {
		t.Errorf("Brownian paths crossed the boundaries in %.4f of cases, want 0.05", got)
	}
}

// seqLayout is a run of k keys in up to maxRounds rounds, one key slower
// by slower: Gaussian noise of sd per key and round, the machine's speed
// moving by drift from round to round.
func seqLayout(rng *rand.Rand, k, rounds int, sd, drift, slower float64) [][]float64 {
	rates := make([][]float64, k)
	speed := make([]float64, rounds)
	for j := range speed {
		speed[j] = drift * rng.NormFloat64()
	}
	for i := range rates {
		e := 0.0
		if i == 0 {
			e = math.Log(1 - slower)
		}
		rates[i] = make([]float64, rounds)
		for j := range rates[i] {
			rates[i][j] = 5000 * math.Exp(e+speed[j]+sd*rng.NormFloat64())
		}
	}
	return rates
}

// runSequential plays a run: rounds until the design stops, and says how
// many it ran, whether it named any winner, and whether it found the slow
// key (the first) slower than every other.
func runSequential(d Sequential, all [][]float64) (rounds int, anyWinner, foundSlow bool) {
	rounds, pairs := d.Stop(all)
	foundSlow = true
	for _, p := range pairs {
		if p.Comparison.State == PairDifferent {
			anyWinner = true
		}
		// Compare(a, b) is b over a: the first key slower means an effect above 1.
		if p.A == 0 && (p.Comparison.State != PairDifferent || p.Comparison.Effect <= 1) {
			foundSlow = false
		}
	}
	return rounds, anyWinner, foundSlow
}

// TestSequentialErrorRates: for every layout a preset's sequential verdict
// uses (SequentialLayouts), with no true difference a false winner in at
// most 5% of runs (within the simulation's error), and the power to find a
// key 15% and 25% slower than every other, with the rounds used, printed
// (noise 6% per key and round, the machine's speed moving by 10% between
// rounds: what war's rounds of 1-2 s show on this project's machine).
func TestSequentialErrorRates(t *testing.T) {
	trials := 1000
	if testing.Short() {
		trials = 300
	}
	mc := 2 * math.Sqrt(Alpha*(1-Alpha)/float64(trials))
	rng := rand.New(rand.NewPCG(26, 1))
	for _, l := range SequentialLayouts {
		d := NewSequential(l.Rounds, 0.05)
		var falses, rounds0 int
		for range trials {
			n, any, _ := runSequential(d, seqLayout(rng, l.Keys, l.Rounds, 0.06, 0.10, 0))
			rounds0 += n
			if any {
				falses++
			}
		}
		power := func(effect float64) (float64, float64) {
			found, rounds := 0, 0
			for range trials / 2 {
				n, _, ok := runSequential(d, seqLayout(rng, l.Keys, l.Rounds, 0.06, 0.10, effect))
				rounds += n
				if ok {
					found++
				}
			}
			return float64(found) / float64(trials/2), float64(rounds) / float64(trials/2)
		}
		p15, r15 := power(0.15)
		p25, r25 := power(0.25)
		fw := float64(falses) / float64(trials)
		t.Logf("%d keys x %2d rounds at most: false winners %.1f%% (rounds used %.1f); a key 15%% slower found in %3.0f%% (%.1f rounds), 25%% slower in %3.0f%% (%.1f rounds)",
			l.Keys, l.Rounds, 100*fw, float64(rounds0)/float64(trials), 100*p15, r15, 100*p25, r25)
		if fw > Alpha+mc {
			t.Errorf("%d keys x %d rounds: false winners in %.2f%% of runs, above 5%%", l.Keys, l.Rounds, 100*fw)
		}
		if l.Rounds >= 5 && p25 < 0.9 {
			t.Errorf("%d keys x %d rounds: a key 25%% slower found in only %.0f%% of runs", l.Keys, l.Rounds, 100*p25)
		}
	}
}

// TestSequentialReplays: what the rounds decided after each look is what a
// replay of the same rates decides (a results file gives the run's
// decisions again), and nothing is decided before MinRounds.
func TestSequentialReplays(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := NewSequential(8, 0.05)
	all := seqLayout(rng, 4, 8, 0.04, 0.1, 0.3)
	look, stopped := d.Stop(all)
	if look >= 8 {
		t.Fatalf("a key 30%% slower with 4%% noise did not stop the rounds early (look %d)", look)
	}
	sub := make([][]float64, len(all))
	for i := range all {
		sub[i] = all[i][:look]
	}
	replayed, done := d.Decide(sub)
	if !done {
		t.Error("the replay of the rounds run is not done")
	}
	for i := range stopped {
		if stopped[i].Comparison != replayed[i].Comparison {
			t.Errorf("pair %d-%d: the run decided %+v, the replay %+v", stopped[i].A, stopped[i].B, stopped[i].Comparison, replayed[i].Comparison)
		}
		if c := stopped[i].Comparison; stopped[i].A == 0 && (c.State != PairDifferent || !c.Significant || c.Look > look) {
			t.Errorf("the slow key against key %d: %+v", stopped[i].B, c)
		}
	}
	for i := range sub {
		sub[i] = all[i][:MinBlocks-1]
	}
	if pairs, done := d.Decide(sub); done || pairs[0].Comparison.State != PairOpen {
		t.Errorf("decided before %d rounds: %+v", MinBlocks, pairs)
	}
}

// TestSequentialEquivalence: keys within a hair of each other, with
// little noise, are found the same within 5%, an interval inside ±5%.
func TestSequentialEquivalence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := NewSequential(10, 0.05)
	look, pairs := d.Stop(seqLayout(rng, 3, 10, 0.005, 0.1, 0))
	for _, p := range pairs {
		c := p.Comparison
		if c.State != PairEquivalent || c.Lo < 1/1.05 || c.Hi > 1.05 || c.Significant {
			t.Errorf("pair %d-%d: %+v", p.A, p.B, c)
		}
	}
	if look > 5 {
		t.Errorf("equivalence took %d rounds", look)
	}
}

// TestSequentialFiguresAreFinite: at the first looks, with one key far
// noisier than the rest, the degrees of freedom are so few that the
// repeated interval at a strict level leaves what a float holds; such a
// comparison has no interval, never an infinite one (a results file
// cannot hold it).
func TestSequentialFiguresAreFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	d := NewSequential(6, 0.05)
	for trial := range 500 {
		rates := seqLayout(rng, 6, 3, 0.002, 0.1, 0)
		for j := range rates[0] {
			rates[0][j] *= math.Exp(0.8 * rng.NormFloat64())
		}
		pairs, _ := d.Decide(rates)
		for _, p := range pairs {
			c := p.Comparison
			for _, v := range []float64{c.Effect, c.Lo, c.Hi, c.P, c.PAdjusted, c.DF} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("trial %d, pair %d-%d: %+v", trial, p.A, p.B, c)
				}
			}
		}
	}
}

// TestSequentialIntervalBounded: an early look's strict level on three
// degrees of freedom made an interval of 1e35 that results.json could not
// be read back with; beyond a millionfold it says only that, and still
// holds 1.
func TestSequentialIntervalBounded(t *testing.T) {
	c := Comparison{Effect: 1.16, DF: 3, SE: 2.5}
	lo, hi, level := Sequential{}.interval(c, 1e-6)
	if level == 0 || hi > 1.16*1e6*1.0001 || lo < 1.16/1e6/1.0001 || lo > 1 || hi < 1 {
		t.Errorf("interval at 1e-6 on 3 df: [%g, %g] at %g", lo, hi, level)
	}
}

// TestOverrunKeepsTheLevel (issue 61): a design of 8 looks whose layout
// ran on to 12 or 16 rounds (the work's extension) shows its pairs over
// every round, and still finds a pair of an A/A layout different in at
// most Alpha of runs (Monte Carlo margin beside it).
func TestOverrunKeepsTheLevel(t *testing.T) {
	trials := 3000
	if testing.Short() {
		trials = 1000
	}
	mc := 2 * math.Sqrt(Alpha*(1-Alpha)/float64(trials))
	rng := rand.New(rand.NewPCG(7, 1))
	d := NewSequential(8, 0.05)
	for _, keys := range []int{2, 3, 6} {
		for _, rounds := range []int{12, 16} {
			falses := 0
			for range trials {
				pairs, _ := d.Decide(seqLayout(rng, keys, rounds, 0.06, 0.10, 0))
				for _, p := range pairs {
					if p.Comparison.Significant {
						falses++
						break
					}
				}
			}
			fw := float64(falses) / float64(trials)
			t.Logf("%d keys, 8 looks, %d rounds: a pair found different in %.1f%% of A/A runs", keys, rounds, 100*fw)
			if fw > Alpha+mc {
				t.Errorf("%d keys, 8 looks over %d rounds: a pair found different in %.1f%% of A/A runs", keys, rounds, 100*fw)
			}
		}
	}
}

// TestOverrunShowsEveryRound: the estimate of a pair over rounds past the
// design's looks is the geometric mean of every round's ratio — the ratio
// of the keys' rates as the outputs show them.
func TestOverrunShowsEveryRound(t *testing.T) {
	rates := [][]float64{{100, 110, 90, 100, 105, 95, 100, 102, 98, 60, 60, 60}, {200, 220, 180, 200, 210, 190, 200, 204, 196, 200, 200, 200}}
	pairs, _ := NewSequential(8, 0.05).Decide(rates)
	gm := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += math.Log(x)
		}
		return math.Exp(s / float64(len(v)))
	}
	if got, want := pairs[0].Comparison.Effect, gm(rates[1])/gm(rates[0]); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("effect %.4f, the ratio of the rates' geometric means %.4f", got, want)
	}
}

// TestAWeakenedDecisionIsShownOpen: a pair found the same within the
// margin at an early look, whose rounds past the design's then set the
// keys apart, is shown open ("~") over every round, its estimate the ratio
// of the keys' geometric means — not the early look's, beside figures
// whose ratio it is not.
func TestAWeakenedDecisionIsShownOpen(t *testing.T) {
	a := []float64{100, 101, 99, 100, 101, 99, 100, 100}
	b := []float64{100.2, 101.1, 99.1, 100.3, 101, 99.2, 80, 120}
	d := NewSequential(6, 0.05)
	early, _ := d.Decide([][]float64{a[:6], b[:6]})
	if early[0].Comparison.State != PairEquivalent {
		t.Fatalf("the first six rounds: %s, want the same within the margin", early[0].Comparison.State)
	}
	pairs, _ := d.Decide([][]float64{a, b})
	c := pairs[0].Comparison
	gm := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += math.Log(x)
		}
		return math.Exp(s / float64(len(v)))
	}
	if c.State != PairOpen || c.Significant {
		t.Errorf("after the two rounds past the design: %s (significant %v), want open", c.State, c.Significant)
	}
	if want := gm(b) / gm(a); math.Abs(c.Effect/want-1) > 1e-9 {
		t.Errorf("effect %.4f, the ratio of the keys' geometric means %.4f", c.Effect, want)
	}
}
