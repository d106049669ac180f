// Package txnlog writes a cell's transactions as pgbench's logs do (-l):
// one line per transaction, or, with an aggregate interval, one line per
// interval, in pgbench 15's columns, so that whatever reads pgbench's logs
// (its users' scripts, plotters) reads keybench's.
//
// The transaction log's line is
//
//	client_id transaction_no time script_no time_epoch time_us [schedule_lag]
//
// time the latency in µs from the scheduled start ("skipped" for a
// transaction the latency limit skipped, "failed" for one that failed),
// script_no 0 (a cell runs one workload), time_epoch and time_us when it
// ended, schedule_lag (µs) at a fixed rate only; transaction_no counts each
// client's transactions from 1 across the cell's rounds.
//
// The aggregate log's line has pgbench 15's fifteen columns, every one
// always present:
//
//	interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
//	sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures deadlock_failures
//
// the lag columns 0 without a rate, as pgbench writes them; keybench does
// not retry, so retried and retries are 0, and a failed transaction is
// counted in neither failure column (pgbench counts only those two kinds):
// the cell's error count says how many failed.
package txnlog

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/keybench/keybench/internal/driver"
)

// FileName is the log's path for the run's n-th logged cell: pgbench's
// prefix, then the cell's number, key and workload, as a file name.
func FileName(dir string, n int, key, workload string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				return r
			}
			return '-'
		}, s)
	}
	return filepath.Join(dir, fmt.Sprintf("keybench_log.%02d.%s.%s", n, clean(key), clean(workload)))
}

// Write writes the rounds' records (each round's, client by client) to
// path: one line a transaction, or with interval > 0 one a interval of
// that many seconds; paced says the cell ran at a fixed rate (the
// transaction log's schedule_lag column).
func Write(path string, rounds [][]driver.Record, interval int, paced bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	if interval > 0 {
		for _, recs := range rounds {
			for _, iv := range Aggregate(recs, interval) {
				iv.write(w)
			}
		}
	} else {
		writeTransactions(w, rounds, paced)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeTransactions writes a line per transaction, the clients' lines of
// a round one client after another (as pgbench's one file per thread,
// concatenated), each client's transaction numbers going on across rounds.
func writeTransactions(w io.Writer, rounds [][]driver.Record, paced bool) {
	numbers := map[int32]int64{}
	for _, recs := range rounds {
		for _, r := range recs {
			if !r.Skipped {
				numbers[r.Client]++ // pgbench numbers a skipped one as the next sent
			}
			time := fmt.Sprint(r.LatencyUS)
			switch {
			case r.Skipped:
				time = "skipped"
			case r.Failed:
				time = "failed"
			}
			fmt.Fprintf(w, "%d %d %s 0 %d %d", r.Client, numbers[r.Client]+boolInt(r.Skipped), time, r.EndUS/1_000_000, r.EndUS%1_000_000)
			if paced {
				fmt.Fprintf(w, " %d", r.LagUS)
			}
			fmt.Fprintln(w)
		}
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Interval is one aggregate line: the transactions that ended in the
// interval of Seconds seconds from Start (Unix seconds).
type Interval struct {
	Start, Seconds  int64
	Txns            int64
	Latency, Lag    Moments
	Skipped, Failed int64
}

// Moments are what pgbench aggregates of a figure over an interval: its
// sum, sum of squares, least and most (µs).
type Moments struct {
	Sum, Sum2 float64
	Min, Max  int64
	seen      bool
}

// add counts v.
func (m *Moments) add(v int64) {
	f := float64(v)
	m.Sum, m.Sum2 = m.Sum+f, m.Sum2+f*f
	if !m.seen || v < m.Min {
		m.Min = v
	}
	m.Max = max(m.Max, v)
	m.seen = true
}

// Aggregate folds one round's records into intervals of interval seconds
// aligned on the Unix epoch, as pgbench's are, from the first record's to
// the last's, an interval without a transaction written with zeros; a
// skipped transaction counts only as skipped, a failed one in neither
// the transactions nor the latencies.
func Aggregate(recs []driver.Record, interval int) []Interval {
	if len(recs) == 0 || interval <= 0 {
		return nil
	}
	step := int64(interval)
	lo, hi := recs[0].EndUS, recs[0].EndUS
	for _, r := range recs {
		lo, hi = min(lo, r.EndUS), max(hi, r.EndUS)
	}
	first := lo / 1_000_000 / step * step
	out := make([]Interval, (hi/1_000_000-first)/step+1)
	for i := range out {
		out[i] = Interval{Start: first + int64(i)*step, Seconds: step}
	}
	for _, r := range recs {
		iv := &out[(r.EndUS/1_000_000-first)/step]
		switch {
		case r.Skipped:
			iv.Skipped++
			continue
		case r.Failed:
			iv.Failed++
			continue
		}
		iv.Txns++
		iv.Latency.add(r.LatencyUS)
		iv.Lag.add(r.LagUS)
	}
	return out
}

// write writes the interval as pgbench 15's fifteen columns.
func (iv Interval) write(w io.Writer) {
	fmt.Fprintf(w, "%d %d %.0f %.0f %d %d %.0f %.0f %d %d %d 0 0 0 0\n",
		iv.Start, iv.Txns, iv.Latency.Sum, iv.Latency.Sum2, iv.Latency.Min, iv.Latency.Max, iv.Lag.Sum, iv.Lag.Sum2, iv.Lag.Min, iv.Lag.Max, iv.Skipped)
}
