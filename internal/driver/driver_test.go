package driver

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// sleeper is a client whose transactions take d each and insert one row.
func sleeper(d time.Duration, count *atomic.Int64) Client {
	return Client{Txn: func() (int, error) {
		time.Sleep(d)
		count.Add(1)
		return 1, nil
	}}
}

func TestDurationWindowExcludesWarmup(t *testing.T) {
	var total atomic.Int64
	clients := []Client{sleeper(2*time.Millisecond, &total), sleeper(2*time.Millisecond, &total)}
	r, err := Run(context.Background(), Config{Warmup: 300 * time.Millisecond, Duration: 1200 * time.Millisecond}, clients)
	if err != nil {
		t.Fatal(err)
	}
	if r.WarmupTxns == 0 {
		t.Error("no warm-up transactions counted")
	}
	if r.Txns+r.WarmupTxns > total.Load() || r.TotalRows != total.Load() {
		t.Errorf("txns %d + warm-up %d, rows %d; the clients ran %d", r.Txns, r.WarmupTxns, r.TotalRows, total.Load())
	}
	if r.Elapsed != 1200*time.Millisecond {
		t.Errorf("elapsed %s, want the window's 1.2s", r.Elapsed)
	}
	var sum int64
	for _, s := range r.Timeline {
		sum += s.Txns
	}
	if len(r.Timeline) != 2 || sum != r.Txns || r.Timeline[0].T != 1 || r.Timeline[1].T != 2 {
		t.Errorf("timeline %+v does not add up to %d transactions in seconds 1 and 2", r.Timeline, r.Txns)
	}
	if r.Latency.TotalCount() != r.Txns || r.Latency.ValueAtQuantile(50) < 2000 {
		t.Errorf("latency histogram has %d values, p50 %d µs", r.Latency.TotalCount(), r.Latency.ValueAtQuantile(50))
	}
}

func TestFixedTransactionsPerClient(t *testing.T) {
	var total atomic.Int64
	clients := []Client{sleeper(time.Millisecond, &total), sleeper(time.Millisecond, &total), sleeper(time.Millisecond, &total)}
	r, err := Run(context.Background(), Config{Warmup: 50 * time.Millisecond, Txns: 40}, clients)
	if err != nil {
		t.Fatal(err)
	}
	if r.Txns != 120 || r.Rows != 120 {
		t.Errorf("measured %d txns, %d rows; want 120 (40 per client)", r.Txns, r.Rows)
	}
	if r.Elapsed < 40*time.Millisecond || r.Elapsed > 2*time.Second {
		t.Errorf("elapsed %s for 40 transactions of 1 ms", r.Elapsed)
	}
}

func TestErrorsAreCountedAndSampled(t *testing.T) {
	var n atomic.Int64
	c := Client{Txn: func() (int, error) {
		time.Sleep(time.Millisecond)
		if n.Add(1)%2 == 0 {
			return 0, errors.New("duplicate key")
		}
		return 1, nil
	}}
	r, err := Run(context.Background(), Config{Duration: 300 * time.Millisecond}, []Client{c})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors == 0 || len(r.ErrorSamples) != 1 || r.ErrorSamples[0] != "duplicate key" {
		t.Errorf("errors %d, samples %q", r.Errors, r.ErrorSamples)
	}
}

func TestAllClientsLost(t *testing.T) {
	c := Client{Txn: func() (int, error) { return 0, errors.New("connection reset") }, Broken: func() bool { return true }}
	r, err := Run(context.Background(), Config{Duration: time.Second}, []Client{c, c})
	if err == nil || r.ClientsLost != 2 {
		t.Fatalf("err %v, lost %d", err, r.ClientsLost)
	}
}

func TestCancelStopsTheWindow(t *testing.T) {
	var total atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	r, err := Run(ctx, Config{Duration: time.Minute}, []Client{sleeper(time.Millisecond, &total)})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || time.Since(start) > 5*time.Second {
		t.Errorf("interrupted %v after %s", r.Interrupted, time.Since(start))
	}
}

func TestConfigChecks(t *testing.T) {
	if _, err := Run(context.Background(), Config{Duration: time.Second, Txns: 1}, []Client{{}}); err == nil {
		t.Error("duration and txns together accepted")
	}
	if _, err := Run(context.Background(), Config{Duration: time.Second}, nil); err == nil {
		t.Error("no clients accepted")
	}
}

func TestRolesAreCountedApart(t *testing.T) {
	var in, out atomic.Int64
	p := func() Client { c := sleeper(time.Millisecond, &in); c.Role = "in"; return c }
	c := Client{Role: "out", Txn: func() (int, error) {
		time.Sleep(2 * time.Millisecond)
		out.Add(3)
		return 3, nil
	}}
	r, err := Run(context.Background(), Config{Warmup: 100 * time.Millisecond, Duration: 1100 * time.Millisecond}, []Client{p(), p(), c})
	if err != nil {
		t.Fatal(err)
	}
	ri, ro := r.Roles["in"], r.Roles["out"]
	if ri == nil || ro == nil || ri.Clients != 2 || ro.Clients != 1 {
		t.Fatalf("roles %+v", r.Roles)
	}
	if ri.TotalRows != in.Load() || ro.TotalRows != out.Load() {
		t.Errorf("totals in %d out %d; the clients handled %d and %d", ri.TotalRows, ro.TotalRows, in.Load(), out.Load())
	}
	if ri.Txns+ro.Txns != r.Txns || ri.Rows+ro.Rows != r.Rows || ro.Rows != 3*ro.Txns {
		t.Errorf("role counts %+v %+v do not add up to %d txns, %d rows", ri, ro, r.Txns, r.Rows)
	}
	if ri.Latency.TotalCount() != ri.Txns || ro.Latency.ValueAtQuantile(50) < 2000 {
		t.Errorf("role latencies: in %d values for %d txns, out p50 %d µs", ri.Latency.TotalCount(), ri.Txns, ro.Latency.ValueAtQuantile(50))
	}
	last := r.Timeline[len(r.Timeline)-1]
	var sum int64
	for _, s := range r.Timeline {
		sum += s.Roles["out"].Txns
	}
	if sum != ro.Txns || last.Roles["in"].Total == 0 || last.Roles["in"].Total > ri.TotalRows {
		t.Errorf("timeline roles: out txns %d (want %d), last in total %d of %d", sum, ro.Txns, last.Roles["in"].Total, ri.TotalRows)
	}
}
