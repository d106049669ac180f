package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// Rates the estimate assumes, measured on this project's 2-core machine
// (the default war run, bulk and prefill logs): they set the scale of the
// estimate, which the run refines from its own rounds as it goes.
const (
	// estFillRowsPerS is the prefill with its index build, VACUUM ANALYZE and checkpoint.
	estFillRowsPerS = 120_000
	// estTxnsPerS is the rate of a window counted in transactions (-t).
	estTxnsPerS = 4_000
	// estRoundOverhead is what a round costs beyond its window: the
	// checkpoint before it, the clients' connections, the metrics' end.
	estRoundOverhead = 1200 * time.Millisecond
	// estEvidence is a cell's evidence (sizes, REINDEX, pgstatindex, WAL inspection).
	estEvidence = 3 * time.Second
	// estServer is the embedded server's start (binaries cached).
	estServer = 3 * time.Second
)

// SteadyAfter is the least warm-up that may end once the rate is steady
// (driver.Config.SteadyAfter): the clients' first transactions (their
// connections' caches, the table's pages read into the cache) are slower
// whatever the rate does.
const SteadyAfter = 100 * time.Millisecond

// RoundWarmup is the warm-up of a cell's rounds after its first: its
// table is filled and was warm a round ago, so half a second settles it.
const RoundWarmup = 500 * time.Millisecond

// Estimate is how long a plan should take, by phase.
type Estimate struct {
	Cells                          int
	Fill, Windows, Evidence, Total time.Duration
}

// Estimate is the plan's expected duration with the rates above.
func (p *Plan) Estimate() Estimate {
	e := Estimate{Cells: len(p.Cells)}
	pp := p.Params
	rounds := max(pp.Rounds, 1)
	for _, c := range p.Cells {
		e.Fill += time.Duration(float64(c.Rows) / estFillRowsPerS * float64(time.Second))
		window := pp.Duration
		if pp.Txns > 0 {
			window = time.Duration(float64(pp.Txns*int64(c.Clients)) / estTxnsPerS * float64(time.Second))
		}
		warm := pp.Warmup + time.Duration(rounds-1)*min(pp.Warmup, RoundWarmup)
		e.Windows += window + warm + time.Duration(rounds)*estRoundOverhead
		e.Evidence += estEvidence
	}
	// Every cache after the first restarts the server (--shared-buffers).
	e.Total = time.Duration(max(len(pp.Caches), 1))*estServer + e.Fill + e.Windows + e.Evidence
	return e
}

// Describe says what the plan will run, in one line.
func (p *Plan) Describe() string {
	pp := p.Params
	var keys []string
	for _, s := range p.Specs {
		keys = append(keys, s.Raw)
	}
	window := fmt.Sprintf("%s windows", pp.Duration)
	if pp.Txns > 0 {
		window = fmt.Sprintf("%d transactions per client", pp.Txns)
	}
	rounds := "one window per cell"
	if pp.Rounds > 1 {
		rounds = fmt.Sprintf("%d interleaved rounds per cell", pp.Rounds)
	}
	tasks, _ := pp.Tasks()
	var names []string
	for _, t := range tasks {
		names = append(names, t.Name())
	}
	caches := ""
	if len(pp.Caches) > 0 {
		var list []string
		for _, c := range pp.Caches {
			list = append(list, results.Bytes(c))
		}
		caches = " × shared_buffers " + strings.Join(list, ", ")
	}
	return fmt.Sprintf("%d cells: %s × %s × clients %v × rows %v%s; %s, %s after a %s warm-up",
		len(p.Cells), strings.Join(keys, ", "), strings.Join(names, ", "), pp.Clients, pp.Rows, caches, window, rounds, pp.Warmup)
}

// String is an estimate in minutes and seconds.
func (e Estimate) String() string {
	return fmt.Sprintf("about %s (fill %s, windows %s, evidence %s)", e.Total.Round(10*time.Second), e.Fill.Round(time.Second), e.Windows.Round(time.Second), e.Evidence.Round(time.Second))
}
