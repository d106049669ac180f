package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3})
	if s.Median != 3 || s.N != 5 || s.Lo != 1 || s.Hi != 5 || math.Abs(s.Level-0.9375) > 1e-9 {
		t.Errorf("n=5: %+v (too few for 95%%: the full range at 93.75%%)", s)
	}
	var x []float64
	for i := 1; i <= 20; i++ {
		x = append(x, float64(i))
	}
	s = Summarize(x)
	// For n=20 the 95% interval of the median is [x(6), x(15)] (coverage 95.86%).
	if s.Median != 10.5 || s.Lo != 6 || s.Hi != 15 || s.Level < 0.95 {
		t.Errorf("n=20: %+v", s)
	}
	if (Summarize(nil) != MedianCI{}) {
		t.Error("empty sample")
	}
}

func TestMannWhitneyU(t *testing.T) {
	// Fully separated samples of 5 and 5: exact two-sided p = 2/252.
	a, b := []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}
	if p := MannWhitneyU(a, b); math.Abs(p-2.0/252) > 1e-12 {
		t.Errorf("separated 5/5: p = %g, want %g", p, 2.0/252)
	}
	// Three runs each can never reach 5%: the smallest two-sided p is 0.1.
	if p := MannWhitneyU([]float64{1, 2, 3}, []float64{4, 5, 6}); math.Abs(p-0.1) > 1e-12 {
		t.Errorf("separated 3/3: p = %g, want 0.1", p)
	}
	// Interleaved samples are not different.
	if p := MannWhitneyU([]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}); p < 0.5 {
		t.Errorf("interleaved: p = %g", p)
	}
	// Large samples with ties use the normal approximation; a clear shift is significant.
	var x, y []float64
	for i := 0; i < 40; i++ {
		x = append(x, float64(i%10))
		y = append(y, float64(i%10)+5)
	}
	if p := MannWhitneyU(x, y); p > 1e-6 {
		t.Errorf("shifted with ties: p = %g", p)
	}
	if p := MannWhitneyU(x, x); p < 0.9 {
		t.Errorf("identical: p = %g", p)
	}
}

func TestCompare(t *testing.T) {
	c := Compare([]float64{100, 101, 99, 100, 102, 98}, []float64{150, 151, 149, 150, 152, 148})
	if !c.Significant || math.Abs(c.Ratio-1.5) > 1e-9 {
		t.Errorf("%+v", c)
	}
	c = Compare([]float64{100, 120, 80}, []float64{110, 90, 130})
	if c.Significant {
		t.Errorf("noise called significant: %+v", c)
	}
}

// Summaries of long timelines (an 86,400-second cell, millions of chunks)
// once took quadratic time and, past 1023 values, lost the interval to
// float overflow (2^n): the interval must still cover the median at about
// 95%, at the ranks the normal approximation gives.
func TestSummarizeLongSeries(t *testing.T) {
	for _, n := range []int{1000, 86_400, 2_000_000} {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i)
		}
		s := Summarize(x)
		// The interval's lower rank is about n/2 - 1.96 sqrt(n)/2.
		want := float64(n)/2 - 1.96*math.Sqrt(float64(n))/2
		if math.IsNaN(s.Level) || s.Level < 0.95 || s.Level > 0.96 || math.Abs(s.Lo-want) > 2+0.001*float64(n) {
			t.Errorf("n=%d: interval [%g, %g] at %.4f, want about [%.0f, ...] at 0.95", n, s.Lo, s.Hi, s.Level, want)
		}
	}
}

func BenchmarkSummarize86400(b *testing.B) {
	x := make([]float64, 86_400)
	for i := range x {
		x[i] = float64(i % 977)
	}
	for b.Loop() {
		Summarize(x)
	}
}

// TestAdjustedIntervalsAgreeWithTheirDecision (issue 38): after Holm's
// correction a blocked comparison's interval is at the level its adjusted
// p-value is decided at: it excludes no change exactly when the comparison
// is significant (a "~" printed beside 0.52–0.90 told a user the direction
// was known when the test said it was not).
func TestAdjustedIntervalsAgreeWithTheirDecision(t *testing.T) {
	mk := func(p float64) *Comparison {
		// log effect 0.2, its t statistic set by p at 8 degrees of freedom
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 8}.Quantile(1 - p/2)
		c := &Comparison{Test: TestBlocked, N: 9, M: 9, Effect: math.Exp(0.2), DF: 8, SE: 0.2 / tq, P: p, PAdjusted: p}
		c.atAdjustedLevel()
		return c
	}
	for _, ps := range [][]float64{{0.03, 0.04, 0.2}, {0.001, 0.012, 0.02}, {0.049, 0.3, 0.5}} {
		var cs []*Comparison
		for _, p := range ps {
			cs = append(cs, mk(p))
		}
		Holm(cs)
		for _, c := range cs {
			excludes := c.Lo > 1 || c.Hi < 1
			if excludes != c.Significant {
				t.Errorf("p %.3f (adjusted %.3f): significant %v, interval %.3f–%.3f at %.4f", c.P, c.PAdjusted, c.Significant, c.Lo, c.Hi, c.Level)
			}
			if want := 1 - Alpha*c.P/c.PAdjusted; math.Abs(c.Level-want) > 1e-9 {
				t.Errorf("p %.3f: level %.4f, want %.4f", c.P, c.Level, want)
			}
		}
	}
	// A tiny p lifted by the step-down to a large adjusted one, on one
	// degree of freedom: the level's quantile is huge; the interval stays
	// a finite figure (a millionfold at most each way) and holds 1.
	c := &Comparison{Test: TestBlocked, N: 2, M: 2, Effect: 1.5, DF: 1, SE: 0.3, P: 1e-9, PAdjusted: 0.4}
	c.atAdjustedLevel()
	c.decide()
	if c.Significant || c.Lo > 1 || c.Hi < 1 || c.Hi > 1.6e6 || c.Lo < 1.4e-6 || math.IsInf(c.Hi, 0) {
		t.Errorf("an extreme level: %+v", c)
	}
}
