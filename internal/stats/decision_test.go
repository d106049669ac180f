package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestRatioInterval(t *testing.T) {
	a := []float64{100, 101, 102, 103, 104}
	b := []float64{110, 111.1, 112.2, 113.3, 114.4}
	effect, lo, hi, conf := RatioInterval(a, b)
	if math.Abs(effect-1.1) > 0.01 || lo <= 1 || hi < effect || lo > effect || math.Abs(conf-(1-2*4.0/252)) > 1e-9 {
		t.Errorf("effect %.4f [%.4f, %.4f] at %.4f", effect, lo, hi, conf)
	}
	c := Compare(a, b)
	if !c.Significant || c.TooFew || c.N != 5 || c.M != 5 {
		t.Errorf("%+v", c)
	}
}

func TestTooFewSamples(t *testing.T) {
	c := Compare([]float64{1, 2, 3}, []float64{7, 8, 9})
	if c.Significant || !c.TooFew || c.Needed != 4 || MinSamples() != 4 {
		t.Errorf("3 against 3: %+v, min samples %d", c, MinSamples())
	}
	if c := Compare([]float64{1, 2, 3, 4}, []float64{7, 8, 9, 10}); c.TooFew || !c.Significant {
		t.Errorf("4 against 4, separated: %+v", c)
	}
}

func TestHolm(t *testing.T) {
	cs := []*Comparison{{P: 0.01, Interval: Interval{Lo: 1.1, Hi: 1.2, Level: 0.95}}, {P: 0.04, Interval: Interval{Lo: 1.1, Hi: 1.2, Level: 0.95}},
		{P: 0.03, Interval: Interval{Lo: 1.1, Hi: 1.2, Level: 0.95}}}
	Holm(cs)
	want := []float64{0.03, 0.06, 0.06}
	for i, c := range cs {
		if math.Abs(c.PAdjusted-want[i]) > 1e-12 {
			t.Errorf("comparison %d: adjusted %g, want %g", i, c.PAdjusted, want[i])
		}
	}
	if !cs[0].Significant || cs[1].Significant || cs[2].Significant {
		t.Errorf("decisions %v %v %v", cs[0].Significant, cs[1].Significant, cs[2].Significant)
	}
}

// machine simulates a cell's per-second rates on a shared, noisy machine:
// the rate is mean × (1 + drift over the run's time) + AR(1) noise, the
// noise carried from second to second across cells (it is the machine's).
type machine struct {
	rng   *rand.Rand
	phi   float64 // autocorrelation of the noise from one second to the next
	sigma float64 // the noise's stationary standard deviation, relative
	drift float64 // relative change of every rate per second of the run
	noise float64
	t     int
}

func (m *machine) second(mean float64) float64 {
	innov := m.sigma * math.Sqrt(1-m.phi*m.phi)
	m.noise = m.phi*m.noise + innov*m.rng.NormFloat64()
	m.t++
	return mean * (1 + m.drift*float64(m.t) + m.noise)
}

// perSecond is the old decision: a window of secs seconds for a, then one
// for b, the per-second rates compared as if independent.
func perSecond(m *machine, meanA, meanB float64, secs int) bool {
	var a, b []float64
	for i := 0; i < secs; i++ {
		a = append(a, m.second(meanA))
	}
	for i := 0; i < secs; i++ {
		b = append(b, m.second(meanB))
	}
	return MannWhitneyU(a, b) < Alpha
}

// rounds is the new decision: rounds interleaved in an order drawn anew
// for every round (a, b or b, a), each a
// warm-up second (left out) and secs measured seconds, whose mean is one
// sample; decided within the rounds (the run's own decision) and, as two
// runs are, by ranks: [blocked, ranked].
func rounds(m *machine, meanA, meanB float64, n, secs int) [2]bool {
	var a, b []float64
	round := func(mean float64) float64 {
		m.second(mean)
		sum := 0.0
		for i := 0; i < secs; i++ {
			sum += m.second(mean)
		}
		return sum / float64(secs)
	}
	for r := 0; r < n; r++ {
		if m.rng.IntN(2) == 0 { // the runner's order: drawn anew every round
			a = append(a, round(meanA))
			b = append(b, round(meanB))
		} else {
			b = append(b, round(meanB))
			a = append(a, round(meanA))
		}
	}
	l, _ := NewBlocks([][]float64{a, b})
	return [2]bool{l.Compare(0, 1).Significant, Compare(a, b).Significant}
}

// TestRoundsKeepTheFalsePositiveRate is the proof of the method on
// synthetic series (issue 13): two cells with the same true rate, on a
// machine with independent noise, with strongly autocorrelated noise
// (AR(1), φ = 0.9) and with a slow drift. Five interleaved rounds, their
// order drawn anew each round, name a winner in at most about 5% of the
// trials, compared within the rounds (a fixed order a, b would not: a slow
// drift then always favours a, 6.5% here) or by ranks; the per-second
// decision of two 10-second windows names one far more often under
// autocorrelation or drift. And a true 10% difference is found by five
// rounds in most trials.
func TestRoundsKeepTheFalsePositiveRate(t *testing.T) {
	const trials = 5000
	for _, tc := range []struct {
		name              string
		phi, sigma, drift float64
		oldAtLeast        float64 // the per-second decision's false positives, at least
	}{
		{"independent noise", 0, 0.03, 0, 0},
		{"AR(1) noise", 0.9, 0.03, 0, 0.4},
		{"slow drift", 0.5, 0.02, 0.002, 0.5},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		var oldFP int
		var falsePos, found [2]int // blocked, ranked
		count := func(n *[2]int, decisions [2]bool) {
			for i, s := range decisions {
				if s {
					n[i]++
				}
			}
		}
		for i := 0; i < trials; i++ {
			m := &machine{rng: rng, phi: tc.phi, sigma: tc.sigma, drift: tc.drift}
			if perSecond(m, 1000, 1000, 10) {
				oldFP++
			}
			m = &machine{rng: rng, phi: tc.phi, sigma: tc.sigma, drift: tc.drift}
			count(&falsePos, rounds(m, 1000, 1000, 5, 2))
			m = &machine{rng: rng, phi: tc.phi, sigma: tc.sigma, drift: tc.drift}
			count(&found, rounds(m, 1000, 1100, 5, 2))
		}
		oldRate := float64(oldFP) / trials
		for i, how := range []string{"blocked", "ranked"} {
			fp, power := float64(falsePos[i])/trials, float64(found[i])/trials
			t.Logf("%s: false positives: per-second %.1f%%, rounds %s %.1f%%; a true 10%% difference found in %.1f%%",
				tc.name, 100*oldRate, how, 100*fp, 100*power)
			if fp > 0.06 {
				t.Errorf("%s: rounds %s named a false winner in %.1f%% of trials (at most about 5%%)", tc.name, how, 100*fp)
			}
			if power < 0.8 {
				t.Errorf("%s: rounds %s found a true 10%% difference in only %.1f%% of trials", tc.name, how, 100*power)
			}
		}
		if oldRate < tc.oldAtLeast {
			t.Errorf("%s: the per-second decision's false positives %.1f%%, expected at least %.0f%%", tc.name, 100*oldRate, 100*tc.oldAtLeast)
		}
	}
}

func TestSpearman(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	if r := Spearman(x, []float64{10, 20, 30, 40, 50}); math.Abs(r-1) > 1e-12 {
		t.Errorf("rising: %g", r)
	}
	if r := Spearman(x, []float64{5, 4, 3, 2, 1}); math.Abs(r+1) > 1e-12 {
		t.Errorf("falling: %g", r)
	}
	if r := Spearman(x, []float64{3, 1, 5, 2, 4}); math.Abs(r) > 0.5 {
		t.Errorf("scattered: %g", r)
	}
}

func TestMinSamplesFor(t *testing.T) {
	for comparisons, want := range map[int]int{1: 4, 3: 5, 6: 5, 15: 6, 21: 6, 28: 7} {
		if got := MinSamplesFor(comparisons); got != want {
			t.Errorf("MinSamplesFor(%d) = %d, want %d", comparisons, got, want)
		}
	}
}
