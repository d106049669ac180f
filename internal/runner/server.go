package runner

// The server a run measures, seen from the run: starting it (or
// reaching the user's), restarting it with another cache, telling what
// engine answers, keybench's workspace on it, and its checkpoints.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/keybench/keybench/internal/device"
	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workspace"
)

// checkpoint settles the server before a measurement, as the source
// benchmarks did. On someone else's server a role without pg_checkpoint (or
// superuser) may not: the run goes on, with a note (see noCheckpoint); on
// the embedded server a failure is one.
func (r *run) checkpoint(ctx context.Context) error { return r.checkpointOn(ctx, r.admin) }

// checkpointOn is checkpoint on one of keybench's connections (a fill's).
func (r *run) checkpointOn(ctx context.Context, conn *pgx.Conn) error {
	if r.cfg.NoCheckpoints {
		return nil // --checkpoints off: the server's own checkpoints only (noted at the start)
	}
	_, err := conn.Exec(ctx, "CHECKPOINT")
	var pe *pgconn.PgError
	switch {
	case err == nil || ctx.Err() != nil:
	case conn.IsClosed():
		return fmt.Errorf("%w (%v)", errLostConnection, err)
	case !r.target.ownsCheckpoints() && errors.As(err, &pe) && pe.Code == "42501": // insufficient_privilege
		r.noCheckpoint(err)
		return nil
	}
	return err
}

// onAdmin is err, from a statement on the control connection, as
// errLostConnection when that connection is closed under it.
func (r *run) onAdmin(err error) error {
	if err != nil && r.admin.IsClosed() && !errors.Is(err, errLostConnection) {
		return fmt.Errorf("%w (%v)", errLostConnection, err)
	}
	return err
}

// errLostConnection is a connection of keybench's own to the server
// (its control connection, a fill's) closed under it: by the server's
// pg_terminate_backend, a restart, the network. The run stops there, its
// measured rounds kept: what it would read next cannot be read.
var errLostConnection = errors.New("lost keybench's connection to the server")

// noCheckpoint records, once, that the role may not run CHECKPOINT: cells
// then start wherever the server's own checkpoints left off, so full-page
// images per row are not comparable between cells.
func (r *run) noCheckpoint(err error) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	if r.checkpointNoted {
		return
	}
	r.checkpointNoted = true
	n := fmt.Sprintf("this role may not run CHECKPOINT (%v): cells start wherever the server's own checkpoints left off, "+
		"so full-page images per row are not comparable between cells (grant pg_checkpoint, PostgreSQL 15+)", err)
	r.res.Notes = append(r.res.Notes, n)
	r.ui.Logf("note: %s", n)
}

// presetCache is the cache the preset's table sizes are chosen for: the
// embedded server's cold cache, the preset's own when it sets one.
func (r *run) presetCache() int64 {
	return int64(server.Options{ColdCacheMB: r.cfg.Plan.Scenario.ColdCacheMB}.ColdMB()) << 20
}

// adminLockTimeout bounds how long keybench's own statements (set-up,
// evidence, drops) wait for a lock another session holds.
const adminLockTimeout = "10s"

func (r *run) startServer(ctx context.Context) error {
	env := &r.res.Environment
	env.Host = metrics.HostInfo()
	env.Schema = r.cfg.Schema
	if r.cfg.ConnConfig != nil {
		r.target = &dsnTarget{cc: r.cfg.ConnConfig}
	} else {
		o := r.cfg.Embedded
		o.Logf, o.Progress = r.ui.Logf, r.ui.Download
		standbys := ""
		if o.Replicas > 0 {
			standbys = fmt.Sprintf(" with %d streaming %s", o.Replicas, map[bool]string{true: "standby", false: "standbys"}[o.Replicas == 1])
		}
		r.ui.Logf("starting PostgreSQL %s%s", map[bool]string{true: "from " + o.BinDir, false: cmp.Or(o.Version, server.DefaultMajor) + " (embedded)"}[o.BinDir != ""], standbys)
		t, err := startEmbedded(ctx, o)
		if err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return err
		}
		r.target = t
	}
	r.target.describe(env)
	env.Standbys, _ = r.target.standbys()
	r.conn = r.target.connConfig().Copy()
	r.conn.RuntimeParams["application_name"] = "keybench " + r.runID
	// Every session keybench opens (all copy this one) binds its SQL to
	// PostgreSQL's own objects: search_path and standard_conforming_strings pinned.
	sqltree.Pin(r.conn, r.cfg.Schema)
	// Every connection of keybench (clients, sampler, admin) blocks in its
	// system calls: a single socket in Go's network poller makes every idle
	// thread poll it, which cost the clients several percent of throughput.
	r.conn.DialFunc = driver.Dial
	// The admin connection sees a new table of another key type in every cell:
	// cached statements would outlive their table.
	admin := r.conn.Copy()
	admin.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	// keybench's own statements never wait long for another session's lock:
	// a table locked by someone else fails the cell with a clear message.
	admin.RuntimeParams["lock_timeout"] = adminLockTimeout
	var err error
	if r.admin, err = pgx.ConnectConfig(ctx, admin); err != nil {
		if _, given := r.target.(*dsnTarget); given && ctx.Err() == nil {
			// the user's server: its address, role or password is the user's input
			return usage.Connect(err, admin, admin.ConnString())
		}
		return fmt.Errorf("connecting to the server: %w", err)
	}
	var num int
	if err := r.admin.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").Scan(&env.ServerVersion, &num); err != nil {
		return err
	}
	r.major = num / 10000
	if changed, err := sqltree.Tampered(ctx, r.admin); err != nil {
		return err
	} else if len(changed) > 0 {
		return usage.Errorf("on this server PostgreSQL's own objects were changed (%s): any query of keybench's could run code of someone else's through them; keybench runs no code of yours", strings.Join(changed, ", "))
	}
	if err := r.detectEngine(ctx); err != nil {
		return err
	}
	if env.Settings, err = metrics.Settings(ctx, r.admin); err != nil {
		return fmt.Errorf("reading settings: %w", err)
	}
	r.ui.Logf("PostgreSQL %s ready", env.ServerVersion)
	r.readCache(ctx)
	return nil
}

// readCache reads the server's shared_buffers (or why it cannot), says
// the caches a run of several will restart through, and notes a preset
// whose table sizes were chosen for another cache.
func (r *run) readCache(ctx context.Context) {
	env := &r.res.Environment
	if cs := r.cfg.Plan.Params.Caches; len(cs) > 1 {
		var list []string
		for _, c := range cs {
			list = append(list, results.Bytes(c))
		}
		env.CacheMode += "; shared_buffers " + strings.Join(list, ", ") + " in turn (--shared-buffers, the server restarted between them)"
	}
	sb, sbErr := metrics.SharedBuffers(ctx, r.admin)
	if sbErr == nil {
		r.cache = sb
	} else {
		r.cacheWhy = sbErr.Error()
	}
	if sbErr == nil && !r.engine.Distributed() &&
		r.cfg.Plan.Scenario.CacheRelative && !r.cfg.RowsGiven && len(r.cfg.Plan.Params.Caches) == 0 && sb != r.presetCache() {
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("%s's default table sizes are chosen for a %s cache; this server's shared_buffers is %s: "+
			"scale --rows by %.1f for the same effect", r.cfg.Plan.Scenario.Name, results.Bytes(r.presetCache()), results.Bytes(sb), float64(sb)/float64(r.presetCache())))
		r.ui.Logf("note: %s", r.res.Notes[len(r.res.Notes)-1])
	}
}

// useCache restarts the server with the cell's cache (--shared-buffers)
// when it differs from the one it runs with, and reconnects keybench's
// own connection; a cell without its own cache runs on the server as it is.
func (r *run) useCache(ctx context.Context, cache int64) error {
	if cache == 0 || cache == r.cache {
		return nil
	}
	r.ui.Logf("restarting PostgreSQL with shared_buffers=%s", results.Bytes(cache))
	_ = r.admin.Close(ctx)
	if err := r.target.useCache(ctx, cache); err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return fmt.Errorf("restarting the server with shared_buffers=%s: %w", results.Bytes(cache), err)
	}
	r.buffered = false // a restart of its own runs as it started
	if err := r.reconnect(ctx); err != nil {
		return err
	}
	var err error
	if r.cache, err = metrics.SharedBuffers(ctx, r.admin); err != nil {
		return err
	}
	if r.cache != cache {
		return fmt.Errorf("the server restarted with shared_buffers=%s, not the %s asked for", results.Bytes(r.cache), results.Bytes(cache))
	}
	return nil
}

// reconnect opens keybench's own connection again after a restart.
func (r *run) reconnect(ctx context.Context) error {
	admin, err := pgx.ConnectConfig(ctx, r.admin.Config())
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return fmt.Errorf("connecting to the restarted server: %w", err)
	}
	r.admin = admin
	return nil
}

// bufferedIO restarts the embedded server without direct IO (on) for
// what measures nothing, the fills and the evidence, or with it again
// (off) for what does, the rounds and the maintenance workloads time,
// when it runs with direct IO (the cold cache) and is not already so: on
// this project's machine war's six fills took 11 s with buffered writes,
// 25 s with direct IO, for a second or two of restarts. The restart for
// the fills (fills) may also skip their WAL (walSkipped).
func (r *run) bufferedIO(ctx context.Context, on, fills bool, what string) error {
	if !r.target.directIO() || r.buffered == on {
		return nil
	}
	start := time.Now()
	_ = r.admin.Close(ctx)
	r.restartMu.Lock()
	skipped, err := r.target.bufferedWrites(ctx, on, fills)
	r.restartMu.Unlock()
	if err == nil {
		err = r.reconnect(ctx)
	} else if ctx.Err() != nil {
		err = ErrInterrupted
	}
	if err != nil {
		return fmt.Errorf("restarting the server %s: %w", what, err)
	}
	r.buffered, r.walSkipped = on, skipped
	walSaid := map[bool]string{true: " and wal_level minimal (a table filled in the transaction that empties it writes no WAL)"}[skipped]
	r.ui.Logf("  restarted PostgreSQL %s IO%s %s (%.1f s)", map[bool]string{true: "with buffered", false: "with direct"}[on], walSaid, what, time.Since(start).Seconds())
	return nil
}

// detectEngine tells the engine (engine.Detect) and records it; --distribute
// on a server without Citus is bad input.
func (r *run) detectEngine(ctx context.Context) error {
	var version, citus string
	var workers int
	if err := r.admin.QueryRow(ctx, engine.VersionQuery).Scan(&version); err != nil {
		return fmt.Errorf("reading version(): %w", err)
	}
	if err := r.admin.QueryRow(ctx, engine.CitusQuery).Scan(&citus); err != nil {
		citus = "" // an engine without pg_extension is no Citus
	}
	if citus != "" {
		if err := r.admin.QueryRow(ctx, engine.WorkersQuery).Scan(&workers); err != nil {
			return fmt.Errorf("counting Citus's workers: %w", err)
		}
	}
	r.engine = engine.Detect(version, citus, workers)
	r.res.Environment.Engine = r.engine
	switch {
	case r.cfg.Distribute && r.engine.Kind != engine.Citus:
		return usage.Errorf("--distribute needs Citus, and the server at --dsn is %s without the citus extension", r.engine)
	case r.cfg.Distribute && workers == 0:
		return usage.Errorf("--distribute: Citus %s has no active worker node (citus_add_node adds one)", citus)
	case r.engine.Kind == engine.Citus && r.cfg.Distribute:
		r.ui.Logf("note: %s: the coordinator holds none of the rows; keybench reads each cell's figures on every worker that holds its shards "+
			"(connecting with your settings, the host and port the worker's), and names a worker it cannot read; the coordinator's own figures are its sessions' (their waits, its CPU)", r.engine)
	case r.engine.Distributed():
		r.ui.Logf("note: %s: %s; figures read from this server's pages, WAL and caches are recorded as unavailable", r.engine, r.engine.Blind())
	}
	return nil
}

// prepareSchema makes keybench's schema: on the embedded server simply
// created; on someone else's server a workspace (see workspace.go).
func (r *run) prepareSchema(ctx context.Context) error {
	ws, err := r.target.openWorkspace(ctx, r.admin, workspace.Options{Schema: r.cfg.Schema, Force: r.cfg.Force, Keep: r.cfg.Keep, RunID: r.runID, Said: r.ui.Logf,
		AllowEventTriggers: r.cfg.AllowEventTriggers})
	if err != nil {
		return err
	}
	if r.cfg.AllowEventTriggers {
		if names, err := workspace.EventTriggers(ctx, r.admin); err == nil && len(names) > 0 {
			n := fmt.Sprintf("event triggers ran on keybench's DDL (--allow-event-triggers): %s", strings.Join(names, ", "))
			r.res.Warnings = append(r.res.Warnings, n)
			r.ui.Logf("note: %s", n)
		}
	}
	r.ws = ws
	return nil
}

// resolveDevice names the disk the run's work is priced on and records it.
// A server keybench started is probed under its data directory (the kept
// probe of that disk when fresh, package device); a --dsn server's disk
// is not this machine's to probe, so it is priced on device.Default
// unless --device names another.
func (r *run) resolveDevice(ctx context.Context) error {
	name := r.cfg.Device
	_, dataDir := r.target.process()
	if name == "" {
		name = "probe"
		if dataDir == "" {
			name = device.Default
		}
	}
	dir := filepath.Dir(dataDir)
	if dataDir == "" {
		dir = os.TempDir()
	}
	if name == "probe" || name == "reprobe" {
		r.ui.Logf("pricing the work on the disk under %s (a kept probe when fresh, else a probe of a few seconds)", dir)
	}
	d, err := device.Resolve(ctx, name, dir)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil && r.cfg.Device == "": // the default probe: price on the default profile, said
		d = device.Profiles[device.Default]
		n := fmt.Sprintf("the disk under %s could not be probed (%v): the work is priced on the %s", dir, err, d.Source)
		r.res.Notes = append(r.res.Notes, n)
		r.ui.Logf("note: %s", n)
	case err != nil:
		return usage.Errorf("%v", err)
	}
	r.res.Environment.Device = &d
	r.ui.Logf("work priced on %s: a random 8 kB read %.3f ms, %.0f MB/s written, a write and its flush %.3f ms", d.Name, d.ReadMS, d.WriteMBps, d.FlushMS)
	return nil
}
