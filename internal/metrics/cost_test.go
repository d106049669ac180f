package metrics

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

// TestAddWorkersLeavesNoPartAtTheCoordinators: a worker whose IO time
// cannot be read leaves the IO part unavailable (not the coordinator's
// alone, as it was) and the server time with it; its CPU and WAL, read,
// are added; a worker whose WAL cannot be read leaves the WAL unavailable
// and the server time standing.
func TestAddWorkersLeavesNoPartAtTheCoordinators(t *testing.T) {
	coordinator := func() *results.RoundCost {
		return &results.RoundCost{Txns: 1000, ServerMS: results.Of(3.0), ServerCPUMS: results.Of(1.0), IOMS: results.Of(2.0),
			WALBytes: results.Of(100.0), WALFPI: results.Of(0.1)}
	}
	worker := func(cpuS, ioMS float64, wal int64) results.Metrics {
		return results.Metrics{CPU: results.Of(results.CPU{ServerS: results.Of(cpuS)}),
			IO:       results.Of(results.IO{ClientsIOMS: results.Of(ioMS), WALIOMS: results.Of(0.0)}),
			WALBytes: results.Of(wal), WALFPI: results.Of[int64](10)}
	}
	c := coordinator()
	noIO := worker(2, 0, 50_000)
	noIO.IO = results.Unavailable[results.IO]("no permission")
	AddWorkers(c, []results.Metrics{worker(1, 500, 100_000), noIO}, []string{"w1", "w2"})
	if why := c.IOMS.Reason(); !strings.Contains(why, "worker w2's IO time") {
		t.Errorf("IO part with a worker unread: %v", c.IOMS)
	}
	if why := c.ServerMS.Reason(); !strings.Contains(why, "worker w2's IO time") {
		t.Errorf("server time with a worker's IO unread: %v", c.ServerMS)
	}
	if v, ok := c.ServerCPUMS.Get(); !ok || v != 1.0+3000.0/1000 {
		t.Errorf("CPU: %v, want the coordinator's 1 ms and the workers' 3 s over 1,000 transactions", c.ServerCPUMS)
	}
	if v, ok := c.WALBytes.Get(); !ok || v != 100+150 {
		t.Errorf("WAL: %v, want 250 B per transaction", c.WALBytes)
	}
	c = coordinator()
	noWAL := worker(1, 500, 0)
	noWAL.WALBytes = results.Unavailable[int64]("pg_stat_wal: no permission")
	AddWorkers(c, []results.Metrics{worker(1, 500, 100_000), noWAL}, []string{"w1", "w2"})
	if !strings.Contains(c.WALBytes.Reason(), "worker w2's WAL") || c.WALFPI.Reason() == "" {
		t.Errorf("WAL with a worker unread: %v, %v", c.WALBytes, c.WALFPI)
	}
	if v, ok := c.ServerMS.Get(); !ok || v != 3.0+(2000.0+1000)/1000 {
		t.Errorf("server time with the workers' CPU and IO read: %v", c.ServerMS)
	}
}
