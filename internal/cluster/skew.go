package cluster

import (
	"math"

	"github.com/keybench/keybench/internal/results"
)

// SkewOf is how unevenly counts lie across their parts: the largest over
// the mean and the coefficient of variation (the population's standard
// deviation over the mean: the parts are all there are, not a sample).
// Parts that took nothing count: an idle shard is part of the skew.
func SkewOf(parts []int64) results.M[results.Skew] {
	if len(parts) == 0 {
		return results.Unavailable[results.Skew]("no parts to compare")
	}
	s := results.Skew{Parts: len(parts)}
	for _, p := range parts {
		s.Total += p
		s.Max = max(s.Max, p)
	}
	if s.Total == 0 {
		return results.Unavailable[results.Skew]("no rows in any part")
	}
	mean := float64(s.Total) / float64(len(parts))
	var ss float64
	for _, p := range parts {
		d := float64(p) - mean
		ss += d * d
	}
	s.MaxOverMean = float64(s.Max) / mean
	s.CV = math.Sqrt(ss/float64(len(parts))) / mean
	return results.Of(s)
}
