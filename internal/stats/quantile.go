package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// tQuantile is Student's t distribution's quantile at p on df degrees of
// freedom: gonum's, found by Newton's method on the logarithm of its
// survival function in log x, from the normal quantile's Cornish–Fisher
// expansion (Abramowitz and Stegun 26.7.5), to 1e-13 of the quantile
// (1e-9 where the tail's own rounding stops it first). gonum's Quantile inverts the
// incomplete beta function, 25 times the cost of one of its tails; the
// intervals and the sequential designs' looks ask for thousands of
// quantiles of their own degrees of freedom in a run of many keys (and
// the simulations of the false-winner rate for many such runs). Where the
// iteration does not settle (few degrees of freedom far in the tail) it
// is gonum's Quantile itself.
func tQuantile(p, df float64) float64 {
	if x, ok := newtonT(p, df); ok {
		return x
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// newtonT is the iteration of tQuantile, false where it does not settle.
func newtonT(p, df float64) (float64, bool) {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	switch {
	case !(p > 0 && p < 1) || !(df >= 1) || math.IsInf(df, 0):
		return 0, false
	case p < 0.5:
		x, ok := newtonT(1-p, df)
		return -x, ok
	case p == 0.5:
		return 0, true
	}
	// Solve log Survival(x) = log(1−p) in log x: the tail keeps its
	// precision, and where it falls as a power of x (few degrees of
	// freedom, far out) the equation is nearly linear there.
	lq := math.Log(1 - p)
	z := distuv.UnitNormal.Quantile(p)
	z2 := z * z
	x := z * (1 + (z2+1)/(4*df) + (5*z2*z2+16*z2+3)/(96*df*df) + ((3*z2+19)*z2*z2+17*z2-15)/(384*df*df*df))
	if !(x > 0) || math.IsInf(x, 0) {
		x = z
	}
	last := math.Inf(1)
	for range 30 {
		sv := t.Survival(x)
		step := (math.Log(sv) - lq) * sv / (x * t.Prob(x))
		if math.IsNaN(step) || math.IsInf(step, 0) {
			break
		}
		x *= math.Exp(step)
		// Settled: the step is below 1e-13, or below 1e-9 and no longer
		// shrinking (the tail's own rounding reached: near the centre or
		// at thousands of degrees of freedom).
		if a := math.Abs(step); a <= 1e-13 || a <= 1e-9 && a >= last {
			return x, true
		}
		last = math.Abs(step)
	}
	return 0, false
}

// TQuantile is Student's t distribution's quantile at p on df degrees of
// freedom (tQuantile: gonum's value, found faster).
func TQuantile(p, df float64) float64 { return tQuantile(p, df) }

// FQuantile is the F distribution's quantile at p on d1 and d2 degrees of
// freedom.
func FQuantile(p, d1, d2 float64) float64 {
	return distuv.F{D1: d1, D2: d2}.Quantile(p)
}
