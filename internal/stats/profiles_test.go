package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A noise profile is how the rounds of a run scatter, per key and round,
// in logarithms. The ideal one (equal) is what the other simulations
// assume; the measured one is what stored runs of this project's machine
// showed (issue 36): the rounds' noise unequal between keys (3% to 45%
// per round, the noisiest key 15 times the quietest, as in ids; 5% to
// 46% over the stored runs of every preset), a round's noise carrying over
// to the same key's next round (AR(1), φ = 0.1: the lag-1 autocorrelation
// of the rounds' residuals over the stored runs was −0.04, where
// independent rounds of their layouts give −0.13), heavy tails; the heavy one is Student's t with 3 degrees of freedom at an
// equal 8%. Every profile rides on a machine whose speed moves by 12% from
// round to round, the same for every key of a round.
type noiseProfile struct {
	name string
	// sd is key i's noise of k keys; phi the carry-over; heavy draws t(3).
	sd    func(i, k int) float64
	phi   float64
	heavy bool
}

var noiseProfiles = []noiseProfile{
	{name: "equal", sd: func(int, int) float64 { return 0.08 }},
	{name: "measured unequal", sd: func(i, k int) float64 {
		if k == 1 {
			return 0.08
		}
		return 0.03 * math.Pow(15, float64(i)/float64(k-1)) // 3% … 45%
	}, phi: 0.1, heavy: true},
	{name: "heavy-tailed", sd: func(int, int) float64 { return 0.08 }, heavy: true},
}

// profileLayout is a run of k keys in b rounds under profile p, key
// slowKey slower by slower (its rate ×(1−slower)); the keys' noise levels
// are dealt to the keys in an order drawn anew each run, so that the slow
// key is sometimes the noisiest and sometimes the quietest.
func profileLayout(rng *rand.Rand, p noiseProfile, k, b int, slowKey int, slower float64) [][]float64 {
	speed := make([]float64, b)
	for j := range speed {
		speed[j] = 0.12 * rng.NormFloat64()
	}
	order := rng.Perm(k)
	out := make([][]float64, k)
	for i := range out {
		sd := p.sd(order[i], k)
		effect := 0.0
		if i == slowKey {
			effect = math.Log(1 - slower)
		}
		out[i] = make([]float64, b)
		carry := 0.0
		for j := range out[i] {
			e := rng.NormFloat64()
			if p.heavy {
				e = studentT3(rng)
			}
			carry = p.phi*carry + math.Sqrt(1-p.phi*p.phi)*sd*e
			out[i][j] = 5000 * math.Exp(effect+speed[j]+carry)
		}
	}
	return out
}

// fixedFamily decides a layout as a fixed design does: every pair within
// the rounds, Holm's correction over the family.
func fixedFamily(rates [][]float64) []PairDecision {
	l, ok := NewBlocks(rates)
	if !ok {
		return nil
	}
	var cs []*Comparison
	var out []PairDecision
	for a := range rates {
		for b := a + 1; b < len(rates); b++ {
			out = append(out, PairDecision{A: a, B: b, Comparison: l.Compare(a, b)})
		}
	}
	for i := range out {
		cs = append(cs, &out[i].Comparison)
	}
	Holm(cs)
	return out
}

// verdictRates are how often a family named any winner, and how often it
// found the slow key (the first) slower than every other.
func verdictRates(trials int, decide func() []PairDecision) (anyWinner, allFound float64) {
	var nAny, nAll int
	for range trials {
		pairs := decide()
		any, all := false, len(pairs) > 0
		for _, p := range pairs {
			any = any || p.Comparison.Significant
			if p.A == 0 && !(p.Comparison.Significant && p.Comparison.Effect > 1) {
				all = false
			}
		}
		if any {
			nAny++
		}
		if all {
			nAll++
		}
	}
	return float64(nAny) / float64(trials), float64(nAll) / float64(trials)
}

// TestFalseWinnersUnderRealNoise is issue 36's: for every layout a preset
// decides (FixedLayouts with Holm, SequentialLayouts with the rates'
// design at its share of Alpha and the costs' design that may extend the
// rounds), under the equal, the measured unequal and the heavy-tailed
// profile, any false winner in at most 5% of runs (within the
// simulation's error), each printed with its power to find a key 10% and
// 25% slower than every other.
func TestFalseWinnersUnderRealNoise(t *testing.T) {
	trials := 2000
	if testing.Short() {
		trials = 400
	}
	type design struct {
		name   string
		keys   int
		rounds int
		share  float64 // the family's share of Alpha
		decide func(rates [][]float64) []PairDecision
	}
	var designs []design
	for _, l := range FixedLayouts {
		designs = append(designs, design{"fixed, Holm", l.Keys, l.Rounds, Alpha, fixedFamily})
	}
	for _, l := range SequentialLayouts {
		rate := NewRateDesign(l.Rounds, 0.05)
		designs = append(designs, design{"sequential rates (alpha/2)", l.Keys, l.Rounds, rate.Alpha, func(r [][]float64) []PairDecision {
			_, pairs := rate.Stop(r)
			return pairs
		}})
		cost := NewCostDesign(l.Rounds, 0.05, FamilyPairs)
		designs = append(designs, design{"sequential costs (alpha/2, extended)", l.Keys, cost.MaxRounds, cost.Alpha, func(r [][]float64) []PairDecision {
			_, pairs := cost.Stop(r)
			return pairs
		}})
	}
	for pi, p := range noiseProfiles {
		for di, d := range designs {
			rng := rand.New(rand.NewPCG(uint64(36+pi), uint64(di)))
			layout := func(slower float64) func() []PairDecision {
				return func() []PairDecision { return d.decide(profileLayout(rng, p, d.keys, d.rounds, 0, slower)) }
			}
			fw, _ := verdictRates(trials, layout(0))
			_, p10 := verdictRates(trials/4, layout(0.10))
			_, p25 := verdictRates(trials/4, layout(0.25))
			t.Logf("%-16s %-38s %2d keys x %2d rounds: false winners %5.2f%%; a key 10%% slower found against all others in %3.0f%%, 25%% slower in %3.0f%%",
				p.name, d.name, d.keys, d.rounds, 100*fw, 100*p10, 100*p25)
			// A family at its share: the rates' and the costs' together within Alpha.
			if mc := 2 * math.Sqrt(d.share*(1-d.share)/float64(trials)); fw > d.share+mc {
				t.Errorf("%s, %s, %d keys x %d rounds: false winners in %.2f%% of runs, above %.1f%%", p.name, d.name, d.keys, d.rounds, 100*fw, 100*d.share)
			}
		}
	}
}
