package scenario

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/workload"
)

// Rates the estimate assumes, measured on this project's 2-core machine
// (the presets' logs, embedded PostgreSQL 18): they set the scale of the
// estimate, which the run refines from its own rounds as it goes.
const (
	// estFillRowsPerS and estFillTable are one table's prefill (COPY, the
	// index builds, VACUUM ANALYZE), two tables filling at once
	// (estTogether): war's 500k-row tables took 4-5 s each, reads'
	// 125k-row ones 3 s.
	estFillRowsPerS = 200_000
	estFillTable    = time.Second
	estTogether     = 2
	// estTxnsPerS is the rate of a window counted in transactions (-t):
	// war's ten clients.
	estTxnsPerS = 3_000
	// estRoundOverhead is what a round costs beyond its window: the
	// checkpoint before it, the clients' connections, the metrics' start
	// and end; estSteady a warm-up that ends once the rate is steady.
	estRoundOverhead = 300 * time.Millisecond
	estSteady        = 250 * time.Millisecond
	// estEvidence and estEvidenceRowsPerS are a cell's evidence (sizes,
	// REINDEX, pgstatindex, WAL inspection), two at once.
	estEvidence         = 500 * time.Millisecond
	estEvidenceRowsPerS = 400_000
	// estServer is the embedded server's start (binaries cached), and
	// estRestart a restart between the fills' buffered IO and the rounds'
	// direct IO, and back for the evidence (three a group: war's took
	// 0.1, 0.8 and 0.1 s, the one after its fills writing them out;
	// scale's small caches' 0.1 s each).
	estServer  = 2 * time.Second
	estRestart = 400 * time.Millisecond
	// estCPUShare is the share of the machine's CPUs a busy process got
	// (metrics.CPUShare) on the machine whose pace the rates above are:
	// the default run's walls, quiet (a share of 0.95: 59–64 s) and beside
	// a busy loop (0.55–0.7: 79–108 s), put it at 0.75 (bench/times.sh).
	estCPUShare = 0.75
)

// BufferedFillRows is the fewest rows a group fills for which the
// embedded server is restarted without its direct IO for the fills and
// with it again for the rounds: the restarts (about a second each) pay.
const BufferedFillRows = 200_000

// fillBytesPerRow is about what a prefilled row takes in the table and its
// key index (bigint's narrowest row: 36 B of heap, 16 B of index).
const fillBytesPerRow = 52

// FillsBuffered says whether a group filling rows at a cache of cache bytes
// (0: the server's own) fills with buffered IO: from BufferedFillRows on,
// or when the rows outgrow the cache, where direct IO would write a random
// key's leaves out again as each insert evicts one (scale's 62,500 uuidv4
// rows in a 512 kB cache took 2.9 s with direct IO, 0.3 s buffered).
func FillsBuffered(rows, cache int64) bool {
	return rows >= BufferedFillRows || (cache > 0 && rows*fillBytesPerRow > cache)
}

// FillRate is one prefill a run measured: its rows and their rate.
type FillRate struct {
	Rows     int64
	RowsPerS float64
}

// fillRate is the rate a key's prefill of rows is expected at: the
// assumed one until the run has filled the key; then the key's own, at
// the size it filled, carried along the power law through its last two
// sizes (a random key's fill slows as its index outgrows the fills'
// cache: scale's uuidv4 filled 250,000 rows at 164k rows/s, 4M at 105k,
// 16M at 72k), not paced again (measured at the machine's pace).
func (p *Experiment) fillRate(key string, rows int64) float64 {
	fs := p.FillRates[key]
	if len(fs) == 0 || rows <= 0 {
		return estFillRowsPerS
	}
	last := fs[len(fs)-1]
	rate := last.RowsPerS
	for i := len(fs) - 2; i >= 0; i-- {
		if prev := fs[i]; prev.Rows > 0 && prev.Rows != last.Rows && prev.RowsPerS > 0 {
			b := math.Log(last.RowsPerS/prev.RowsPerS) / math.Log(float64(last.Rows)/float64(prev.Rows))
			b = math.Max(-1, math.Min(b, 0.5)) // no faster than half as fast again a doubling, no slower than the rows
			rate *= math.Pow(float64(rows)/float64(last.Rows), b)
			break
		}
	}
	return rate / paceOf(p.CPUShare)
}

// paceOf is how much of the estimate's machine's pace a share of the CPUs
// (metrics.CPUShare) is; 1 when not probed.
func paceOf(share float64) float64 {
	if share <= 0 {
		return 1
	}
	return share / estCPUShare
}

// SteadyAfter is the least warm-up that may end once the rate is steady
// (driver.Config.SteadyAfter): the clients' first transactions (their
// connections' caches, the table's pages read into the cache) are slower
// whatever the rate does.
const SteadyAfter = 100 * time.Millisecond

// RoundWarmup is the warm-up of a cell's rounds after its first: its
// table is filled and was warm a round ago, so half a second settles it.
const RoundWarmup = 500 * time.Millisecond

// RoundWarmupTxns is the warm-up, in transactions per client, of round n
// (from 1) of a cell whose rounds run roundTxns each: every key's round n
// then runs the same work since its checkpoint, so its cost per
// transaction (its full-page images above all) compares work with work.
// The first round warms a cold cache with as many as its window, the
// others with a quarter.
func RoundWarmupTxns(roundTxns int64, n int) int64 {
	if n == 1 {
		return roundTxns
	}
	return max(1, roundTxns/4)
}

// MinRoundWindow is the shortest round a duration is split into: the
// warm-up before it ends once the rate is steady, so half a second of
// thousands of transactions is a rate (war's rounds by transactions are
// about 0.7 s).
const MinRoundWindow = 500 * time.Millisecond

// Estimate is how long a plan should take, by phase.
type Estimate struct {
	Cells int
	// Server is the embedded server's starts (one per cache); Total is
	// Server, Fill, Windows and Evidence.
	Server, Fill, Windows, Evidence, Total time.Duration
}

// Estimate is the plan's expected duration with the rates above: every
// round, or, for a plan that stops early (Plan.Sequential), one round
// fewer than the most (war's ten runs by bench/time-to-verdict.sh here
// stopped after 7.3 of 8 rounds on average).
func (p *Experiment) Estimate() Estimate {
	e := Estimate{Cells: len(p.Cells)}
	pp := p.Params
	most := max(pp.Rounds, 1)
	rounds := most
	if p.Sequential != nil {
		rounds = max(most-1, p.Sequential.MinRounds)
	}
	groups := map[[3]int64]int64{} // a group's rows filled
	for _, c := range p.Cells {
		groups[[3]int64{c.Cache, int64(c.Clients), c.Rows}] += c.Rows
		m, _ := workload.Lookup(c.Task.Workload)
		window := pp.Duration
		switch {
		case m.LoadRowsPerS > 0: // the window loads the rows
			window = time.Duration(float64(c.Rows) / m.LoadRowsPerS * float64(time.Second))
		case c.Rows > 0:
			e.Fill += (estFillTable + time.Duration(float64(c.Rows)/p.fillRate(c.Key.Raw, c.Rows)*float64(time.Second))) / estTogether
		}
		txns := pp.CellTxns(c.Rows, c.Clients)
		// A window in transactions runs at the fixed rate (--rate) when
		// there is one, else as fast as the estimate's machine does, or as
		// the run's cells did so far (at the machine's pace already: the
		// rate is set so that pacing the windows below leaves it as is).
		txnsPerS := float64(estTxnsPerS)
		if p.TxnsPerS > 0 {
			txnsPerS = p.TxnsPerS / paceOf(p.CPUShare)
		}
		if pp.Rate > 0 {
			txnsPerS = math.Min(pp.Rate, txnsPerS)
		}
		if txns > 0 && m.LoadRowsPerS == 0 {
			window = time.Duration(float64(txns*int64(c.Clients)) / txnsPerS * float64(time.Second))
		}
		window = window * time.Duration(rounds) / time.Duration(most)
		warm := pp.Warmup
		if !pp.FixedWarmup {
			warm = min(pp.Warmup, estSteady)
		}
		later := min(pp.Warmup, RoundWarmup, warm)
		if txns > 0 && most > 1 && m.LoadRowsPerS == 0 { // warm-ups in transactions (RoundWarmupTxns)
			per := txns / int64(most)
			txnTime := func(n int64) time.Duration {
				return time.Duration(float64(n*int64(c.Clients)) / txnsPerS * float64(time.Second))
			}
			warm, later = txnTime(RoundWarmupTxns(per, 1)), txnTime(RoundWarmupTxns(per, 2))
		}
		extra := m.RoundOverhead
		if m.LoadRowsPerS > 0 { // a load's overhead (its index builds, its checkpoint) is a million rows': scaled to the cell's
			extra = time.Duration(float64(extra) * float64(c.Rows) / 1e6)
		}
		overhead := estRoundOverhead + extra
		e.Windows += window + warm + time.Duration(rounds-1)*later + time.Duration(rounds)*overhead
		e.Evidence += (estEvidence + time.Duration(float64(c.Rows+c.inserted(pp))/estEvidenceRowsPerS*float64(time.Second))) / estTogether
	}
	for g, rows := range groups {
		if FillsBuffered(rows, g[0]) { // the server restarted for the fills and back
			e.Fill += 3 * estRestart
		}
	}
	if p.CPUShare > 0 { // the machine's pace now: its clients, server and fills are busy processes
		pace := func(d time.Duration) time.Duration { return time.Duration(float64(d) / paceOf(p.CPUShare)) }
		e.Fill, e.Windows, e.Evidence = pace(e.Fill), pace(e.Windows), pace(e.Evidence)
	}
	// Every cache after the first restarts the server (--shared-buffers).
	e.Server = time.Duration(max(len(pp.Caches), 1)) * estServer
	e.Total = e.Server + e.Fill + e.Windows + e.Evidence
	return e
}

// inserted is about how many rows the cell's window adds, for the
// evidence's share (a REINDEX reads them all): a window in transactions
// at one row each, a timed one at estTxnsPerS.
func (c PlannedCell) inserted(pp Params) int64 {
	if pp.Txns > 0 {
		return pp.Txns * int64(c.Clients)
	}
	return int64(pp.Duration.Seconds() * estTxnsPerS)
}

// Describe says what the plan will run, in one line.
func (p *Experiment) Describe() string {
	pp := p.Params
	var keys []string
	for _, s := range p.Specs {
		keys = append(keys, s.Raw)
	}
	window := fmt.Sprintf("%s windows", pp.Duration)
	if pp.Txns > 0 {
		window = fmt.Sprintf("%d transactions per client", pp.Txns)
	}
	if pp.TableShare > 0 {
		window = fmt.Sprintf("windows of %s of each table's rows in transactions", stats.Percent(pp.TableShare))
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
		if pp.Scaled {
			caches = " (each at its own shared_buffers: " + strings.Join(list, ", ") + ")"
		}
	}
	warm := fmt.Sprintf("after a %s warm-up", pp.Warmup)
	switch {
	case pp.Rounds > 1 && pp.TableShare > 0:
		warm = "each round after a warm-up of a quarter of its transactions (the first's: as many as it runs), the same for every key"
	case pp.Rounds > 1 && pp.Txns > 0:
		per := pp.Txns / int64(pp.Rounds)
		warm = fmt.Sprintf("each round after a warm-up of %d transactions per client (the first's: %d), the same for every key",
			RoundWarmupTxns(per, 2), RoundWarmupTxns(per, 1))
	case !pp.FixedWarmup && pp.Warmup > SteadyAfter:
		warm = fmt.Sprintf("each after a warm-up until the rate is steady (at most %s)", pp.Warmup)
	}
	if p.Sequential != nil {
		rounds = fmt.Sprintf("at most %d interleaved rounds per cell, a task's rounds stopping once its comparisons are decided", pp.Rounds)
	}
	if c := p.CostSequential; c != nil {
		rounds += fmt.Sprintf(", or going on to %d while a key's cost comparison is undecided, within a budget of %s (--budget)", c.MaxRounds, p.Budget.Round(time.Second))
	}
	return fmt.Sprintf("%d cells: %s × %s × clients %v × rows %v%s; %s, %s %s",
		len(p.Cells), strings.Join(keys, ", "), strings.Join(names, ", "), pp.Clients, pp.Rows, caches, window, rounds, warm)
}

// String is an estimate in minutes and seconds.
func (e Estimate) String() string {
	return fmt.Sprintf("about %s (fill %s, windows %s, evidence %s)", e.Total.Round(10*time.Second), e.Fill.Round(time.Second), e.Windows.Round(time.Second), e.Evidence.Round(time.Second))
}
