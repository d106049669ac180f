package results

import "sort"

// Standby is one streaming standby over a cell, as the primary's
// pg_stat_replication saw it: the WAL sent to it, how far its replay fell
// behind while the window ran, and whether it kept up.
type Standby struct {
	// Name is the standby's application_name.
	Name string `json:"name"`
	// ShippedBytes is the WAL sent to the standby over the cell (its
	// sent_lsn's advance, warm-up included), ShippedBytesPerRow that over
	// every row the clients inserted (0 rows: absent).
	ShippedBytes       int64      `json:"shipped_bytes"`
	ShippedBytesPerRow M[float64] `json:"shipped_bytes_per_row,omitzero"`
	// ReplayLagMS is replay_lag (the time from a WAL record's flush on the
	// primary to its replay on the standby) sampled during the window:
	// its median, 99th percentile and maximum. A sample whose lag
	// PostgreSQL shows as NULL, the standby having replayed everything, is
	// 0. ReplayLagBytes is the same samples' distance from the primary's
	// WAL position to the standby's replay position.
	ReplayLagMS    Spread `json:"replay_lag_ms"`
	ReplayLagBytes Spread `json:"replay_lag_bytes"`
	// WriteLagMS and FlushLagMS are the standby's write and flush lags (the network and its disk).
	WriteLagMS Spread `json:"write_lag_ms"`
	FlushLagMS Spread `json:"flush_lag_ms"`
	// Lag are the samples behind the spreads, every half second of the
	// window (rounds one after another).
	Lag []LagSample `json:"lag"`
	// ReplayBytesPerS is the WAL the standby replayed per second of the
	// window; PrimaryBytesPerS is what the primary wrote in the same time
	// (from the first sample to the last: ReplayedBytes and PrimaryBytes
	// over WindowS).
	ReplayBytesPerS  float64 `json:"replay_bytes_per_s"`
	PrimaryBytesPerS float64 `json:"primary_bytes_per_s"`
	ReplayedBytes    int64   `json:"replayed_bytes"`
	PrimaryBytes     int64   `json:"primary_bytes"`
	WindowS          float64 `json:"window_s"`
	// CatchUpS is how long after the cell the standby took to replay all
	// of the cell's WAL; KeptUp says it was within a second of it.
	CatchUpS M[float64] `json:"catch_up_s,omitzero"`
	KeptUp   bool       `json:"kept_up"`
}

// Spread is a sampled figure's median, 99th percentile and maximum.
type Spread struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// SpreadOf summarises samples (nearest-rank percentiles); empty: zeros.
func SpreadOf(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	at := func(q float64) float64 {
		i := int(q*float64(len(s)) + 0.999999)
		return s[min(max(i-1, 0), len(s)-1)]
	}
	return Spread{P50: at(0.5), P99: at(0.99), Max: s[len(s)-1]}
}

// LagSample is one look at a standby: seconds into the window, its replay,
// write and flush lags (ms) and its replay's distance from the primary's WAL position.
type LagSample struct {
	T           float64 `json:"t"`
	ReplayMS    float64 `json:"replay_ms"`
	WriteMS     float64 `json:"write_ms"`
	FlushMS     float64 `json:"flush_ms"`
	ReplayBytes float64 `json:"replay_bytes"`
}

// Summarize sets the spreads and rates from the samples and byte counts.
func (s *Standby) Summarize() {
	var replay, write, flush, bytes []float64
	for _, l := range s.Lag {
		replay, write, flush, bytes = append(replay, l.ReplayMS), append(write, l.WriteMS), append(flush, l.FlushMS), append(bytes, l.ReplayBytes)
	}
	s.ReplayLagMS, s.WriteLagMS, s.FlushLagMS, s.ReplayLagBytes = SpreadOf(replay), SpreadOf(write), SpreadOf(flush), SpreadOf(bytes)
	if s.WindowS > 0 {
		s.ReplayBytesPerS, s.PrimaryBytesPerS = float64(s.ReplayedBytes)/s.WindowS, float64(s.PrimaryBytes)/s.WindowS
	}
}
