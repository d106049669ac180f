package report

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// TestScaleAgreement: the scales agree when one ratio lies inside every
// scale's interval, drift when two intervals are apart, and say so when a
// scale has no interval.
func TestScaleAgreement(t *testing.T) {
	v := func(e, lo, hi float64) *results.Versus {
		return &results.Versus{Comparison: stats.Comparison{Effect: e, Interval: stats.Interval{Lo: lo, Hi: hi, Level: 0.95}}}
	}
	for _, tc := range []struct {
		vs   []*results.Versus
		want string
	}{
		{[]*results.Versus{v(0.55, 0.50, 0.61), v(0.58, 0.52, 0.66), v(0.53, 0.45, 0.60)}, "agree (9% apart; all hold 0.52–0.60)"},
		{[]*results.Versus{v(0.80, 0.75, 0.86), v(0.60, 0.55, 0.66), v(0.45, 0.40, 0.50)}, "drift: 0.80 → 0.60 → 0.45 (78% apart)"},
		{[]*results.Versus{v(0.80, 0.75, 0.86), nil, v(0.45, 0.40, 0.50)}, "unknown: a scale has no interval"},
		{[]*results.Versus{v(0.80, 0.75, 0.86), {Comparison: stats.Comparison{TooFew: true}}}, "unknown"},
	} {
		if got := agreement(tc.vs); !strings.HasPrefix(got, tc.want) {
			t.Errorf("agreement = %q, want %q", got, tc.want)
		}
	}
}
