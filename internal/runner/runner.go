// Package runner carries out a plan: it provides the server, then for each
// cell creates and fills a fresh table, starts the clients, lets the driver
// measure them while the metrics package watches the server, checks the
// row count against the server, and appends the cell to the results, which
// are written after every cell.
//
// Its files follow a run: runner.go (this one) runs a plan from start to
// end; server.go starts and settles the server; schedule.go groups the
// cells and orders their rounds; cell.go is one cell's life; clients.go
// adapts a workload's workers to the driver; progress.go says how a window
// goes; watch.go watches for stalls and locks; evidence.go reads a cell's
// evidence; output.go makes the results directory; plan.go records the
// plan in the results; ui.go prints the run's progress (lines, phases,
// bars on a terminal); target.go and the workspace package are the server
// and keybench's place on it. The results are written through package
// verdict, which analyses them (verdict.Write); the early stop reads the
// rounds as the analysis does (verdict.Layouts).
package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workload/all"
	"github.com/keybench/keybench/internal/workspace"
)

// Config is everything a run needs.
type Config struct {
	// Plan is the run's plan (scenario.Build).
	Plan *scenario.Experiment
	// Embedded configures the embedded server; ignored when ConnConfig is set.
	Embedded server.Options
	// ConnConfig is an existing server to run against (--dsn).
	ConnConfig *pgx.ConnConfig
	Schema     string
	Out        string
	// HistDir, when set, gets each cell's latency histograms as an
	// HdrHistogram interval log (--hist-file).
	HistDir string
	// HistSeconds writes the --hist-file logs a second an interval, not a round.
	HistSeconds bool
	// TxnLog writes each cell's transactions as pgbench's log (-l) to the
	// results' logs directory, AggregateInterval seconds an aggregate
	// line when above 0 (--aggregate-interval).
	TxnLog            bool
	AggregateInterval int
	Seed              int64
	Quick             bool
	Command           []string
	Version           string
	UI                *UI
	// Sampling enables the wait-event and buffer-cache samplers and the
	// autovacuum follower (metrics.CostWatch.FollowVacuum).
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
	// NoCheckpoints: keybench runs no CHECKPOINT of its own (--checkpoints
	// off, for a --dsn server whose owner does not want them): a round's
	// full-page images start wherever the server's checkpoints left off
	// and their writes fall in whichever round the server's checkpoint
	// does, so the work is not comparable round by round (a note says so).
	NoCheckpoints bool
	// Device is the disk the run's work is priced on (--device, package
	// device): "probe" (the disk under the embedded server's data
	// directory, kept probes reused), "reprobe", a profile, a file; "" is
	// "probe" on a server keybench started, device.Default on --dsn.
	Device string
	// Distribute makes each cell's tables Citus distributed tables on
	// their keys (children co-located with their parents), ShardCount
	// shards each (0: Citus's default); the --dsn server must have Citus.
	Distribute bool
	ShardCount int
	// Tenants, with Distribute, distributes the keyed table by a tenant
	// column instead of its key (--distribute-by tenant): the key local to
	// its tenant, the rows spread over Tenants.N tenants.
	Tenants *workload.Tenants
	// Reference, with Distribute, makes the keyed table a reference table
	// (copied to every node; its children distributed on their parent
	// column, their foreign key to it kept): --distribute-by reference.
	Reference bool
	// StandbyWait bounds each wait for the standbys to replay what the
	// primary wrote (0: metrics.DefaultStandbyWait, --standby-wait).
	StandbyWait time.Duration
	// Force lets keybench work in a schema it created and kept beside
	// objects someone else added (it still creates and drops only its own
	// objects there); Keep leaves keybench's schema in place at the end.
	Force, Keep bool
	// AllowEventTriggers runs on a server whose enabled event triggers
	// would run on keybench's DDL (said in the results' notes).
	AllowEventTriggers bool
}

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
	// owners are the cells' tables' relations by OID (cellRun.ownRelations);
	// follow is the connection autovacuum is followed on (followConn).
	owners map[uint32]*cellRun
	follow *pgx.Conn
	// runID names this run's connections (application_name).
	runID string
	// scriptRole is the role the clients of a workload running the user's
	// SQL run as ("" when the server's role may not make one), once tried.
	scriptRole      string
	scriptRoleTried bool
	ext             *metrics.Extensions
	// started is when the run began (rounds record their start from it).
	started time.Time
	// keys are the plan's keys resolved for this server, once.
	keys map[*keys.Spec]*keys.Resolved
	// checkpointNoted: the note that the role may not run CHECKPOINT is recorded.
	checkpointNoted bool
	// notesMu guards the run's notes against the fills of two cells at once.
	notesMu sync.Mutex
	// restartMu is held while keybench restarts the server between a
	// group's fills and rounds: the group's watcher waits for it.
	restartMu sync.Mutex
	// buffered: the embedded server runs without its direct IO (bufferedIO);
	// walSkipped: and at wal_level minimal, for the fills (heldFill).
	buffered, walSkipped bool
	// cache is the shared_buffers the rounds run with (bytes): read when
	// the server started and when a cell's own (--shared-buffers) restarted
	// it; a restart for the fills or the evidence leaves it as it was.
	cache int64
	// cacheWhy is why cache could not be read (0).
	cacheWhy string
	// engine is what answers on the other end (PostgreSQL, Citus, …).
	engine engine.Engine
	// lagging names the standbys that did not catch up within the wait's
	// budget once: the run's later cells do not wait for them again.
	lagging map[string]bool
	// histLogs and txnLogs count the logs written (their files' order).
	histLogs, txnLogs atomic.Int32
	// ahead is what the groups after the current one are expected to take.
	ahead ahead
}

// ahead is what the run's groups after the current one should take: the
// plan's estimate of them, scaled by how the current group's rounds run
// against its estimate (roundsLeft), so that every progress line says
// when the run ends, from what it measured so far.
type ahead struct {
	later    time.Duration // the plan's estimate of the groups after this one
	perRound time.Duration // the plan's estimate of one of this group's rounds
	evidence time.Duration // the plan's estimate of this group's evidence (0: 3 s a cell)
	total    time.Duration // the plan's estimate of this group (0: its rounds alone)
	groups   int           // the groups after this one
}

// estimateOf is the plan's estimate of cells alone, with their shards on
// Citus (shards per cell, 0 elsewhere).
func (r *run) estimateOf(cells []scenario.PlannedCell, shards int) scenario.Estimate {
	sub := *r.cfg.Plan
	sub.Cells = cells
	sub.TxnsPerS, sub.FillRates = r.txnsPerS(), r.fillRates()
	est := sub.Estimate()
	// Each cell makes and drops its tables' shards on the workers, and its
	// evidence reindexes each: bench/citus.sh's runs took about
	// citusShardSeconds a shard a cell (a --quick war at 32 shards, 5–6 min).
	extra := time.Duration(float64(shards*len(cells)) * citusShardSeconds * float64(time.Second))
	est.Evidence += extra
	est.Total += extra
	return est
}

// Run runs the plan and returns the results (also written to cfg.Out).
func Run(ctx context.Context, cfg Config) (*results.Results, error) {
	r := &run{cfg: cfg, ui: cfg.UI, runID: newRunID(), started: time.Now(), lagging: map[string]bool{}}
	r.res = &results.Results{
		SchemaVersion: results.SchemaVersion, Status: results.StatusRunning, Scenario: cfg.Plan.Scenario.Name,
		Keybench: results.Tool{Version: cfg.Version, Command: cfg.Command}, StartedAt: time.Now().UTC(),
		Plan: planOf(cfg), Cells: []results.Cell{},
	}
	_ = r.res.UseKinds(all.Kinds()) // no cells yet: nothing to read, nothing to fail
	for _, s := range cfg.Plan.Specs {
		r.res.Keys = append(r.res.Keys, keyFacts(s))
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
	if werr := verdict.Write(r.res, cfg.Out); werr != nil && err == nil {
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
	if err := r.resolveDevice(ctx); err != nil {
		return err
	}
	if r.cfg.NoCheckpoints {
		n := "--checkpoints off: keybench ran no CHECKPOINT of its own; each round's full-page images started wherever the server's checkpoints left off, and their writes fell in whichever round the server's checkpoint did: the WAL, images and writes per transaction are not comparable round by round"
		r.res.Notes = append(r.res.Notes, n)
		r.ui.Logf("note: %s", n)
	}
	if err := verdict.Write(r.res, r.cfg.Out); err != nil {
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
	if err := r.readLike(ctx); err != nil {
		return err
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
	r.ui.Logf("plan: %s", r.cfg.Plan.Describe())
	speed := r.probeSpeed()
	shards := r.shardsPerCell()
	est := r.estimateOf(r.cfg.Plan.Cells, shards)
	if shards > 0 {
		extra := est.Total - r.estimateOf(r.cfg.Plan.Cells, 0).Total
		r.ui.Logf("note: on Citus each cell creates, reindexes and drops its %d shards on the workers: the estimate counts about %s for them", shards, extra.Round(time.Second))
	}
	most := ""
	if c := r.cfg.Plan.CostSequential; c != nil && c.MaxRounds > r.cfg.Plan.Params.Rounds && r.cfg.Plan.Params.Rounds > 1 {
		// The work's design may extend the rounds, within its budget: never
		// said below the estimate itself.
		budget, given := r.budget(0, 0, r.cfg.Plan.Params.Rounds)
		if longest := est.Total + budget - est.Windows; longest.Round(10*time.Second) > est.Total.Round(10*time.Second) {
			of := fmt.Sprintf("within a budget of %s", budget.Round(time.Second))
			if !given {
				of += ", or the planned rounds' time at the machine's pace if longer"
			}
			most = fmt.Sprintf("; at most %s if the work needs more rounds (up to %d, %s)", longest.Round(10*time.Second), c.MaxRounds, of)
		}
	}
	r.ui.Logf("estimated time: %s%s%s; results in %s", est, speed, most, r.cfg.Out)
	return r.runGroups(ctx, shards)
}

// paceOf is the pace the groups left (rest, their estimate; left of them)
// are expected at from the groups done (done of them, estimated planned,
// took took): groups like those done (within a tenth of their estimate
// each: ids' keys, war's tasks) at the same pace; groups unlike them
// (scale's larger caches, where a small group's fixed costs weigh less) at
// that pace weighed by the share of the estimate the groups done are —
// the estimate, paced by the machine already, keeps the rest of the weight.
func paceOf(took, planned time.Duration, done int, rest time.Duration, left int) float64 {
	pace := float64(took) / float64(planned)
	if done <= 0 || left <= 0 || planned <= 0 {
		return pace
	}
	perDone, perLeft := float64(planned)/float64(done), float64(rest)/float64(left)
	if math.Abs(perLeft/perDone-1) <= 0.1 {
		return pace
	}
	return 1 + float64(planned)/float64(planned+rest)*(pace-1)
}

// cpuProbe is how long the machine's pace is probed before a run's estimate.
const cpuProbe = 300 * time.Millisecond

// probeSpeed measures the share of this machine's CPUs a busy process gets
// now, for the estimate (an embedded server's run: its clients and server
// share this machine), and says so for the estimate's line.
func (r *run) probeSpeed() string {
	if r.cfg.ConnConfig != nil {
		return ""
	}
	share, err := metrics.CPUShare(cpuProbe)
	if err != nil {
		return " (the machine's pace not probed: " + err.Error() + ")"
	}
	r.cfg.Plan.CPUShare = share
	return fmt.Sprintf(" at this machine's pace now (a busy process gets %.0f%% of its CPUs)", 100*share)
}

// citusShardSeconds is what a shard of a cell costs a run on Citus beyond
// its window: its creation, the evidence's REINDEX and its drop through
// the coordinator (bench/citus.sh on this 2-core machine: a --quick war of
// five cells at 32 shards took 5–6 minutes, about 2 s a shard a cell).
const citusShardSeconds = 1.8

// shardsPerCell is the shards a cell's tables are split into on Citus
// (--shard-count, else Citus's citus.shard_count), 0 elsewhere.
func (r *run) shardsPerCell() int {
	if !r.cfg.Distribute || r.engine.Kind != engine.Citus {
		return 0
	}
	if r.cfg.ShardCount > 0 {
		return r.cfg.ShardCount
	}
	var n int
	if err := r.admin.QueryRow(context.Background(), "SELECT current_setting('citus.shard_count')::int").Scan(&n); err != nil {
		return 32
	}
	return n
}

// runGroups measures the plan's groups of cells in turn, writing the
// results after each; a failed cell stops the run unless --on-error continue.
func (r *run) runGroups(ctx context.Context, shards int) error {
	plan, rounds := r.cfg.Plan.Cells, max(r.cfg.Plan.Params.Rounds, 1)
	done := 0
	all := groups(plan, rounds)
	ests := make([]scenario.Estimate, len(all))
	estimate := func() { // each group's, at the rate the cells measured so far
		for i, g := range all {
			// A group's own share: the server starts once per run (per cache), not per group.
			ests[i] = r.estimateOf(g, shards)
			ests[i].Total -= ests[i].Server
		}
	}
	var took time.Duration // the groups done, as measured
	for i, g := range all {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		estimate()
		var planned time.Duration // the groups done, as estimated now
		for _, e := range ests[:i] {
			planned += e.Total
		}
		r.ahead = ahead{perRound: ests[i].Windows / time.Duration(rounds), evidence: ests[i].Evidence, total: ests[i].Total, groups: len(all) - i - 1}
		for _, e := range ests[i+1:] {
			r.ahead.later += e.Total
		}
		if i > 0 && planned > 0 {
			rest := ests[i].Total + r.ahead.later
			left := time.Duration(float64(rest) * paceOf(took, planned, i, rest, len(all)-i))
			r.ui.Logf("the run ends in about %s (its %d groups so far took %.2f× their estimate)", left.Round(time.Second), i, float64(took)/float64(planned))
		}
		start := time.Now()
		if err := r.useCache(ctx, g[0].Cache); err != nil {
			return err
		}
		if len(g) == 1 {
			r.ui.Logf("cell %d/%d: %s, %s, %s", done+1, len(plan), g[0].Key.Raw, g[0].Task.Name(), results.Clients(g[0].Clients))
		} else {
			r.ui.Logf("cells %d-%d/%d: %d cells, %s, %d rows, %d rounds each", done+1, done+len(g), len(plan), len(g), results.Clients(g[0].Clients), g[0].Rows, rounds)
		}
		cs, err := r.group(ctx, g, rounds)
		r.res.Cells = append(r.res.Cells, cs...)
		if werr := verdict.Write(r.res, r.cfg.Out); werr != nil {
			return werr
		}
		if stop := r.sayCells(cs, done, err == nil); stop != nil {
			return stop
		}
		if err != nil {
			return err
		}
		done += len(g)
		took += time.Since(start)
	}
	return nil
}

// fillRates are each key's prefills so far (rows and rows a second), for
// the estimates of the fills left.
func (r *run) fillRates() map[string][]scenario.FillRate {
	out := map[string][]scenario.FillRate{}
	for _, c := range r.res.Cells {
		if f := c.Prefill; f != nil && f.Rows > 0 && f.RowsPerS > 0 {
			out[c.Key] = append(out[c.Key], scenario.FillRate{Rows: f.Rows, RowsPerS: f.RowsPerS})
		}
	}
	return out
}

// txnsPerS is the rate the run's cells measured so far, transactions a
// second of their windows (0 before the first): the estimates of what is
// left count the windows in transactions at it.
func (r *run) txnsPerS() float64 {
	var txns int64
	var secs float64
	for _, c := range r.res.Cells {
		if c.Status == results.StatusOK && c.Txns > 0 && c.DurationS > 0 {
			txns, secs = txns+c.Txns, secs+c.DurationS
		}
	}
	if secs == 0 {
		return 0
	}
	return float64(txns) / secs
}

// sayCells prints each measured cell's rate (as the summary shows it: the
// geometric mean of its rounds, and says so) or why
// it failed; the first failure stops the run unless --on-error continue.
func (r *run) sayCells(cs []results.Cell, before int, judge bool) error {
	for k, c := range cs {
		if c.Status == results.StatusOK {
			wrote := ""
			if c.RowsInserted > 0 {
				wrote = fmt.Sprintf(", %d rows", c.RowsInserted)
			}
			r.ui.Logf("  %s: %s, latency average %s ms, stddev %s ms, p99 of all its transactions %s ms%s in %.1f s",
				c.Key, r.rateSaid(len(r.res.Cells)-len(cs)+k), results.Significant(c.LatencyMS.Mean), results.Significant(c.LatencyMS.StdDev), results.Significant(c.LatencyMS.P99), wrote, c.DurationS)
			continue
		}
		if !judge {
			continue
		}
		r.ui.Logf("  cell %s: %s", c.Key, results.StatusText(c.Status, c.Error))
		if r.cfg.OnError != "continue" {
			return fmt.Errorf("cell %d/%d (%s, %s) %s: %s (--on-error continue runs the remaining cells)", before+k+1, len(r.cfg.Plan.Cells), c.Key, c.Workload, c.Status, c.Error)
		}
	}
	return nil
}

// rateSaid is the cell's rate as the summary, the page and the exports
// show it (the analysis's geometric mean of its rounds, or of its
// window's seconds), said as such; its window's mean where it has none.
func (r *run) rateSaid(cell int) string {
	c := &r.res.Cells[cell]
	if a := r.res.Analysis; a != nil {
		for _, g := range a.Groups {
			if len(g.Cells) != 1 || g.Cells[0] != cell || g.TPS.N == 0 {
				continue
			}
			of := map[string]string{results.UnitRounds: "its %d rounds", results.UnitRuns: "its %d runs", results.UnitSeconds: "its %d seconds"}[g.Unit]
			if of == "" {
				break
			}
			return fmt.Sprintf("%.0f %s (the geometric mean of "+of+")", g.Rate, c.Kind().Unit(), g.TPS.N)
		}
	}
	return fmt.Sprintf("%.0f %s over its window", c.Rate(), c.Kind().Unit())
}

// readLike reads the definition of the user's table the keyed tables
// take the shape of (--like: its catalogs only, never its rows), and
// says what was copied.
func (r *run) readLike(ctx context.Context) error {
	p := &r.cfg.Plan.Params
	if p.LikeTable == "" {
		return nil
	}
	like, err := workload.ReadLike(ctx, r.admin, p.LikeTable)
	if err != nil {
		return err
	}
	p.Like = like
	r.res.Notes = append(r.res.Notes, like.Describe())
	r.ui.Logf("note: %s", like.Describe())
	if n := like.NotCopied(); n != "" {
		r.res.Warnings = append(r.res.Warnings, n)
		r.ui.Logf("note: %s", n)
	}
	return nil
}

// reserve checks, before the first cell, that every name the plan's
// cells take in keybench's schema (tables, partitions, indexes, the keys'
// helpers) is free or held by an object keybench recorded creating (a
// script's statements were checked by PostgreSQL's parser as the plan
// was built, and each is resolved by the server on the cell's table
// before a client prepares it).
func (r *run) reserve(ctx context.Context) error {
	var objs []workspace.Object
	for _, g := range groups(r.cfg.Plan.Cells, max(r.cfg.Plan.Params.Rounds, 1)) {
		for k, pc := range g {
			at := workload.PlaceOf(r.cfg.Schema, k+1)
			built, err := r.cfg.Plan.Build(pc, r.cfg.Seed)
			if err != nil {
				return err
			}
			key, err := pc.Key.Resolve(r.keyServer(at))
			if err != nil {
				return err
			}
			for _, t := range built.Workload.Tables(at, key) {
				objs = append(objs, workload.Names(t, r.keyServer(at))...)
			}
		}
	}
	return r.ws.Reserve(ctx, r.admin, objs)
}

func (r *run) cleanup() {
	for _, c := range []*pgx.Conn{r.admin, r.follow} {
		if c != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = c.Close(ctx)
			cancel()
		}
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

// newRunID names this run's connections (application_name), so that
// clean-up can end exactly its own backends.
func newRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// partitionText is the plan's partitioning as results record it ("" for none).
func partitionText(p keys.Partitioning) string {
	if !p.On() {
		return ""
	}
	return p.String()
}

// keyFacts is a key as the catalog describes it, for results.
func keyFacts(s *keys.Spec) results.KeyFacts {
	f := s.FactsOf()
	k := results.KeyFacts{Key: s.Raw, Column: s.ColumnType(), StoredBytes: s.StoredBytes(), Sortable: f.Sortable, Reveals: f.Reveals, RevealsTime: f.RevealsTime,
		RandomBits: f.RandomBits, PerUnitS: f.PerUnit.Seconds(), Unique: f.Unique, URLChars: s.URLChars()}
	if p, ok := f.Collision(keys.BillionRows, keys.BillionRowsRate); ok {
		k.CollisionB = &p
	}
	if p, ok := f.Collision(keys.YearRate*keys.Year.Seconds(), keys.YearRate); ok {
		k.CollisionY = &p
	}
	return k
}
