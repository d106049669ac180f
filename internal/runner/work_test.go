package runner_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/runner/runnertest"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
)

// TestWorkChargesEachKeyItsOwnCheckpoint (issue 48): each round ends with
// its own CHECKPOINT, inside what the round is charged, so that the pages
// a key dirtied are written — and the checkpointer's CPU spent — in its own
// rounds, not in the next key's. uuidv4 scatters its inserts over the key
// index and dirties many pages a round, bigint one leaf; interleaved in a
// random order, a checkpoint at the start of each round (as before) would
// have charged uuidv4's writes to whichever key ran after it. The rounds'
// work names the server processes it counts.
func TestWorkChargesEachKeyItsOwnCheckpoint(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "uuidv4,bigint", func(p *scenario.Params) {
		p.Rounds, p.Duration, p.Rows, p.AllRounds = 6, 6*time.Second, []int64{50_000}, true
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	median := func(c *results.Cell, get func(*results.RoundCost) (float64, bool)) float64 {
		var v []float64
		for _, rd := range c.Rounds {
			if rd.Cost == nil {
				t.Fatalf("%s round %d: no cost", c.Key, rd.Round)
			}
			x, ok := get(rd.Cost)
			if !ok {
				t.Fatalf("%s round %d: %+v", c.Key, rd.Round, rd.Cost)
			}
			v = append(v, x)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	writes := func(c *results.RoundCost) (float64, bool) { return c.ServerWrites.Get() }
	checkpointer := func(c *results.RoundCost) (float64, bool) {
		by, ok := c.CPUByProcess.Get()
		return by[metrics.KindCheckpoint], ok && by[metrics.KindBackend] > 0
	}
	u, b := &res.Cells[0], &res.Cells[1]
	if u.Key != "uuidv4" || b.Key != "bigint" || len(u.Rounds) != 6 || len(b.Rounds) != 6 {
		t.Fatalf("cells %s (%d rounds), %s (%d rounds)", u.Key, len(u.Rounds), b.Key, len(b.Rounds))
	}
	wu, wb := median(u, writes), median(b, writes)
	cu, cb := median(u, checkpointer), median(b, checkpointer)
	t.Logf("blocks written per transaction: uuidv4 %.3f, bigint %.3f; checkpointer ms per transaction: %.4f, %.4f", wu, wb, cu, cb)
	if wu < 2*wb || wb <= 0 {
		t.Errorf("uuidv4's rounds wrote %.3f blocks per transaction, bigint's %.3f: each key's pages are not written in its own rounds", wu, wb)
	}
	if cu <= cb {
		t.Errorf("the checkpointer's CPU per transaction: uuidv4 %.4f ms, bigint %.4f ms: not charged to the key whose pages it wrote", cu, cb)
	}
	for _, c := range []*results.Cell{u, b} {
		for _, rd := range c.Rounds {
			if rd.CheckpointS <= 0 {
				t.Errorf("%s round %d: its own CHECKPOINT was not timed", c.Key, rd.Round)
			}
			if v, ok := rd.Cost.ServerAllCPUMS.Get(); !ok || v <= 0 {
				t.Errorf("%s round %d: the server's CPU %v", c.Key, rd.Round, rd.Cost.ServerAllCPUMS)
			}
		}
	}
	// The work figure carries the writes each key's rounds were charged:
	// uuidv4's part for them above bigint's (the whole figure at 50,000
	// rows is mostly the commits' flushes, the same for both keys, so its
	// total is no test of the charging).
	if g := res.Analysis.Groups; len(g) != 2 || g[0].Cost == nil || g[1].Cost == nil || g[0].Cost.Figure != results.CostFigure ||
		g[0].Cost.Shares.Writes*g[0].Cost.Mean <= g[1].Cost.Shares.Writes*g[1].Cost.Mean {
		t.Errorf("uuidv4's work against bigint's: %+v, %+v", g[0].Cost, g[1].Cost)
	}
}
