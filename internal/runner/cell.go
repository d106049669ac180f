package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
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

// cell measures one planned cell. The returned error stops the run (an
// interrupt, a lost server); a failure confined to the cell is recorded in
// the cell and returns nil.
func (r *run) cell(parent context.Context, pc scenario.Cell) (results.Cell, error) {
	p := r.cfg.Params
	c := results.Cell{
		Key: pc.Key.Raw, KeyCanonical: pc.Key.String(), KeyColumn: pc.Key.ColumnType(), Workload: pc.Workload,
		Clients: pc.Clients, Repeat: pc.Repeat, RowsBefore: pc.Rows, WarmupS: p.Warmup.Seconds(),
		Status: results.StatusOK, Timeline: []results.Second{},
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	if r.emb != nil {
		go func() {
			select {
			case <-r.emb.Exited():
				cancel(errServerGone)
			case <-ctx.Done():
			}
		}()
	}
	err := r.measure(ctx, pc, &c)
	switch {
	case err == nil:
		return c, nil
	case parent.Err() != nil:
		c.Status, c.Error = results.StatusInterrupted, "interrupted"
		return c, ErrInterrupted
	case errors.Is(context.Cause(ctx), errServerGone) || r.serverGone():
		c.Status, c.Error = results.StatusFailed, fmt.Sprintf("%v: %s", errServerGone, r.emb.Trouble())
		return c, errors.New(c.Error)
	default:
		c.Status, c.Error = results.StatusFailed, err.Error()
		if r.admin.IsClosed() {
			return c, fmt.Errorf("lost the connection to the server: %w", err)
		}
		return c, nil
	}
}

// serverGone reports whether the embedded server has exited, waiting a
// moment for it: a connection usually breaks just before the postmaster's
// exit is seen.
func (r *run) serverGone() bool {
	if r.emb == nil || !r.admin.IsClosed() && r.admin.Ping(context.Background()) == nil {
		return false
	}
	select {
	case <-r.emb.Exited():
		return true
	case <-time.After(3 * time.Second):
		return false
	}
}

func (r *run) measure(ctx context.Context, pc scenario.Cell, c *results.Cell) error {
	p := r.cfg.Params
	sv := keys.Server{Major: r.major, Schema: r.cfg.Schema, Table: r.cfg.Schema + "." + tableName}
	key, err := pc.Key.Resolve(sv)
	if err != nil {
		return err
	}
	c.KeyGen, c.KeyNote = string(key.Gen), key.Note
	meta, _ := workload.Lookup(pc.Workload)
	wl, err := meta.New(p.Options(pc.Clients, pc.Rows, r.cfg.Seed))
	if err != nil {
		return err
	}
	t := &workload.Table{Schema: r.cfg.Schema, Name: tableName, Key: key, Payload: p.Payload, DataIndex: wl.NeedsDataIndex()}
	if pw, ok := wl.(workload.Partitioned); ok {
		t.Partitions = pw.Partitions()
	}
	var gen keys.Generator
	if key.Gen == keys.GenClient {
		gen = pc.Key.NewGenerator()
	}
	if err := workload.CreateTable(ctx, r.admin, t, sv); err != nil {
		return err
	}
	defer func() {
		// An interrupted run leaves the table to the run's clean-up (the
		// workspace's, or the embedded server's end): a lock held by
		// another session must not delay the stop.
		if ctx.Err() != nil {
			return
		}
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if !r.admin.IsClosed() {
			_, _ = r.admin.Exec(dctx, "DROP TABLE IF EXISTS "+t.Qualified())
		}
	}()
	if ld, ok := wl.(workload.Loader); ok {
		return r.load(ctx, pc, t, gen, ld, c)
	}
	if err := r.fill(ctx, t, gen, pc.Rows, c); err != nil {
		return err
	}
	filled := time.Now()
	if err := wl.Prepare(ctx, r.admin, t); err != nil {
		return err
	}

	conns, clients, err := r.connectClients(ctx, wl, t, gen, pc.Clients)
	defer func() {
		for _, cn := range conns {
			cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = cn.Close(cctx)
			cancel()
		}
	}()
	if err != nil {
		return err
	}
	if c.Prefill != nil && c.Prefill.History != nil {
		c.Prefill.History.EndsBeforeWindowS += time.Since(filled).Seconds() + p.Warmup.Seconds()
	}
	sess := metrics.Start(ctx, r.metricsEnv(t), p.Warmup)
	watch := r.watchStalls(ctx, p.Warmup)
	window := r.ui.Phase("  measuring", windowUnits(p, pc.Clients), map[bool]string{true: "txns", false: "s"}[p.Txns > 0])
	var done int64
	dres, err := driver.Run(ctx, driver.Config{Warmup: p.Warmup, Duration: p.Duration, Txns: p.Txns, OnSecond: func(s driver.Second) {
		watch.second(s.Txns)
		if p.Txns > 0 {
			done += s.Txns
		} else {
			done = int64(s.T)
		}
		if in, ok := s.Roles[workload.RoleIn]; ok {
			out := s.Roles[workload.RoleOut]
			window.Set(done, fmt.Sprintf("in %.0f rows/s, out %.0f rows/s, backlog %d", in.RowsPS, out.RowsPS, pc.Rows+in.Total-out.Total))
			return
		}
		window.Set(done, fmt.Sprintf("%.0f tps, p99 %.2f ms", s.TPS, s.P99ms))
	}}, clients)
	window.Done()
	watch.stop()
	sess.StopSampling()
	for _, cn := range conns {
		metrics.FlushStats(ctx, cn.PgConn())
	}
	for _, cn := range conns {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = cn.Close(cctx)
		cancel()
	}
	conns = nil
	if dres != nil {
		fillDriverResult(c, dres)
	}
	if err != nil {
		return err
	}
	if dres.Interrupted {
		return ErrInterrupted
	}
	if dres.ClientsLost > 0 {
		// The window lost clients part-way: its figures are not those of the planned client count.
		return fmt.Errorf("%d of %d clients lost their connections: %s", dres.ClientsLost, pc.Clients, firstOr(dres.ErrorSamples, "no error recorded"))
	}
	if err := windowFailure(dres); err != nil {
		return err
	}
	if dres.Unfinished > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d clients were still in a transaction when the window ended (the longest for %.1f s): "+
			"their time in the window is in the latencies, and their transactions were cancelled", dres.Unfinished, pc.Clients, dres.LongestUnfinished.Seconds()))
	}
	if dres.StalledS > 0 {
		c.Status = results.StatusInvalid
		c.Error = stallError(dres)
	}
	r.waitForClientsGone(ctx)
	inserted, expected := dres.TotalRows, pc.Rows+dres.TotalRows
	if in, out := dres.Roles[workload.RoleIn], dres.Roles[workload.RoleOut]; in != nil && out != nil {
		cores := 0
		if r.emb != nil {
			cores = r.res.Environment.Host.CPUs
		}
		c.Metrics.Summary = workload.SummarizeQueue(dres, pc.Rows, p.Batch, t.Partitions, cores)
		inserted, expected = in.TotalRows, pc.Rows+in.TotalRows-out.TotalRows
	}
	return r.evidence(ctx, t, sess, inserted, expected, c)
}

// evidence ends a cell: the counters of the metrics session (inserted is
// every row the cell wrote), sizes, the key index's density and bloat, and
// the rows the server holds checked against expected.
func (r *run) evidence(ctx context.Context, t *workload.Table, sess *metrics.Session, inserted, expected int64, c *results.Cell) error {
	step := r.ui.Step("  collecting evidence (statistics, REINDEX, pgstatindex, WAL inspection)")
	defer step.Done()
	// Every collector needs the table: one probe fails the cell at once,
	// with the reason, when another session holds it locked, instead of
	// each collector waiting out its own lock timeout.
	if err := probeLock(ctx, r.admin, t.Qualified()); err != nil {
		return err
	}
	sess.Stop(ctx, inserted, &c.Metrics)
	metrics.Sizes(ctx, r.admin, t.Qualified(), &c.Metrics)
	metrics.Index(ctx, r.admin, r.ext, t.Qualified(), workload.KeyIndexNames(t), t.Key.Index != keys.IndexHash && t.Key.Index != keys.IndexBrin, &c.Metrics)
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

// fill prefills the table, then builds its indexes and settles it as the
// source benchmarks did: VACUUM ANALYZE, then CHECKPOINT.
func (r *run) fill(ctx context.Context, t *workload.Table, gen keys.Generator, rows int64, c *results.Cell) error {
	pf := &results.Prefill{Rows: rows, Method: "insert-select"}
	if t.Key.Gen == keys.GenClient {
		pf.Method = "copy"
	}
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
	for _, s := range workload.IndexStatements(t) {
		if _, err := r.admin.Exec(ctx, s); err != nil {
			return explainLockTimeout(err, s)
		}
	}
	pf.IndexBuildS = time.Since(t1).Seconds()
	t2 := time.Now()
	if _, err := r.admin.Exec(ctx, "VACUUM ANALYZE "+t.Qualified()); err != nil {
		return explainLockTimeout(err, "VACUUM ANALYZE "+t.Qualified())
	}
	if err := r.checkpoint(ctx); err != nil {
		return err
	}
	pf.VacuumS = time.Since(t2).Seconds()
	if hist != nil {
		// The rest of the gap, to the window's start, is added by measure.
		pf.History.EndsBeforeWindowS = time.Since(t0).Seconds()
	}
	if rows > 0 {
		c.Prefill = pf
		r.ui.Logf("  prefilled %d rows in %.1f s (%.0f rows/s, %s), indexes %.1f s", rows, pf.LoadS, pf.RowsPerS, pf.Method, pf.IndexBuildS)
	}
	return nil
}

// connectClients opens one connection per client and prepares its statements.
func (r *run) connectClients(ctx context.Context, wl workload.Workload, t *workload.Table, gen keys.Generator, n int) ([]*pgx.Conn, []driver.Client, error) {
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
		w, err := wl.NewWorker(ctx, cn.PgConn(), t, gen, i)
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

func (r *run) metricsEnv(t *workload.Table) metrics.Env {
	env := metrics.Env{Admin: r.admin, ConnConfig: r.conn, Schema: t.Schema, Table: t.Name, Major: r.major, Ext: r.ext, ClientApp: r.clientApp()}
	if r.cfg.Sampling {
		env.WaitEvery, env.CacheEvery = 500*time.Millisecond, 2*time.Second
	}
	if r.emb != nil {
		env.ServerPID, env.DataDir = r.emb.PID(), r.emb.DataDir
	}
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

func windowUnits(p scenario.Params, clients int) int64 {
	if p.Txns > 0 {
		return p.Txns * int64(clients)
	}
	return int64(p.Duration.Round(time.Second) / time.Second)
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
	if in := d.Roles[workload.RoleIn]; in != nil {
		// A queue: rows inserted are the producers'; the consumers' are in metrics.queue.
		c.RowsInserted, c.RowsPerS = in.Rows, float64(in.Rows)/max(c.DurationS, 1e-9)
	}
}

// load measures a bulk workload: the cell's rows are loaded in timed chunks,
// with the indexes in place or built afterwards, on a connection of its own
// (named like the clients', so the wait-event sampler watches it).
func (r *run) load(ctx context.Context, pc scenario.Cell, t *workload.Table, gen keys.Generator, ld workload.Loader, c *results.Cell) error {
	rows := pc.Rows
	c.RowsBefore, c.WarmupS = 0, 0
	cc := r.conn.Copy()
	cc.RuntimeParams["application_name"] = r.clientApp()
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("connecting the loader: %w", err)
	}
	defer conn.Close(context.Background())
	if !ld.IndexAfter() {
		for _, s := range workload.IndexStatements(t) {
			if _, err := r.admin.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
	}
	if err := r.checkpoint(ctx); err != nil {
		return err
	}
	sess := metrics.Start(ctx, r.metricsEnv(t), 0)
	bar := r.ui.Phase("  loading", rows, "rows")
	var chunks []workload.Chunk
	t0 := time.Now()
	err = workload.Load(ctx, conn, t, gen, rows, ld.Chunk(), ld.Method(), func(ch workload.Chunk) {
		chunks = append(chunks, ch)
		bar.Set(ch.RowsBefore+ch.Rows, fmt.Sprintf("%.0f rows/s", ch.RowsPerS))
	})
	bar.Done()
	loadS := time.Since(t0).Seconds()
	if err != nil {
		sess.StopSampling()
		return err
	}
	sum := &workload.LoadSummary{LatencyUnit: "one chunk of the load", Chunks: chunks, LoadS: loadS,
		LoadMethod: map[bool]string{true: "insert-select (keys made by the server)", false: ld.Method()}[t.Key.Gen == keys.GenServer]}
	if ld.IndexAfter() {
		step := r.ui.Step("  building indexes")
		t1 := time.Now()
		for _, s := range workload.IndexStatements(t) {
			if _, err := conn.Exec(ctx, s); err != nil {
				step.Done()
				sess.StopSampling()
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		sum.IndexBuildS = results.Of(time.Since(t1).Seconds())
		step.Done()
	} else {
		sum.IndexBuildS = results.Unavailable[float64]("the indexes were in place during the load")
	}
	total := time.Since(t0).Seconds()
	sess.StopSampling()
	metrics.FlushStats(ctx, conn.PgConn())

	c.DurationS, c.Txns, c.RowsInserted = total, rows, rows
	c.TPS, c.RowsPerS = float64(rows)/total, float64(rows)/total
	var chunkMS []float64
	for i, ch := range chunks {
		c.Timeline = append(c.Timeline, results.Second{T: i + 1, Txns: ch.Rows, TPS: ch.RowsPerS, RowsPS: ch.RowsPerS})
		chunkMS = append(chunkMS, ch.Seconds*1000)
	}
	c.LatencyMS = chunkLatency(chunkMS)
	sum.TotalS = total
	if n := len(chunks); n > 0 {
		sum.FirstChunkRowsPerS, sum.LastChunkRowsPerS = chunks[0].RowsPerS, chunks[n-1].RowsPerS
		sum.LastToFirstChunk = chunks[n-1].RowsPerS / chunks[0].RowsPerS
	}
	c.Metrics.Summary = sum
	r.ui.Logf("  loaded %d rows in %.1f s (first chunk %.0f rows/s, last %.0f rows/s)", rows, loadS, chunks[0].RowsPerS, chunks[len(chunks)-1].RowsPerS)

	return r.evidence(ctx, t, sess, rows, rows, c)
}

// chunkLatency summarises the chunks' durations in the latency fields.
func chunkLatency(ms []float64) results.Latency {
	if len(ms) == 0 {
		return results.Latency{}
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	q := func(p float64) float64 { return s[min(len(s)-1, int(p*float64(len(s))))] }
	mean := 0.0
	for _, v := range s {
		mean += v / float64(len(s))
	}
	return results.Latency{Mean: mean, P50: q(0.5), P95: q(0.95), P99: q(0.99), P999: q(0.999), Max: s[len(s)-1]}
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
	if err != nil && r.emb == nil && ctx.Err() == nil {
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
