// Package stats decides whether keybench may name a winner.
//
// Its stance, after benchstat: a difference is reported only when a test
// over independent samples rejects "no difference" at α=0.05 after Holm's
// correction for the comparisons made together, and the interval of the
// effect (a ratio b/a) excludes no change; otherwise it is "~", however
// large it looks. A difference shown whose interval lies inside the
// equivalence margin (DefaultMargin, ±5%) is "the same in practice" ("="):
// no reason to choose (Practical). A blocked comparison's interval is at the level its
// adjusted p-value is decided at (95% before the correction), so it
// excludes no change exactly when the comparison is significant. With too few samples for any p-value below α, there is
// no verdict, and the comparison says how many are needed.
//
// Samples must be independent: one figure per round (a share of the window
// interleaved with the other keys') or per repeated run. Per-second figures
// of one window are not (a slow second follows a slow second, and a window
// never sees the drift between cells run minutes apart): they draw charts,
// never a p-value.
//
// Two tests, for two designs:
//
//   - Keys that ran in the same blocks (the rounds of one interleaved run,
//     or its repeats) are compared within the blocks (Blocks): the machine's
//     speed at a moment lands on every key of that round alike and cancels
//     in their ratio. The test is Student's t on the mean log ratio (a
//     two-way, additive model in logarithms), each key's noise variance its
//     own, estimated from the residuals of the whole layout, with
//     Satterthwaite's degrees of freedom for that estimate (two keys: the
//     paired t test). It assumes about normal noise, independent from round
//     to round; the tests measure what happens when it is not. The effect
//     is the geometric mean of the per-round ratios. Rounds whose ratios do
//     not vary at all are degenerate: no p-value, no verdict.
//   - Samples that share no blocks (two runs given to compare, or keys
//     that did not run together) are compared on the statistic the figure
//     is shown as, so that the ratio printed is the ratio of the figures a
//     reader sees: a rate, a work or a WAL (each shown as its rounds'
//     geometric mean) by Welch's t over the logarithms (CompareLogMeans;
//     each sample's variance its own, at least MinBlocks samples a side);
//     a latency percentile (shown as its rounds' median) by the Mann-Whitney
//     U test (exact for small samples), its interval Hodges–Lehmann's from
//     the same rank distribution, nothing assumed of the distribution. A
//     drift of the machine during the runs is in the samples and costs
//     power. After Holm's correction each interval is at the level its
//     adjusted p-value is decided at, the rank test's too (RatioIntervalAt).
//
// Centres are medians with distribution-free intervals from order
// statistics; a summary of fewer samples than a 95% interval needs carries
// the lower confidence its samples allow (MedianCI's Level), and below
// MinIntervalConfidence it is printed without one.
//
// What the tests show (stats_test, blocks_test): for every layout of keys ×
// rounds that a preset uses, and for 3 × 3, the rate at which a run with no
// true difference names any false winner is at most 5% (within the
// simulation's error), and the power to find a 15% and a 25% difference.
package stats

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// IntervalText is the comparison's effect interval as printed, with its
// level ("[0.91–1.08, 95%]", "[0.80–1.21, 99.7%]"), or why it has none: an
// interval is never printed with no width unless the per-round ratios did
// not vary at all.
func (c Comparison) IntervalText() string {
	switch {
	case c.Degenerate:
		return "[no interval: the per-round ratios did not vary]"
	case !c.HasInterval():
		if c.DF > 0 {
			return fmt.Sprintf("[no interval: its noise rests on %.1f degrees of freedom]", c.DF)
		}
		return "[no interval]"
	}
	return c.RatioText()
}

// HasInterval says whether the effect has an interval of some width.
func (c Comparison) HasInterval() bool { return c.Level > 0 && c.Lo > 0 && c.Hi > c.Lo }

// ChangeText is the change the effect is in percent, with its interval in
// percent too and its level: "-40% [-45%, -35%, 95%]" (a percentage is
// never printed beside a ratio's interval); an interval spanning a
// hundredfold is said in words (UninformativeText).
func (c Comparison) ChangeText() string {
	s := ChangePercent(c.Effect)
	if c.Uninformative() {
		return s + " [" + c.UninformativeText() + "]"
	}
	if c.HasInterval() {
		s += " " + c.Text(ChangePercent)
	}
	return s
}

// ChangePercent is a ratio as the change it is in percent: "+12%", "-40%".
func ChangePercent(ratio float64) string { return fmt.Sprintf("%+.0f%%", (ratio-1)*100) }

// LevelText is a confidence level as every output prints it: a
// percentage to at most one decimal, rounded down, never up to a level it
// was not computed at ("95%", "99.7%" for 0.99787, "99.9%" for 0.9999996).
func LevelText(c float64) string {
	decimals := 0
	if c < 1 {
		// At most one decimal: 99.9997% reads 99.9%, a level the interval
		// holds at least (a wider one than 99.9%'s), and one a reader reads.
		decimals = min(1, max(0, int(math.Ceil(-math.Log10(1-c)))-2))
	}
	p := math.Pow(10, float64(decimals))
	return strconv.FormatFloat(math.Floor(c*100*p+1e-9)/p, 'f', decimals, 64) + "%"
}

// PText is the comparison's p-value as printed: the adjusted one, or, where
// the correction raised it to 1, the test's own beside it.
func (c Comparison) PText() string {
	switch {
	case c.Degenerate:
		return "no p-value"
	case c.PAdjusted >= 1 && c.P < 1:
		return fmt.Sprintf("p=%.2g before the correction", c.P)
	}
	return fmt.Sprintf("p=%.2g", c.PAdjusted)
}

// Alpha is the significance level.
const Alpha = 0.05

// MedianCI is a sample's median and the confidence interval around it.
type MedianCI struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	// Interval's Level is its coverage: 0.95, or less when N is too small for 95%.
	Interval
}

// MinIntervalConfidence is the least coverage an interval of a median is
// shown with: below it (fewer than MinIntervalSamples samples) the median
// is shown alone, since an interval of one or two samples that covers the
// median with 0% or 50% is noise dressed as a figure.
const MinIntervalConfidence = 0.9

// HasInterval says whether the summary's interval reaches MinIntervalConfidence.
func (s MedianCI) HasInterval() bool { return s.N >= 2 && s.Level >= MinIntervalConfidence }

// MinIntervalSamples is the fewest samples whose median has an interval of
// MinIntervalConfidence or more (5: 93.75%).
func MinIntervalSamples() int {
	for n := 2; ; n++ {
		if Summarize(make([]float64, n)).HasInterval() {
			return n
		}
	}
}

// Summarize returns the median and its distribution-free confidence interval.
func Summarize(values []float64) MedianCI {
	n := len(values)
	if n == 0 {
		return MedianCI{}
	}
	x := append([]float64(nil), values...)
	sort.Float64s(x)
	s := MedianCI{N: n, Median: median(x)}
	// The interval [x(k), x(n-k+1)] covers the median with probability
	// 1 - 2*P(Binomial(n, 1/2) < k); take the largest k that keeps 95%.
	// P(Binomial(n, 1/2) <= k-1) is accumulated term by term in log space:
	// linear in n, and exact where 2^n overflows a float64.
	k, cover := 1, 0.0
	logPMF, cdf := -float64(n)*math.Ln2, 0.0 // P(X = 0), P(X <= -1)
	for kk := 1; kk <= max(n/2, 1); kk++ {
		cdf += math.Exp(logPMF) // now P(X <= kk-1)
		c := 1 - 2*cdf
		if kk > 1 && c < 0.95 {
			break
		}
		k, cover = kk, c
		logPMF += math.Log(float64(n-kk+1)) - math.Log(float64(kk))
	}
	s.Lo, s.Hi, s.Level = x[k-1], x[n-k], cover
	return s
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Comparison is the verdict on two samples.
type Comparison struct {
	// Test is how the two were compared: TestBlocked (within the blocks
	// both ran in: Blocks.Compare) or TestMannWhitney (independent samples: Compare).
	Test string `json:"test,omitempty"`
	// N and M are the sizes of a and b (for TestBlocked, the blocks).
	N int `json:"n"`
	M int `json:"m"`
	// Ratio is median(b)/median(a), beside the estimate every output
	// prints (Effect); named median_ratio so that "ratio" in results.json
	// is only ever the printed one (results.Ratio).
	Ratio float64 `json:"median_ratio"`
	// Effect is the estimate of b/a — for TestBlocked the geometric mean of
	// the per-block ratios (the ratio of the two geometric means), for
	// TestMannWhitney the ratio of the medians (Ratio), its interval the
	// Hodges–Lehmann one (RatioInterval) — with its interval (Interval:
	// 0.95 for TestBlocked, about 0.95 for TestMannWhitney, the adjusted
	// or sequential level where one was set; Level 0 when there is none).
	Effect float64 `json:"effect,omitempty"`
	Interval
	// DF are a TestBlocked comparison's degrees of freedom (Student's t),
	// SE the standard error of its log effect: its intervals at any level
	// are exp(log Effect ± t(DF)·SE).
	DF float64 `json:"df,omitempty"`
	SE float64 `json:"se,omitempty"`
	// P is the test's two-sided p-value (Student's t for TestBlocked, the
	// Mann-Whitney U test's for TestMannWhitney); PAdjusted the same after
	// Holm's correction for the comparisons made with it (equal to P alone).
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	// Significant is PAdjusted < Alpha with an effect interval that excludes 1.
	Significant bool `json:"significant"`
	// TooFew says the samples are too small for any p-value below Alpha
	// after Holm's correction; Needed is the samples per side that could be.
	TooFew bool `json:"too_few,omitempty"`
	Needed int  `json:"needed,omitempty"`
	// Degenerate says the per-block ratios did not vary at all: the noise
	// cannot be estimated from them (too few distinct samples), so there is
	// no p-value and no interval, and no verdict.
	Degenerate bool `json:"degenerate,omitempty"`
	// State is a sequential design's decision on the pair (Sequential):
	// PairDifferent, PairEquivalent (within its MinEffect), PairFutile or
	// PairOpen; Look the rounds it was decided at. Empty in a fixed design.
	State string `json:"state,omitempty"`
	Look  int    `json:"look,omitempty"`
	// Margin is the equivalence margin an equivalent pair's interval lies
	// within (Sequential.MinEffect).
	Margin float64 `json:"margin,omitempty"`
}

// Equivalent says the pair was shown the same within its Margin.
func (c *Comparison) Equivalent() bool { return c.State == PairEquivalent }

// DefaultMargin is the equivalence margin where a plan sets none: a
// difference of 5% or less in rate or work is no reason to choose a key.
const DefaultMargin = 0.05

// Practical makes a difference shown but whose interval lies inside the
// margin (ratios within [1/(1+margin), 1+margin]) the same in practice: a
// pair shown 1.02× [1.01–1.04] apart is no reason to choose one key, so it
// is marked as an equivalence shown within the margin ("="), never "*".
func (c *Comparison) Practical(margin float64) {
	if margin > 0 && c.Significant && c.HasInterval() && c.Lo >= 1/(1+margin) && c.Hi <= 1+margin {
		c.Significant, c.State, c.Margin = false, PairEquivalent, margin
	}
}

// Uninformative says the interval spans a hundredfold or more: bounds
// that say nothing ("[0.00–6,222]"), said in words, never printed as if
// they were an interval.
func (i Interval) Uninformative() bool {
	return i.Level > 0 && i.Hi > 0 && (i.Lo <= 0 || i.Hi/i.Lo >= 100)
}

// Compare tests whether b differs from a (two independent samples).
func Compare(a, b []float64) Comparison {
	c := Comparison{Test: TestMannWhitney, N: len(a), M: len(b), P: 1, PAdjusted: 1}
	if len(a) == 0 || len(b) == 0 {
		c.TooFew, c.Needed = true, MinSamples()
		return c
	}
	sa, sb := Summarize(a), Summarize(b)
	if sa.Median != 0 {
		c.Ratio = sb.Median / sa.Median
	}
	c.P = MannWhitneyU(a, b)
	c.PAdjusted = c.P
	_, c.Lo, c.Hi, c.Level = RatioInterval(a, b)
	// The change as the two medians beside it give it (benchstat's
	// stance): the Hodges–Lehmann estimate, the interval's centre, is no
	// ratio of two figures a reader can see.
	c.Effect = c.Ratio
	if minP(len(a), len(b)) >= Alpha {
		c.TooFew, c.Needed = true, MinSamples()
	}
	c.decide()
	return c
}

func (c *Comparison) decide() {
	c.Significant = !c.TooFew && !c.Degenerate && c.PAdjusted < Alpha && c.Level > 0 && (c.Lo > 1 || c.Hi < 1)
}

// minP is the smallest two-sided p-value samples of n and m can reach (completely separated).
func minP(n, m int) float64 { return math.Min(1, 2*exactUCDF(0, n, m)) }

// MinSamples is the smallest number of samples per side with which a
// difference can be significant: 4 (completely separated samples of 4 and
// 4 give p = 2/70 ≈ 0.029; 3 and 3 give 0.1).
func MinSamples() int { return MinSamplesFor(1) }

// MinSamplesFor is the smallest number of samples per side with which a
// difference can be significant after Holm's correction over comparisons
// tests: the smallest p-value times the comparisons must stay below Alpha
// (six keys, 15 comparisons: 6 samples each).
func MinSamplesFor(comparisons int) int {
	for n := 2; ; n++ {
		if minP(n, n)*float64(max(comparisons, 1)) < Alpha {
			return n
		}
	}
}

// TooFewFor marks the rank comparisons that no outcome could make
// significant under Holm's correction over all of them, with the samples
// they would need (a t test has no such floor: Blocks needs MinBlocks).
// Holm rejects in the order of the p-values, the i-th smallest of m at
// (m−i+1)·p < Alpha, and stops at the first it cannot: a comparison can be
// significant only if, in the best case — its p-value and the others' at
// the smallest their samples allow, the others rejected first in that
// order — the step-down reaches it.
func TooFewFor(cs []*Comparison) {
	floor := func(c *Comparison) float64 {
		if c.Test == TestMannWhitney {
			return minP(c.N, c.M)
		}
		return 0
	}
	m := len(cs)
	for _, c := range cs {
		if c.Test != TestMannWhitney {
			continue
		}
		var others []float64
		for _, o := range cs {
			if o != c {
				others = append(others, floor(o))
			}
		}
		sort.Float64s(others)
		reachable, prev := false, 0.0
		for i := 0; i < m; i++ { // step i+1 of Holm's step-down
			mult := float64(m - i)
			if mult*math.Max(floor(c), prev) < Alpha {
				reachable = true
				break
			}
			if i == len(others) {
				break
			}
			prev = math.Max(others[i], prev)
			if mult*prev >= Alpha {
				break
			}
		}
		if !reachable {
			c.TooFew, c.Needed = true, MinSamplesFor(m)
			c.decide()
		}
	}
}

// Families is how many families of comparisons a verdict tests on the same
// rounds: the keys' rates and their work per transaction.
// Where both are tested in one Holm procedure the family-wise error over
// both is Alpha; where the rates are decided by a sequential design, that
// design runs at Alpha/Families and the costs' Holm at the rest
// (HolmShare): Bonferroni between the families.
const Families = 2

// HolmShare adjusts cs with Holm's method within a family that holds
// 1/families of Alpha: each adjusted p-value is Holm's times families, so
// that it is below Alpha exactly when the comparison passes at the family's
// share.
func HolmShare(cs []*Comparison, families int) {
	Holm(cs)
	for _, c := range cs {
		c.PAdjusted = math.Min(1, c.PAdjusted*float64(families))
		c.atAdjustedLevel()
		c.decide()
	}
}

// Holm adjusts the p-values of the comparisons made together (Holm's
// step-down method: the i-th smallest of m is multiplied by m-i+1, and the
// adjusted values are made non-decreasing), and decides them again.
func Holm(cs []*Comparison) {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return cs[idx[i]].P < cs[idx[j]].P })
	running := 0.0
	for rank, i := range idx {
		adj := math.Min(1, float64(len(cs)-rank)*cs[i].P)
		running = math.Max(running, adj)
		cs[i].PAdjusted = running
		cs[i].atAdjustedLevel()
		cs[i].decide()
	}
}

// atAdjustedLevel sets a blocked comparison's interval at the level its
// adjusted p-value is decided at, 1 − Alpha·P/PAdjusted (95% when nothing
// was adjusted): the interval then excludes no change exactly when the
// comparison is significant, so a "~" never comes with an interval that
// seems to know the direction (a 95% interval of 0.52–0.90 beside a
// comparison Holm's correction found within noise did). A rank test's
// interval stays at its own level: it has no standard error to widen.
func (c *Comparison) atAdjustedLevel() {
	if c.Test != TestBlocked && c.Test != TestWelchLog || !(c.DF > 0) || !(c.SE > 0) || !(c.P > 0) || c.Effect <= 0 {
		return
	}
	level := 0.95
	if c.PAdjusted > c.P {
		level = 1 - Alpha*c.P/c.PAdjusted
	}
	q := tQuantile(1-(1-level)/2, c.DF)
	mean := math.Log(c.Effect)
	// A level near 1 on few degrees of freedom (Holm's step-down lifting a
	// tiny p to a large adjusted one) reaches quantiles in the thousands:
	// beyond a millionfold either way the interval says nothing more, and
	// is written as that (it still holds 1: no direction is known).
	half := math.Min(q*c.SE, maxIntervalLog)
	c.Lo, c.Hi, c.Level = math.Exp(mean-half), math.Exp(mean+half), level
}

// maxIntervalLog bounds an interval's half-width in logarithms: a
// millionfold each way.
var maxIntervalLog = math.Log(1e6)

// RatioInterval is the Hodges–Lehmann estimate of b/a and its distribution-
// free interval: over the logarithms, the median of the n·m differences
// log b_j − log a_i and the order statistics [D(k), D(nm+1−k)] whose
// coverage the Mann-Whitney distribution gives (k the largest with
// P(U < k) <= 2.5%). confidence is 0 when no interval reaches 95% or a
// value is not positive.
func RatioInterval(a, b []float64) (effect, lo, hi, confidence float64) {
	return RatioIntervalAt(a, b, 0.95)
}

// RatioIntervalAt is RatioInterval at a level of its own: the narrowest
// order statistics whose coverage reaches level (a Holm-adjusted
// comparison's, so that its interval excludes no change exactly when it
// is significant).
func RatioIntervalAt(a, b []float64, level float64) (effect, lo, hi, confidence float64) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return 0, 0, 0, 0
	}
	d := make([]float64, 0, n*m)
	for _, x := range a {
		for _, y := range b {
			if x <= 0 || y <= 0 {
				return 0, 0, 0, 0
			}
			d = append(d, math.Log(y)-math.Log(x))
		}
	}
	sort.Float64s(d)
	effect = math.Exp(median(d))
	k, cover := 0, 0.0
	for kk := 1; kk <= len(d)/2; kk++ {
		tail := uCDF(kk-1, n, m) // P(U <= kk-1) = P(U < kk)
		if 1-2*tail < level {
			break
		}
		k, cover = kk, 1-2*tail
	}
	if k == 0 {
		return effect, math.Exp(d[0]), math.Exp(d[len(d)-1]), 0
	}
	return effect, math.Exp(d[k-1]), math.Exp(d[len(d)-k]), cover
}

// uCDF is P(U <= u) under the null: exact for small samples, else normal.
func uCDF(u, n, m int) float64 {
	if n+m <= 40 {
		return exactUCDF(u, n, m)
	}
	mu := float64(n*m) / 2
	sigma := math.Sqrt(float64(n*m) * float64(n+m+1) / 12)
	return 0.5 * math.Erfc(-(float64(u)+0.5-mu)/sigma/math.Sqrt2)
}

// MannWhitneyU returns the two-sided p-value of the Mann-Whitney U test: exact
// (by enumeration of rank sums) for small tie-free samples, else the normal
// approximation with tie and continuity corrections.
func MannWhitneyU(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	// Mid-ranks for ties.
	ranks := make([]float64, len(all))
	tieTerm, ties := 0.0, false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		r := float64(i+j+1) / 2
		for k := i; k < j; k++ {
			ranks[k] = r
		}
		if t := float64(j - i); t > 1 {
			tieTerm += t*t*t - t
			ties = true
		}
		i = j
	}
	r1 := 0.0
	for i, o := range all {
		if o.first {
			r1 += ranks[i]
		}
	}
	u1 := r1 - float64(n1*(n1+1))/2
	u := math.Min(u1, float64(n1*n2)-u1)
	if !ties && n1+n2 <= 30 {
		return math.Min(1, 2*exactUCDF(int(u), n1, n2))
	}
	n := float64(n1 + n2)
	mu := float64(n1*n2) / 2
	sigma := math.Sqrt(float64(n1*n2) / 12 * ((n + 1) - tieTerm/(n*(n-1))))
	if sigma == 0 {
		return 1
	}
	z := max((math.Abs(u1-mu)-0.5)/sigma, 0)
	return math.Erfc(z / math.Sqrt2)
}

// exactUCDF is P(U <= u) for samples of sizes n1 and n2 without ties.
func exactUCDF(u, n1, n2 int) float64 {
	cdf := uDistribution(n1, n2)
	switch {
	case u < 0:
		return 0
	case u >= len(cdf):
		return 1
	}
	return cdf[u]
}

var uDistributions sync.Map // [2]int → []float64

// uDistribution is the cumulative null distribution of U for samples of n1
// and n2 without ties: cdf[s] = P(U <= s). The counts of arrangements
// follow the recursion on the largest element (it belongs to the first
// sample, adding n2 to U, or to the second), computed once per size pair.
func uDistribution(n1, n2 int) []float64 {
	key := [2]int{n1, n2}
	if v, ok := uDistributions.Load(key); ok {
		return v.([]float64)
	}
	// f[j][s] for the current i: arrangements of i and j elements with U = s.
	prev := make([][]float64, n2+1)
	for j := range prev {
		prev[j] = []float64{1} // i = 0: U = 0 only
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		cur[0] = []float64{1}
		for j := 1; j <= n2; j++ {
			f := make([]float64, i*j+1)
			for s, c := range prev[j] { // largest in the first sample: adds j
				f[s+j] += c
			}
			for s, c := range cur[j-1] { // largest in the second sample
				f[s] += c
			}
			cur[j] = f
		}
		prev = cur
	}
	counts := prev[n2]
	total := 0.0
	for _, c := range counts {
		total += c
	}
	cdf := make([]float64, len(counts))
	cum := 0.0
	for s, c := range counts {
		cum += c
		cdf[s] = cum / total
	}
	uDistributions.Store(key, cdf)
	return cdf
}

// Spearman is the rank correlation of y with x (mid-ranks for ties): +1 when
// y rises with x in every step, −1 when it falls, about 0 without a trend.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return 0
	}
	if r := stat.Correlation(ranks(x), ranks(y), nil); !math.IsNaN(r) {
		return r
	}
	return 0 // x or y constant
}

// ranks are the mid-ranks (1-based) of v.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	out := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			out[idx[k]] = float64(i+j+1) / 2
		}
		i = j
	}
	return out
}

// DriftThreshold is the rank correlation of a key's rounds with their order
// from which the verdict says the key drifted (the rates rose or fell from
// round to round rather than scattering): with 5 rounds, |ρ| >= 0.9 leaves
// one pair out of order at most.
const DriftThreshold = 0.9

// GeoMean is the geometric mean of positive values (0 when any is not
// positive, or none is given).
func GeoMean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	logs := 0.0
	for _, x := range v {
		if !(x > 0) {
			return 0
		}
		logs += math.Log(x)
	}
	return math.Exp(logs / float64(len(v)))
}

// RatioOfRatios is how a ratio moved between two settings (two PostgreSQL
// majors): b.Effect over a.Effect, each a TestBlocked comparison of its own
// rounds (independent of the other's), its log standard error the two
// added in quadrature, its degrees of freedom Welch–Satterthwaite's, its
// interval at level, significant where that interval excludes 1 (the
// ratio changed). ok is false where either has no standard error (too
// few rounds, or a ranks test): nothing is said then.
func RatioOfRatios(a, b Comparison, level float64) (c Comparison, ok bool) {
	if !(a.SE > 0 && b.SE > 0 && a.DF > 0 && b.DF > 0 && a.Effect > 0 && b.Effect > 0) {
		return Comparison{}, false
	}
	va, vb := a.SE*a.SE, b.SE*b.SE
	se := math.Sqrt(va + vb)
	df := (va + vb) * (va + vb) / (va*va/a.DF + vb*vb/b.DF)
	log := math.Log(b.Effect / a.Effect)
	half := tQuantile(1-(1-level)/2, df) * se
	c = Comparison{Test: TestBlocked, N: a.N, M: b.N, Ratio: b.Effect / a.Effect, Effect: b.Effect / a.Effect, DF: df, SE: se,
		Interval: Interval{Lo: math.Exp(log - half), Hi: math.Exp(log + half), Level: level}}
	c.P = 2 * (1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(math.Abs(log)/se))
	c.PAdjusted = c.P
	c.Significant = c.Lo > 1 || c.Hi < 1
	return c, true
}
