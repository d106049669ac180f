package runner

// The life of one cell, in the order it lives: set up (its workload built
// with its options, its tables created through the workspace) → fill (the
// prefill, indexes, the workload's PostLoad, VACUUM ANALYZE) → rounds
// (each: clients → warm-up and window → the metrics session's figures) →
// finish (summarize → before the evidence → merge the rounds' figures →
// evidence → maintain) → drop. Scheduling the cells' rounds is schedule.go's; the clients are
// clients.go's; the evidence evidence.go's.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/keybench/keybench/internal/histlog"
	"github.com/keybench/keybench/internal/txnlog"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/cluster"
	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workload"
)

// cellRun is one cell on its way through the lifecycle every workload shares.
type cellRun struct {
	r     *run
	pc    scenario.PlannedCell
	c     *results.Cell
	wl    workload.Workload
	hooks workload.Hooks
	// checkpointS is how long the last round's own CHECKPOINT took.
	checkpointS float64
	key         *keys.Resolved
	gen         keys.Generator
	// prefill is the key the table is filled with when it is not key.
	prefill *keys.Resolved
	// keyIndexBefore is the key index's size when the fill ended.
	keyIndexBefore results.M[int64]
	at             workload.Place
	tables         []*workload.Table
	win            workload.Window
	// filled is when the fill ended; results and metrics are the rounds' so far.
	filled time.Time
	// together is how many cells were filled at once with this one (fillAll).
	together int
	// touches gathers the pages each round wrote a full image of (the
	// steady-state WAL), nil when they cannot be read: noTouches says why.
	touches   *metrics.FirstTouches
	noTouches string
	results   []*driver.Result
	metrics   []results.Metrics
	// cost watches the round running now: its backends' and keybench's CPU.
	cost *metrics.CostWatch
	// carried is the CPU (ns) autovacuum workers spent on the cell's
	// tables during other cells' rounds since its last (chargeVacuum).
	carried int64
	// cluster reads the cell on each worker of a distributed engine (nil
	// elsewhere, or when the shards could not be found: the warning says why).
	cluster *cluster.Watch
	// granted: the script's role was given its rights on the cell's tables.
	granted bool
}

// setUp builds the cell's workload with its options, records them, and
// creates the tables the workload declares (through the workspace, which
// records each).
func (r *run) setUp(ctx context.Context, pc scenario.PlannedCell, c *results.Cell, at workload.Place, rounds int) (*cellRun, error) {
	// Resolved again at the cell's own place: a server-made key's default
	// names its table's own sequence (kb_cell3_kbseq for kb_cell3).
	key, err := pc.Key.Resolve(r.keyServer(at))
	if err != nil {
		return nil, err
	}
	c.KeyGen, c.KeyNote = string(key.Gen), key.Note
	built, err := r.cfg.Plan.Build(pc, r.cfg.Seed)
	if err != nil {
		return nil, err
	}
	wl := built.Workload
	c.Options, c.Variant = built.Options, built.Variant
	cr := &cellRun{r: r, pc: pc, c: c, wl: wl, key: key, at: at, tables: wl.Tables(at, key)}
	if err := r.distribution(cr.tables, pc.Task.Workload); err != nil {
		return nil, err
	}
	if rounds > 1 {
		cr.touches, cr.noTouches = metrics.NewFirstTouches(r.major, r.ext)
	} else {
		// One window: nothing to fit the pages' touches over (and a load's
		// millions of images need not travel to keybench).
		cr.noTouches = metrics.NeedsRounds
	}
	if h, ok := wl.(workload.Hooked); ok {
		cr.hooks = h.Hooks()
	}
	p := r.cfg.Plan.Params
	cr.win = workload.Window{Warmup: p.Warmup, Duration: p.Duration, Txns: p.CellTxns(pc.Rows, pc.Clients), Rounds: rounds, Rate: p.Rate, LatencyLimit: p.LatencyLimit}
	if cr.win.Txns > 0 {
		cr.win.Duration = 0
	}
	if !p.FixedWarmup {
		cr.win.SteadyAfter = scenario.SteadyAfter
	}
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
		if err := cr.create(ctx, t); err != nil {
			return cr, err
		}
	}
	return cr, nil
}

// create makes one of the cell's tables, sharded at once on a distributed
// engine, and records its DDL in the cell.
func (cr *cellRun) create(ctx context.Context, t *workload.Table) error {
	r := cr.r
	if err := r.ws.Create(ctx, r.admin, workload.Objects(t, r.keyServer(cr.at))...); err != nil {
		return err
	}
	t.Ledger = r.ws
	ddl := workload.DDL(t, r.keyServer(cr.at))
	if r.cfg.Distribute {
		// Sharded right after it is made, before its fill and its indexes.
		stmt, err := workload.DistributeStatement(t, r.cfg.ShardCount)
		if err != nil {
			return err
		}
		if _, err := r.admin.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("distributing %s: %w", t.Qualified(), err)
		}
		at := len(ddl) - len(workload.IndexStatements(t))
		ddl = append(ddl[:at], append([]string{stmt}, ddl[at:]...)...)
	}
	cr.c.DDL = append(cr.c.DDL, ddl...)
	return nil
}

// keyServer is what keys need to know of the server and the keyed table.
func (r *run) keyServer(at workload.Place) keys.Server {
	return keys.Server{Major: r.major, Schema: at.Schema, Table: at.Table}
}

// fill prefills the keyed table, builds the tables' indexes (those not
// deferred), runs the workload's PostLoad and settles the tables as the
// source benchmarks did: VACUUM ANALYZE, then CHECKPOINT; all on conn (a
// connection of keybench's own, which may fill another cell's tables at
// the same time as the admin connection fills these: fillAll).
func (cr *cellRun) fill(ctx context.Context, conn *pgx.Conn) error {
	r, t := cr.r, cr.tables[0]
	// A table filled indexed grows its indexes as inserts do (their leaf
	// density the key's order's): they are built first, empty.
	t0 := time.Now()
	if err := cr.buildIndexes(ctx, conn, true); err != nil {
		return err
	}
	before := time.Since(t0)
	pf, err := cr.prefillRows(ctx, conn)
	if err != nil {
		return err
	}
	t1 := time.Now()
	step := r.ui.Step("  " + cr.pc.Key.Raw + ": building indexes, VACUUM ANALYZE")
	defer step.Done()
	if err := cr.buildIndexes(ctx, conn, false); err != nil {
		return err
	}
	pf.IndexBuildS = (time.Since(t1) + before).Seconds()
	if t.FillIndexed {
		pf.Note = strings.TrimPrefix(pf.Note+"; the key index was built before the prefill, which grew it as inserts do", "; ")
	}
	if cr.hooks.PostLoad != nil {
		if err := cr.hooks.PostLoad(ctx, conn, cr.tables); err != nil {
			return err
		}
	}
	t2 := time.Now()
	if err := cr.settle(ctx, conn); err != nil {
		return err
	}
	pf.VacuumS = time.Since(t2).Seconds()
	cr.keyIndexBefore = metrics.KeyIndexBytes(ctx, conn, workload.KeyIndexNames(t))
	if pf.History != nil {
		// The rest of the gap, to the window's start, is added by the first round.
		pf.History.EndsBeforeWindowS = time.Since(t.History.End()).Seconds()
	}
	if cr.together > 1 {
		pf.Together = cr.together
	}
	if pf.Rows > 0 {
		cr.c.Prefill = pf
		r.ui.Logf("  %s: prefilled %d rows in %.1f s (%.0f rows/s, %s), indexes %.1f s", cr.pc.Key.Raw, pf.Rows, pf.LoadS, pf.RowsPerS, pf.Method, pf.IndexBuildS)
	}
	cr.filled = time.Now()
	return nil
}

// prefillRows loads the keyed table's rows, made with the key the table is
// filled with, and, when that key depends on the clock, as a history that
// ends as the window starts (see workload.HistoryRowsPerS). It marks the
// fill's start in cr.filled.
func (cr *cellRun) prefillRows(ctx context.Context, conn *pgx.Conn) (*results.Prefill, error) {
	r, t := cr.r, cr.tables[0]
	if cr.prefill != nil {
		// The table is filled with another key than the window's (a table
		// switching keys): the fill sees a copy of it with that key.
		pt := *t
		pt.Key, t = cr.prefill, &pt
	}
	rows := t.Rows
	pf := &results.Prefill{Rows: rows, Method: workload.PrefillMethod(t)}
	cr.filled = time.Now()
	clock := time.Now
	// The history the table was made with (workload.KeyedTable): the
	// prefill's rows were born over it, the times a clock-made key of each
	// row encodes (its i-th reading of the clock), its created_at holds, and
	// a partition by time bounds.
	hist := t.History
	if hist == nil {
		hist = workload.NewHistory(rows, 0, cr.filled)
		t.History = hist
	}
	if rows > 0 && (t.Key.UsesWallClock() || t.HasCreatedAt() || t.TimePartitioned()) {
		pf.History = &results.History{RowsPerS: hist.RowsPerS, SpanS: hist.Span().Seconds()}
	}
	if rows > 0 && t.Key.UsesWallClock() {
		switch _, serverAt := t.Key.ServerValueAt("0"); {
		case pf.Method == workload.LoadCopy:
			clock = hist.Clock()
			pf.History.Note = "keys made by keybench's generator with a history clock"
		case serverAt:
			t.ServerAtHistory = true
			defer func() { t.ServerAtHistory = false }()
			pf.History.Note = "keys made by the server at the history's times"
		default:
			pf.History.Note = "keys made by the server's clock during the prefill: this server cannot make them for other times"
		}
	}
	// The window's client-made keys continue the prefill's generator (a
	// counter goes on from where the prefill left it).
	gen, after := cr.gen, []string(nil)
	if cr.prefill != nil || gen == nil || pf.History != nil {
		gen, after = t.Key.FillGenerator(r.keyServer(cr.at), clock, rows)
	}
	if t.Key.Gen == keys.GenServer && gen != nil {
		pf.Note = "the server makes the keys; the prefill's were made by keybench's generator of the same values, the server's generator moved past them"
	}
	if rows > 0 && cr.withoutWAL() {
		pf.Note = strings.TrimPrefix(pf.Note+"; loaded at wal_level minimal into the table emptied in its transaction: written without WAL, synced at commit", "; ")
	}
	if rows > 0 {
		bar := r.ui.Phase("  "+cr.pc.Key.Raw+": prefill", rows, "rows")
		err := cr.heldFill(ctx, conn, func() error {
			return workload.Prefill(ctx, conn, t, gen, after, rows, func(n int64) { bar.Set(n, "") })
		})
		bar.Done()
		if err != nil {
			return pf, err
		}
	}
	pf.LoadS = time.Since(cr.filled).Seconds()
	if pf.LoadS > 0 && rows > 0 {
		pf.RowsPerS = float64(rows) / pf.LoadS
	}
	return pf, nil
}

// heldFill runs fill (the prefill's loads) in one transaction that holds
// the cell's tables against anything that would add code to them (SHARE
// ROW EXCLUSIVE: CREATE TRIGGER, a rule, a policy, a default wait for it),
// after judging them under that lock: a trigger someone added since the
// table was made would fire on every row the fill loads.
func (cr *cellRun) heldFill(ctx context.Context, conn *pgx.Conn, fill func() error) error {
	names := make([]string, len(cr.tables))
	for i, t := range cr.tables {
		names[i] = t.Qualified()
	}
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE "+strings.Join(names, ", ")+" IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return explainLockTimeout(err, "LOCK TABLE "+strings.Join(names, ", "))
		}
		if err := cr.r.ws.Judge(ctx, conn, cr.tableNames()...); err != nil {
			return err
		}
		if cr.withoutWAL() {
			// The table is keybench's, just made, judged under the
			// lock; TRUNCATE fires nothing the judge allows.
			if _, err := tx.Exec(ctx, "TRUNCATE "+names[0]); err != nil {
				return explainLockTimeout(err, "TRUNCATE "+names[0])
			}
		}
		return fill()
	})
}

// withoutWAL says the prefill writes no WAL: at wal_level minimal (a
// restart for the fills: server.MinimalWAL) a table emptied in the fill's
// transaction gets new files, which PostgreSQL fills without WAL and syncs
// at commit: the same pages, a quarter less of the fill's time. A cell of
// several tables (one may reference another) keeps its WAL.
func (cr *cellRun) withoutWAL() bool { return cr.r.walSkipped && len(cr.tables) == 1 }

// buildIndexes builds the indexes of the cell's tables that the workload
// does not build itself (DeferIndexes): before the prefill (first) those
// of the tables filled indexed, after it the others.
func (cr *cellRun) buildIndexes(ctx context.Context, conn *pgx.Conn, first bool) error {
	for _, t := range cr.tables {
		if t.DeferIndexes || t.FillIndexed != first {
			continue
		}
		for _, s := range workload.IndexStatements(t) {
			if _, err := conn.Exec(ctx, s); err != nil {
				return explainLockTimeout(err, s)
			}
		}
	}
	return nil
}

// settle runs VACUUM ANALYZE on the cell's tables, and a CHECKPOINT unless
// the cell runs in rounds (each round starts from one of its own).
func (cr *cellRun) settle(ctx context.Context, conn *pgx.Conn) error {
	for _, t := range cr.tables {
		if _, err := conn.Exec(ctx, "VACUUM ANALYZE "+t.Qualified()); err != nil {
			return explainLockTimeout(err, "VACUUM ANALYZE "+t.Qualified())
		}
	}
	if cr.win.Rounds <= 1 {
		return cr.r.checkpointOn(ctx, conn)
	}
	return nil
}

// tableNames are the names of the cell's tables.
func (cr *cellRun) tableNames() []string {
	names := make([]string, len(cr.tables))
	for i, t := range cr.tables {
		names[i] = t.Name
	}
	return names
}

// round runs one round of the cell: its clients connect, warm up and run
// the round's share of the window while the metrics session watches.
func (cr *cellRun) round(ctx context.Context, n int) error {
	r := cr.r
	win, err := cr.roundWindow(ctx, n)
	if err != nil {
		return err
	}
	cr.ownRelations(ctx)
	// What someone added to keybench's tables since they were made (a
	// trigger, a rule, a policy) would run on the round's statements:
	// looked for before each round — held from then on where the user's
	// SQL runs (holdTables) — and after it, to stop the run. The embedded
	// server is judged too: its socket is private, but every embedded
	// server runs as the same user of the machine, which a superuser of
	// any one of them (keybench server --tcp hands one out) can act as.
	release, err := cr.holdTables(ctx)
	if err != nil {
		return err
	}
	defer release()
	if err := cr.judgeTables(ctx, n, false); err != nil {
		return err
	}
	conns, clients, err := cr.connectClients(ctx)
	defer closeAll(conns)
	if err != nil {
		return err
	}
	began := time.Now()
	dres, sess, err := cr.window(ctx, conns, clients, win, n == cr.win.Rounds)
	if jerr := cr.judgeTables(ctx, n, true); jerr != nil {
		return jerr
	}
	var start float64 // when the round's window started, in seconds into the run
	if dres != nil {
		cr.results = append(cr.results, dres)
		start = began.Add(dres.Warmup).Sub(r.started).Seconds()
		if n == 1 {
			cr.c.WarmupS, cr.c.WarmupSteady = dres.Warmup.Seconds(), dres.Steady
			if cr.c.Prefill != nil && cr.c.Prefill.History != nil {
				cr.c.Prefill.History.EndsBeforeWindowS += began.Add(dres.Warmup).Sub(cr.filled).Seconds()
			}
		}
	}
	if err != nil {
		return err
	}
	r.waitForClientsGone(ctx)
	var m results.Metrics
	sess.Stop(ctx, &m) // figures per row are taken over the whole cell (finish)
	cr.metrics = append(cr.metrics, m)
	if cr.cluster != nil {
		cr.cluster.EndRound(ctx)
	}
	if cr.touches != nil {
		cr.touches.EndRound(perRowRows(dres.TotalWork))
	}
	if cr.win.Rounds > 1 {
		secs := dres.Elapsed.Seconds()
		rate := cr.c.Kind().Rate(dres.Txns, roleRows(dres), secs)
		cost := cr.roundCost(dres, &m)
		rd := results.Round{Round: n, StartS: start, DurationS: secs, Txns: dres.Txns, Rate: rate, WarmupS: dres.Warmup.Seconds(), WarmupSteady: dres.Steady, Cost: cost,
			CheckpointS: cr.checkpointS}
		lat := driver.LatencyMS(dres.Latency)
		rd.LatencyMS = &lat
		if dres.Pace != nil {
			rd.P99MS = lat.P99
		}
		cr.c.Rounds = append(cr.c.Rounds, rd)
		// The cell holds what its rounds measured so far: an interrupted
		// run keeps it (the cell is then marked interrupted, not summarized).
		fillDriverResult(cr.c, driver.Merge(cr.results))
	} else {
		cr.c.Cost = cr.roundCost(dres, &m)
	}
	return nil
}

// judgeTables judges the cell's tables before round n or after it
// (Workspace.Judge): what someone else's session added since.
func (cr *cellRun) judgeTables(ctx context.Context, n int, after bool) error {
	r := cr.r
	err := r.ws.Judge(ctx, r.admin, cr.tableNames()...)
	if err == nil {
		return nil
	}
	if _, hook := errors.AsType[*usage.Error](err); !hook || !after {
		return r.onAdmin(err)
	}
	return fmt.Errorf("during round %d, someone changed keybench's tables: %w", n, err)
}

// roundCost is what the round's transactions cost, per transaction:
// the server's backends and IO, and on a distributed engine its workers'.
func (cr *cellRun) roundCost(dres *driver.Result, m *results.Metrics) *results.RoundCost {
	cost := metrics.CostOfRound(cr.cost, dres.WarmupTxns+dres.Txns, m)
	if cr.cost != nil {
		cr.chargeVacuum(cost, cr.cost.Vacuum())
	}
	if cr.cluster != nil {
		cr.cluster.AddToCost(cost)
	}
	return cost
}

// roundWindow is round n's share of the cell's window; a round after the
// first has a short warm-up (its table is warm) and every round of a cell
// in rounds starts from a checkpoint, as every cell does: full-page images
// per row stay comparable between rounds and cells.
func (cr *cellRun) roundWindow(ctx context.Context, n int) (workload.Window, error) {
	win := cr.win
	win.Round = n
	if cr.win.Rounds <= 1 {
		return win, nil
	}
	if win.Txns > 0 {
		win.Txns = roundShare(win.Txns, cr.win.Rounds, n)
		win.WarmupTxns = scenario.RoundWarmupTxns(win.Txns, n)
		win.Warmup, win.SteadyAfter = 0, 0
	} else {
		win.Duration = max(scenario.MinRoundWindow, win.Duration/time.Duration(cr.win.Rounds))
	}
	if n > 1 {
		win.Warmup = min(win.Warmup, roundWarmup)
	}
	return win, cr.r.checkpoint(ctx)
}

// window runs the warm-up and the measured window (win) while the metrics
// session watches, then, after the last, the workload's PostRun on the
// clients' first connection; it closes the connections and returns the
// driver's result.
func (cr *cellRun) window(ctx context.Context, conns []*pgx.Conn, clients []driver.Client, win workload.Window, last bool) (*driver.Result, *metrics.Session, error) {
	r := cr.r
	env := r.metricsEnv(cr.tables)
	env.Touches = cr.touches
	if w := cr.watchCluster(ctx); w != nil {
		w.StartRound(ctx)
	}
	sess := metrics.Start(ctx, env)
	cr.cost = cr.watchRound(ctx, conns, env.ServerPID)
	defer cr.cost.StopFollowing() // a window that fails before its end: the lent connection is free again
	watch := r.watchStalls(ctx, win.Warmup)
	switch {
	case win.WarmupTxns > 0:
		r.ui.Logf("  warming up for %d transactions per client (not measured)", win.WarmupTxns)
	case win.Warmup > 0 && win.SteadyAfter > 0 && win.SteadyAfter < win.Warmup:
		r.ui.Logf("  warming up until the rate is steady, at most %s (not measured)", win.Warmup)
	case win.Warmup > 0:
		r.ui.Logf("  warming up for %s (not measured)", win.Warmup)
	}
	var warm *driver.Result
	if win.WarmupTxns > 0 {
		var err error
		if warm, err = driver.Run(ctx, driver.Config{Txns: win.WarmupTxns, Rate: win.Rate}, clients); err == nil {
			err = windowFailure(warm)
		}
		if err != nil {
			sess.StopSampling()
			watch.stop()
			return warm, nil, fmt.Errorf("warming up: %w", err)
		}
	}
	beside, err := cr.beside(ctx)
	if err != nil {
		sess.StopSampling()
		watch.stop()
		return nil, nil, err
	}
	bar := cr.progressBar(win, len(clients))
	dres, err := driver.Run(ctx, driver.Config{Warmup: win.Warmup, SteadyAfter: win.SteadyAfter, Duration: win.Duration, Txns: win.Txns,
		Rate: win.Rate, LatencyLimit: win.LatencyLimit, ScheduleSeed: uint64(win.Round), Record: cr.r.cfg.TxnLog, SecondHistograms: cr.r.cfg.HistDir != "" && cr.r.cfg.HistSeconds,
		OnWindow: func(start time.Time) {
			sess.WindowStarts(start)
			watch.started(start)
			beside.start()
		},
		OnSecond: func(s driver.Second) {
			watch.second(s.Txns)
			bar.second(s)
		}}, clients)
	err = cr.endRound(ctx, sess, beside, dres, err)
	cr.cost.End() // before the clients disconnect: an exited backend's CPU is no longer read
	if warm != nil && dres != nil {
		dres.WarmupTxns += warm.Txns
		dres.Warmup += warm.Elapsed
		dres.TotalWork = dres.TotalWork.Add(warm.TotalWork)
		dres.TotalRows += warm.TotalRows
	}
	bar.done()
	watch.stop()
	if err == nil && last && dres != nil && windowFailure(dres) == nil && cr.hooks.PostRun != nil {
		err = cr.postRun(ctx, conns[0])
	}
	sess.StopSampling()
	for _, cn := range conns {
		metrics.FlushStats(ctx, cn.PgConn())
	}
	closeAll(conns)
	if err != nil {
		return dres, nil, err
	}
	if err := cr.judgeWindow(dres, len(clients)); err != nil {
		return dres, nil, err
	}
	return dres, sess, nil
}

// endRound closes a round's window: the workload's own job, which reads
// its WAL back, ends; the round's WAL is read back; then its own
// CHECKPOINT (roundCheckpoint), which may recycle that WAL.
func (cr *cellRun) endRound(ctx context.Context, sess *metrics.Session, beside *besideWindow, dres *driver.Result, err error) error {
	if berr := beside.wait(ctx); err == nil {
		err = berr
	}
	if err != nil || dres == nil {
		return err
	}
	sess.ReadWAL(ctx)
	return cr.roundCheckpoint(ctx)
}

// roundCheckpoint is the round's own CHECKPOINT, inside what the round is
// charged: it writes the pages this key dirtied (the next round's, before
// it starts, finds them clean), so that the checkpointer's CPU and writes
// go to this key's work, not the next one's.
func (cr *cellRun) roundCheckpoint(ctx context.Context) error {
	t := time.Now()
	if err := cr.r.checkpoint(ctx); err != nil {
		return err
	}
	cr.checkpointS = time.Since(t).Seconds()
	return nil
}

// writeHistLog writes the cell's latency histograms, one interval a round,
// to the run's --hist-file directory, and records the file in the cell.
func (cr *cellRun) writeHistLog() error {
	dir := cr.r.cfg.HistDir
	if dir == "" {
		return nil
	}
	var ivs []histlog.Interval
	for i, d := range cr.results {
		if d.Latency == nil {
			continue
		}
		start := cr.c.WarmupS
		if i < len(cr.c.Rounds) {
			start = cr.c.Rounds[i].StartS
		}
		ms := int64(start * 1000)
		if cr.r.cfg.HistSeconds {
			// A second an interval: the timeline's seconds (the last one
			// of the window may be partial), each its clients' merged.
			for j, h := range d.SecondLatency {
				from := ms + int64(j)*1000
				ivs = append(ivs, histlog.Interval{StartMS: from, EndMS: min(from+1000, ms+d.Elapsed.Milliseconds()), Latency: h})
			}
			continue
		}
		ivs = append(ivs, histlog.Interval{StartMS: ms, EndMS: ms + d.Elapsed.Milliseconds(), Latency: d.Latency})
	}
	path := histlog.FileName(dir, int(cr.r.histLogs.Add(1)), cr.c.Key, cr.c.Workload)
	each := "a round"
	if cr.r.cfg.HistSeconds {
		each = "a second"
	}
	comment := fmt.Sprintf("keybench %s: %s, %s, %d clients, %d rows before; latency in microseconds, %s an interval", cr.r.res.Scenario, cr.c.Key, cr.c.Workload, cr.c.Clients, cr.c.RowsBefore, each)
	if err := histlog.Write(path, comment, cr.r.started.UnixMilli(), ivs); err != nil {
		return fmt.Errorf("--hist-file: %w", err)
	}
	cr.c.HistFile = path
	return nil
}

// writeTxnLog writes the cell's transactions, every round's, as pgbench's
// log (-l; --aggregate-interval: its aggregates) to the run's log
// directory, records the file in the cell and lets the records go.
func (cr *cellRun) writeTxnLog() error {
	if !cr.r.cfg.TxnLog {
		return nil
	}
	dir := filepath.Join(cr.r.cfg.Out, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--log: %w", err)
	}
	var rounds [][]driver.Record
	paced := false
	for _, d := range cr.results {
		rounds = append(rounds, d.Records)
		paced = paced || d.Pace != nil
	}
	path := txnlog.FileName(dir, int(cr.r.txnLogs.Add(1)), cr.c.Key, cr.c.Workload)
	if err := txnlog.Write(path, rounds, cr.r.cfg.AggregateInterval, paced); err != nil {
		return fmt.Errorf("--log: %w", err)
	}
	for _, d := range cr.results {
		d.Records = nil
	}
	cr.c.TxnLog = path
	return nil
}

// watchRound starts watching the round's CPU (watchCost), autovacuum's
// followed unless --sampling is off (then it stays charged to the round
// it runs in).
func (cr *cellRun) watchRound(ctx context.Context, conns []*pgx.Conn, serverPID int) *metrics.CostWatch {
	w := watchCost(conns, serverPID)
	if cr.r.cfg.Sampling && w.Local() {
		if conn := cr.r.followConn(ctx); conn != nil {
			w.FollowVacuum(conn)
		}
	}
	w.Start()
	return w
}

// watchCost watches the CPU of a round's backends (conns') when they are
// processes of this machine: the embedded server's (serverPID), or a
// --dsn server's whose process titles this machine shows.
func watchCost(conns []*pgx.Conn, serverPID int) *metrics.CostWatch {
	var pids []uint32
	why := ""
	for _, c := range conns {
		pid, cfg := c.PgConn().PID(), c.Config()
		if serverPID == 0 && !metrics.IsLocalBackend(pid, cfg.User, cfg.Database) {
			why = "the server's backends are not processes of this machine (a remote server): their CPU time cannot be read"
			break
		}
		pids = append(pids, pid)
	}
	return metrics.WatchCost(pids, serverPID, why)
}

// besideWindow is the workload's DuringWindow job of one round, on a
// connection of its own: started as the window starts, waited for after it.
type besideWindow struct {
	run   func() error
	conn  *pgx.Conn
	done  chan error
	ended chan struct{}
}

// beside connects the round's DuringWindow job, when the workload has one.
func (cr *cellRun) beside(ctx context.Context) (*besideWindow, error) {
	if cr.hooks.DuringWindow == nil {
		return nil, nil
	}
	cc := cr.r.conn.Copy()
	cc.RuntimeParams["application_name"] = cr.r.clientApp()
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("connecting the job beside the window: %w", err)
	}
	b := &besideWindow{conn: conn, ended: make(chan struct{})}
	b.run = func() error { return cr.hooks.DuringWindow(ctx, conn, cr.tables, b.ended) }
	return b, nil
}

func (b *besideWindow) start() {
	if b == nil {
		return
	}
	b.done = make(chan error, 1)
	go func() { b.done <- b.run() }()
}

// wait tells the job the window has ended and waits for it, if it
// started; its statistics flushed, its connection is closed.
func (b *besideWindow) wait(ctx context.Context) error {
	if b == nil {
		return nil
	}
	close(b.ended)
	var err error
	if b.done != nil {
		err = <-b.done
	}
	metrics.FlushStats(ctx, b.conn.PgConn())
	b.conn.Close(context.Background())
	return err
}

// postRun runs the workload's PostRun on conn, saying so when it names its step.
func (cr *cellRun) postRun(ctx context.Context, conn *pgx.Conn) error {
	if name := cr.hooks.PostRunStep; name != "" {
		step := cr.r.ui.Step("  " + name)
		defer step.Done()
	}
	return cr.hooks.PostRun(ctx, conn, cr.tables)
}

// judgeWindow says whether the window is a measurement: not interrupted,
// no client lost, no transaction failed; clients still in a transaction at
// its end make a warning, keybench not running during it an invalid cell.
func (cr *cellRun) judgeWindow(dres *driver.Result, clients int) error {
	c := cr.c
	if dres.Interrupted {
		return ErrInterrupted
	}
	if dres.ClientsLost > 0 {
		// The window lost clients part-way: its figures are not those of the planned client count.
		return fmt.Errorf("%d of %d clients lost their connections: %s", dres.ClientsLost, clients, firstOr(dres.ErrorSamples, "no error recorded"))
	}
	if err := windowFailure(dres); err != nil {
		return err
	}
	if dres.Unfinished > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d clients were still in a transaction when the window ended (the longest for %.1f s): "+
			"their time in the window is in the latencies, and their transactions were cancelled", dres.Unfinished, clients, dres.LongestUnfinished.Seconds()))
	}
	if dres.StalledS > 0 {
		c.Status = results.StatusInvalid
		c.Error = stallError(dres)
	}
	return nil
}

// finish ends a cell after its rounds: the driver's results merged and
// summarized by the workload, its BeforeEvidence hook, the rounds' metrics
// merged, then the evidence and the workload's maintenance; all on conn,
// a connection of keybench's own (finishAll).
func (cr *cellRun) finish(ctx context.Context, conn *pgx.Conn) error {
	dres := driver.Merge(cr.results)
	fillDriverResult(cr.c, dres)
	if err := cr.writeHistLog(); err != nil {
		return err
	}
	if err := cr.writeTxnLog(); err != nil {
		return err
	}
	o, err := cr.summarize(dres)
	if err != nil {
		return err
	}
	if cr.hooks.BeforeEvidence != nil {
		if err := cr.hooks.BeforeEvidence(ctx, conn, cr.tables); err != nil {
			return err
		}
	}
	summary := cr.c.Metrics.Summary
	var txns int64 // every transaction the sessions watched: the windows' and the warm-ups'
	for _, d := range cr.results {
		txns += d.Txns + d.WarmupTxns
	}
	cr.c.Metrics = metrics.MergeRounds(cr.metrics, perRowRows(o.Work), txns)
	cr.c.Metrics.Summary = summary
	cr.c.Metrics.SteadyWAL = cr.steadyWAL(ctx, conn)
	cr.finishCluster(ctx, txns)
	if err := cr.r.evidence(ctx, conn, cr.tables[0], o, cr.c); err != nil {
		return err
	}
	cr.c.Metrics.KeyIndexGrowthPerRow = growthPerRow(cr.keyIndexBefore, cr.c.Metrics.KeyIndexBytes, o.Work.Inserted)
	cr.c.Metrics.KeyIndexCacheRatio = meanRatio(cr.keyIndexBefore, cr.c.Metrics.KeyIndexBytes, cr.c.Metrics.CacheBytes)
	if cr.r.engine.Distributed() {
		// What the server keybench reaches saw is not where the rows are.
		metrics.Elsewhere(ctx, conn, cr.r.engine, cr.tables[0].Qualified(), &cr.c.Metrics)
		cr.c.Metrics.Tuples = workerTuples(cr.c.Cluster)
	}
	if cr.hooks.Maintain != nil {
		step := cr.r.ui.Step("  timing " + cr.hooks.MaintainSays)
		defer step.Done()
		return cr.hooks.Maintain(ctx, conn, cr.tables)
	}
	return nil
}

// steadyWAL is the cell's WAL per row at its server's checkpoint spacing
// (PostgreSQL's defaults on the embedded server), from the pages its
// rounds touched first (metrics.FirstTouches).
func (cr *cellRun) steadyWAL(ctx context.Context, conn *pgx.Conn) results.M[results.SteadyWAL] {
	if cr.touches == nil {
		return results.Unavailable[results.SteadyWAL](cr.noTouches)
	}
	sp := metrics.DefaultSpacing
	if !cr.r.target.ownsCheckpoints() {
		var err error
		if sp, err = metrics.ReadSpacing(ctx, conn); err != nil {
			return results.Unavailable[results.SteadyWAL]("the server's checkpoint settings: " + err.Error())
		}
	}
	return cr.touches.Steady(cr.c.Metrics.WALBytesPerRow, cr.c.RowsPerS, sp)
}

// perRowRows is what figures per row divide by: the rows the cell
// inserted, or, when it inserted none (updates, deletes), the rows it changed.
func perRowRows(w driver.Work) int64 {
	if w.Inserted > 0 {
		return w.Inserted
	}
	return w.Changed()
}

// summarize hands the window to the workload, which may replace the
// driver's figures with its own and add its summary.
func (cr *cellRun) summarize(dres *driver.Result) (*workload.Outcome, error) {
	o := &workload.Outcome{Result: dres, Cell: cr.c, Tables: cr.tables, Work: dres.TotalWork,
		Expected: cr.tables[0].Rows + dres.TotalWork.Inserted - dres.TotalWork.Deleted}
	o.Cores = cr.r.target.cores(cr.r.res.Environment.Host)
	if s, ok := cr.wl.(workload.Summarizer); ok {
		if err := s.Summarize(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// distribution shapes the cell's tables for --distribute-by: by tenant
// (the keyed table alone), or the keyed table a reference table with its
// children distributed on their parent column, not co-located with it.
func (r *run) distribution(tables []*workload.Table, wl string) error {
	for _, t := range tables {
		switch {
		case r.cfg.Tenants != nil && !t.Keyed():
			return usage.Errorf("--distribute-by tenant distributes the keyed table alone, and %s has a table of its own (%s)", wl, t.Name)
		case r.cfg.Tenants != nil:
			t.Tenants = r.cfg.Tenants
		case r.cfg.Reference && t.Keyed():
			t.Reference = true
		case r.cfg.Reference:
			t.ColocateWith = "" // a reference table's shard is on every node
		}
	}
	return nil
}

// finishCluster reads the cell's evidence on each worker and merges their
// rounds; the rows the workers' shards took are then the server's count
// that the evidence checks the clients' against (the coordinator's
// statistics count none of them).
func (cr *cellRun) finishCluster(ctx context.Context, txns int64) {
	if cr.cluster != nil {
		cr.cluster.Finish(ctx, txns)
		cr.cluster.Close()
		cr.cluster = nil
	}
	if cr.r.engine.Distributed() {
		cr.c.Metrics.Tuples = workerTuples(cr.c.Cluster)
	}
}

// workerTuples is the rows the workers counted the cell's tables taking
// (Cluster.Written), unavailable when no worker was read.
func workerTuples(cl *results.Cluster) results.M[results.Tuples] {
	if cl == nil || len(cl.Workers) == 0 {
		return results.Unavailable[results.Tuples]("on a distributed engine the rows are counted on its workers, and none was read")
	}
	return cl.Written
}

// watchCluster opens, once, the reading of the cell on each worker of a
// distributed engine; nil elsewhere, or when its shards cannot be found
// (a warning says why).
func (cr *cellRun) watchCluster(ctx context.Context) *cluster.Watch {
	if cr.cluster != nil || !cr.r.cfg.Distribute {
		return cr.cluster
	}
	var tables []cluster.Table
	for _, t := range cr.tables {
		ct := cluster.Table{Name: t.Name, Relations: workload.Relations([]*workload.Table{t}), Keyed: t.Keyed()}
		if t.Keyed() {
			if names := workload.KeyIndexNames(t); len(names) == 1 {
				ct.KeyIndex = strings.TrimPrefix(names[0], t.Schema+".")
			}
			ct.Btree = t.Key.Index != keys.IndexHash && t.Key.Index != keys.IndexBrin
		}
		tables = append(tables, ct)
	}
	out := &results.Cluster{DistributedBy: "id"}
	if cr.r.cfg.Reference {
		out.DistributedBy, out.Replicated = "reference (every node a copy)", true
	}
	if tn := cr.r.cfg.Tenants; tn != nil {
		out.DistributedBy, out.Tenants, out.TenantSkew = workload.TenantColumn, tn.N, tn.Skew
	}
	w, err := cluster.Open(ctx, cr.r.admin, cr.r.conn, cr.at.Schema, tables, out)
	if err != nil {
		cr.c.Warnings = append(cr.c.Warnings, "the workers' figures: "+err.Error())
		return nil
	}
	w.NoCheckpoints = cr.r.cfg.NoCheckpoints
	cr.cluster, cr.c.Cluster = w, out
	return w
}

// drop drops the cell's tables. An interrupted run leaves them to the
// run's clean-up (the workspace's, or the embedded server's end): a lock
// held by another session must not delay the stop.
func (cr *cellRun) drop(ctx context.Context) {
	if cr.cluster != nil { // a cell that failed before its finish
		cr.cluster.Close()
		cr.cluster = nil
	}
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
