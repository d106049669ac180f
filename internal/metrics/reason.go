package metrics

import (
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// ReasonText is a count that sets two keys' work apart, as every output
// writes it: "2.5× [2.4–2.6, 95%] the WAL" (its interval where it has one).
func ReasonText(r results.Reason) string {
	words := r.Figure
	if f, ok := RoundFigureNamed(r.Figure); ok {
		words = f.Words
	}
	s := stats.RatioText(r.Ratio.Ratio)
	if r.Has() {
		s += " " + r.RatioText()
	}
	return s + " " + words
}
