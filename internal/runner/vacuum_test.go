package runner

import (
	"math"
	"testing"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
)

// TestVacuumChargedToTheTablesKey: what autovacuum spent on key a's table
// during key b's round leaves b's work and is charged to a's next round;
// what it spent on b's own table stays with b.
func TestVacuumChargedToTheTablesKey(t *testing.T) {
	r := &run{}
	a, b := &cellRun{r: r}, &cellRun{r: r}
	r.owners = map[uint32]*cellRun{100: a, 101: a, 200: b}
	cost := func(all, av, exited float64) *results.RoundCost {
		return &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(all),
			CPUByProcess: results.Of(map[string]float64{metrics.KindBackend: all - av - exited, metrics.KindAutovacuum: av, metrics.KindExited: exited})}
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }

	// b's round: 0.04 ms a transaction on a's table 100 by a living worker,
	// 0.02 on a's TOAST table 101 by one that exited, 0.01 on b's own.
	bc := cost(1.0, 0.05, 0.02)
	b.chargeVacuum(bc, metrics.VacuumCPU{Living: map[uint32]int64{100: 40e6, 200: 10e6}, Exited: map[uint32]int64{101: 20e6}})
	if got := bc.ServerAllCPUMS.Value(); !near(got, 1.0-0.06) {
		t.Errorf("b's round: %.4f ms of CPU a transaction, want %.4f (a's vacuum moved out)", got, 1.0-0.06)
	}
	if k := bc.CPUByProcess.Value(); !near(k[metrics.KindAutovacuum], 0.01) || !near(k[metrics.KindVacuumElsewhere], 0.06) {
		t.Errorf("b's round by kind: %v", k)
	}
	if p, ok := bc.AutovacuumPlaced.Get(); !ok || !near(p, 0.07) {
		t.Errorf("b's round placed %v ms a transaction of autovacuum's CPU on a table, want 0.07", bc.AutovacuumPlaced)
	}
	if a.carried != 60e6 || b.carried != 0 {
		t.Errorf("carried: a %d ns, b %d ns; want 60e6 and 0", a.carried, b.carried)
	}

	// a's next round (2,000 transactions) is charged what its tables took.
	ac := cost(0.5, 0, 0)
	ac.Txns = 2000
	a.chargeVacuum(ac, metrics.VacuumCPU{Why: "not followed in this test"})
	if got := ac.ServerAllCPUMS.Value(); !near(got, 0.5+0.03) {
		t.Errorf("a's round: %.4f ms a transaction, want %.4f", got, 0.5+0.03)
	}
	if k := ac.CPUByProcess.Value(); !near(k[metrics.KindVacuumCarried], 0.03) {
		t.Errorf("a's round by kind: %v", k)
	}
	if a.carried != 0 {
		t.Errorf("a still carries %d ns after its round", a.carried)
	}
	if ac.AutovacuumPlaced.Reason() != "not followed in this test" {
		t.Errorf("a round not followed says %q", ac.AutovacuumPlaced.Reason())
	}
}
