// Package runner carries out a plan: it provides the server, then for each
// cell creates and fills a fresh table, starts the clients, lets the driver
// measure them while the metrics package watches the server, checks the
// row count against the server, and appends the cell to the results, which
// are written after every cell.
package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workspace"
)

// Config is everything a run needs.
type Config struct {
	// Plan is the run's plan (scenario.Build).
	Plan *scenario.Plan
	// Embedded configures the embedded server; ignored when ConnConfig is set.
	Embedded server.Options
	// ConnConfig is an existing server to run against (--dsn).
	ConnConfig *pgx.ConnConfig
	Schema     string
	Out        string
	Seed       int64
	Quick      bool
	Command    []string
	Version    string
	UI         *UI
	// Sampling enables the wait-event and buffer-cache samplers.
	Sampling bool
	// RowsGiven says the user chose the table sizes (--rows).
	RowsGiven bool
	// OnError is what a failed cell does to the run: "stop" it (the
	// default) or "continue" with the next cell.
	OnError string
	// ProgressEvery, when positive, logs a progress line every so many
	// seconds of a window (pgbench -P).
	ProgressEvery int
	// AtScale is the user's scale the report carries the run to (run --project-rows).
	AtScale *results.Scale
	// Distribute makes each cell's tables Citus distributed tables on
	// their keys (children co-located with their parents), ShardCount
	// shards each (0: Citus's default); the --dsn server must have Citus.
	Distribute bool
	ShardCount int
	// StandbyWait bounds each wait for the standbys to replay what the
	// primary wrote (0: metrics.DefaultStandbyWait, --standby-wait).
	StandbyWait time.Duration
	// Force lets keybench work in an existing schema it did not create
	// (it still creates and drops only its own objects there); Keep leaves
	// keybench's schema in place at the end.
	Force, Keep bool
}

// presetCache is the cache the preset's table sizes are chosen for: the
// embedded server's cold cache, the preset's own when it sets one.
func (r *run) presetCache() int64 {
	return int64(server.Options{ColdCacheMB: r.cfg.Plan.Scenario.ColdCacheMB}.ColdMB()) << 20
}

// adminLockTimeout bounds how long keybench's own statements (set-up,
// evidence, drops) wait for a lock another session holds.
const adminLockTimeout = "10s"

// ErrInterrupted is returned when the run was stopped by a signal; the results keep what was measured.
var ErrInterrupted = errors.New("interrupted")

// errServerGone cancels a cell whose embedded server exited.
var errServerGone = errors.New("the PostgreSQL server exited during the cell")

type run struct {
	cfg Config
	ui  *UI
	// target is the server; conn how keybench connects to it.
	target target
	conn   *pgx.ConnConfig
	admin  *pgx.Conn
	major  int
	res    *results.Results
	// ws is keybench's schema on the target, with its ledger.
	ws *workspace.Workspace
	// runID names this run's connections (application_name).
	runID string
	ext   *metrics.Extensions
	// started is when the run began (rounds record their start from it).
	started time.Time
	// keys are the plan's keys resolved for this server, once.
	keys map[*keys.Spec]*keys.Resolved
	// checkpointNoted: the note that the role may not run CHECKPOINT is recorded.
	checkpointNoted bool
	// cache is the shared_buffers the server runs with (bytes), once a
	// cell asked for its own (--shared-buffers).
	cache int64
	// engine is what answers on the other end (PostgreSQL, Citus, …).
	engine engine.Engine
	// lagging names the standbys that did not catch up within the wait's
	// budget once: the run's later cells do not wait for them again.
	lagging map[string]bool
}

// Run runs the plan and returns the results (also written to cfg.Out).
func Run(ctx context.Context, cfg Config) (*results.Results, error) {
	r := &run{cfg: cfg, ui: cfg.UI, runID: newRunID(), started: time.Now(), lagging: map[string]bool{}}
	p := cfg.Plan.Params
	r.res = &results.Results{
		SchemaVersion: results.SchemaVersion, Status: results.StatusRunning, Scenario: cfg.Plan.Scenario.Name,
		Keybench: results.Tool{Version: cfg.Version, Command: cfg.Command}, StartedAt: time.Now().UTC(),
		Plan: results.Plan{Workload: p.Workload, Clients: p.Clients, Rows: p.Rows, SharedBuffers: p.Caches, WarmupS: p.Warmup.Seconds(),
			DurationS: p.Duration.Seconds(), TxnsPerCli: p.Txns, Batch: p.Batch, ReadBy: p.ReadBy, RecentRows: p.RecentRows, Payload: p.Payload,
			Repeat: p.Repeat, Seed: cfg.Seed, Quick: cfg.Quick, Chunk: p.Chunk, LoadMethod: p.LoadMethod, Partitions: p.Partitions,
			Sampling: cfg.Sampling, OnError: cfg.OnError, Pivot: cfg.Plan.Scenario.Pivot, Question: cfg.Plan.Scenario.Question, Rounds: p.Rounds},
		Cells: []results.Cell{},
	}
	if p.Txns > 0 {
		r.res.Plan.DurationS = 0
	}
	r.res.Plan.Cells, r.res.Plan.Force, r.res.Plan.Keep, r.res.Plan.AtScale = len(cfg.Plan.Cells), cfg.Force, cfg.Keep, cfg.AtScale
	if cfg.ConnConfig == nil {
		e := cfg.Embedded
		r.res.Plan.PgVersion, r.res.Plan.PgBin = e.Version, e.BinDir
		r.res.Plan.CacheMode = map[bool]string{true: "cold", false: "warm"}[e.ColdCache]
		for _, s := range e.Settings {
			r.res.Plan.PgConf = append(r.res.Plan.PgConf, metrics.RedactSecrets(s.Name+"="+s.Value))
		}
	}
	for _, s := range cfg.Plan.Specs {
		r.res.Plan.Keys = append(r.res.Plan.Keys, s.Raw)
	}
	loadStart, loadErr := metrics.LoadAvg()
	err := r.execute(ctx)
	r.cleanup()
	now := time.Now().UTC()
	r.res.FinishedAt = &now
	if loadEnd, endErr := metrics.LoadAvg(); loadErr == nil && endErr == nil {
		r.res.Environment.LoadAverage = results.Of(results.LoadAverage{Start: loadStart, End: loadEnd})
	} else {
		r.res.Environment.LoadAverage = results.Unavailable[results.LoadAverage](fmt.Sprint(errors.Join(loadErr, endErr)))
	}
	switch {
	case errors.Is(err, ErrInterrupted) || (err != nil && ctx.Err() != nil):
		r.res.Status, err = results.StatusInterrupted, ErrInterrupted
	case err != nil:
		r.res.Status, r.res.Error = results.StatusFailed, err.Error()
	default:
		r.res.Status = results.StatusOK
		for _, c := range r.res.Cells {
			if c.Status != results.StatusOK {
				r.res.Status = results.StatusFailed
				r.res.Error = fmt.Sprintf("cell %s: %s", c.Key, c.Error)
				err = errors.New(r.res.Error)
				break
			}
		}
	}
	if werr := r.res.Write(cfg.Out); werr != nil && err == nil {
		err = werr
	}
	return r.res, err
}

func (r *run) execute(ctx context.Context) error {
	if err := r.startServer(ctx); err != nil {
		return err
	}
	if err := r.prepareSchema(ctx); err != nil {
		return err
	}
	r.ext = metrics.EnsureExtensions(ctx, r.admin, r.ws)
	for name, why := range r.ext.Missing {
		r.ui.Logf("%s unavailable: %s", name, why)
	}
	if err := r.res.Write(r.cfg.Out); err != nil {
		return err
	}
	// A key this server cannot make (uuidv7:gen=server before 18) is bad
	// input: say so before the first cell, not in the middle of the run.
	r.keys = map[*keys.Spec]*keys.Resolved{}
	for _, s := range r.cfg.Plan.Specs {
		k, err := s.Resolve(r.keyServer(workload.PlaceOf(r.cfg.Schema, 1)))
		if err != nil {
			return err
		}
		r.keys[s] = k
	}
	// Every name a cell will take must be free or keybench's own: a
	// refusal now, not after the first cells.
	if err := r.reserve(ctx); err != nil {
		return err
	}
	for _, s := range r.cfg.Plan.Skipped {
		r.res.Notes = append(r.res.Notes, s)
		r.ui.Logf("note: %s", s)
	}
	plan := r.cfg.Plan.Cells
	rounds := max(r.cfg.Plan.Params.Rounds, 1)
	r.ui.Logf("plan: %s", r.cfg.Plan.Describe())
	r.ui.Logf("estimated time: %s; results in %s", r.cfg.Plan.Estimate(), r.cfg.Out)
	i := 0
	for _, g := range groups(plan, rounds) {
		j := i + len(g)
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if err := r.useCache(ctx, plan[i].Cache); err != nil {
			return err
		}
		if j-i == 1 {
			pc := plan[i]
			r.ui.Logf("cell %d/%d: %s, %s, %s", i+1, len(plan), pc.Key.Raw, pc.Workload, results.Clients(pc.Clients))
		} else {
			r.ui.Logf("cells %d-%d/%d: %d cells, %s, %d rows, %d rounds each", i+1, j, len(plan), j-i, results.Clients(plan[i].Clients), plan[i].Rows, rounds)
		}
		cs, err := r.group(ctx, plan[i:j], rounds)
		r.res.Cells = append(r.res.Cells, cs...)
		if werr := r.res.Write(r.cfg.Out); werr != nil {
			return werr
		}
		for k, c := range cs {
			if c.Status == results.StatusOK {
				wrote := ""
				if c.RowsInserted > 0 {
					wrote = fmt.Sprintf(", %d rows", c.RowsInserted)
				}
				// The mean over the whole window; the summary's rate is the
				// median of its rounds (or seconds), and says so.
				r.ui.Logf("  %s: %.0f %s on average, p99 %.2f ms%s in %.1f s", c.Key, c.Rate(), c.Kind().Unit(), c.LatencyMS.P99, wrote, c.DurationS)
			} else if err == nil {
				r.ui.Logf("  cell %s: %s", c.Key, results.StatusText(c.Status, c.Error))
				if r.cfg.OnError != "continue" {
					return fmt.Errorf("cell %d/%d (%s, %s) %s: %s (--on-error continue runs the remaining cells)", i+k+1, len(plan), c.Key, c.Workload, c.Status, c.Error)
				}
			}
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// reserve checks, before the first cell, that every name the plan's
// cells take in keybench's schema (tables, partitions, indexes, the keys'
// helpers) is free or held by an object keybench recorded creating.
func (r *run) reserve(ctx context.Context) error {
	var objs []workspace.Object
	for _, g := range groups(r.cfg.Plan.Cells, max(r.cfg.Plan.Params.Rounds, 1)) {
		for k, pc := range g {
			at := workload.PlaceOf(r.cfg.Schema, k+1)
			meta, _ := workload.Lookup(pc.Workload)
			wl, err := meta.New(r.cfg.Plan.Options(pc, r.cfg.Seed))
			if err != nil {
				return err
			}
			for _, t := range wl.Tables(at, r.keys[pc.Key]) {
				objs = append(objs, workload.Names(t, r.keyServer(at))...)
			}
		}
	}
	return r.ws.Reserve(ctx, r.admin, objs)
}

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
		r.ui.Logf("starting PostgreSQL %s%s", map[bool]string{true: "from " + o.BinDir, false: orDefault(o.Version, server.DefaultMajor) + " (embedded)"}[o.BinDir != ""], standbys)
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
		return fmt.Errorf("connecting to the server: %w", err)
	}
	var num int
	if err := r.admin.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").Scan(&env.ServerVersion, &num); err != nil {
		return err
	}
	r.major = num / 10000
	if err := r.detectEngine(ctx); err != nil {
		return err
	}
	if env.Settings, err = metrics.Settings(ctx, r.admin); err != nil {
		return fmt.Errorf("reading settings: %w", err)
	}
	r.ui.Logf("PostgreSQL %s ready", env.ServerVersion)
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
	}
	if sbErr == nil && !r.engine.Distributed() &&
		r.cfg.Plan.Scenario.CacheRelative && !r.cfg.RowsGiven && len(r.cfg.Plan.Params.Caches) == 0 && sb != r.presetCache() {
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("%s's default table sizes are chosen for a %s cache; this server's shared_buffers is %s: "+
			"scale --rows by %.1f for the same effect", r.cfg.Plan.Scenario.Name, results.Bytes(r.presetCache()), results.Bytes(sb), float64(sb)/float64(r.presetCache())))
		r.ui.Logf("note: %s", r.res.Notes[len(r.res.Notes)-1])
	}
	return nil
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
	admin, err := pgx.ConnectConfig(ctx, r.admin.Config())
	if err != nil {
		return fmt.Errorf("connecting to the restarted server: %w", err)
	}
	r.admin = admin
	if r.cache, err = metrics.SharedBuffers(ctx, r.admin); err != nil {
		return err
	}
	if r.cache != cache {
		return fmt.Errorf("the server restarted with shared_buffers=%s, not the %s asked for", results.Bytes(r.cache), results.Bytes(cache))
	}
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
	case r.engine.Distributed():
		r.ui.Logf("note: %s: %s; figures read from this server's pages, WAL and caches are recorded as unavailable", r.engine, r.engine.Blind())
	}
	return nil
}

// prepareSchema makes keybench's schema: on the embedded server simply
// created; on someone else's server a workspace (see workspace.go).
func (r *run) prepareSchema(ctx context.Context) error {
	ws, err := r.target.openWorkspace(ctx, r.admin, workspace.Options{Schema: r.cfg.Schema, Force: r.cfg.Force, Keep: r.cfg.Keep, RunID: r.runID})
	if err != nil {
		return err
	}
	r.ws = ws
	return nil
}

func (r *run) cleanup() {
	if r.admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = r.admin.Close(ctx)
		cancel()
	}
	if r.ws != nil {
		left := r.ws.CleanUp(r.conn, r.ui.Logf)
		for _, l := range left {
			r.ui.Logf("%s", l)
			r.res.Notes = append(r.res.Notes, l)
		}
	}
	if r.target != nil {
		if err := r.target.close(); err != nil {
			r.ui.Logf("stopping the server: %v", err)
		}
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// MkUniqueOut creates a results directory of its own under parent, named
// base, or base-2, base-3, … when a run started in the same second has
// taken that name: each directory is created exclusively, so two runs never
// share one.
func MkUniqueOut(parent, base string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= 1000; i++ {
		dir := filepath.Join(parent, base)
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", dir, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, MkOut(dir)
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free name for %s under %s", base, parent)
}

// MkOut makes the results directory and checks it is writable.
func MkOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(filepath.Join(dir, filepath.Base(f.Name())))
}

// newRunID names this run's connections (application_name), so that
// clean-up can end exactly its own backends.
func newRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// EarlierRun names the files of an earlier run in dir (results.json,
// samples.csv, report.html), "" when it holds none: a run never writes over
// another's measurement.
func EarlierRun(dir string) string {
	var held []string
	for _, name := range []string{"results.json", "samples.csv", "report.html"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			held = append(held, name)
		}
	}
	return strings.Join(held, ", ")
}
