package metrics

import (
	"math"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

// TestMergeReplication: two rounds of one standby add their bytes, their
// lag samples follow each other (the second round's times after the
// first's window), the spreads are over all samples, the catch-up is the
// slower round's, and a round that did not keep up makes the cell not.
func TestMergeReplication(t *testing.T) {
	round := func(shipped int64, lags []float64, catchUp float64) results.Metrics {
		s := results.Standby{Name: "s1", ShippedBytes: shipped, WindowS: 2, ReplayedBytes: 1000, PrimaryBytes: 2000,
			CatchUpS: results.Of(catchUp), KeptUp: catchUp <= 1}
		for i, l := range lags {
			s.Lag = append(s.Lag, results.LagSample{T: float64(i) * 0.5, ReplayMS: l, ReplayBytes: l * 10})
		}
		return results.Metrics{Replication: results.Of([]results.Standby{s})}
	}
	m := mergeReplication([]results.Metrics{round(4000, []float64{1, 2, 3}, 0.2), round(6000, []float64{10, 20, 30, 40}, 3)}, totals{rows: 100}, nil)
	ss, ok := m.Get()
	if !ok || len(ss) != 1 {
		t.Fatalf("%+v", m)
	}
	s := ss[0]
	if s.ShippedBytes != 10000 || mustGet(t, s.ShippedBytesPerRow) != 100 || len(s.Lag) != 7 || s.Lag[3].T != 2 || s.Lag[6].T != 3.5 {
		t.Errorf("merged %+v", s)
	}
	if s.ReplayLagMS.Value() != (results.Spread{P50: 10, P99: 40, Max: 40}) || s.ReplayLagBytes.Value().Max != 400 {
		t.Errorf("spreads %+v %+v", s.ReplayLagMS, s.ReplayLagBytes)
	}
	if mustGet(t, s.CatchUpS) != 3 || s.KeptUp || math.Abs(mustGet(t, s.ReplayBytesPerS)-500) > 1e-9 || math.Abs(mustGet(t, s.PrimaryBytesPerS)-1000) > 1e-9 {
		t.Errorf("catch-up %+v kept up %v, rates %+v %+v", s.CatchUpS, s.KeptUp, s.ReplayBytesPerS, s.PrimaryBytesPerS)
	}
	none := results.Metrics{Replication: results.Unavailable[[]results.Standby]("no standby")}
	if m := mergeReplication([]results.Metrics{round(1, []float64{1}, 0), none}, totals{rows: 1}, nil); m.Reason() != "no standby" {
		t.Errorf("a round without the standby: %+v", m)
	}
}

func mustGet(t *testing.T, m results.M[float64]) float64 {
	t.Helper()
	v, ok := m.Get()
	if !ok {
		t.Fatalf("unavailable: %s", m.Reason())
	}
	return v
}

func TestSpreadOf(t *testing.T) {
	v := make([]float64, 200)
	for i := range v {
		v[i] = float64(200 - i) // 200 … 1
	}
	if s := results.SpreadOf(v); s.Value() != (results.Spread{P50: 100, P99: 198, Max: 200}) {
		t.Errorf("%+v", s)
	}
	// Issue 24: no sample was printed as "0 ms / 0 ms / 0 ms".
	if s := results.SpreadOf(nil); s.Reason() == "" {
		t.Errorf("empty: %+v", s)
	}
	one := results.Standby{Lag: []results.LagSample{{T: 1, ReplayMS: 5}}, WindowS: 0}
	one.Summarize()
	if _, ok := one.ReplayBytesPerS.Get(); ok {
		t.Errorf("one sample gave a replay rate: %+v", one.ReplayBytesPerS)
	}
}
