package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/workload"
)

// group measures cells that run together: with --rounds, the cells of one
// client count, table size and repetition, whose windows are split into
// rounds interleaved across the cells (cell 1 round 1, cell 2 round 1, …),
// each cell keeping its own table between its rounds; without, one cell.
// It returns the cells as measured, and an error that stops the run (an
// interrupt, a lost server); a failure confined to a cell is recorded in
// the cell.
func (r *run) group(parent context.Context, pcs []scenario.Cell, rounds int) ([]results.Cell, error) {
	p := r.cfg.Plan.Params
	cs := make([]results.Cell, len(pcs))
	for k, pc := range pcs {
		cs[k] = results.Cell{
			Key: pc.Key.Raw, KeyCanonical: pc.Key.String(), KeyColumn: pc.Key.ColumnType(), Workload: pc.Workload, Query: pc.Query, ReadDist: pc.ReadDist,
			Clients: pc.Clients, Repeat: pc.Repeat, RowsBefore: pc.Rows, SharedBuffers: pc.Cache, WarmupS: p.Warmup.Seconds(),
			Status: results.StatusOK, Timeline: []results.Second{},
		}
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	if exited := r.target.exited(); exited != nil {
		go func() {
			select {
			case <-exited:
				cancel(errServerGone)
			case <-ctx.Done():
			}
		}()
	}
	errs := r.measureGroup(ctx, pcs, cs, rounds)
	var stop error
	var out []results.Cell
	for k, err := range errs {
		c := &cs[k]
		switch {
		case errors.Is(err, errNotRun):
			continue
		case err == nil:
		case parent.Err() != nil:
			c.Status, c.Error = results.StatusInterrupted, "interrupted"
			stop = ErrInterrupted
		case errors.Is(context.Cause(ctx), errServerGone) || r.serverGone():
			c.Status, c.Error = results.StatusFailed, fmt.Sprintf("%v: %s", errServerGone, r.target.trouble())
			stop = errors.New(c.Error)
		default:
			c.Status, c.Error = results.StatusFailed, err.Error()
			if r.admin.IsClosed() {
				stop = fmt.Errorf("lost the connection to the server: %w", err)
			}
		}
		out = append(out, *c)
	}
	return out, stop
}

// serverGone reports whether the server has exited (when keybench can
// tell), waiting a moment for it: a connection usually breaks just before
// the postmaster's exit is seen.
func (r *run) serverGone() bool {
	exited := r.target.exited()
	if exited == nil || !r.admin.IsClosed() && r.admin.Ping(context.Background()) == nil {
		return false
	}
	select {
	case <-exited:
		return true
	case <-time.After(3 * time.Second):
		return false
	}
}

// cellRun is one cell on its way through the lifecycle every workload
// shares: set up → fill → clients → window → summarize → evidence → drop.
type cellRun struct {
	r     *run
	pc    scenario.Cell
	c     *results.Cell
	wl    workload.Workload
	hooks workload.Hooks
	key   *keys.Resolved
	gen   keys.Generator
	// prefill is the key the table is filled with when it is not key.
	prefill *keys.Resolved
	// keyIndexBefore is the key index's size when the fill ended.
	keyIndexBefore results.M[int64]
	at             workload.Place
	tables         []*workload.Table
	win            workload.Window
	// filled is when the fill ended; results and metrics are the rounds' so far.
	filled  time.Time
	results []*driver.Result
	metrics []results.Metrics
}

// measureGroup runs the lifecycle of every cell of a group: set up and
// fill them all, then their rounds in turn, then summarize, evidence and
// drop each. A cell that fails leaves the group; the others go on, unless
// a failed cell stops the run (--on-error stop): the cells not measured
// then carry errNotRun.
func (r *run) measureGroup(ctx context.Context, pcs []scenario.Cell, cs []results.Cell, rounds int) []error {
	errs := make([]error, len(pcs))
	// stop says whether cell k's failure ends the group: the run stops on a failed cell.
	stop := func(k int) bool {
		if errs[k] == nil || ctx.Err() == nil && r.cfg.OnError == "continue" {
			return false
		}
		if ctx.Err() != nil {
			fail(errs, errs[k])
		} else {
			fail(errs, errNotRun)
		}
		return true
	}
	crs := make([]*cellRun, len(pcs))
	defer func() {
		for _, cr := range crs {
			if cr != nil {
				cr.drop(ctx)
			}
		}
	}()
	for k, pc := range pcs {
		if len(pcs) > 1 {
			r.ui.Logf("  %s: setting up", pc.Key.Raw)
		}
		cr, err := r.setUp(ctx, pc, &cs[k], workload.PlaceOf(r.cfg.Schema, k+1), rounds)
		crs[k] = cr
		if err == nil {
			err = cr.fill(ctx)
		}
		if errs[k] = err; stop(k) {
			return errs
		}
	}
	roundsStart := time.Now()
	for round := 1; round <= rounds; round++ {
		if round > 1 && len(pcs) > 1 {
			perRound := time.Since(roundsStart) / time.Duration(round-1)
			left := perRound*time.Duration(rounds-round+1) + time.Duration(len(pcs))*3*time.Second
			r.ui.Logf("  rounds %d/%d done in %s; this group ends in about %s", round-1, rounds, time.Since(roundsStart).Round(time.Second), left.Round(time.Second))
		}
		for _, k := range r.order(len(crs), round) {
			cr := crs[k]
			if errs[k] != nil || cr == nil || round > cr.win.Rounds {
				continue
			}
			if rounds > 1 {
				r.ui.Logf("  round %d/%d: %s", round, rounds, pcs[k].Key.Raw)
			}
			if errs[k] = cr.round(ctx, round); stop(k) {
				return errs
			}
		}
	}
	for k, cr := range crs {
		if errs[k] != nil {
			continue
		}
		if errs[k] = cr.finish(ctx); stop(k) {
			return errs
		}
	}
	return errs
}

// order is the order the cells of a group run in in a round.
func (r *run) order(cells, round int) []int { return RoundOrder(r.cfg.Seed, cells, round) }

// RoundOrder is the order n cells run in in round (1-based): random and
// balanced. Rounds go in batches of n; in a batch every cell runs once in
// every position (a Latin square: the cells' cyclic order and the rounds'
// order within the batch drawn from the seed, anew for each batch). A
// fixed order would put a slow drift of the machine, or a cost of running
// first after a checkpoint, into every comparison of two keys in the same
// direction, and the comparison within rounds would take it for a
// difference; the same seed gives the same orders.
func RoundOrder(seed int64, n, round int) []int {
	batch, at := (round-1)/n, (round-1)%n
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(batch)))
	cycle, rows := rng.Perm(n), rng.Perm(n)
	out := make([]int, n)
	for i := range out {
		out[i] = cycle[(i+rows[at])%n]
	}
	return out
}

// errNotRun marks the cells of a group that a failed cell kept from running.
var errNotRun = errors.New("not run: an earlier cell failed")

// fail marks every cell without an error of its own with err (the run stops).
func fail(errs []error, err error) []error {
	for k := range errs {
		if errs[k] == nil {
			errs[k] = err
		}
	}
	return errs
}

// roundShare is round n's share (from 1) of a window of total transactions
// per client split into rounds: the first total%rounds rounds run one more,
// so that the rounds add up to the total asked for (pgbench -t is exact).
func roundShare(total int64, rounds, n int) int64 {
	share := total / int64(rounds)
	if int64(n) <= total%int64(rounds) {
		share++
	}
	return max(1, share)
}

// round runs one round of the cell: its clients connect, warm up and run
// the round's share of the window while the metrics session watches.
func (cr *cellRun) round(ctx context.Context, n int) error {
	r := cr.r
	win := cr.win
	if cr.win.Rounds > 1 {
		if win.Txns > 0 {
			win.Txns = roundShare(win.Txns, cr.win.Rounds, n)
		} else {
			win.Duration = max(time.Second, win.Duration/time.Duration(cr.win.Rounds))
		}
		if n > 1 {
			win.Warmup = min(win.Warmup, roundWarmup) // the table is warm: a short warm-up per round
		}
		// Every round starts from a checkpoint, as every cell does: full-page
		// images per row stay comparable between rounds and cells.
		if err := r.checkpoint(ctx); err != nil {
			return err
		}
	}
	conns, clients, err := cr.connectClients(ctx)
	defer closeAll(conns)
	if err != nil {
		return err
	}
	if n == 1 && cr.c.Prefill != nil && cr.c.Prefill.History != nil {
		cr.c.Prefill.History.EndsBeforeWindowS += time.Since(cr.filled).Seconds() + win.Warmup.Seconds()
	}
	start := time.Since(r.started).Seconds() + win.Warmup.Seconds()
	dres, sess, err := cr.window(ctx, conns, clients, win, n == cr.win.Rounds)
	if dres != nil {
		cr.results = append(cr.results, dres)
	}
	if err != nil {
		return err
	}
	r.waitForClientsGone(ctx)
	var m results.Metrics
	sess.Stop(ctx, 0, &m) // figures per row are taken over the whole cell (finish)
	cr.metrics = append(cr.metrics, m)
	if cr.win.Rounds > 1 {
		secs := dres.Elapsed.Seconds()
		rate := 0.0
		if secs > 0 {
			rate = float64(dres.Txns) / secs
			if role := results.KindOf(cr.pc.Workload).RateRole; role != "" && dres.Roles[role] != nil {
				rate = float64(dres.Roles[role].Rows) / secs
			}
		}
		cr.c.Rounds = append(cr.c.Rounds, results.Round{Round: n, StartS: start, DurationS: secs, Txns: dres.Txns, Rate: rate})
		// The cell holds what its rounds measured so far: an interrupted
		// run keeps it (the cell is then marked interrupted, not summarized).
		fillDriverResult(cr.c, driver.Merge(cr.results))
	}
	return nil
}

// growthPerRow is an index's growth from before to after over rows inserted rows.
func growthPerRow(before, after results.M[int64], rows int64) results.M[float64] {
	b, ok := before.Get()
	if !ok {
		return results.Unavailable[float64]("the key index's size before the window: " + before.Reason())
	}
	a, ok := after.Get()
	if !ok {
		return results.Unavailable[float64]("the key index's size after the window: " + after.Reason())
	}
	return results.PerRow(float64(a-b), rows)
}

// meanRatio is the key index's mean size over the cell (halfway between
// its size when the window began and at its end) over the cache: what the
// cell's inserts met on average. A table that starts empty ends with the
// index its window wrote, and its rate was measured with less.
func meanRatio(before, after results.M[int64], cache results.M[int64]) results.M[float64] {
	c, ok := cache.Get()
	if !ok {
		return results.Unavailable[float64]("the cache: " + cache.Reason())
	}
	a, ok := after.Get()
	if !ok {
		return results.Unavailable[float64]("the key index's size: " + after.Reason())
	}
	if b, ok := before.Get(); ok {
		a = (a + b) / 2
	}
	return results.Of(float64(a) / float64(c))
}

// roundWarmup is the warm-up of a cell's rounds after its first.
const roundWarmup = scenario.RoundWarmup

// finish ends a cell after its rounds: the driver's results merged and
// summarized by the workload, the rounds' metrics merged, then the evidence.
func (cr *cellRun) finish(ctx context.Context) error {
	dres := driver.Merge(cr.results)
	fillDriverResult(cr.c, dres)
	o, err := cr.summarize(dres)
	if err != nil {
		return err
	}
	summary := cr.c.Metrics.Summary
	var txns int64 // every transaction the sessions watched: the windows' and the warm-ups'
	for _, d := range cr.results {
		txns += d.Txns + d.WarmupTxns
	}
	cr.c.Metrics = metrics.MergeRounds(cr.metrics, o.Inserted, txns)
	cr.c.Metrics.Summary = summary
	if err := cr.r.evidence(ctx, cr.tables[0], o.Expected, cr.c); err != nil {
		return err
	}
	cr.c.Metrics.KeyIndexGrowthPerRow = growthPerRow(cr.keyIndexBefore, cr.c.Metrics.KeyIndexBytes, o.Inserted)
	cr.c.Metrics.KeyIndexCacheRatio = meanRatio(cr.keyIndexBefore, cr.c.Metrics.KeyIndexBytes, cr.c.Metrics.CacheBytes)
	if cr.r.engine.Distributed() {
		// What the server keybench reaches saw is not where the rows are.
		metrics.Elsewhere(ctx, cr.r.admin, cr.r.engine, cr.tables[0].Qualified(), &cr.c.Metrics)
	}
	if cr.hooks.Maintain != nil {
		step := cr.r.ui.Step("  timing maintenance (VACUUM, ANALYZE, REINDEX, COPY TO)")
		defer step.Done()
		return cr.hooks.Maintain(ctx, cr.r.admin, cr.tables)
	}
	return nil
}

// setUp resolves the cell's key, configures its workload and creates the
// tables the workload declares.
func (r *run) setUp(ctx context.Context, pc scenario.Cell, c *results.Cell, at workload.Place, rounds int) (*cellRun, error) {
	key := r.keys[pc.Key]
	c.KeyGen, c.KeyNote = string(key.Gen), key.Note
	meta, _ := workload.Lookup(pc.Workload)
	o := r.cfg.Plan.Options(pc, r.cfg.Seed)
	wl, err := meta.New(o)
	if err != nil {
		return nil, err
	}
	cr := &cellRun{r: r, pc: pc, c: c, wl: wl, key: key, at: at, tables: wl.Tables(at, key)}
	if h, ok := wl.(workload.Hooked); ok {
		cr.hooks = h.Hooks()
	}
	p := r.cfg.Plan.Params
	cr.win = workload.Window{Warmup: p.Warmup, Duration: p.Duration, Txns: p.Txns, Rounds: rounds}
	if w, ok := wl.(workload.Windowed); ok {
		w.Window(&cr.win)
	}
	cr.win.Rounds = max(1, min(cr.win.Rounds, rounds))
	c.RowsBefore, c.WarmupS = cr.tables[0].Rows, cr.win.Warmup.Seconds()
	if key.Gen == keys.GenClient {
		cr.gen = pc.Key.NewGenerator()
	}
	if pf := pc.Key.Prefill; pf != nil {
		if cr.prefill, err = pf.Resolve(r.keyServer(at)); err != nil {
			return cr, err
		}
		c.PrefillKey = pf.Raw
	}
	for _, t := range cr.tables {
		if err := r.ws.Create(ctx, r.admin, workload.Objects(t, r.keyServer(at))...); err != nil {
			return cr, err
		}
		ddl := workload.DDL(t, r.keyServer(at))
		if r.cfg.Distribute {
			// Sharded right after it is made, before its fill and its indexes.
			stmt, err := workload.DistributeStatement(t, r.cfg.ShardCount)
			if err != nil {
				return cr, err
			}
			if _, err := r.admin.Exec(ctx, stmt); err != nil {
				return cr, fmt.Errorf("distributing %s: %w", t.Qualified(), err)
			}
			at := len(ddl) - len(workload.IndexStatements(t))
			ddl = append(ddl[:at], append([]string{stmt}, ddl[at:]...)...)
		}
		c.DDL = append(c.DDL, ddl...)
	}
	return cr, nil
}

// keyServer is what keys need to know of the server and the keyed table.
func (r *run) keyServer(at workload.Place) keys.Server {
	return keys.Server{Major: r.major, Schema: at.Schema, Table: at.Table}
}

// drop drops the cell's tables. An interrupted run leaves them to the
// run's clean-up (the workspace's, or the embedded server's end): a lock
// held by another session must not delay the stop.
func (cr *cellRun) drop(ctx context.Context) {
	if ctx.Err() != nil || cr.r.admin.IsClosed() {
		return
	}
	dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	names := make([]string, len(cr.tables))
	for i, t := range cr.tables {
		names[i] = t.Name
	}
	// Only what the workspace recorded creating; a failure leaves it to the clean-up.
	_ = cr.r.ws.DropTables(dctx, cr.r.admin, names...)
}

func closeAll(conns []*pgx.Conn) {
	for _, cn := range conns {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = cn.Close(cctx)
		cancel()
	}
}

// window runs the warm-up and the measured window (win) while the metrics
// session watches, then, after the last, the workload's PostRun on the
// clients' first connection; it closes the connections and returns the
// driver's result.
func (cr *cellRun) window(ctx context.Context, conns []*pgx.Conn, clients []driver.Client, win workload.Window, last bool) (*driver.Result, *metrics.Session, error) {
	r, c := cr.r, cr.c
	sess := metrics.Start(ctx, r.metricsEnv(cr.tables), win.Warmup)
	watch := r.watchStalls(ctx, win.Warmup)
	unit := map[bool]string{true: "txns", false: "s"}[win.Txns > 0]
	if win.Unit != "" && win.Txns > 0 {
		unit = win.Unit
	}
	// The warm-up is a phase of its own: the window's bar (and its ETA)
	// starts with the window's first second.
	if win.Warmup > 0 {
		r.ui.Logf("  warming up for %s (not measured)", win.Warmup)
	}
	var bar *Bar
	startBar := func() {
		if bar != nil {
			return
		}
		bar = r.ui.Phase("  measuring", windowUnits(win, len(clients)), unit)
		if unit == "s" {
			bar.Every(int64(r.cfg.ProgressEvery))
		}
	}
	progress, _ := cr.wl.(workload.Progresser)
	var done int64
	dres, err := driver.Run(ctx, driver.Config{Warmup: win.Warmup, Duration: win.Duration, Txns: win.Txns, OnSecond: func(s driver.Second) {
		startBar()
		watch.second(s.Txns)
		if win.Txns > 0 {
			done += s.Txns
		} else {
			done = int64(s.T)
		}
		if progress != nil {
			bar.Set(done, progress.Progress(s))
		} else {
			bar.Set(done, fmt.Sprintf("%.0f tps, p99 %.2f ms", s.TPS, s.P99ms))
		}
	}}, clients)
	if bar != nil {
		bar.Done()
	}
	watch.stop()
	if err == nil && last && dres != nil && windowFailure(dres) == nil && cr.hooks.PostRun != nil {
		var step *Step
		if name := cr.hooks.PostRunStep; name != "" {
			step = r.ui.Step("  " + name)
		}
		err = cr.hooks.PostRun(ctx, conns[0], cr.tables)
		if step != nil {
			step.Done()
		}
	}
	sess.StopSampling()
	for _, cn := range conns {
		metrics.FlushStats(ctx, cn.PgConn())
	}
	closeAll(conns)
	if err != nil {
		return dres, nil, err
	}
	if dres.Interrupted {
		return dres, nil, ErrInterrupted
	}
	if dres.ClientsLost > 0 {
		// The window lost clients part-way: its figures are not those of the planned client count.
		return dres, nil, fmt.Errorf("%d of %d clients lost their connections: %s", dres.ClientsLost, len(clients), firstOr(dres.ErrorSamples, "no error recorded"))
	}
	if err := windowFailure(dres); err != nil {
		return dres, nil, err
	}
	if dres.Unfinished > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d clients were still in a transaction when the window ended (the longest for %.1f s): "+
			"their time in the window is in the latencies, and their transactions were cancelled", dres.Unfinished, len(clients), dres.LongestUnfinished.Seconds()))
	}
	if dres.StalledS > 0 {
		c.Status = results.StatusInvalid
		c.Error = stallError(dres)
	}
	return dres, sess, nil
}

// summarize hands the window to the workload, which may replace the
// driver's figures with its own and add its summary.
func (cr *cellRun) summarize(dres *driver.Result) (*workload.Outcome, error) {
	o := &workload.Outcome{Result: dres, Cell: cr.c, Tables: cr.tables,
		Inserted: dres.TotalRows, Expected: cr.tables[0].Rows + dres.TotalRows}
	o.Cores = cr.r.target.cores(cr.r.res.Environment.Host)
	if s, ok := cr.wl.(workload.Summarizer); ok {
		if err := s.Summarize(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// evidence ends a cell: sizes, the key index's density and bloat, and the
// rows the server holds checked against expected.
func (r *run) evidence(ctx context.Context, t *workload.Table, expected int64, c *results.Cell) error {
	step := r.ui.Step("  collecting evidence (statistics, REINDEX, pgstatindex, WAL inspection)")
	defer step.Done()
	// Every collector needs the table: one probe fails the cell at once,
	// with the reason, when another session holds it locked, instead of
	// each collector waiting out its own lock timeout.
	if err := probeLock(ctx, r.admin, t.Qualified()); err != nil {
		return err
	}
	metrics.Sizes(ctx, r.admin, t.Qualified(), &c.Metrics)
	metrics.Index(ctx, r.admin, r.ext, t.Qualified(), workload.KeyIndexNames(t), t.Key.Index != keys.IndexHash && t.Key.Index != keys.IndexBrin, &c.Metrics)
	metrics.Cache(ctx, r.admin, &c.Metrics)
	var server int64
	if err := r.admin.QueryRow(ctx, "SELECT count(*) FROM "+t.Qualified()).Scan(&server); err != nil {
		return explainLockTimeout(err, "counting the rows the server holds")
	}
	c.RowCheck = &results.RowCheck{Expected: expected, Server: server, OK: expected == server}
	if !c.RowCheck.OK {
		c.Status = results.StatusInvalid
		c.Error = fmt.Sprintf("the server holds %d rows, keybench wrote %d", server, expected)
	}
	return nil
}

// fill prefills the keyed table, builds the tables' indexes (those not
// deferred), runs the workload's PostLoad and settles the tables as the
// source benchmarks did: VACUUM ANALYZE, then CHECKPOINT.
func (cr *cellRun) fill(ctx context.Context) error {
	r, c, t, gen := cr.r, cr.c, cr.tables[0], cr.gen
	if cr.prefill != nil {
		// The table is filled with another key than the window's (a table
		// switching keys): the fill sees a copy of it with that key.
		pt := *t
		pt.Key, t = cr.prefill, &pt
		gen = cr.prefill.NewGenerator()
	}
	rows := t.Rows
	pf := &results.Prefill{Rows: rows, Method: workload.PrefillMethod(t)}
	t0 := time.Now()
	var hist *workload.History
	if rows > 0 && t.Key.UsesWallClock() {
		// The prefill stands for a history that ends as it starts (see workload.HistoryRowsPerS).
		hist = workload.NewHistory(rows, t0)
		pf.History = &results.History{RowsPerS: hist.RowsPerS, SpanS: hist.Span(rows).Seconds()}
		switch _, serverAt := t.Key.ServerValueAt("0"); {
		case t.Key.Gen == keys.GenClient:
			gen = t.Key.Spec.NewGeneratorAt(hist.Clock())
			pf.History.Note = "keys made by keybench's generator with a history clock"
		case serverAt:
			t.History = hist
			defer func() { t.History = nil }()
			pf.History.Note = "keys made by the server at the history's times"
		default:
			pf.History.Note = "keys made by the server's clock during the prefill: this server cannot make them for other times"
		}
	}
	if rows > 0 {
		bar := r.ui.Phase("  prefill", rows, "rows")
		err := workload.Prefill(ctx, r.admin, t, gen, rows, func(n int64) { bar.Set(n, "") })
		bar.Done()
		if err != nil {
			return err
		}
	}
	pf.LoadS = time.Since(t0).Seconds()
	if pf.LoadS > 0 && rows > 0 {
		pf.RowsPerS = float64(rows) / pf.LoadS
	}
	t1 := time.Now()
	step := r.ui.Step("  building indexes, VACUUM ANALYZE, CHECKPOINT")
	defer step.Done()
	for _, tt := range cr.tables {
		if tt.DeferIndexes {
			continue
		}
		for _, s := range workload.IndexStatements(tt) {
			if _, err := r.admin.Exec(ctx, s); err != nil {
				return explainLockTimeout(err, s)
			}
		}
	}
	pf.IndexBuildS = time.Since(t1).Seconds()
	if cr.hooks.PostLoad != nil {
		if err := cr.hooks.PostLoad(ctx, r.admin, cr.tables); err != nil {
			return err
		}
	}
	t2 := time.Now()
	for _, tt := range cr.tables {
		if _, err := r.admin.Exec(ctx, "VACUUM ANALYZE "+tt.Qualified()); err != nil {
			return explainLockTimeout(err, "VACUUM ANALYZE "+tt.Qualified())
		}
	}
	// A cell in rounds checkpoints before each round (round): one here
	// would only be repeated.
	if cr.win.Rounds <= 1 {
		if err := r.checkpoint(ctx); err != nil {
			return err
		}
	}
	pf.VacuumS = time.Since(t2).Seconds()
	cr.keyIndexBefore = metrics.KeyIndexBytes(ctx, r.admin, workload.KeyIndexNames(cr.tables[0]))
	if hist != nil {
		// The rest of the gap, to the window's start, is added by measure.
		pf.History.EndsBeforeWindowS = time.Since(t0).Seconds()
	}
	if rows > 0 {
		c.Prefill = pf
		r.ui.Logf("  prefilled %d rows in %.1f s (%.0f rows/s, %s), indexes %.1f s", rows, pf.LoadS, pf.RowsPerS, pf.Method, pf.IndexBuildS)
	}
	cr.filled = time.Now()
	return nil
}

// connectClients opens one connection per client and prepares its statements.
func (cr *cellRun) connectClients(ctx context.Context) ([]*pgx.Conn, []driver.Client, error) {
	r, n := cr.r, cr.pc.Clients
	conns := make([]*pgx.Conn, 0, n)
	clients := make([]driver.Client, 0, n)
	cc := r.conn.Copy()
	cc.RuntimeParams["application_name"] = r.clientApp()
	for i := 0; i < n; i++ {
		cn, err := pgx.ConnectConfig(ctx, cc)
		if err != nil {
			return conns, nil, fmt.Errorf("client %d: connecting: %w", i+1, err)
		}
		conns = append(conns, cn)
		w, err := cr.wl.NewWorker(ctx, cn, cr.tables, cr.gen, i)
		if err != nil {
			return conns, nil, fmt.Errorf("client %d: %w", i+1, err)
		}
		pg := cn.PgConn()
		dc := driver.Client{Txn: w.Txn, Conn: pg.Conn(), Broken: pg.IsClosed, Cancel: func() {
			cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = pg.CancelRequest(cctx)
		}}
		if rw, ok := w.(workload.RoleWorker); ok {
			dc.Role = rw.Role()
		}
		// A worker that can run as protocol messages runs on the driver's
		// event loops, over the connection's own socket.
		if m, ok := w.(driver.Machine); ok {
			if fc, ok := pg.Conn().(interface{ FD() int }); ok {
				dc.Machine, dc.FD = m, fc.FD()
			}
		}
		clients = append(clients, dc)
	}
	return conns, clients, nil
}

// clientApp is the application_name of the cell's clients, by which the
// sampler finds them; the run's id keeps two runs' clients apart.
func (r *run) clientApp() string { return "keybench client " + r.runID }

func (r *run) metricsEnv(tables []*workload.Table) metrics.Env {
	env := metrics.Env{Admin: r.admin, ConnConfig: r.conn, Schema: tables[0].Schema, Table: tables[0].Name, Major: r.major, Ext: r.ext, ClientApp: r.clientApp(),
		Relations: workload.Relations(tables), LeafTables: workload.LeafTables(tables),
		StandbyWait: r.cfg.StandbyWait, Lagging: r.lagging, Logf: func(f string, a ...any) { r.ui.Logf("  "+f, a...) }}
	if r.cfg.Sampling {
		env.WaitEvery, env.CacheEvery = 500*time.Millisecond, 2*time.Second
	}
	env.ServerPID, env.DataDir = r.target.process()
	_, env.NoStandby = r.target.standbys()
	return env
}

// waitForClientsGone waits (up to 5 s) until the clients' backends have
// exited, which flushes their statistics (WAL, IO) for the counters.
func (r *run) waitForClientsGone(ctx context.Context) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := r.admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", r.clientApp()).Scan(&n); err != nil || n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func windowUnits(w workload.Window, clients int) int64 {
	if w.Txns > 0 {
		return w.Txns * int64(clients)
	}
	return int64(w.Duration.Round(time.Second) / time.Second)
}

func fillDriverResult(c *results.Cell, d *driver.Result) {
	c.DurationS = d.Elapsed.Seconds()
	c.Txns, c.RowsInserted, c.Errors = d.Txns, d.Rows, d.Errors
	c.TPS = d.TPS()
	if c.DurationS > 0 {
		c.RowsPerS = float64(d.Rows) / c.DurationS
	}
	c.LatencyMS = driver.LatencyMS(d.Latency)
	c.Timeline = d.Timeline
	c.ErrorSamples = d.ErrorSamples
}

// probeLock takes and releases the lock the collectors need on table.
func probeLock(ctx context.Context, conn *pgx.Conn, table string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS SHARE MODE"); err != nil {
		return explainLockTimeout(err, "collecting the evidence of "+table)
	}
	return tx.Commit(ctx)
}

// windowFailure is the reason a window's figures are no measurement at
// all: a transaction failed (a statement the server refuses fails every
// time), or none completed.
func windowFailure(d *driver.Result) error {
	if len(d.ErrorSamples) > 0 {
		return fmt.Errorf("%d transactions in the window failed (%d completed): %s", d.Errors, d.Txns, d.ErrorSamples[0])
	}
	if d.Txns == 0 {
		return fmt.Errorf("no transaction completed in the window (%.1f s)", d.Elapsed.Seconds())
	}
	return nil
}

// stallError explains a window in which keybench itself did not run.
func stallError(d *driver.Result) string {
	var at []string
	for _, s := range d.Stalls {
		at = append(at, fmt.Sprintf("%.1f s from %.0f s", s.Seconds, s.AtS))
	}
	return fmt.Sprintf("keybench did not run for at least %.1f s of the %.1f-s window (%s): the process was stopped or starved of CPU, "+
		"its clients sent nothing then, so the window's rate is not the server's", d.StalledS, d.Elapsed.Seconds(), strings.Join(at, ", "))
}

func firstOr(s []string, d string) string {
	if len(s) == 0 {
		return d
	}
	return s[0]
}

// checkpoint settles the server before a measurement, as the source
// benchmarks did. On someone else's server a role without pg_checkpoint (or
// superuser) may not: the run goes on, with a note (see noCheckpoint); on
// the embedded server a failure is one.
func (r *run) checkpoint(ctx context.Context) error {
	_, err := r.admin.Exec(ctx, "CHECKPOINT")
	if err != nil && !r.target.ownsCheckpoints() && ctx.Err() == nil {
		r.noCheckpoint(err)
		return nil
	}
	return err
}

// noCheckpoint records, once, that the role may not run CHECKPOINT: cells
// then start wherever the server's own checkpoints left off, so full-page
// images per row are not comparable between cells.
func (r *run) noCheckpoint(err error) {
	if r.checkpointNoted {
		return
	}
	r.checkpointNoted = true
	n := fmt.Sprintf("this role may not run CHECKPOINT (%v): cells start wherever the server's own checkpoints left off, "+
		"so full-page images per row are not comparable between cells (grant pg_checkpoint, PostgreSQL 15+)", err)
	r.res.Notes = append(r.res.Notes, n)
	r.ui.Logf("note: %s", n)
}
