package txnlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/driver"
)

// TestTransactionLog: pgbench's lines, a skipped transaction numbered as
// the next one sent (pgbench's example: 82, 83 skipped, 83 skipped, 83),
// a failed one marked, the lag column at a fixed rate only, and each
// client's numbers going on across rounds.
func TestTransactionLog(t *testing.T) {
	rounds := [][]driver.Record{
		{{Client: 0, EndUS: 1412881037_912698, LatencyUS: 4621, LagUS: 3005}, {Client: 0, EndUS: 1412881037_914578, LagUS: 5217, Skipped: true},
			{Client: 0, EndUS: 1412881037_916203, LatencyUS: 4722, LagUS: 3108}, {Client: 1, EndUS: 1412881038_000001, LatencyUS: 900, Failed: true}},
		{{Client: 0, EndUS: 1412881040_000000, LatencyUS: 100, LagUS: 1}},
	}
	var b bytes.Buffer
	writeTransactions(&b, rounds, true)
	want := "0 1 4621 0 1412881037 912698 3005\n0 2 skipped 0 1412881037 914578 5217\n0 2 4722 0 1412881037 916203 3108\n1 1 failed 0 1412881038 1 0\n0 3 100 0 1412881040 0 1\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
	b.Reset()
	writeTransactions(&b, rounds[1:], false)
	if b.String() != "0 1 100 0 1412881040 0\n" {
		t.Errorf("flat out, no lag column: %q", b.String())
	}
}

// TestAggregates: intervals aligned on the epoch, an empty one written
// with zeros, sums, squares, extremes, skipped counted apart and failed
// in neither; fifteen columns each.
func TestAggregates(t *testing.T) {
	recs := []driver.Record{
		{EndUS: 1000_100000, LatencyUS: 10, LagUS: 2}, {EndUS: 1001_900000, LatencyUS: 30, LagUS: 4},
		{EndUS: 1001_950000, LatencyUS: 20}, {EndUS: 1004_000000, Skipped: true}, {EndUS: 1004_500000, Failed: true, LatencyUS: 7},
	}
	ivs := Aggregate(recs, 2)
	if len(ivs) != 3 || ivs[0].Start != 1000 || ivs[1].Start != 1002 || ivs[2].Start != 1004 {
		t.Fatalf("intervals: %+v", ivs)
	}
	if a := ivs[0]; a.Txns != 3 || a.Latency.Sum != 60 || a.Latency.Sum2 != 1400 || a.Latency.Min != 10 || a.Latency.Max != 30 || a.Lag.Sum != 6 || a.Lag.Min != 0 || a.Lag.Max != 4 {
		t.Errorf("first interval: %+v", a)
	}
	if e := ivs[1]; e.Txns != 0 || e.Latency.Min != 0 {
		t.Errorf("an empty interval: %+v", e)
	}
	if l := ivs[2]; l.Txns != 0 || l.Skipped != 1 || l.Failed != 1 {
		t.Errorf("skipped and failed: %+v", l)
	}
	path := filepath.Join(t.TempDir(), "log")
	if err := Write(path, [][]driver.Record{recs}, 2, true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if n := len(strings.Fields(l)); n != 15 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if !strings.HasPrefix(string(b), "1000 3 60 1400 10 30 6 20 0 4 0 0 0 0 0\n") {
		t.Errorf("the first line: %q", string(b))
	}
}
