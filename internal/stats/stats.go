// Package stats decides whether keybench may name a winner.
//
// Its stance, after benchstat: a difference is reported only when a
// Mann-Whitney U test over the samples rejects "same distribution" at α=0.05;
// otherwise it is "~", however large it looks. Centres are medians and
// intervals are distribution-free 95% confidence intervals of the median from
// order statistics, so no normality is assumed. With too few samples for a
// 95% interval the interval is the full range and says so.
//
// Samples are per-run figures when a cell was repeated enough (--repeat 5 or
// more); otherwise the per-second figures of the window, which are not
// independent (a slow second tends to follow a slow second), so their
// p-values are optimistic: repeat runs for claims that matter.
package stats

import (
	"math"
	"sort"
)

// Alpha is the significance level.
const Alpha = 0.05

// Summary is a sample's median and the confidence interval around it.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	// Confidence is the interval's coverage: 0.95, or less when N is too small for 95%.
	Confidence float64 `json:"confidence"`
}

// Summarize returns the median and its distribution-free confidence interval.
func Summarize(values []float64) Summary {
	n := len(values)
	if n == 0 {
		return Summary{}
	}
	x := append([]float64(nil), values...)
	sort.Float64s(x)
	s := Summary{N: n, Median: median(x)}
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
	s.Lo, s.Hi, s.Confidence = x[k-1], x[n-k], cover
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
	// Ratio is median(b)/median(a).
	Ratio float64 `json:"ratio"`
	// P is the two-sided Mann-Whitney U p-value.
	P float64 `json:"p"`
	// Significant is P < Alpha.
	Significant bool `json:"significant"`
}

// Compare tests whether b differs from a.
func Compare(a, b []float64) Comparison {
	c := Comparison{P: 1}
	if len(a) == 0 || len(b) == 0 {
		return c
	}
	sa, sb := Summarize(a), Summarize(b)
	if sa.Median != 0 {
		c.Ratio = sb.Median / sa.Median
	}
	c.P = MannWhitneyU(a, b)
	c.Significant = c.P < Alpha
	return c
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
	z := (math.Abs(u1-mu) - 0.5) / sigma
	if z < 0 {
		z = 0
	}
	return math.Erfc(z / math.Sqrt2)
}

// exactUCDF is P(U <= u) for samples of sizes n1 and n2 without ties.
func exactUCDF(u, n1, n2 int) float64 {
	// f[i][j][s]: number of arrangements of i and j elements with U = s, by recursion on the largest element.
	memo := map[[3]int]float64{}
	var count func(i, j, s int) float64
	count = func(i, j, s int) float64 {
		if s < 0 {
			return 0
		}
		if i == 0 || j == 0 {
			if s == 0 {
				return 1
			}
			return 0
		}
		key := [3]int{i, j, s}
		if v, ok := memo[key]; ok {
			return v
		}
		// The largest element belongs to the first sample (adds j to U) or to the second.
		v := count(i-1, j, s-j) + count(i, j-1, s)
		memo[key] = v
		return v
	}
	total, cum := 0.0, 0.0
	for s := 0; s <= n1*n2; s++ {
		c := count(n1, n2, s)
		total += c
		if s <= u {
			cum += c
		}
	}
	return cum / total
}
