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
	// its median, 99th percentile and maximum. A sample is a reply of the
	// standby's that the previous sample had not seen (reply_time moved);
	// a lag PostgreSQL shows as NULL counts as 0 only when the standby has
	// replayed everything the primary wrote, and is no sample otherwise (it
	// has not reported). ReplayLagBytes is the same samples' distance from
	// the primary's WAL position to the standby's replay position. Without
	// a sample the spreads are unavailable, with the reason.
	ReplayLagMS    M[Spread] `json:"replay_lag_ms"`
	ReplayLagBytes M[Spread] `json:"replay_lag_bytes"`
	// WriteLagMS and FlushLagMS are the standby's write and flush lags (the network and its disk).
	WriteLagMS M[Spread] `json:"write_lag_ms"`
	FlushLagMS M[Spread] `json:"flush_lag_ms"`
	// Lag are the samples behind the spreads, every half second of the
	// window at most (rounds one after another).
	Lag []LagSample `json:"lag"`
	// ReplayBytesPerS is the WAL the standby replayed per second of the
	// window; PrimaryBytesPerS is what the primary wrote in the same time
	// (from the first sample to the last: ReplayedBytes and PrimaryBytes
	// over WindowS); unavailable with fewer than two samples.
	ReplayBytesPerS  M[float64] `json:"replay_bytes_per_s"`
	PrimaryBytesPerS M[float64] `json:"primary_bytes_per_s"`
	ReplayedBytes    int64      `json:"replayed_bytes"`
	PrimaryBytes     int64      `json:"primary_bytes"`
	WindowS          float64    `json:"window_s"`
	// BehindAtStartBytes is how far the standby's replay was behind the
	// primary when the cell began, when it had not caught up with what
	// came before within the wait's budget (--standby-wait): its lags are
	// then partly the backlog's.
	BehindAtStartBytes int64 `json:"behind_at_start_bytes,omitempty"`
	// CatchUpS is how long after the cell the standby took to replay all
	// of the cell's WAL (unavailable: not within the wait's budget);
	// KeptUp says it was within a second of it.
	CatchUpS M[float64] `json:"catch_up_s,omitzero"`
	KeptUp   bool       `json:"kept_up"`
}

// Spread is a sampled figure's median, 99th percentile and maximum.
type Spread struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// SpreadOf summarises samples (nearest-rank percentiles); without a
// sample it is unavailable: a lag never sampled is not a lag of zero.
func SpreadOf(v []float64) M[Spread] {
	if len(v) == 0 {
		return Unavailable[Spread]("no sample: the standby sent no reply during the window")
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	at := func(q float64) float64 {
		i := int(q*float64(len(s)) + 0.999999)
		return s[min(max(i-1, 0), len(s)-1)]
	}
	return Of(Spread{P50: at(0.5), P99: at(0.99), Max: s[len(s)-1]})
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
	if len(s.Lag) >= 2 && s.WindowS > 0 {
		s.ReplayBytesPerS, s.PrimaryBytesPerS = Of(float64(s.ReplayedBytes)/s.WindowS), Of(float64(s.PrimaryBytes)/s.WindowS)
	} else {
		why := "fewer than two samples of the standby's position in the window"
		s.ReplayBytesPerS, s.PrimaryBytesPerS = Unavailable[float64](why), Unavailable[float64](why)
	}
}
