package keys

import "sync/atomic"

// monotonic hands out strictly increasing values from many goroutines: each
// call returns max(previous+1, floor). It is the only shared state of the
// time-ordered generators, one compare-and-swap per key.
type monotonic struct{ last atomic.Uint64 }

func (m *monotonic) next(floor uint64) uint64 {
	for {
		prev := m.last.Load()
		v := floor
		if v <= prev {
			v = prev + 1
		}
		if m.last.CompareAndSwap(prev, v) {
			return v
		}
	}
}
