package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RatioText writes a ratio as every output of keybench does: two decimals
// below 10, whole from 10, with thousands separators from 1,000, and
// "≥1,000,000×" past a millionfold (an interval's end that says only
// "far": nothing is measured there). One figure, one precision: the
// answer, the console, the page and the exports all write ratios with it.
func RatioText(v float64) string {
	switch {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return "?×"
	case v >= 1e6:
		return "≥1,000,000×"
	case v >= 999.5:
		return thousands(int64(math.Round(v))) + "×"
	case v >= 9.995:
		return fmt.Sprintf("%.0f×", v)
	}
	return fmt.Sprintf("%.2f×", v)
}

// BoundText writes an interval's end as RatioText does, without its sign.
func BoundText(v float64) string { return strings.TrimSuffix(RatioText(v), "×") }

// thousands writes n with a comma between each three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
