package runner

import "testing"

// TestRoundShareAddsUp: -t 2000 in 9 rounds runs 2000 transactions per
// client, not 9 × 222 = 1998.
func TestRoundShareAddsUp(t *testing.T) {
	for _, c := range []struct {
		total  int64
		rounds int
	}{{2000, 9}, {7000, 10}, {700, 3}, {5, 5}, {1, 1}, {13, 4}} {
		var sum int64
		lo, hi := c.total, int64(0)
		for n := 1; n <= c.rounds; n++ {
			s := roundShare(c.total, c.rounds, n)
			sum += s
			lo, hi = min(lo, s), max(hi, s)
		}
		if sum != c.total || hi-lo > 1 {
			t.Errorf("%d in %d rounds: %d in all, shares from %d to %d", c.total, c.rounds, sum, lo, hi)
		}
	}
}
