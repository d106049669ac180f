package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Tests a Comparison can come from.
const (
	// TestMannWhitney compares two independent samples by their ranks
	// (Compare): the samples of two runs, or of keys that did not run in
	// the same blocks.
	TestMannWhitney = "mann-whitney-u"
	// TestBlocked compares two keys within the blocks they ran in together
	// (Blocks.Compare): the rounds of one interleaved run, or its repeats.
	TestBlocked = "blocked-t"
	// TestWelchLog is Welch's t over the logarithms of two independent
	// samples (CompareLogMeans): their geometric means compared.
	TestWelchLog = "welch-t-log"
)

// MinBlocks is the fewest blocks (rounds or repeats every key of a shape
// ran in) with which Blocks compares: with two, the noise of a key's rates
// from block to block rests on too few figures to trust its normality.
const MinBlocks = 3

// Blocks is a randomized complete block layout: k keys, each measured once
// in each of b blocks (a round of an interleaved run: every key's round r
// ran within seconds of the others'). Its model is the textbook two-way
// one, additive in logarithms:
//
//	log rate[key][block] = key effect + block effect + the key's noise
//
// The block effect is the machine's speed at that moment — another
// tenant's burst, a drift over the run — and lands on every key of the
// block alike, so it cancels in the ratio of two keys' rates in the same
// block. What remains is the two keys' noise. Each key's noise variance is
// estimated from the residuals of the whole layout (a key's deviations
// from its mean and the round's), so that six keys in ten rounds tell a 20%
// difference apart on a machine whose speed moves by 30% during the run,
// where a rank test over the rounds as independent samples cannot (the
// drift is in its samples). Keys need not be equally noisy (a slow key's
// rounds often scatter more): with a variance per key, a noisy key does not
// make its comparisons look surer than they are, as one variance pooled
// over the layout would.
//
// The assumptions are the price: the noise is about normal and independent
// from block to block. The test is Student's t on the mean per-block log
// ratio; with two keys it is the paired t test (b−1 degrees of freedom,
// exact under those assumptions); with more, the two keys' variances are
// estimated from the whole layout and the degrees of freedom are
// Satterthwaite's for that estimate (degreesOfFreedom). The tests measure
// the false-winner rate for every layout a preset uses, with normal noise,
// heavy-tailed noise, unequal noise and a drifting machine.
type Blocks struct {
	logs [][]float64 // logs[key][block]
	// variance is each key's noise variance (three keys or more; with two,
	// Compare uses the variance of their differences directly), floored
	// those raised to the layout's floor.
	variance []float64
	floored  []bool
}

// NewBlocks lays out rates[key][block]. It returns false when the layout
// cannot be compared: fewer than two keys or MinBlocks blocks, keys with
// different block counts, or a rate that is not positive.
func NewBlocks(rates [][]float64) (*Blocks, bool) {
	k := len(rates)
	if k < 2 {
		return nil, false
	}
	b := len(rates[0])
	if b < MinBlocks {
		return nil, false
	}
	l := &Blocks{logs: make([][]float64, k)}
	rowMean := make([]float64, k)
	colMean := make([]float64, b)
	grand := 0.0
	for i, row := range rates {
		if len(row) != b {
			return nil, false
		}
		l.logs[i] = make([]float64, b)
		for j, v := range row {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, false
			}
			y := math.Log(v)
			l.logs[i][j] = y
			rowMean[i] += y / float64(b)
			colMean[j] += y / float64(k)
			grand += y / float64(k*b)
		}
	}
	if k == 2 {
		return l, true
	}
	// A key's residuals e[i][j] = y − its mean − the block's mean + the
	// grand mean have, summed in squares over the blocks, the expectation
	// (b−1)·(σᵢ²·(1−2/k) + S/k²) with S the sum of every key's σ²; so with
	// wᵢ = Σⱼ e[i][j]²/(b−1), S = k/(k−1)·Σ wᵢ and σᵢ² = (wᵢ − S/k²)/(1−2/k).
	// An estimate below a tenth of the layout's mean variance (S/k) is
	// raised to it: a key cannot be trusted to be noiseless.
	w := make([]float64, k)
	sumW := 0.0
	for i := range l.logs {
		for j, y := range l.logs[i] {
			e := y - rowMean[i] - colMean[j] + grand
			w[i] += e * e / float64(b-1)
		}
		sumW += w[i]
	}
	total := sumW * float64(k) / float64(k-1)
	l.variance, l.floored = make([]float64, k), make([]bool, k)
	for i := range w {
		v, floor := (w[i]-total/float64(k*k))/(1-2/float64(k)), total/float64(k)/10
		l.variance[i], l.floored[i] = math.Max(v, floor), v < floor
	}
	return l, true
}

// Compare is key b against key a: the effect is the geometric mean over
// the blocks of b's rate over a's in the same block, with its 95% interval
// and the two-sided p-value from Student's t.
func (l *Blocks) Compare(a, b int) Comparison {
	n := len(l.logs[a])
	c := Comparison{Test: TestBlocked, N: n, M: n, P: 1, PAdjusted: 1}
	c.Ratio = ratioOfMedians(l.logs[a], l.logs[b])
	d := make([]float64, n)
	mean := 0.0
	for j := range d {
		d[j] = l.logs[b][j] - l.logs[a][j]
		mean += d[j] / float64(n)
	}
	var variance, df float64 // of one block's difference, and its degrees of freedom
	if l.variance == nil {   // two keys: the paired t test, exact under normal noise
		for _, x := range d {
			variance += (x - mean) * (x - mean) / float64(n-1)
		}
		df = float64(n - 1)
	} else {
		variance = l.variance[a] + l.variance[b]
		df = l.degreesOfFreedom(a, b)
	}
	se := math.Sqrt(variance / float64(n))
	c.Effect, c.DF, c.SE = math.Exp(mean), df, se
	if !(se > 0) || !(df > 0) {
		// The per-round ratios do not vary at all: too few distinct
		// samples to estimate the noise, which is not the same as none.
		c.Degenerate = true
		return c
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := tQuantile(0.975, df)
	c.Lo, c.Hi, c.Level = math.Exp(mean-q*se), math.Exp(mean+q*se), 0.95
	c.P = math.Min(1, 2*t.Survival(math.Abs(mean)/se))
	c.PAdjusted = c.P
	c.decide()
	return c
}

// degreesOfFreedom are Satterthwaite's for the estimate of σa² + σb² as
// NewBlocks makes it: a linear combination Σ λᵢ wᵢ of every key's residual
// sum of squares, not of two independent ones. The residuals are the
// double-centred noise e = Cₖ ε C_b (Cₙ = I − J/n), so with D the diagonal
// of the keys' variances and M = Cₖ Λ Cₖ, the estimate V = tr(εᵀ M ε C_b)/(b−1)
// has E[V] = tr(MD) and Var[V] = 2 tr((MD)²)/(b−1) (a Gaussian quadratic
// form with covariance I_b ⊗ D), and ν = 2E[V]²/Var[V] = (b−1)·tr(MD)²/tr((MD)²),
// read with the estimated variances. Giving each key's variance b−1 degrees
// of freedom of its own, as Welch–Satterthwaite over two independent
// estimates would, overstates them: with three keys or more that test
// named false winners in 6–7.5% of layouts where 5% was promised.
func (l *Blocks) degreesOfFreedom(a, b int) float64 {
	k, nb := len(l.logs), len(l.logs[0])
	kf := float64(k)
	c := 1 - 2/kf
	// λ: the coefficient of each key's wᵢ in the estimate of σa² + σb²; a
	// variance raised to the floor is S/(10k) = Σ w /(10(k−1)).
	lam := make([]float64, k)
	for _, x := range []int{a, b} {
		for i := range lam {
			if l.floored[x] {
				lam[i] += 1 / (10 * (kf - 1))
				continue
			}
			lam[i] -= 1 / (kf * (kf - 1) * c)
			if i == x {
				lam[i] += 1 / c
			}
		}
	}
	sum := 0.0
	for _, v := range lam {
		sum += v
	}
	// M = C Λ C: Mᵢⱼ = λᵢδᵢⱼ − (λᵢ + λⱼ)/k + Σλ/k².
	var tr, tr2 float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			m := -(lam[i]+lam[j])/kf + sum/(kf*kf)
			if i == j {
				m += lam[i]
				tr += m * l.variance[i]
			}
			tr2 += m * m * l.variance[i] * l.variance[j]
		}
	}
	if !(tr2 > 0) {
		return 0
	}
	return float64(nb-1) * tr * tr / tr2
}

// ratioOfMedians is the median of exp(b) over the median of exp(a).
func ratioOfMedians(logA, logB []float64) float64 {
	ma, mb := Summarize(expAll(logA)).Median, Summarize(expAll(logB)).Median
	if ma == 0 {
		return 0
	}
	return mb / ma
}

func expAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Exp(x)
	}
	return out
}

// Describe says in words how comparisons made with test were decided and
// what their effect is, for the notes under a table.
func Describe(test string) (how, effect string) {
	if test == TestBlocked {
		return "compared within rounds: Student's t on the per-round log ratios, each key's noise its own",
			"the geometric mean of the per-round ratios"
	}
	return "Mann-Whitney U", "the ratio of the medians, with the Hodges-Lehmann interval"
}

// CompareLogMeans tests whether b differs from a, two independent samples,
// on the statistic every output gives a rate and a work: the geometric
// mean. The effect is the ratio of the two geometric means, its interval
// and p-value Welch's t over the logarithms (each sample's variance its
// own, Welch–Satterthwaite's degrees of freedom): what compare sets two
// runs' rates, work and WAL against each other with, so that its ratio is
// the ratio of the runs' printed figures.
func CompareLogMeans(a, b []float64) Comparison {
	c := Comparison{Test: TestWelchLog, N: len(a), M: len(b), P: 1, PAdjusted: 1}
	if len(a) < MinBlocks || len(b) < MinBlocks {
		// As within blocks: with two a side the noise rests on too few
		// figures to trust its normality.
		c.TooFew, c.Needed = true, MinBlocks
		return c
	}
	la, lb := make([]float64, len(a)), make([]float64, len(b))
	for i, x := range a {
		if !(x > 0) {
			c.Degenerate = true
			return c
		}
		la[i] = math.Log(x)
	}
	for i, x := range b {
		if !(x > 0) {
			c.Degenerate = true
			return c
		}
		lb[i] = math.Log(x)
	}
	ma, va := meanVar(la)
	mb, vb := meanVar(lb)
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	se := math.Sqrt(sa + sb)
	c.Effect = math.Exp(mb - ma)
	c.Ratio = ratioOfMedians(la, lb)
	df := (sa + sb) * (sa + sb) / (sa*sa/float64(len(a)-1) + sb*sb/float64(len(b)-1))
	c.DF, c.SE = df, se
	if !(se > 0) || !(df > 0) {
		c.Degenerate = true
		return c
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := tQuantile(0.975, df)
	c.Lo, c.Hi, c.Level = math.Exp(mb-ma-q*se), math.Exp(mb-ma+q*se), 0.95
	c.P = math.Min(1, 2*t.Survival(math.Abs(mb-ma)/se))
	c.PAdjusted = c.P
	c.decide()
	return c
}

func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v / float64(len(x))
	}
	for _, v := range x {
		variance += (v - mean) * (v - mean) / float64(len(x)-1)
	}
	return mean, variance
}
