// Package driver runs a cell's clients and measures them: one connection per
// client, a warm-up that no figure includes, then a measured window of a fixed
// duration (pgbench -T) or a fixed number of transactions per client
// (pgbench -t). Each client keeps its own HDR latency histogram, merged at the
// end; a once-a-second sampler builds the per-second timeline.
//
// A transaction counts in the window when it completes inside it (pgbench's
// convention), so both window edges cut alike. Rows written outside the
// window still count toward the total that is checked against the server.
package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/keybench/keybench/internal/results"
)

// Work is what transactions did to rows: the rows they inserted, updated,
// deleted and read. A transaction says its own; the driver adds them up,
// in the window and in all (warm-up and edges included), and the runner
// checks the server's counts against them.
type Work struct {
	Inserted, Updated, Deleted, Read int64
}

// Add is w and o together.
func (w Work) Add(o Work) Work {
	return Work{w.Inserted + o.Inserted, w.Updated + o.Updated, w.Deleted + o.Deleted, w.Read + o.Read}
}

// Changed is the rows w wrote: inserted, updated or deleted.
func (w Work) Changed() int64 { return w.Inserted + w.Updated + w.Deleted }

// Client is one connection's transaction loop body.
type Client struct {
	// Txn runs one transaction and returns what it did to rows.
	Txn func() (Work, error)
	// Conn is the client's network connection; its deadline is set to unblock
	// a client stuck on a dead server when the run is stopped.
	Conn net.Conn
	// Broken reports whether the connection is unusable after an error.
	Broken func() bool
	// Cancel asks the server to cancel the client's running statement (a
	// cancel request on another connection); it is how the driver ends a
	// transaction still waiting when the window is over, for example on
	// another session's lock. Nil: the socket's deadline is the only way.
	Cancel func()
	// Machine and FD, when every client has them, run the clients on event
	// loops (see loop.go) instead of a goroutine each calling Txn: Machine
	// is the transaction as protocol messages, FD the connection's socket,
	// idle (no response pending) when Run starts and when it returns.
	Machine Machine
	FD      int
	// Role groups clients that do different work in one cell (a queue's
	// producers and consumers); each role gets its own counts, latencies
	// and timeline. Empty for a cell whose clients all do the same.
	Role string
}

// Config is the measured window.
type Config struct {
	// Warmup runs before the window; nothing of it is measured. With
	// SteadyAfter it is the longest warm-up.
	Warmup time.Duration
	// SteadyAfter, when set, ends the warm-up as soon as the rate is
	// steady (see steady), but not before SteadyAfter: a warm table
	// needs a fraction of the fixed warm-up a cold one does.
	SteadyAfter time.Duration
	// Duration is the window's length; zero when Txns is set.
	Duration time.Duration
	// Txns is the number of measured transactions per client; zero when Duration is set.
	Txns int64
	// OnSecond, if set, receives each second of the timeline as it completes.
	OnSecond func(Second)
	// OnWindow, if set, is told when the measured window starts (the
	// warm-up's end).
	OnWindow func(start time.Time)
	// Rate, when set, is the transactions per second of all the clients
	// together, started on a Poisson schedule, latency counted from each
	// scheduled start (see rate.go); LatencyLimit then counts the late
	// ones and skips those already late when their turn comes.
	Rate         float64
	LatencyLimit time.Duration
	// ScheduleSeed picks the fixed rate's schedules: the same seed draws
	// the same starts (every key of a round alike, so that they meet the
	// same bursts), another seed others (each round its own, so that the
	// rounds' rates average to Rate rather than repeat one Poisson draw:
	// 761 of 800 tps in every 1 s round of a run did).
	ScheduleSeed uint64
	// Record keeps every measured transaction (and every one skipped in
	// the window) as a Record, for pgbench's transaction and aggregate
	// logs (-l); off, the hot path keeps nothing per transaction.
	Record bool
	// SecondHistograms keeps each second's latency histogram (every
	// client merged) in Result.SecondLatency: --hist-file a second an
	// interval.
	SecondHistograms bool
}

// Record is one transaction of the window as pgbench's log has it: the
// client that ran it, when it ended (Unix µs), its latency from its
// scheduled start (µs) and, at a fixed rate, how late it started (µs);
// Skipped when the latency limit skipped it, Failed when it failed.
type Record struct {
	Client          int32
	EndUS           int64
	LatencyUS       int64
	LagUS           int64
	Skipped, Failed bool
}

// Second and RoleSecond are the per-second timeline, a results type.
type (
	Second     = results.Second
	RoleSecond = results.RoleSecond
)

// RoleResult is one role's part of the window.
type RoleResult struct {
	Clients            int
	Txns, Rows, Errors int64
	// TotalRows counts every row the role changed, warm-up and edges included.
	TotalRows int64
	// Work is the role's in the window, TotalWork in all.
	Work, TotalWork Work
	Latency         *hdrhistogram.Histogram
}

// Result is what the driver measured.
type Result struct {
	// Txns, Rows (changed: Work.Changed) and Errors are counted in the measured window.
	Txns, Rows, Errors int64
	// Elapsed is the window's length as run.
	Elapsed time.Duration
	// TotalRows counts every row changed, warm-up and edges included.
	TotalRows int64
	// Work is what the window's transactions did to rows, TotalWork what
	// every transaction did (warm-up and edges included).
	Work, TotalWork Work
	// WarmupTxns counts the transactions of the warm-up; Warmup is how
	// long it ran (shorter than Config.Warmup when the rate was steady
	// sooner), Steady whether it ended because the rate was steady.
	WarmupTxns int64
	Warmup     time.Duration
	Steady     bool
	// Latency merges every client's histogram of the window (microseconds).
	Latency *hdrhistogram.Histogram
	// Timeline is the per-second series.
	Timeline []Second
	// ErrorSamples are the first distinct error messages.
	ErrorSamples []string
	// Interrupted is set when the context was cancelled before the window ended.
	Interrupted bool
	// ClientsLost counts clients that stopped on a broken connection.
	ClientsLost int
	// Roles splits the result by client role when the clients have roles.
	Roles map[string]*RoleResult
	// Unfinished counts the transactions still running when the window
	// ended that the driver had to cancel; their time so far is in Latency
	// (a lower bound), and LongestUnfinished is the longest of them.
	Unfinished        int
	LongestUnfinished time.Duration
	// Stalls are the stretches of the window in which keybench itself did
	// not run (stopped, or starved of CPU): its clients sent nothing then,
	// so the window's rate is not the server's. StalledS is their total,
	// a lower bound: the sampler sees only the part of a stall after the
	// moment it meant to wake.
	Stalls   []Stall
	StalledS float64
	// Pace is the fixed-rate schedule as it ran (nil: flat out).
	Pace *Pace
	// Records are the window's transactions, client by client, each
	// client's in order (Config.Record).
	Records []Record
	// SecondLatency is each second's latency histogram, Timeline's
	// seconds' (Config.SecondHistograms).
	SecondLatency []*hdrhistogram.Histogram
}

// Stall is a stretch of the window in which the driver's once-a-second
// sampler woke late: keybench was not running.
type Stall struct {
	// AtS is when it began, in seconds into the window; Seconds how long it lasted.
	AtS     float64 `json:"at_s"`
	Seconds float64 `json:"seconds"`
}

// stallThreshold is how late the sampler may wake before the gap counts as
// a stall: far beyond scheduling noise and garbage-collection pauses.
const stallThreshold = time.Second

// stopGrace is how long the driver waits, once the window is over, for the
// clients' running transactions before it cancels them; cancelGrace how
// long it then waits before it cuts the sockets (a dead server).
const (
	stopGrace   = time.Second
	cancelGrace = 2 * time.Second
)

// Latency histogram range: 1 µs to 1 hour, 3 significant figures.
const (
	minLatencyUS = 1
	maxLatencyUS = 3_600_000_000
	maxSamples   = 5
)

type worker struct {
	c     Client
	total *hdrhistogram.Histogram // window, owned by the worker until the end
	mu    sync.Mutex              // guards the fields below, swapped by the sampler
	sec   *hdrhistogram.Histogram
	txns  int64
	work  Work
	errs  int64
	// allRows is the rows changed, read live by the sampler (a queue's backlog)
	allRows atomic.Int64
	// allWork is every transaction's work, written by the worker's
	// goroutine only and read after it ends.
	allWork Work
	// busySince is the start (unix nanos) of the running transaction, 0
	// between transactions. The worker and, at the end, the driver each
	// claim a finished or abandoned transaction by swapping it to 0, so its
	// latency is recorded once.
	busySince atomic.Int64
	// counted only by the worker, read after it ends
	warmTxns int64
	lost     bool
	// abandoned holds the latency so far (µs) of a transaction the driver
	// cancelled at the end of the window; written by the driver only.
	abandoned []int64
	// pace is the client's fixed-rate schedule (nil: flat out), its
	// figures written by the worker's goroutine only.
	pace *paced
	// id is the client's number; records its window's transactions
	// (Config.Record), written by its goroutine only, read after it ends.
	id      int32
	records []Record
}

// window is the measured window's shared state: its edges, the stop flag
// and what every client's transactions add to the figures.
type window struct {
	cfg Config
	// winStart and winEnd are the window's edges (winEnd zero in Txns
	// mode), read by Run's goroutine; the clients read them as
	// startNS and endNS (Unix nanoseconds, 0: no end), which move once,
	// when a steady warm-up ends early.
	winStart, winEnd time.Time
	startNS, endNS   atomic.Int64
	// warmed counts the transactions completed so far (the warm-up's
	// steadiness is judged by it).
	warmed  atomic.Int64
	stop    atomic.Bool
	stopped chan struct{} // closed with stop set: a paced client's wait ends
	lastEnd atomic.Int64  // unix nanos of the last measured completion (Txns mode)
	errMu   sync.Mutex
	samples []string
}

func (win *window) noteErr(err error) {
	win.errMu.Lock()
	defer win.errMu.Unlock()
	msg := err.Error()
	for _, s := range win.samples {
		if s == msg {
			return
		}
	}
	if len(win.samples) < maxSamples {
		win.samples = append(win.samples, msg)
	}
}

// complete accounts for a transaction of w that ran from t0 to t1 (its
// latency counted from sched: t0, or its scheduled start at a fixed rate),
// with the rows it wrote and its error; measured counts w's transactions
// in the window. It returns whether the client goes on with another one.
func (win *window) complete(w *worker, sched, t0, t1 time.Time, work Work, err error, measured *int64) bool {
	cfg := win.cfg
	winStart, winEnd := time.Unix(0, win.startNS.Load()), time.Time{}
	if e := win.endNS.Load(); e != 0 {
		winEnd = time.Unix(0, e)
	}
	if t1.Before(winStart) {
		win.warmed.Add(1)
	}
	if n := work.Changed(); n != 0 {
		w.allRows.Add(n)
	}
	w.allWork = w.allWork.Add(work)
	if w.busySince.Swap(0) == 0 {
		// The driver ended the window, cancelled this transaction and
		// recorded its time so far: nothing more to record.
		return false
	}
	inWindow := !t1.Before(winStart) && (winEnd.IsZero() || t1.Before(winEnd))
	if cfg.Txns > 0 && t0.Before(winStart) {
		inWindow = false // a fixed-count window starts with a fresh transaction
	}
	if err != nil {
		win.noteErr(err)
		if inWindow && cfg.Record {
			w.records = append(w.records, Record{Client: w.id, EndUS: t1.UnixMicro(), LatencyUS: max(t1.Sub(sched).Microseconds(), minLatencyUS), LagUS: t0.Sub(sched).Microseconds(), Failed: true})
		}
		if inWindow {
			w.mu.Lock()
			w.errs++
			w.mu.Unlock()
		}
		if w.c.Broken != nil && w.c.Broken() {
			w.lost = true
			return false
		}
	} else if inWindow {
		if w.pace != nil {
			win.recordPace(w, sched, t0, t1)
		}
		us := max(t1.Sub(sched).Microseconds(), minLatencyUS)
		if cfg.Record {
			w.records = append(w.records, Record{Client: w.id, EndUS: t1.UnixMicro(), LatencyUS: us, LagUS: t0.Sub(sched).Microseconds()})
		}
		_ = w.total.RecordValue(us)
		w.mu.Lock()
		_ = w.sec.RecordValue(us)
		w.txns++
		w.work = w.work.Add(work)
		w.mu.Unlock()
	} else if t1.Before(winStart) {
		w.warmTxns++
	} else if cfg.Txns == 0 && t0.Before(winEnd) {
		// Started (or running) in the window, finished after it: its
		// latency belongs to the window, whatever it waited for.
		_ = w.total.RecordValue(max(t1.Sub(later(sched, winStart)).Microseconds(), minLatencyUS))
	}
	if inWindow {
		*measured++
		if cfg.Txns > 0 {
			for {
				prev := win.lastEnd.Load()
				if t1.UnixNano() <= prev || win.lastEnd.CompareAndSwap(prev, t1.UnixNano()) {
					break
				}
			}
			if *measured >= cfg.Txns {
				return false
			}
		}
	}
	return winEnd.IsZero() || t1.Before(winEnd)
}

// abandon claims the transactions still running at stopAt: each one's time
// in the window so far becomes its latency, and it is cancelled.
func (r *Result) abandon(ws []*worker, winStart, stopAt time.Time) {
	for _, w := range ws {
		since := w.busySince.Swap(0)
		if since == 0 {
			continue
		}
		started := time.Unix(0, since)
		waited := stopAt.Sub(started)
		r.Unfinished++
		r.LongestUnfinished = max(r.LongestUnfinished, waited)
		if stopAt.After(winStart) {
			w.abandoned = append(w.abandoned, max(stopAt.Sub(later(started, winStart)).Microseconds(), minLatencyUS))
		}
		if w.c.Cancel != nil {
			go w.c.Cancel()
		}
	}
}

// Run drives the clients until the window ends, ctx is cancelled, or every client is lost.
func Run(ctx context.Context, cfg Config, clients []Client) (*Result, error) {
	if len(clients) == 0 {
		return nil, errors.New("no clients")
	}
	if (cfg.Duration > 0) == (cfg.Txns > 0) {
		return nil, errors.New("exactly one of duration and transactions must be set")
	}
	// Clients block in system calls (see Dial): each goroutine client, or
	// each event loop, needs a P of its own to return to, as each pgbench
	// thread has a core; two more serve the samplers.
	threads := len(clients)
	if loops := eventLoops(clients); loops > 0 {
		threads = loops
	}
	if want := threads + 2; runtime.GOMAXPROCS(0) < want {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(want))
	}
	ws := make([]*worker, len(clients))
	for i, c := range clients {
		ws[i] = &worker{
			id:    int32(i),
			c:     c,
			total: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3),
			sec:   hdrhistogram.New(minLatencyUS, maxLatencyUS, 2),
		}
	}
	win := &window{cfg: cfg, stopped: make(chan struct{})}
	started := time.Now()
	if cfg.Rate > 0 {
		for i, w := range ws {
			w.pace = &paced{sched: newSchedule(cfg.Rate, len(ws), i, cfg.ScheduleSeed, started), lag: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)}
		}
	}
	win.setStart(started.Add(cfg.Warmup))
	done := win.start(ws)
	res := &Result{Latency: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)}
	smp := newSecondSampler(ws, res, cfg.OnSecond)
	smp.keep = cfg.SecondHistograms
	tick, interrupted := win.sampleSeconds(ctx, done, smp, res)
	win.stopClients(ws, done, res)
	end := time.Now()
	if cfg.Txns > 0 {
		if le := win.lastEnd.Load(); le > 0 {
			end = time.Unix(0, le)
		}
	} else if !interrupted && end.After(win.winEnd) {
		end = win.winEnd
	}
	// The last partial second.
	smp.sample(tick, end.Sub(win.winStart.Add(time.Duration(tick-1)*time.Second)))
	res.Interrupted = interrupted
	res.Warmup = win.winStart.Sub(started)
	if end.After(win.winStart) {
		res.Elapsed = end.Sub(win.winStart)
	}
	res.collect(win, ws)
	res.ErrorSamples = win.samples
	if res.ClientsLost == len(ws) {
		return res, fmt.Errorf("all %d clients lost their connections: %s", len(ws), first(win.samples))
	}
	return res, nil
}

// start runs the clients, on event loops when they all can, else as a
// goroutine each; done is closed when every client has ended.
func (win *window) start(ws []*worker) <-chan struct{} {
	var wg sync.WaitGroup
	// A paced client waits for its schedule in a timer of its own: the
	// event loops run flat out only.
	if loops := eventLoops(clientsOf(ws)); loops > 0 && win.cfg.Rate == 0 {
		win.startLoops(ws, loops, &wg)
	} else {
		for _, w := range ws {
			wg.Go(func() {
				win.runBlocking(w)
			})
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

func clientsOf(ws []*worker) []Client {
	out := make([]Client, len(ws))
	for i, w := range ws {
		out[i] = w.c
	}
	return out
}

// runBlocking is a client's loop in its own goroutine, its transactions in
// blocking system calls.
func (win *window) runBlocking(w *worker) {
	var measured int64
	lastYield := time.Now()
	for !win.stop.Load() {
		var sched time.Time
		if w.pace != nil {
			s, skip, ok := win.due(w)
			if !ok {
				return
			}
			if skip {
				continue
			}
			sched = s
		}
		t0 := time.Now()
		if sched.IsZero() {
			sched = t0
		}
		w.busySince.Store(t0.UnixNano())
		work, err := w.c.Txn()
		t1 := time.Now()
		// A client never parks (it blocks in system calls), so the
		// runtime would preempt it at the end of every 10 ms time
		// slice and take its P away, waking its monitor thread every
		// 20 µs; yielding first starts a fresh slice at no such cost.
		if t1.Sub(lastYield) > 8*time.Millisecond {
			runtime.Gosched()
			lastYield = t1
		}
		if !win.complete(w, sched, t0, t1, work, err, &measured) {
			return
		}
	}
}

// setStart sets the window's edges: it starts at start (and ends its
// duration later).
func (win *window) setStart(start time.Time) {
	win.winStart = start
	if win.cfg.Duration > 0 {
		win.winEnd = start.Add(win.cfg.Duration)
		win.endNS.Store(win.winEnd.UnixNano())
	}
	win.startNS.Store(start.UnixNano())
}

// warmUp waits out the warm-up: its whole length, or, with SteadyAfter,
// until the rate is steady. It returns false when the clients ended or ctx
// was cancelled first.
func (win *window) warmUp(ctx context.Context, done <-chan struct{}, res *Result) bool {
	steady := steadiness{}
	for {
		wait := time.Until(win.winStart)
		if win.cfg.SteadyAfter > 0 {
			wait = min(wait, steadyTick)
		}
		if wait <= 0 {
			return true
		}
		select {
		case <-time.After(wait):
		case <-done:
			return false
		case <-ctx.Done():
			return false
		}
		now := time.Now()
		if win.cfg.SteadyAfter <= 0 || !now.Before(win.winStart) {
			continue
		}
		if steady.add(now, win.warmed.Load()) && now.Sub(win.winStart.Add(-win.cfg.Warmup)) >= win.cfg.SteadyAfter {
			win.setStart(now)
			res.Steady = true
			return true
		}
	}
}

// steadyTick is how often a steady warm-up looks at the rate.
const steadyTick = 50 * time.Millisecond

// steadiness judges a warm-up's rate steady when the last two stretches
// of at least steadyStretch and steadyTxns transactions each ran at rates
// within steadyTolerance of each other: the rate no longer climbs as the
// cache fills, nor falls as a first burst ends. A slow rate (few
// transactions a stretch, whose rate is noise) waits for longer stretches.
type steadiness struct {
	marks []mark
}

type mark struct {
	at    time.Time
	count int64
}

const (
	steadyStretch   = 50 * time.Millisecond
	steadyTxns      = 200
	steadyTolerance = 0.1
)

// add records the count at a moment and says whether the rate is steady.
func (s *steadiness) add(at time.Time, count int64) bool {
	s.marks = append(s.marks, mark{at, count})
	last := len(s.marks) - 1
	mid := s.stretchBefore(last)
	if mid < 0 {
		return false
	}
	first := s.stretchBefore(mid)
	if first < 0 {
		return false
	}
	rate := func(from, to mark) float64 { return float64(to.count-from.count) / to.at.Sub(from.at).Seconds() }
	newer, older := rate(s.marks[mid], s.marks[last]), rate(s.marks[first], s.marks[mid])
	return newer <= older*(1+steadyTolerance) && newer >= older*(1-steadyTolerance)
}

// stretchBefore is the latest mark before mark end that begins a stretch
// long enough, in time and transactions, to end at it; -1 when none does.
func (s *steadiness) stretchBefore(end int) int {
	e := s.marks[end]
	for i := end - 1; i >= 0; i-- {
		if e.at.Sub(s.marks[i].at) >= steadyStretch && e.count-s.marks[i].count >= steadyTxns {
			return i
		}
	}
	return -1
}

// sampleSeconds waits out the warm-up, then samples once a second until
// the window ends, the clients finish or ctx is cancelled; it returns the
// second under way and whether ctx stopped it. A wake-up far later than the
// second it closes is a stall: keybench did not run in between.
func (win *window) sampleSeconds(ctx context.Context, done <-chan struct{}, smp *secondSampler, res *Result) (tick int, interrupted bool) {
	if !win.warmUp(ctx, done, res) && ctx.Err() != nil {
		return 1, true
	}
	winStart, winEnd := win.winStart, win.winEnd
	if win.cfg.OnWindow != nil {
		win.cfg.OnWindow(winStart)
	}
	tick = 1
	lastWake := winStart
	for {
		next := winStart.Add(time.Duration(tick) * time.Second)
		if !winEnd.IsZero() && next.After(winEnd) {
			next = winEnd
		}
		select {
		case <-time.After(time.Until(next)):
			now := time.Now()
			// (After a late wake the next seconds are due at once: they expect no sleep.)
			expected := max(next.Sub(later(lastWake, winStart.Add(time.Duration(tick-1)*time.Second))), 0)
			if gap := now.Sub(lastWake) - expected; gap > stallThreshold && now.After(winStart) {
				res.Stalls = append(res.Stalls, Stall{AtS: max(now.Sub(winStart)-gap, 0).Seconds(), Seconds: gap.Seconds()})
				res.StalledS += gap.Seconds()
			}
			lastWake = now
			smp.sample(tick, next.Sub(winStart.Add(time.Duration(tick-1)*time.Second)))
			tick++
			if !winEnd.IsZero() && !next.Before(winEnd) {
				return tick, false
			}
		case <-done:
			return tick, false
		case <-ctx.Done():
			return tick, true
		}
	}
}

// stopClients ends the window: the clients stop after their transaction.
// One still in a transaction after stopGrace (another session's lock, a
// slow server) has its time so far recorded as its latency, a lower bound
// the figures must not leave out, and the transaction is cancelled; if the
// cancel does not help within cancelGrace (a dead server), the sockets are cut.
func (win *window) stopClients(ws []*worker, done <-chan struct{}, res *Result) {
	win.stop.Store(true)
	close(win.stopped)
	stopAt := time.Now()
	select {
	case <-done:
		return
	case <-time.After(stopGrace):
	}
	res.abandon(ws, win.winStart, stopAt)
	select {
	case <-done:
	case <-time.After(cancelGrace):
		for _, w := range ws {
			if w.c.Conn != nil {
				_ = w.c.Conn.SetDeadline(time.Now())
			}
		}
		<-done
	}
}

// collect merges the clients' histograms and totals into the result.
func (res *Result) collect(win *window, ws []*worker) {
	for _, w := range ws {
		res.Records = append(res.Records, w.records...)
		for _, us := range w.abandoned {
			_ = w.total.RecordValue(us)
		}
		res.Latency.Merge(w.total)
		if rr := res.Roles[w.c.Role]; rr != nil {
			rr.Latency.Merge(w.total)
			rr.TotalRows += w.allRows.Load()
			rr.TotalWork = rr.TotalWork.Add(w.allWork)
		}
		res.TotalRows += w.allRows.Load()
		res.TotalWork = res.TotalWork.Add(w.allWork)
		res.WarmupTxns += w.warmTxns
		if w.pace != nil {
			win.rest(w)
			if res.Pace == nil {
				res.Pace = &Pace{Rate: win.cfg.Rate, LatencyLimit: win.cfg.LatencyLimit, Lag: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)}
			}
			res.Pace.Lag.Merge(w.pace.lag)
			res.Pace.Scheduled += w.pace.scheduled
			res.Pace.Late += w.pace.late
			res.Pace.Skipped += w.pace.skipped
		}
		if w.lost {
			res.ClientsLost++
		}
	}
}

// secondSampler builds the per-second timeline: each second it takes the
// clients' counts and histograms of that second (swapping them under each
// worker's lock), adds them to the window's totals and, per role, to the
// roles' figures.
type secondSampler struct {
	ws       []*worker
	res      *Result
	onSecond func(Second)
	agg      *hdrhistogram.Histogram
	roles    map[string]*roleAgg
	keep     bool // each second's histogram kept (Config.SecondHistograms)
}

type roleAgg struct {
	sec              *hdrhistogram.Histogram
	txns, rows, errs int64
	total            int64
}

func newSecondSampler(ws []*worker, res *Result, onSecond func(Second)) *secondSampler {
	s := &secondSampler{ws: ws, res: res, onSecond: onSecond, agg: hdrhistogram.New(minLatencyUS, maxLatencyUS, 2)}
	for _, w := range ws {
		if w.c.Role == "" {
			continue
		}
		if s.roles == nil {
			s.roles, res.Roles = map[string]*roleAgg{}, map[string]*RoleResult{}
		}
		if s.roles[w.c.Role] == nil {
			s.roles[w.c.Role] = &roleAgg{sec: hdrhistogram.New(minLatencyUS, maxLatencyUS, 2)}
			res.Roles[w.c.Role] = &RoleResult{Latency: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)}
		}
		res.Roles[w.c.Role].Clients++
	}
	return s
}

// sample closes second t, length long (the last one may be partial).
func (smp *secondSampler) sample(t int, length time.Duration) {
	res := smp.res
	smp.agg.Reset()
	for _, ra := range smp.roles {
		ra.sec.Reset()
		ra.txns, ra.rows, ra.errs, ra.total = 0, 0, 0, 0
	}
	var s Second
	var txns, rows int64
	for _, w := range smp.ws {
		w.mu.Lock()
		smp.agg.Merge(w.sec)
		changed := w.work.Changed()
		if ra := smp.roles[w.c.Role]; ra != nil {
			ra.sec.Merge(w.sec)
			ra.txns, ra.rows, ra.errs = ra.txns+w.txns, ra.rows+changed, ra.errs+w.errs
			ra.total += w.allRows.Load()
			rr := res.Roles[w.c.Role]
			rr.Txns, rr.Rows, rr.Errors, rr.Work = rr.Txns+w.txns, rr.Rows+changed, rr.Errors+w.errs, rr.Work.Add(w.work)
		}
		w.sec.Reset()
		txns, rows, s.Errors = txns+w.txns, rows+changed, s.Errors+w.errs
		res.Txns, res.Rows, res.Errors, res.Work = res.Txns+w.txns, res.Rows+changed, res.Errors+w.errs, res.Work.Add(w.work)
		w.txns, w.work, w.errs = 0, Work{}, 0
		w.mu.Unlock()
	}
	if length <= 0 {
		return
	}
	s.T, s.Txns = t, txns
	s.TPS = float64(txns) / length.Seconds()
	s.RowsPS = float64(rows) / length.Seconds()
	if txns > 0 {
		s.P99ms = float64(smp.agg.ValueAtQuantile(99)) / 1000
	}
	if smp.keep {
		h := hdrhistogram.New(minLatencyUS, maxLatencyUS, 2)
		h.Merge(smp.agg)
		res.SecondLatency = append(res.SecondLatency, h)
	}
	if smp.roles != nil {
		s.Roles = map[string]RoleSecond{}
		for name, ra := range smp.roles {
			rs := RoleSecond{Txns: ra.txns, RowsPS: float64(ra.rows) / length.Seconds(), Errors: ra.errs, Total: ra.total}
			if ra.txns > 0 {
				rs.P99ms = float64(ra.sec.ValueAtQuantile(99)) / 1000
			}
			s.Roles[name] = rs
		}
	}
	res.Timeline = append(res.Timeline, s)
	if smp.onSecond != nil {
		smp.onSecond(s)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func first(s []string) string {
	if len(s) == 0 {
		return "no error recorded"
	}
	return s[0]
}

// TPS is the window's transactions per second.
func (r *Result) TPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Txns) / r.Elapsed.Seconds()
}

// LatencyMS summarises a latency histogram of microseconds in milliseconds
// (zeros for an empty one).
func LatencyMS(h *hdrhistogram.Histogram) results.Latency {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if h == nil || h.TotalCount() == 0 {
		return results.Latency{}
	}
	return results.Latency{Mean: h.Mean() / 1000, StdDev: h.StdDev() / 1000, P50: ms(h.ValueAtQuantile(50)), P95: ms(h.ValueAtQuantile(95)),
		P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max())}
}

// Merge joins the results of a cell's rounds into one, as if its window had
// been one: counts and times add up, histograms merge, the timelines follow
// each other (seconds renumbered, the roles' running totals carried on).
func Merge(rounds []*Result) *Result {
	if len(rounds) == 1 {
		return rounds[0]
	}
	out := &Result{Latency: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)}
	seen := map[string]bool{}
	carried := map[string]int64{} // each role's rows before the round
	for _, r := range rounds {
		out.Txns, out.Rows, out.Errors = out.Txns+r.Txns, out.Rows+r.Rows, out.Errors+r.Errors
		out.Elapsed += r.Elapsed
		out.TotalRows += r.TotalRows
		out.Work, out.TotalWork = out.Work.Add(r.Work), out.TotalWork.Add(r.TotalWork)
		out.WarmupTxns += r.WarmupTxns
		out.Latency.Merge(r.Latency)
		for _, s := range r.Timeline {
			s.T = len(out.Timeline) + 1
			if s.Roles != nil {
				roles := make(map[string]RoleSecond, len(s.Roles))
				for name, rs := range s.Roles {
					rs.Total += carried[name]
					roles[name] = rs
				}
				s.Roles = roles
			}
			out.Timeline = append(out.Timeline, s)
		}
		for _, e := range r.ErrorSamples {
			if !seen[e] && len(out.ErrorSamples) < maxSamples {
				seen[e] = true
				out.ErrorSamples = append(out.ErrorSamples, e)
			}
		}
		out.Interrupted = out.Interrupted || r.Interrupted
		out.ClientsLost = max(out.ClientsLost, r.ClientsLost)
		out.Unfinished += r.Unfinished
		out.LongestUnfinished = max(out.LongestUnfinished, r.LongestUnfinished)
		out.Stalls = append(out.Stalls, r.Stalls...)
		out.StalledS += r.StalledS
		if r.Pace != nil {
			if out.Pace == nil {
				out.Pace = &Pace{Lag: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)}
			}
			out.Pace.merge(r.Pace)
		}
		for name, rr := range r.Roles {
			if out.Roles == nil {
				out.Roles = map[string]*RoleResult{}
			}
			o := out.Roles[name]
			if o == nil {
				o = &RoleResult{Clients: rr.Clients, Latency: hdrhistogram.New(minLatencyUS, maxLatencyUS, 3)}
				out.Roles[name] = o
			}
			o.Txns, o.Rows, o.Errors, o.TotalRows = o.Txns+rr.Txns, o.Rows+rr.Rows, o.Errors+rr.Errors, o.TotalRows+rr.TotalRows
			o.Work, o.TotalWork = o.Work.Add(rr.Work), o.TotalWork.Add(rr.TotalWork)
			o.Latency.Merge(rr.Latency)
			carried[name] += rr.TotalRows
		}
	}
	return out
}
