package metrics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/results"
)

// Env is what the collectors need to know about the server and the cell.
type Env struct {
	// Admin is keybench's own connection; counters are read through it.
	Admin *pgx.Conn
	// ConnConfig opens the sampler's separate connection.
	ConnConfig *pgx.ConnConfig
	// Schema is keybench's schema; Table the cell's keyed table (sizes).
	Schema, Table string
	// Relations maps each relation of the cell's tables to its role;
	// LeafTables are the tables that hold rows (partitions, not their parent).
	Relations  map[string]string
	LeafTables []string
	// Major is the server's major version.
	Major int
	// Ext says where the extensions are, or why they are not.
	Ext *Extensions
	// ServerPID and DataDir are set for a server whose processes keybench
	// sees (the embedded one, a cluster's worker on this machine): server
	// CPU, disk counters; NoProcess says why they are not, when it is not
	// that the server is another's.
	ServerPID int
	DataDir   string
	NoProcess string
	// ClientApp is the application_name of the cell's clients.
	ClientApp string
	// WaitEvery and CacheEvery are the sampling periods; zero disables sampling.
	WaitEvery, CacheEvery time.Duration
	// NoStandby is why a server without streaming standbys has none (the
	// replication figures' reason); "" says pg_stat_replication was empty.
	NoStandby string
	// StandbyWait bounds each wait for the standbys to replay what the
	// primary wrote (0: DefaultStandbyWait); Lagging, shared by the run's
	// cells, names the standbys that did not catch up within it once (not
	// waited for again). Logf says in the progress output what keybench
	// waits for (nil: nothing is said).
	StandbyWait time.Duration
	Lagging     map[string]bool
	Logf        func(format string, a ...any)
	// Touches, when set, gathers the pages each round wrote a full image
	// of (the cell's steady-state WAL: FirstTouches).
	Touches *FirstTouches
}

func (env *Env) logf(format string, a ...any) {
	if env.Logf != nil {
		env.Logf(format, a...)
	}
}

// Session collects one cell's server metrics. Counters are read at Start,
// right after the CHECKPOINT that settles the table, and at Stop, after the
// clients have disconnected (so their statistics are flushed): the deltas
// cover everything the clients did, warm-up included, and are normalised by
// every row they inserted. Samples (wait events, buffer cache) are taken in
// the measured window only.
type Session struct {
	env       Env
	start     time.Time
	window    *windowStart
	counters  []counter
	before    []snapshot
	sampler   *sampler
	samplerWG sync.WaitGroup
	cancel    context.CancelFunc
	startLSN  string
	lsnErr    error
	// startBlocks is each relation's blocks at Start (env.Touches).
	startBlocks map[string]int64
	// repl watches the standbys; replCancel ends its sampling.
	repl       *replication
	replCancel context.CancelFunc
	replWG     sync.WaitGroup
	// wal is the round's WAL as read back (ReadWAL), before a CHECKPOINT
	// could recycle it; walRead says it was.
	wal     results.Metrics
	walRead bool
}

// counter is a cumulative statistic read before and after the cell.
type counter interface {
	read(ctx context.Context, env *Env) (snapshot, error)
	// report stores the metric(s) for the delta between two snapshots.
	report(before, after snapshot, elapsed time.Duration, into *results.Metrics)
	// unavailable stores the reason under the metric(s) this counter reports.
	unavailable(reason string, into *results.Metrics)
	// figures are the fields of results.Metrics it fills, and how they merge.
	figures() []declared
}

type snapshot any

// counters are every counter a session reads, in the order it reads them:
// the one list, which figures() reads too, so that no counter declares
// figures it never collects.
var counters = []counter{walCounter{}, checkpointCounter{}, ioCounter{}, dbioCounter{}, serverIOCounter{}, statioCounter{}, tupleCounter{}, diskCounter{}, cpuCounter{}}

// Start snapshots the counters and starts the samplers, which sample from
// the window's start on (WindowStarts).
func Start(ctx context.Context, env Env) *Session {
	// Statistics reach the shared counters only when a backend flushes them;
	// make keybench's own (the index builds, VACUUM) land before the snapshot.
	FlushStats(ctx, env.Admin.PgConn())
	s := &Session{env: env, start: time.Now(), window: &windowStart{ch: make(chan struct{})}}
	s.lsnErr = env.Admin.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&s.startLSN)
	if env.Touches != nil {
		s.startBlocks = relationBlocks(ctx, &s.env)
	}
	s.counters = counters
	s.before = make([]snapshot, len(s.counters))
	for i, c := range s.counters {
		snap, err := c.read(ctx, &s.env)
		if err != nil {
			s.before[i] = errSnap{err}
			continue
		}
		s.before[i] = snap
	}
	s.repl = startReplication(ctx, &s.env)
	if s.repl.err == nil {
		// The standbys' lags are sampled even with --sampling off: they are
		// what a run with replicas is for, and one query every half second costs little.
		rctx, cancel := context.WithCancel(ctx)
		s.replCancel = cancel
		s.replWG.Go(func() {
			s.sampleReplication(rctx)
		})
	}
	if env.WaitEvery > 0 || env.CacheEvery > 0 {
		sctx, cancel := context.WithCancel(ctx)
		s.cancel = cancel
		s.sampler = &sampler{env: &s.env, window: s.window, waits: map[string]int64{}}
		s.samplerWG.Go(func() {
			s.sampler.run(sctx)
		})
	}
	return s
}

// WindowStarts tells the samplers the measured window began at t (the end
// of a warm-up, which may end early once the rate is steady).
func (s *Session) WindowStarts(t time.Time) { s.window.set(t) }

// windowStart is the measured window's start, once known.
type windowStart struct {
	once sync.Once
	ch   chan struct{}
	at   time.Time
}

func (w *windowStart) set(t time.Time) {
	w.once.Do(func() {
		w.at = t
		close(w.ch)
	})
}

// wait waits for the window's start; false when ctx ends first.
func (w *windowStart) wait(ctx context.Context) (time.Time, bool) {
	select {
	case <-w.ch:
		return w.at, true
	case <-ctx.Done():
		return time.Time{}, false
	}
}

// StopSampling ends the window's sampling; call it when the window ends.
func (s *Session) StopSampling() {
	if s.replCancel != nil {
		s.replCancel()
		s.replWG.Wait()
		s.replCancel = nil
	}
	if s.cancel != nil {
		s.cancel()
		s.samplerWG.Wait()
		s.cancel = nil
	}
}

// Stop reads the counters again and records every metric into the cell's
// metrics; figures per row and per transaction are the cell's, taken when
// its rounds merge (MergeRounds).
func (s *Session) Stop(ctx context.Context, into *results.Metrics) {
	s.StopSampling()
	elapsed := time.Since(s.start)
	for i, c := range s.counters {
		if e, ok := s.before[i].(errSnap); ok {
			c.unavailable(e.err.Error(), into)
			continue
		}
		after, err := c.read(ctx, &s.env)
		if err != nil {
			c.unavailable(err.Error(), into)
			continue
		}
		c.report(s.before[i], after, elapsed, into)
	}
	if !s.walRead {
		s.ReadWAL(ctx)
	}
	into.WALFPIByRelation, into.BtreeSplits = s.wal.WALFPIByRelation, s.wal.BtreeSplits
	s.repl.stop(ctx, into)
	if s.sampler != nil {
		s.sampler.report(into)
	} else {
		const off = "sampling switched off (--sampling off)"
		into.WaitEvents, into.BufferCache, into.Sampling = results.Unavailable[results.WaitEvents](off), results.Unavailable[results.BufferCache](off), results.Unavailable[results.Sampling](off)
		into.SizesOverTime = results.Unavailable[[]results.SizeSample](off)
	}
}

type errSnap struct{ err error }

var errEmbeddedOnly = errors.New("only measured for the embedded server (keybench cannot see another server's processes and disks)")

// noProcess is why the server's processes and disks cannot be read.
func (env *Env) noProcess() error {
	if env.NoProcess != "" {
		return errors.New(env.NoProcess)
	}
	return errEmbeddedOnly
}

// FlushStats makes a backend flush its pending statistics (WAL, IO) to the
// shared counters, which it otherwise does at most once a second.
func FlushStats(ctx context.Context, conn *pgconn.PgConn) {
	_, _ = conn.Exec(ctx, "SELECT pg_stat_force_next_flush()").ReadAll()
}

// ReadWAL reads the round's WAL back now (walByRelation), before the
// round's own CHECKPOINT, which may recycle its segments; Stop records it.
func (s *Session) ReadWAL(ctx context.Context) {
	s.walByRelation(ctx, &s.wal)
	s.walRead = true
}

// walByRelation reads the cell's WAL back (pg_walinspect's
// pg_get_wal_block_info, PostgreSQL 16+): its full-page images by the
// relation they were taken of (wal_fpi_by_relation by role, and
// key_index_fpi_per_row), and the key index's page splits (btree_splits:
// its SPLIT_L, SPLIT_R and NEWROOT records; btree_splits_per_row).
func (s *Session) walByRelation(ctx context.Context, into *results.Metrics) {
	fail := func(reason string) {
		into.WALFPIByRelation = results.Unavailable[map[string]int64](reason)
		into.BtreeSplits = results.Unavailable[results.BtreeSplits](reason)
	}
	if s.env.Major < 16 {
		fail(fmt.Sprintf("pg_get_wal_block_info needs PostgreSQL 16 (this is %d)", s.env.Major))
		return
	}
	fn, err := s.env.Ext.fn("pg_walinspect", "pg_get_wal_block_info")
	if err != nil {
		fail(err.Error())
		return
	}
	if s.lsnErr != nil {
		fail(s.lsnErr.Error())
		return
	}
	// One pass over the cell's WAL: every full-page image with the page it
	// was taken of, and the btree split records (a record once: a split
	// changes several blocks).
	q := fmt.Sprintf(`SELECT coalesce(c.relname, ''), b.relforknumber, b.relblocknumber, b.block_fpi_length, b.start_lsn::text,
			CASE WHEN b.resource_manager = 'Btree' AND b.record_type IN ('SPLIT_L', 'SPLIT_R', 'NEWROOT') THEN b.record_type ELSE '' END
		FROM %s($1::pg_lsn, pg_current_wal_insert_lsn(), false) b
		LEFT JOIN pg_class c ON c.relfilenode = b.relfilenode AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
		WHERE b.block_fpi_length > 0 OR b.resource_manager = 'Btree' AND b.record_type IN ('SPLIT_L', 'SPLIT_R', 'NEWROOT')`, fn)
	touches := s.env.Touches
	if touches != nil && s.startBlocks == nil {
		touches.fail(errors.New("the relations' sizes at the round's start could not be read"))
		touches = nil
	}
	res, err := s.env.Admin.Query(ctx, q, s.startLSN)
	if err != nil {
		fail(err.Error())
		if touches != nil {
			touches.fail(err)
		}
		return
	}
	defer res.Close()
	tally := walTally{s: s, touches: touches, by: map[string]int64{}, seen: map[string]bool{}}
	// Every role the cell's relations have, at 0 until an image is found:
	// a role absent (a key with no index, index=none) is no relation, not
	// a relation without images.
	for _, role := range s.env.Relations {
		tally.by[role] = 0
	}
	for res.Next() {
		var rel, lsn, split string
		var fork int16
		var block, length int64
		err := res.Scan(&rel, &fork, &block, &length, &lsn, &split)
		if err == nil {
			tally.add(rel, fork, block, length, lsn, split)
			continue
		}
		fail(err.Error())
		if touches != nil {
			touches.fail(err)
		}
		return
	}
	if err := res.Err(); err != nil {
		fail(err.Error())
		if touches != nil {
			touches.fail(err)
		}
		return
	}
	into.WALFPIByRelation = results.Of(tally.by)
	into.BtreeSplits = results.Of(tally.splits)
	if !slices.Contains(slices.Collect(maps.Values(s.env.Relations)), results.RoleKeyIndex) {
		into.BtreeSplits = results.Unavailable[results.BtreeSplits](noKeyIndex)
	}
}

// walTally counts a cell's WAL as it is read back: its full-page images
// by the role of the relation they were taken of (and, for the touches,
// each page's first), and the key index's splits (a record once: a split
// changes several blocks).
type walTally struct {
	s       *Session
	touches *FirstTouches
	by      map[string]int64
	splits  results.BtreeSplits
	seen    map[string]bool // split records counted, by LSN
}

func (w *walTally) add(rel string, fork int16, block, length int64, lsn, split string) {
	role := "other"
	if rel != "" {
		role = w.s.env.role(rel)
	}
	if length > 0 {
		w.by[role]++
		if w.touches != nil {
			own, ok := w.s.env.Relations[rel]
			start, known := w.s.startBlocks[rel]
			name := rel
			if !ok || !known || fork != 0 {
				name = ""
			}
			w.touches.image(name, own, start, block, length)
		}
	}
	if split == "" || role != results.RoleKeyIndex || w.seen[lsn] {
		return
	}
	w.seen[lsn] = true
	switch split {
	case "SPLIT_L":
		w.splits.Left++
	case "SPLIT_R":
		w.splits.Right++
	case "NEWROOT":
		w.splits.NewRoot++
	}
}

// relationBlocks is each relation of the cell's blocks (nil when they cannot be read).
func relationBlocks(ctx context.Context, env *Env) map[string]int64 {
	names := slices.Collect(maps.Keys(env.Relations))
	rows, err := env.Admin.Query(ctx, `SELECT c.relname, pg_relation_size(c.oid) / current_setting('block_size')::bigint
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2)`, env.Schema, names)
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	var n string
	var b int64
	if _, err := pgx.ForEachRow(rows, []any{&n, &b}, func() error { out[n] = b; return nil }); err != nil {
		return nil
	}
	return out
}

// sampleReplication samples the standbys every half second of the window
// from a connection of its own.
func (s *Session) sampleReplication(ctx context.Context) {
	conn, err := s.env.watcherConn(ctx, "keybench replication")
	if err != nil {
		if ctx.Err() == nil {
			s.repl.sampErr = err
		}
		return
	}
	defer conn.Close(context.Background())
	winStart, ok := s.window.wait(ctx)
	if !ok {
		return
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		s.repl.sample(ctx, conn, winStart)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// walInspection is the reading of a cell's WAL back (walByRelation).
type walInspection struct{}

// figures: the images and splits add up over rounds; per row over the cell's rows.
func (walInspection) figures() []declared {
	return []declared{
		summed(func(m *results.Metrics) *results.M[map[string]int64] { return &m.WALFPIByRelation }, onCoordinator,
			func(a, b map[string]int64) map[string]int64 {
				c := map[string]int64{}
				for k, v := range a {
					c[k] += v
				}
				for k, v := range b {
					c[k] += v
				}
				return c
			}),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.KeyIndexFPIPerRow }, func(m *results.Metrics) results.M[int64] {
			if by, ok := m.WALFPIByRelation.Get(); ok {
				if n, has := by[results.RoleKeyIndex]; has {
					return results.Of(n)
				}
				return results.Unavailable[int64](noKeyIndex)
			}
			return results.Unavailable[int64](m.WALFPIByRelation.Reason())
		}).show("FPI / row (key index)", results.Significant, ""),
		summed(func(m *results.Metrics) *results.M[results.BtreeSplits] { return &m.BtreeSplits }, onCoordinator,
			func(a, b results.BtreeSplits) results.BtreeSplits {
				return results.BtreeSplits{Left: a.Left + b.Left, Right: a.Right + b.Right, NewRoot: a.NewRoot + b.NewRoot}
			}),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.BtreeSplitsPerRow }, func(m *results.Metrics) results.M[int64] {
			if sp, ok := m.BtreeSplits.Get(); ok {
				return results.Of(sp.Splits())
			}
			return results.Unavailable[int64](m.BtreeSplits.Reason())
		}).show("splits / 1k rows", formatted("%.1f", 1000), "splits: the key index's page splits (pg_walinspect)").called("splits"),
	}
}
