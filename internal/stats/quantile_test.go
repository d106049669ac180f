package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestTQuantileIsGonums: the Newton quantile equals gonum's inverse over
// the levels and degrees of freedom the tests and designs use (the 95%
// interval, Holm's stricter levels, a sequential design's early looks),
// integer and Satterthwaite's fractional degrees of freedom alike; far in
// the tail of many degrees of freedom, where gonum's inverse drifts, its
// tail at the quantile is at least as close to 1−p as gonum's.
func TestTQuantileIsGonums(t *testing.T) {
	for _, df := range []float64{1, 1.3, 2, 2.5, 3, 3.7, 4, 5.2, 7, 9.9, 15, 30, 61.4, 200, 5000} {
		for _, p := range []float64{0.01, 0.3, 0.5, 0.6, 0.9, 0.975, 0.99, 0.9995, 1 - 1e-5, 1 - 1e-7, 1 - 1e-9} {
			dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
			want, got := dist.Quantile(p), tQuantile(p, df)
			miss := func(x float64) float64 { return math.Abs(dist.CDF(x) - p) }
			if p > 0.5 {
				miss = func(x float64) float64 { return math.Abs(dist.Survival(x) - (1 - p)) }
			}
			if math.Abs(got-want) > 1e-8*math.Max(1, math.Abs(want)) && miss(got) > miss(want) {
				t.Errorf("t quantile at %g on %g df: %.12g, gonum's %.12g", p, df, got, want)
			}
		}
	}
}

func BenchmarkTQuantile(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		tQuantile(0.9995, 3.7+float64(i%100)/50)
	}
}

func BenchmarkTQuantileGonum(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 3.7 + float64(i%100)/50}.Quantile(0.9995)
	}
}

// TestTQuantileSettles: the early looks' strict levels on few degrees of
// freedom settle by the iteration, not by gonum's fallback (the reason
// the function exists), from a level near the middle to 1 − 1e-12.
func TestTQuantileSettles(t *testing.T) {
	for _, df := range []float64{1, 1.3, 2, 2.5, 3, 4, 7, 30, 5000} {
		for _, p := range []float64{0.55, 0.6, 0.975, 0.9995, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12} {
			if _, ok := newtonT(p, df); !ok {
				t.Errorf("t quantile at %g on %g df: the iteration did not settle", p, df)
			}
		}
	}
}
