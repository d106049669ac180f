package runner_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/runner/runnertest"

	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
)

// TestFixedRateCells runs two keys at a fixed rate (pgbench -R) in rounds
// on the embedded server: each cell records its schedule (the rate, the
// transactions scheduled in its window, the lag behind them), counts what
// ran and what was skipped of that schedule, its rounds carry their
// p99, results.json records the rate in the plan, and the summary prints
// the fixed-rate table with the costs per second.
func TestFixedRateCells(t *testing.T) {
	const rate = 200
	cfg := runnertest.Config(t, "insert", "bigint,uuidv4", func(p *scenario.Params) {
		p.Rate, p.LatencyLimit, p.Rounds, p.Duration, p.Clients = rate, 500*time.Millisecond, 2, 4*time.Second, []int{4}
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.RateTPS != rate || res.Plan.LatencyLimitMS != 500 {
		t.Errorf("plan records rate %g, limit %g ms", res.Plan.RateTPS, res.Plan.LatencyLimitMS)
	}
	for _, c := range res.Cells {
		if c.Status != results.StatusOK || c.Pace == nil {
			t.Fatalf("%s: %s %s, pace %+v", c.Key, c.Status, c.Error, c.Pace)
		}
		// A Poisson count of ~800 scheduled starts: within 4 standard deviations.
		if want := rate * c.DurationS; float64(c.Pace.Scheduled) < want-4*28 || float64(c.Pace.Scheduled) > want+4*28 {
			t.Errorf("%s: %d transactions scheduled in %.1f s at %d/s", c.Key, c.Pace.Scheduled, c.DurationS, rate)
		}
		// What ran and what was skipped are of what was scheduled; whether
		// this machine kept up with it is a measurement, not the test's.
		// (A transaction scheduled before the window may end in it: ran
		// counts those that ended in it, scheduled those due in it.)
		if c.Txns <= 0 || c.Pace.Skipped.Value() > c.Pace.Scheduled || c.Pace.Late.Value() > c.Txns {
			t.Errorf("%s: ran %d, skipped %v, late %v of %d scheduled", c.Key, c.Txns, c.Pace.Skipped, c.Pace.Late, c.Pace.Scheduled)
		}
		// Counted against a latency limit alone: without one, absent with
		// why (issue 76: it read 0).
		if c.Pace.LatencyLimitMS == 0 && (c.Pace.Late.Reason() == "" || c.Pace.Skipped.Reason() == "") {
			t.Errorf("%s: late %v, skipped %v without a limit", c.Key, c.Pace.Late, c.Pace.Skipped)
		}
		if c.LatencyMS.P99 < c.Pace.LagMS.P50 || c.Pace.LagMS.Max <= 0 {
			t.Errorf("%s: latency %+v, lag %+v", c.Key, c.LatencyMS, c.Pace.LagMS)
		}
		for _, rd := range c.Rounds {
			if rd.P99MS <= 0 {
				t.Errorf("%s round %d: no p99", c.Key, rd.Round)
			}
		}
	}
	var out bytes.Buffer
	report.WriteSummary(&out, res, 200)
	for _, want := range []string{"At a fixed 200 tps", "SERVER CPU", "WAL / S", "LAG P99"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}
