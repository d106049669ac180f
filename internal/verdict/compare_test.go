package verdict

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

// runOf is a run of one key in rounds: each round's rate, p99 and work
// (the server's CPU per transaction, priced 1:1).
func runOf(rates, p99s, cpu []float64, conf map[string]string) *results.Results {
	c := results.Cell{Key: "bigint", Workload: "insert", Clients: 8, RowsBefore: 1000, Status: results.StatusOK, Txns: 1000, DurationS: 1}
	for i := range rates {
		c.Rounds = append(c.Rounds, results.Round{Round: i + 1, Rate: rates[i], Txns: 1000, LatencyMS: &results.Latency{P50: p99s[i] / 4, P99: p99s[i], P999: p99s[i] * 1.5},
			Cost: &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(cpu[i])}})
	}
	return &results.Results{SchemaVersion: results.SchemaVersion, Status: results.StatusOK, Cells: []results.Cell{c},
		Environment: results.Environment{ServerVersion: "18.6", Settings: conf}}
}

func repeat(v float64, n int, jitter float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v * (1 + jitter*float64(i%3-1))
	}
	return out
}

// TestGateSeesEachMeasure (issue 53): from recorded rounds, the gate finds a
// regression of the rate, of the 99th-percentile latency (at a fixed rate
// the rates are equal: the old gate compared nothing else) and of the work,
// each named; equal runs pass only when the intervals clear the
// threshold; two rounds a side cannot decide, and the gate says so (it does
// not pass); the runs' differing settings are named.
func TestGateSeesEachMeasure(t *testing.T) {
	n := 8
	a := runOf(repeat(1000, n, 0.01), repeat(8, n, 0.02), repeat(0.2, n, 0.01), map[string]string{"synchronous_commit": "on"})
	gate := Gate{"rate": 0.05, "p50": 0.05, "p99": 0.05, "p99.9": 0.05, "work": 0.05}
	for _, c := range []struct {
		name     string
		b        *results.Results
		regress  []string
		undecide bool
	}{
		{"the same", runOf(repeat(1000, n, 0.01), repeat(8, n, 0.02), repeat(0.2, n, 0.01), nil), nil, false},
		{"slower", runOf(repeat(700, n, 0.01), repeat(8, n, 0.02), repeat(0.2, n, 0.01), nil), []string{"rate regressed -30%"}, false},
		{"p99 at a fixed rate", runOf(repeat(1000, n, 0.01), repeat(22, n, 0.02), repeat(0.2, n, 0.01), nil), []string{"p99 regressed +175%", "p99.9 regressed +175%", "p50 regressed +175%"}, false},
		{"more work", runOf(repeat(1000, n, 0.01), repeat(8, n, 0.02), repeat(0.3, n, 0.01), nil), []string{"work regressed +50%"}, false},
		// Issue 62: a faster B passes, its change said as an improvement.
		{"faster", runOf(repeat(1500, n, 0.01), repeat(5, n, 0.02), repeat(0.15, n, 0.01), nil), nil, false},
	} {
		cmp := Compare("a", "b", a, c.b)
		res := gate.Check(cmp.Rows)
		for _, want := range c.regress {
			if !strings.Contains(strings.Join(res.Regressions, "; "), want) {
				t.Errorf("%s: the gate did not name %q: %v (undecided %v)", c.name, want, res.Regressions, res.Undecided)
			}
		}
		if c.regress == nil && (len(res.Regressions) > 0 || len(res.Undecided) > 0) {
			t.Errorf("%s: the gate failed or could not decide: %v; %v", c.name, res.Regressions, res.Undecided)
		}
		if imp := strings.Join(res.Improved, "; "); c.name == "faster" && (!strings.Contains(imp, "rate +50%") || !strings.Contains(imp, "work -25%") || !strings.Contains(imp, "p99 -38%")) {
			t.Errorf("faster: the improvements are not said: %v", res.Improved)
		}
	}
	// Two rounds a side, B 30% slower every round: the old gate passed.
	few := gate.Check(Compare("a", "b", runOf(repeat(1000, 2, 0.01), repeat(8, 2, 0.02), repeat(0.2, 2, 0.01), nil),
		runOf(repeat(700, 2, 0.01), repeat(8, 2, 0.02), repeat(0.2, 2, 0.01), nil)).Rows)
	if len(few.Regressions) > 0 || len(few.Undecided) == 0 || !strings.Contains(strings.Join(few.Undecided, " "), "rounds") {
		t.Errorf("two rounds a side: regressions %v, undecided %v", few.Regressions, few.Undecided)
	}
	diffs := strings.Join(Compare("a", "b", a, runOf(repeat(1000, n, 0.01), repeat(8, n, 0.02), repeat(0.2, n, 0.01), map[string]string{"synchronous_commit": "off"})).Differences, "; ")
	if !strings.Contains(diffs, "setting synchronous_commit: on in A, off in B") {
		t.Errorf("the differing setting is not named: %s", diffs)
	}
}

// TestGateOnWALAndLikeWork (issue 62): --fail-on wal= gates the WAL per
// transaction as its own measure, and the work is gated only between runs
// whose work holds the same parts (one that could not read the server's
// CPU is not compared with one that could).
func TestGateOnWALAndLikeWork(t *testing.T) {
	withWAL := func(wal, cpu float64, noCPU bool) *results.Results {
		r := runOf(repeat(1000, 8, 0.01), repeat(8, 8, 0.02), repeat(cpu, 8, 0.01), nil)
		for i := range r.Cells[0].Rounds {
			c := r.Cells[0].Rounds[i].Cost
			c.WALBytes = results.Of(wal * (1 + 0.01*float64(i%3-1)))
			if noCPU {
				c.ServerAllCPUMS = results.Unavailable[float64]("the server's backends are not processes of this machine")
			}
		}
		return r
	}
	a := withWAL(1000, 0.2, false)
	res := Gate{"wal": 0.05}.Check(Compare("a", "b", a, withWAL(9000, 0.2, false)).Rows)
	if !strings.Contains(strings.Join(res.Regressions, "; "), "wal regressed +800%") {
		t.Errorf("nine times the WAL: %v (undecided %v)", res.Regressions, res.Undecided)
	}
	res = Gate{"work": 0.05}.Check(Compare("a", "b", a, withWAL(1000, 0.2, true)).Rows)
	if len(res.Regressions) > 0 || !strings.Contains(strings.Join(res.Undecided, "; "), "different parts") {
		t.Errorf("a run without the server's CPU against one with it: %v; %v", res.Regressions, res.Undecided)
	}
}
