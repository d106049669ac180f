package driver

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestFixedRateHoldsItsSchedule: a fixed rate's schedule starts a Poisson
// count of transactions in the window (within four standard deviations of
// rate × window), every transaction that ran has its lag behind the
// schedule recorded, and what ran, was late and was skipped are counts of
// it. Whether this machine kept up with the schedule is a measurement (a
// busy machine falls behind), not this test's: it asserts what was done.
func TestFixedRateHoldsItsSchedule(t *testing.T) {
	var total atomic.Int64
	clients := []Client{sleeper(100*time.Microsecond, &total), sleeper(100*time.Microsecond, &total), sleeper(100*time.Microsecond, &total), sleeper(100*time.Microsecond, &total)}
	const rate, window = 1500.0, 2 * time.Second
	r, err := Run(context.Background(), Config{Warmup: 200 * time.Millisecond, Duration: window, Rate: rate, LatencyLimit: 50 * time.Millisecond}, clients)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pace == nil {
		t.Fatal("a fixed-rate window recorded no pace")
	}
	want := rate * r.Elapsed.Seconds()
	if got := float64(r.Pace.Scheduled); math.Abs(got-want) > 4*math.Sqrt(want) {
		t.Errorf("the schedule started %d transactions at %.0f/s over %s; want %.0f ± %.0f", r.Pace.Scheduled, rate, r.Elapsed, want, 4*math.Sqrt(want))
	}
	if r.Txns <= 0 || r.Pace.Lag.TotalCount() != r.Txns {
		t.Fatalf("%d transactions, %d lags recorded: want the lag of each", r.Txns, r.Pace.Lag.TotalCount())
	}
	if r.Pace.Skipped > r.Pace.Scheduled || r.Pace.Late > r.Txns {
		t.Errorf("%d late and %d skipped of %d transactions, %d scheduled", r.Pace.Late, r.Pace.Skipped, r.Txns, r.Pace.Scheduled)
	}
}

// TestFixedRateBeyondTheServer: a client that takes 4 ms a transaction
// cannot run 500 a second; its latency counts from the schedule (it grows
// as the queue of scheduled starts does), the late ones are counted, and
// with a latency limit the ones already late are skipped, so the client
// keeps up with what it can do.
func TestFixedRateBeyondTheServer(t *testing.T) {
	var total atomic.Int64
	r, err := Run(context.Background(), Config{Duration: time.Second, Rate: 500, LatencyLimit: 10 * time.Millisecond}, []Client{sleeper(4*time.Millisecond, &total)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Txns > 300 {
		t.Errorf("%d transactions of 4 ms in 1 s", r.Txns)
	}
	if r.Pace.Skipped == 0 || r.Pace.Late == 0 {
		t.Errorf("skipped %d, late %d: the schedule ran ahead of the client", r.Pace.Skipped, r.Pace.Late)
	}
	if r.Latency.ValueAtQuantile(99) < 4000 {
		t.Errorf("p99 %d µs: latency must count from the schedule", r.Latency.ValueAtQuantile(99))
	}
	// Without a limit nothing is skipped and the lag grows with the queue.
	r, err = Run(context.Background(), Config{Duration: time.Second, Rate: 500}, []Client{sleeper(4*time.Millisecond, &total)})
	if err != nil {
		t.Fatal(err)
	}
	if float64(r.Txns) > 0.7*float64(r.Pace.Scheduled) {
		t.Errorf("%d transactions of 4 ms ran of the %d scheduled at 500/s: the schedule is not what was asked", r.Txns, r.Pace.Scheduled)
	}
	if r.Pace.Skipped != 0 || r.Pace.Lag.Max() < 100_000 {
		t.Errorf("no limit: skipped %d, max lag %d µs (a second's queue of 2 ms starts for 4 ms transactions)", r.Pace.Skipped, r.Pace.Lag.Max())
	}
}

// TestLatencyHasItsStandardDeviation (issue 62): a latency summary carries
// the average and the standard deviation pgbench prints beside it.
func TestLatencyHasItsStandardDeviation(t *testing.T) {
	h := hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)
	for _, us := range []int64{1000, 2000, 3000, 4000, 5000} {
		_ = h.RecordValue(us)
	}
	l := LatencyMS(h)
	if math.Abs(l.Mean-3) > 0.01 || math.Abs(l.StdDev-math.Sqrt(2)) > 0.01 {
		t.Errorf("mean %.3f ms, stddev %.3f ms; want 3 and %.3f", l.Mean, l.StdDev, math.Sqrt(2))
	}
}

// TestEachRoundDrawsItsOwnSchedule: the same seed draws the same starts
// (every key of a round meets the same bursts), another seed others, so
// that the rounds' counts in a window average to rate × window instead of
// repeating one Poisson draw (the mean over 200 seeds lies within four
// standard errors of it).
func TestEachRoundDrawsItsOwnSchedule(t *testing.T) {
	start := time.Unix(0, 0)
	count := func(seed uint64) int {
		n := 0
		for i := 0; i < 4; i++ { // 4 clients of 800 tps together, a 1 s window
			s := newSchedule(800, 4, i, seed, start)
			for s.advance().Before(start.Add(time.Second)) {
				n++
			}
		}
		return n
	}
	if first, again := count(3), count(3); first != again {
		t.Fatalf("one seed drew two schedules: %d and %d starts", first, again)
	}
	sum, differ := 0, false
	for seed := uint64(0); seed < 200; seed++ {
		c := count(seed)
		sum += c
		differ = differ || c != count(0)
	}
	if !differ {
		t.Fatal("every seed drew the same count")
	}
	if mean := float64(sum) / 200; math.Abs(mean-800) > 4*math.Sqrt(800.0/200) {
		t.Errorf("the rounds' mean count %.1f, want 800 within %.1f", mean, 4*math.Sqrt(800.0/200))
	}
}
