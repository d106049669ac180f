package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBlocksAgainstReference checks the blocked comparison against the
// same layout computed independently (NumPy and SciPy: residuals of the
// additive model in logarithms, a variance per key, Student's t with
// Satterthwaite's degrees of freedom from the moments of the estimate as a
// Gaussian quadratic form, built as the Kronecker product (C_b ⊗ M) over
// I_b ⊗ D; for two keys SciPy's ttest_rel).
func TestBlocksAgainstReference(t *testing.T) {
	l, ok := NewBlocks([][]float64{{100, 90, 110, 105}, {120, 100, 125, 130}, {101, 93, 108, 104}})
	if !ok {
		t.Fatal("layout refused")
	}
	for _, tc := range []struct {
		b                 int
		effect, lo, hi, p float64
		significant       bool
	}{
		{1, 1.1703143478, 1.0623139621, 1.2892946168, 0.01612125549, true},
		{2, 1.0037122644, 0.8921727358, 1.1291964766, 0.8532072257, false},
	} {
		c := l.Compare(0, tc.b)
		if c.Test != TestBlocked || c.N != 4 || c.M != 4 || c.Level != 0.95 {
			t.Errorf("key %d: %+v", tc.b, c)
		}
		for _, f := range []struct {
			name      string
			got, want float64
		}{{"effect", c.Effect, tc.effect}, {"lo", c.Lo, tc.lo}, {"hi", c.Hi, tc.hi}, {"p", c.P, tc.p}} {
			if math.Abs(f.got-f.want) > 1e-9*math.Max(1, f.want) {
				t.Errorf("key %d: %s %.10g, want %.10g", tc.b, f.name, f.got, f.want)
			}
		}
		if c.Significant != tc.significant {
			t.Errorf("key %d: significant %v", tc.b, c.Significant)
		}
	}
}

func TestBlocksOfTwoKeysArePairedT(t *testing.T) {
	l, ok := NewBlocks([][]float64{{100, 90, 110, 105}, {120, 100, 125, 130}})
	if !ok {
		t.Fatal("layout refused")
	}
	c := l.Compare(0, 1)
	if math.Abs(c.P-0.007897513335934489) > 1e-9 || math.Abs(c.Effect-1.1703143478095377) > 1e-9 || !c.Significant {
		t.Errorf("%+v", c)
	}
	if inv := l.Compare(1, 0); math.Abs(inv.P-c.P) > 1e-12 || math.Abs(inv.Effect*c.Effect-1) > 1e-12 {
		t.Errorf("the other way round: %+v", inv)
	}
}

// Identical rounds (no noise at all) give finite figures: JSON cannot hold a NaN.
func TestBlocksWithoutNoise(t *testing.T) {
	l, ok := NewBlocks([][]float64{{100, 200, 300}, {110, 220, 330}, {100, 200, 300}})
	if !ok {
		t.Fatal("refused")
	}
	for _, c := range []Comparison{l.Compare(0, 1), l.Compare(0, 2)} {
		for _, v := range []float64{c.P, c.Effect, c.Lo, c.Hi} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%+v", c)
			}
		}
	}
	// Issue 24: equal per-round ratios gave p = 0 and a zero-width
	// interval, "certain"; too few distinct samples is no proof.
	if c := l.Compare(0, 1); c.Significant || !c.Degenerate || math.Abs(c.Effect-1.1) > 1e-9 || c.Level != 0 {
		t.Errorf("a 10%% difference in every round, no noise: %+v", c)
	}
	if c := l.Compare(0, 2); c.Significant || c.P != 1 || !c.Degenerate {
		t.Errorf("the same: %+v", c)
	}
	two, _ := NewBlocks([][]float64{{100, 200, 300}, {110, 220, 330}})
	if c := two.Compare(0, 1); c.Significant || !c.Degenerate {
		t.Errorf("two keys, a 10%% difference in every round: %+v", c)
	}
}

func TestBlocksRefusesWhatCannotBeCompared(t *testing.T) {
	for name, rates := range map[string][][]float64{
		"one key":      {{1, 2, 3}},
		"two blocks":   {{1, 2}, {3, 4}},
		"ragged":       {{1, 2, 3}, {1, 2}},
		"not positive": {{1, 2, 3}, {1, 0, 3}},
		"not a number": {{1, 2, 3}, {1, math.NaN(), 3}},
		"infinite":     {{1, 2, 3}, {1, math.Inf(1), 3}},
	} {
		if _, ok := NewBlocks(rates); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}

// trialMachine is a run of k keys in b interleaved rounds on a shared,
// drifting machine: log rate = key's true log rate + the round's machine
// speed (a random walk plus a burst, the same for every key of the round)
// + the key's own noise in that round (Student's t with 3 degrees of
// freedom: heavy tails, a round now and then far off).
func trialMachine(rng *rand.Rand, effects []float64, b int, drift, noise, noisier float64) [][]float64 {
	speed := make([]float64, b)
	walk := 0.0
	for j := range speed {
		walk += drift * rng.NormFloat64()
		speed[j] = walk + drift*rng.NormFloat64()
	}
	out := make([][]float64, len(effects))
	for i, e := range effects {
		sd := noise
		if i == 0 {
			sd *= noisier // the first key is the noisier one
		}
		out[i] = make([]float64, b)
		for j := range out[i] {
			out[i][j] = 5000 * math.Exp(e+speed[j]+sd*studentT3(rng))
		}
	}
	return out
}

// studentT3 is a draw of Student's t with 3 degrees of freedom, scaled to unit variance.
func studentT3(rng *rand.Rand) float64 {
	z := rng.NormFloat64()
	chi := 0.0
	for range 3 {
		g := rng.NormFloat64()
		chi += g * g
	}
	return z / math.Sqrt(chi/3) / math.Sqrt(3)
}

// decideAll compares every two keys of rates and returns the decisions,
// corrected with Holm's method together.
func decideAll(rates [][]float64, blocked bool) map[[2]int]bool {
	var cs []*Comparison
	var pairs [][2]int
	l, _ := NewBlocks(rates)
	for a := range rates {
		for b := a + 1; b < len(rates); b++ {
			var c Comparison
			if blocked {
				c = l.Compare(a, b)
			} else {
				c = Compare(rates[a], rates[b])
			}
			cs, pairs = append(cs, &c), append(pairs, [2]int{a, b})
		}
	}
	Holm(cs)
	TooFewFor(cs)
	out := map[[2]int]bool{}
	for i, c := range cs {
		out[pairs[i]] = c.Significant
	}
	return out
}

// TestBlocksOnADriftingMachine is the case for the blocked test (issue 13):
// six keys in ten rounds (the default run's layout) on a machine whose
// speed wanders by about 12% from round to round, with heavy-tailed noise
// of 8% per key and round. With no true difference — every key equally
// noisy, or one three times as noisy — any false winner among the 15 pairs
// (the family-wise rate) stays at about 5% or less. With one key 25%
// slower than the other five (and the first key twice as noisy), all five
// of its comparisons are found in most trials by the blocked test and in
// few by the rank test, whose samples hold the machine's drift.
func TestBlocksOnADriftingMachine(t *testing.T) {
	const trials = 1000
	rng := rand.New(rand.NewPCG(13, 6))
	rate := func(n int) float64 { return float64(n) / trials }
	anyFound := func(d map[[2]int]bool) bool {
		for _, s := range d {
			if s {
				return true
			}
		}
		return false
	}
	for _, noisier := range []float64{1, 3} {
		var falseBlocked, falseRank int
		for range trials {
			rates := trialMachine(rng, make([]float64, 6), 10, 0.12, 0.08, noisier)
			if anyFound(decideAll(rates, true)) {
				falseBlocked++
			}
			if anyFound(decideAll(rates, false)) {
				falseRank++
			}
		}
		t.Logf("no difference, one key %gx as noisy: a false winner in %.1f%% of trials blocked, %.1f%% ranked", noisier, 100*rate(falseBlocked), 100*rate(falseRank))
		if rate(falseBlocked) > 0.06 {
			t.Errorf("blocked, one key %gx as noisy: a false winner in %.1f%% of trials (at most about 5%%)", noisier, 100*rate(falseBlocked))
		}
	}
	slower := []float64{0, math.Log(0.75), 0, 0, 0, 0}
	allFound := func(d map[[2]int]bool) bool {
		for _, other := range []int{0, 2, 3, 4, 5} {
			if !d[[2]int{min(1, other), max(1, other)}] {
				return false
			}
		}
		return true
	}
	var foundBlocked, foundRank int
	for range trials {
		rates := trialMachine(rng, slower, 10, 0.12, 0.08, 2)
		if allFound(decideAll(rates, true)) {
			foundBlocked++
		}
		if allFound(decideAll(rates, false)) {
			foundRank++
		}
	}
	t.Logf("a key 25%% slower: all five of its comparisons found in %.1f%% of trials blocked, %.1f%% ranked", 100*rate(foundBlocked), 100*rate(foundRank))
	if rate(foundBlocked) < 0.8 {
		t.Errorf("blocked: the slower key's five comparisons all found in only %.1f%% of trials", 100*rate(foundBlocked))
	}
	if rate(foundRank) > 0.5 {
		t.Errorf("ranked: found in %.1f%% of trials: the drift was expected to cost it most of them", 100*rate(foundRank))
	}
}

// familyRates simulates trials layouts of k keys in b rounds, Gaussian
// noise of sd per key and round (in logarithms, the same for every key) on
// a machine whose speed moves by drift from round to round, the first key
// slower by slower (0: no difference), all pairs compared together with
// Holm's correction. It returns how often any pair was called different
// (with no difference: a false winner) and how often the slower key was
// called slower than every other.
func familyRates(rng *rand.Rand, trials, k, b int, sd, drift, slower float64) (anyCalled, allFound float64) {
	var nAny, nAll int
	for range trials {
		effects := make([]float64, k)
		effects[0] = math.Log(1 - slower)
		rates := make([][]float64, k)
		speed := make([]float64, b)
		for j := range speed {
			speed[j] = drift * rng.NormFloat64()
		}
		for i := range rates {
			rates[i] = make([]float64, b)
			for j := range rates[i] {
				rates[i][j] = 5000 * math.Exp(effects[i]+speed[j]+sd*rng.NormFloat64())
			}
		}
		d := decideAll(rates, true)
		found, all := false, true
		for pair, s := range d {
			found = found || s
			if pair[0] == 0 && !s {
				all = false
			}
		}
		if found {
			nAny++
		}
		if all {
			nAll++
		}
	}
	return float64(nAny) / float64(trials), float64(nAll) / float64(trials)
}

// TestFalseWinnersInEveryLayout is issue 24's: with three keys or more the
// blocked test gave each key's variance b−1 degrees of freedom of its own
// and named false winners in 5.7–7.5% of runs of the presets' layouts
// where "at most about 5%" was promised. With Satterthwaite's degrees of
// freedom for the estimate as made, the family-wise rate is at most 5%
// (within the simulation's error) in every layout; the test prints the
// power for a key 15% and 25% slower than the others (noise 8% per round).
func TestFalseWinnersInEveryLayout(t *testing.T) {
	const trials = 4000
	mc := 2 * math.Sqrt(Alpha*(1-Alpha)/trials) // two standard errors of a 5% rate
	rng := rand.New(rand.NewPCG(24, 5))
	for _, l := range FixedLayouts {
		fw, _ := familyRates(rng, trials, l.Keys, l.Rounds, 0.08, 0.12, 0)
		_, p15 := familyRates(rng, trials/4, l.Keys, l.Rounds, 0.08, 0.12, 0.15)
		_, p25 := familyRates(rng, trials/4, l.Keys, l.Rounds, 0.08, 0.12, 0.25)
		t.Logf("%d keys x %2d rounds: false winners %.2f%% (±%.2f%%); a key 15%% slower found against all others in %3.0f%%, 25%% slower in %3.0f%%",
			l.Keys, l.Rounds, 100*fw, 100*mc/2, 100*p15, 100*p25)
		if fw > Alpha+mc {
			t.Errorf("%d keys x %d rounds: false winners in %.2f%% of runs, above 5%%", l.Keys, l.Rounds, 100*fw)
		}
	}
}
