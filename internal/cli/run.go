package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/keybench/keybench/internal/device"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workload/script"
)

type runCmd struct {
	Scenario      string      `arg:"" optional:"" default:"war" help:"A preset (${presets}) or a bare workload (${workloads}), with options of its own as NAME:OPTION=VALUE (lookup:query=range); see 'keybench scenarios'. Every workload option is also a flag, --OPTION VALUE, set on every workload of the plan that declares it ('keybench workloads' lists them)."`
	Keys          *string     `help:"Comma-separated key specs (see 'keybench keys')."`
	Clients       []int       `short:"c" sep:"," help:"Clients, one connection each; a list runs each count."`
	Duration      *pgDuration `short:"T" placeholder:"SECONDS" help:"Measured window per cell, in seconds as pgbench -T takes it (10) or as a duration (1m30s); default: the preset's."`
	Txns          *int64      `short:"t" help:"Measured transactions per client, instead of a duration (pgbench -t)."`
	Rate          *float64    `short:"R" placeholder:"TPS" help:"Run every window at this many transactions per second of all the clients together, on a Poisson schedule as pgbench -R does: latency counts from each transaction's scheduled start, the schedule's lag and the cost per second at that rate are reported, and keys are compared on latency and cost (default: flat out)."`
	LatencyLimit  *float64    `name:"latency-limit" placeholder:"MS" help:"With --rate: count the transactions slower than this (milliseconds, from their scheduled start) as late, and skip those already that late when their turn comes (pgbench --latency-limit)."`
	Warmup        *pgDuration `placeholder:"SECONDS" help:"Warm-up before each window, excluded from every figure (seconds or a duration): its longest, ended once the rate is steady (see --warmup-until); default: the preset's."`
	WarmupUntil   string      `name:"warmup-until" enum:"steady,time" default:"steady" help:"End each warm-up once the rate is steady (two stretches of 50 ms and 200 transactions each within 10%, after 0.1 s at least), or after all of --warmup (time)."`
	Rows          []int64     `sep:"," help:"Rows prefilled before each cell; a list measures each table size."`
	PrefillKey    string      `name:"prefill-key" help:"Fill the table with this key before the window, which inserts with the measured key (a table switching keys; per key: KEY:prefill=NAME)."`
	Payload       *int        `placeholder:"BYTES" help:"Payload bytes per row; default: the preset's."`
	CreatedAt     string      `name:"created-at" placeholder:"none|column|indexed" help:"A created_at timestamptz column on the keyed table (the row's time: a window's rows the server's clock, a prefill's the history it stands for, the time a time-ordered key encodes), with an index of its own (indexed); default: the preset's (none)."`
	PartitionBy   string      `name:"partition-by" placeholder:"time:SPAN|count:N|none" help:"Partition the keyed table by its rows' time (time:1d, time:6h) or every N rows of their history (count:100000): on the key where it orders by time (uuidv7, ulid, snowflake, bigint by its values), on created_at otherwise (needs --created-at); per key: KEY:partition=1d. Partitions cover the prefill's history (see --history), one span past it, and an open one for later rows."`
	Secondary     string      `name:"secondary" placeholder:"random[:WIDTH]|time,..." help:"Secondary indexes on the keyed table beside its key, as a production table has them: random:40 a column of 40 random characters under a unique index (an email), time a timestamp set as the row is made under a plain index (a created_at); their values made by the server, the same work for every key."`
	Fill          string      `enum:"after,indexed," default:"" placeholder:"after|indexed" help:"How a prefill meets the key's index: after (the index built on the filled table, its leaves packed 90% full) or indexed (built first and grown by the prefill as by inserts: a random key's leaves split half full); default: the preset's (war and ids: indexed; the others: after)."`
	History       string      `placeholder:"SPAN" help:"The span of time the prefill's rows stand for (10d, 36h): their keys, created_at and partitions are made at their times in it; default: the preset's, or the rows at 1000 a second."`
	Repeat        *int        `help:"Runs of every cell, each on a fresh table."`
	Rounds        *int        `help:"Rounds of every cell's window, interleaved across the keys (each a sample of the verdict; 1: one window per cell): the planned rounds; the rates' design may stop them earlier, and the work's may go on to twice as many while a key's work is undecided, within --budget."`
	Like          string      `name:"like" placeholder:"SCHEMA.TABLE" help:"With --script and --dsn: give each key's table the shape of your table (its columns, indexes and CHECK constraints, its key column taking each key; never its rows, nor its foreign keys), filled with generated rows of that shape; the script names it :table."`
	Script        string      `short:"f" name:"script" placeholder:"FILE" help:"Run your own SQL against each key (pgbench -f's format: SQL commands ending in ';', \\set NAME random(lo, hi)), on the keyed table keybench makes for each key (:table), with a fresh key per transaction (:key); the script workload."`
	Log           bool        `short:"l" name:"log" help:"Write each cell's transactions to logs/ in the results directory as pgbench -l does: one line per transaction (client_id transaction_no time script_no time_epoch time_us [schedule_lag]), in pgbench's format."`
	AggInterval   *int        `name:"aggregate-interval" placeholder:"SECONDS" help:"With --log: write per-interval aggregates instead, one line every N seconds in pgbench 15's columns (interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures deadlock_failures)."`
	HistSeconds   bool        `name:"hist-per-second" help:"With --hist-file: an interval a second of each window, not a round."`
	HistFile      string      `name:"hist-file" placeholder:"DIR" help:"Write each cell's latency histograms to DIR as an HdrHistogram interval log, a round an interval (what HdrHistogram's plotter reads)."`
	exports       `embed:""`
	Budget        *pgDuration `name:"budget" placeholder:"SECONDS" help:"How long a run's rounds may go on past the preset's while a key's cost comparison is undecided (seconds or a duration; default: twice the plan's estimate; 0: no more than the preset's rounds)."`
	Sequential    string      `enum:"on,off" default:"on" help:"With 6 rounds or more, stop a task's rounds as soon as every comparison of its keys is decided (a group-sequential design that keeps false winners at 5%: different, the same within --min-effect, or undecidable within --rounds); off: run every round."`
	Pairs         string      `enum:"least,all" default:"least" help:"Which comparisons stop the rounds: least, once every key is decided against the key of least work (shown costlier, or the same within --min-effect; every pair is still tested, so an A/A names nothing); all, once every pair is."`
	MinEffect     *string     `name:"min-effect" placeholder:"PERCENT" help:"The difference in rate you do not care about (default 5%): keys shown to be within it of each other are the same, and their rounds need not go on."`
	Seed          int64       `default:"1" help:"Seed of the workload's random choices."`
	Progress      int         `short:"P" placeholder:"SECONDS" help:"Progress line every N seconds of a window (pgbench -P); default: a tenth of the window, or live on a terminal."`
	Jobs          int         `short:"j" placeholder:"N" help:"Accepted for pgbench habits: keybench always runs one connection per client on one event loop per core."`
	Mode          string      `short:"M" placeholder:"prepared" help:"Accepted for pgbench habits: keybench always uses prepared statements (-M prepared); other modes are refused."`
	Quick         bool        `help:"A smoke run: each key one short window at a small scale (about a minute on one server; on Citus minutes, each cell making and dropping its shards)."`
	DSN           string      `name:"dsn" help:"Run against this server (URL or key=value; libpq PG* variables fill the rest) instead of the embedded one."`
	Schema        string      `default:"keybench" help:"Schema keybench works in (created and dropped by keybench)."`
	PgVersion     string      `name:"pg-version" help:"Embedded PostgreSQL major version: 15, 16, 17 or 18 (default 18); a list (15,18) runs the plan on each, one server after another, and answers for each and across them."`
	PgBin         string      `name:"pg-bin" help:"Use an installed PostgreSQL's binaries instead of downloading; a list of directories runs the plan on each in turn."`
	PgConf        []string    `name:"pg-conf" help:"Server setting key=value for the embedded server (repeatable)."`
	SharedBuffers []string    `name:"shared-buffers" sep:"," placeholder:"SIZE" help:"Embedded server: shared_buffers sizes (e.g. 16MB,64MB) to measure every cell at, restarting the server between them; default: the cache mode's."`
	StandbyWait   *pgDuration `name:"standby-wait" placeholder:"SECONDS" help:"How long keybench waits, before and after each cell, for a standby to replay what the primary wrote (default 30s); one that does not is recorded as falling behind and not waited for again."`
	Replicas      *int        `placeholder:"N" help:"Embedded server: start N streaming standbys beside it and measure what each key's WAL costs them (WAL shipped per row, replay lag, catch-up); default: the preset's (replicas: 1)."`
	CacheMode     string      `name:"cache-mode" enum:"cold,warm" default:"cold" help:"Embedded server: cold (small shared_buffers, direct IO on 16+) or warm (PostgreSQL defaults)."`
	Out           string      `help:"Results directory (default keybench-results/SCENARIO-TIME)."`
	Verbose       bool        `short:"v" help:"Print every table of the summary when the run ends (the default prints its first screen: each key's rate and cost against the cheapest, and what explains the costliest; keybench report prints every table later)."`
	JSON          bool        `name:"json" help:"Print results.json on stdout; progress and summary go to stderr."`
	Sampling      string      `enum:"on,off" default:"on" help:"Sample wait events and the buffer cache during each window (off: to measure the samplers' overhead)."`
	Checkpoints   string      `name:"checkpoints" enum:"on,off" default:"on" help:"off: run no CHECKPOINT of keybench's own (it runs one before and after each round, on --dsn too: each writes the server's dirty pages out). Changes what is measured: a round's full-page images and writes then fall wherever the server's own checkpoints do, so the keys' work is not comparable round by round."`
	Device        string      `name:"device" placeholder:"probe|reprobe|nvme|network|hdd|FILE.json" help:"The disk the work per transaction is priced on: probe (the disk under the embedded server's data directory, probed once and kept for 30 days; the default), reprobe (probed now), a profile (nvme, network, hdd: typical figures, docs/verdict.md) or a file of your disk's figures (keybench disk DIR --json). A --dsn server is priced on nvme unless given."`
	OnError       string      `name:"on-error" enum:"stop,continue" default:"stop" help:"When a cell fails (a lost connection, an error): stop the run, or continue with the next cell."`
	Distribute    bool        `help:"With --dsn on Citus: make each cell's table a distributed table sharded on its key (child tables co-located with their parents)."`
	ShardCount    *int        `name:"shard-count" placeholder:"N" help:"With --distribute: shards per distributed table (default: Citus's citus.shard_count)."`
	DistributeBy  string      `name:"distribute-by" enum:"key,tenant,reference" default:"key" help:"With --distribute: shard the keyed table on its key (key), on a tenant column the server fills (tenant: Citus's multi-tenant model, the key local to its tenant, the primary key (tenant_id, id)), or make it a reference table copied to every node (reference; its children sharded on their parent column)."`
	Tenants       *int        `name:"tenants" placeholder:"N" help:"With --distribute-by tenant: how many tenants the rows spread over (default 1000)."`
	TenantSkew    string      `name:"tenant-skew" enum:",zipf,uniform" default:"" help:"With --distribute-by tenant: the tenants' sizes, Zipfian (the default: a few large, many small, drawn as a Zipf law over the tenants' ranks: docs/run.md) or uniform."`
	Force         bool        `help:"Replace an existing --export file and write --hist-file logs beside earlier ones; with --dsn, also work in a --schema keybench created and kept that has since received objects of someone else's (keybench still creates and drops only its own; a schema keybench did not create is refused, --force or not)."`
	AllowEvTrig   bool        `name:"allow-event-triggers" help:"With --dsn: run on a server whose enabled event triggers would run on keybench's DDL (refused by default: keybench runs no code of yours); said on the first screen."`
	Keep          bool        `help:"With --dsn: keep keybench's schema at the end instead of dropping it."`
	ProjectRows   string      `name:"project-rows" help:"With --project-ram: carry the run to your table's rows in the report (\"At your scale\"), e.g. 1e9."`
	ProjectRAM    string      `name:"project-ram" help:"Your server's memory for --project-rows, e.g. 64GB."`
	ProjectSB     string      `name:"project-shared-buffers" help:"Your shared_buffers for --project-rows (default: a quarter of --project-ram)."`
	ProjectRate   *float64    `name:"project-insert-rate" help:"Rows you insert per second, for WAL per day in the projection."`

	// options are the workload options given as flags (workloadFlags).
	options map[string]string `kong:"-"`
	// servers are the embedded servers the plan runs on, one after
	// another (more than one: --pg-version or --pg-bin lists).
	servers []server.Options `kong:"-"`
}

func (r *runCmd) Run(e *env) error {
	cfg, err := r.config(e)
	if err != nil {
		return err
	}
	if cfg.Out == "" {
		if cfg.Out, err = runner.MkUniqueOut("keybench-results", cfg.Plan.Scenario.Name+"-"+time.Now().Format("20060102-150405")); err != nil {
			return usagef("cannot make a results directory under keybench-results (choose one with --out): %v", err)
		}
	} else if err := runner.MkOut(cfg.Out); err != nil {
		return usagef("--out %s is not a writable directory: %v", cfg.Out, err)
	} else if held := runner.EarlierRun(cfg.Out); held != "" {
		return usagef("--out %s holds an earlier run's %s: a measurement is data too; give a new or empty directory", cfg.Out, held)
	}
	humanFile := e.stdout
	if r.JSON {
		humanFile = e.stderr
	}
	var human io.Writer = &printable{w: humanFile}
	var res *results.Results
	if len(r.servers) > 1 {
		res, err = runMajors(e.ctx, cfg, r.servers)
	} else {
		res, err = runner.Run(e.ctx, cfg)
	}
	if err != nil && (res == nil || len(res.Cells) == 0) {
		// Nothing was measured (the server could not be reached, a key
		// could not be made): leave no results behind, only the error.
		removeOut(cfg.Out)
		res = nil
	}
	if res != nil && len(res.Cells) > 0 {
		fmt.Fprintln(human)
		if r.Verbose {
			report.WriteSummary(human, res, e.width(humanFile))
		} else {
			report.Brief(res).Write(human, e.width(humanFile))
		}
	}
	if res != nil {
		path := filepath.Join(cfg.Out, "results.json")
		fmt.Fprintf(e.stderr, "results: %s\n", path)
		// The report is rendered from the file just written, so that
		// 'keybench report' on it later gives the same page.
		if rerr := writeReport(path); rerr != nil {
			fmt.Fprintf(e.stderr, "keybench: could not write the HTML report: %v\n", rerr)
		} else {
			fmt.Fprintf(e.stderr, "report: %s\n", report.DefaultPath(path))
		}
		if r.JSON {
			b, _ := json.MarshalIndent(res, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
		}
		if xerr := r.writeRun(e, res); xerr != nil {
			fmt.Fprintf(e.stderr, "keybench: %v\n", xerr)
		}
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return errInterrupted
	}
	return err
}

// runMajors runs the plan on each server in turn, each a run of its own
// in a directory of its own under cfg.Out (pg15/, pg18/), and merges them
// into cfg.Out's results.json (results.MergeMajors), analysed: an answer
// for each major and across them. An interrupted or failed major ends the
// runs; what ran is merged.
func runMajors(ctx context.Context, cfg runner.Config, servers []server.Options) (*results.Results, error) {
	var runs []*results.Results
	var dirs []string
	var err error
	for i, o := range servers {
		c := cfg
		c.Embedded = o
		dir := fmt.Sprintf("pg%d-%s", i+1, cmp.Or(o.Version, filepath.Base(filepath.Dir(o.BinDir)), "default"))
		c.Out = filepath.Join(cfg.Out, dir)
		if err = runner.MkOut(c.Out); err != nil {
			return nil, err
		}
		var res *results.Results
		res, err = runner.Run(ctx, c)
		if res != nil && len(res.Cells) > 0 {
			runs, dirs = append(runs, res), append(dirs, dir)
		}
		if err != nil {
			break
		}
	}
	if len(runs) == 0 {
		return nil, err
	}
	merged := results.MergeMajors(runs, dirs)
	if werr := verdict.Write(merged, cfg.Out); werr != nil && err == nil {
		err = werr
	}
	return merged, err
}

func (r *runCmd) config(e *env) (runner.Config, error) {
	if err := r.checkOutputs(); err != nil {
		return runner.Config{}, err
	}
	if err := r.script(); err != nil {
		return runner.Config{}, err
	}
	// Workloads with options of their own (lookup:query=range, or a list
	// of workloads) run as the bare scenario of the first.
	name, _, _ := strings.Cut(strings.Split(r.Scenario, ",")[0], ":")
	lookup := scenario.Lookup
	if name != r.Scenario {
		lookup = scenario.Workload
	}
	sc, err := lookup(name)
	if err != nil {
		return runner.Config{}, err
	}
	p, err := r.params(sc)
	if err != nil {
		return runner.Config{}, err
	}
	specs, err := keys.ParseList(strings.Join(p.Keys, ","))
	if err != nil {
		return runner.Config{}, err
	}
	plan, err := scenario.Build(sc, p, specs)
	if err != nil {
		return runner.Config{}, err
	}
	if r.Budget != nil {
		if d := time.Duration(*r.Budget); d < 0 || d > 24*time.Hour {
			return runner.Config{}, usagef("--budget must be from 0 to 24h, not %s", d)
		}
		plan.Budget = time.Duration(*r.Budget)
		if plan.Budget == 0 {
			plan.CostSequential = nil
		}
	}
	if err := checkSchema(r.Schema); err != nil {
		return runner.Config{}, err
	}
	cfg := runner.Config{Plan: plan, Schema: r.Schema, Seed: r.Seed, Quick: r.Quick,
		Command: redactArgs(e.args), Version: fullVersion(), UI: runner.NewUI(e.stderr), Out: r.Out, HistDir: r.HistFile, HistSeconds: r.HistSeconds, TxnLog: r.Log, AggregateInterval: orZero(r.AggInterval), Sampling: r.Sampling == "on", RowsGiven: r.Rows != nil,
		OnError: r.OnError, Force: r.Force, Keep: r.Keep, AllowEventTriggers: r.AllowEvTrig, ProgressEvery: r.Progress, Device: r.Device, NoCheckpoints: r.Checkpoints == "off"}
	if err := checkDevice(e, r.Device); err != nil {
		return runner.Config{}, err
	}
	if r.StandbyWait != nil {
		if d := time.Duration(*r.StandbyWait); d < 100*time.Millisecond || d > time.Hour {
			return runner.Config{}, usagef("--standby-wait must be from 0.1 s to 1 h, not %s", d)
		}
		cfg.StandbyWait = time.Duration(*r.StandbyWait)
	}
	switch {
	case r.ProjectRows != "" && r.ProjectRAM != "":
		scale, err := scaleOf("project-", r.ProjectRows, r.ProjectRAM, r.ProjectSB, r.ProjectRate, nil)
		if err != nil {
			return runner.Config{}, err
		}
		cfg.AtScale = &scale
	case r.ProjectRows != "" || r.ProjectRAM != "" || r.ProjectSB != "" || r.ProjectRate != nil:
		return runner.Config{}, usagef("--project-rows and --project-ram go together (the other --project- flags need them)")
	}
	if r.Jobs > 0 {
		cfg.UI.Logf("note: -j %d: keybench runs one connection per client, spread over one event loop per core (pgbench -j at its best), whatever -j says", r.Jobs)
	}
	if r.Mode == "prepared" {
		cfg.UI.Logf("note: -M prepared: keybench always prepares its statements")
	}
	return cfg, r.server(&cfg, sc)
}

// params are the scenario's parameters (scaled down by --quick) with the user's flags over them.
func (r *runCmd) params(sc *scenario.Scenario) (scenario.Params, error) {
	p := sc.Params(r.Quick)
	for _, set := range []func(*scenario.Params) error{r.keysParams, r.windowParams, r.tableParams, r.pgbenchParams, r.verdictParams} {
		if err := set(&p); err != nil {
			return p, err
		}
	}
	return p, nil
}

// keysParams are --keys and --prefill-key.
func (r *runCmd) keysParams(p *scenario.Params) error {
	if r.Keys != nil {
		if strings.TrimSpace(*r.Keys) == "" {
			return usagef("--keys is empty: give at least one key spec (see 'keybench keys')")
		}
		p.Keys = strings.Split(*r.Keys, ",")
	}
	if r.PrefillKey != "" {
		if strings.Contains(r.PrefillKey, ":") {
			return usagef("--prefill-key takes a key's name (its values are made in the window key's column type), not %q", r.PrefillKey)
		}
		for i, k := range p.Keys {
			if !strings.Contains(k, ":prefill=") {
				p.Keys[i] = k + ":prefill=" + r.PrefillKey
			}
		}
	}
	return nil
}

// windowParams are the window's: its length or transactions, the warm-up,
// the clients, the repeats and rounds.
func (r *runCmd) windowParams(p *scenario.Params) error {
	if r.Clients != nil {
		p.Clients = r.Clients
	}
	if r.Duration != nil && r.Txns != nil {
		return usagef("--duration (-T) and --txns (-t) both set: a window is either a duration or a number of transactions")
	}
	if r.Duration != nil {
		d := time.Duration(*r.Duration)
		if d < time.Second {
			return usagef("--duration must be at least 1s, not %s", d)
		}
		p.Duration, p.Txns, p.TableShare = d, 0, 0
	}
	if r.Txns != nil {
		if *r.Txns < 1 {
			return usagef("--txns must be at least 1, not %d", *r.Txns)
		}
		p.Txns, p.Duration, p.TableShare = *r.Txns, 0, 0
	}
	if err := r.rateParams(p); err != nil {
		return err
	}
	if r.Repeat != nil && *r.Repeat < 1 {
		return usagef("--repeat must be at least 1 (a run of every cell), not %d", *r.Repeat)
	}
	if r.Seed < 0 {
		return usagef("--seed is a number from 0 (as pgbench's --random-seed), not %d", r.Seed)
	}
	if r.Rounds != nil && *r.Rounds < 1 {
		return usagef("--rounds must be at least 1 (1: one window per cell), not %d", *r.Rounds)
	}
	if r.Warmup != nil {
		p.Warmup = time.Duration(*r.Warmup)
	}
	p.FixedWarmup = r.WarmupUntil == "time"
	if r.Repeat != nil {
		p.Repeat = *r.Repeat
	}
	if r.Rounds != nil {
		p.Rounds, p.RoundsGiven = *r.Rounds, true
	}
	return nil
}

// tableParams are the table's: its rows, created_at, partitions, fill,
// history, payload, the caches it runs over, and the workload's options.
func (r *runCmd) tableParams(p *scenario.Params) error {
	if r.Rows != nil {
		p.Rows = r.Rows
	}
	if r.CreatedAt != "" {
		p.CreatedAt = r.CreatedAt
	}
	if r.PartitionBy != "" {
		pt, err := keys.ParsePartitioning(r.PartitionBy)
		if err != nil {
			return usagef("--partition-by: %v", err)
		}
		p.PartitionBy = pt
	}
	switch r.Fill {
	case "indexed":
		p.FillIndexed = true
	case "after":
		p.FillIndexed = false
	}
	if r.History != "" {
		h, err := keys.ParseSpan(r.History)
		if err != nil || h <= 0 {
			return usagef("--history must be a span of time above 0 (10d, 36h), not %q", r.History)
		}
		p.History = h
	}
	if r.Payload != nil {
		p.Payload = *r.Payload
	}
	if r.Like != "" {
		switch {
		case r.Script == "":
			return usagef("--like gives your script's table your table's shape: it needs --script FILE")
		case r.DSN == "":
			return usagef("--like reads your table's definition on your server: it needs --dsn")
		case r.Secondary != "" || r.CreatedAt != "" || r.PartitionBy != "" || r.Distribute:
			return usagef("--like copies your table's columns and indexes: give no --secondary, --created-at, --partition-by or --distribute beside it")
		}
		if _, _, ok := workload.SplitQualified(r.Like); !ok {
			return usagef("--like takes SCHEMA.TABLE (a part quoted as SQL quotes it where it needs to be), not %q", r.Like)
		}
		p.LikeTable = r.Like
	}
	if r.Secondary != "" {
		s, err := workload.ParseSecondary(r.Secondary)
		if err != nil {
			return usagef("%v", err)
		}
		p.Secondary = s
	}
	if len(r.SharedBuffers) > 0 {
		p.Caches = nil // the user's sizes over the preset's
	}
	seen := map[int64]bool{}
	for _, v := range r.SharedBuffers {
		b, err := projection.ParseBytes(v)
		if err != nil {
			return usagef("--shared-buffers: %v", err)
		}
		if seen[b] {
			return usagef("--shared-buffers lists %s twice", results.Bytes(b))
		}
		seen[b] = true
		p.Caches = append(p.Caches, b)
	}
	if name := strings.TrimSpace(r.Scenario); strings.ContainsAny(name, ":,") {
		p.Workload = name // the workloads with their own options
	}
	for k, v := range r.options {
		p.Options[k] = v // the user's over the preset's
	}
	return nil
}

// pgbenchParams are pgbench's flags keybench takes for what they are.
func (r *runCmd) pgbenchParams(*scenario.Params) error {
	switch r.Mode {
	case "", "prepared":
	default:
		return usagef("-M %s: keybench always uses prepared statements (-M prepared), as the fastest pgbench mode", r.Mode)
	}
	if r.Jobs < 0 || r.Progress < 0 {
		return usagef("-j and -P must be positive")
	}
	return nil
}

// verdictParams are the verdict's design: sequential or not, and its margin.
func (r *runCmd) verdictParams(p *scenario.Params) error {
	p.AllRounds = p.AllRounds || r.Sequential == "off" // a preset may run every round (ids)
	p.AllPairs = r.Pairs == "all"
	if r.MinEffect != nil {
		m, err := parsePercent(*r.MinEffect)
		if err != nil {
			return usagef("--min-effect: %v", err)
		}
		p.MinEffect = m
	}
	return nil
}

// parsePercent reads a percentage, "5" or "5%", as a fraction.
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a percentage (5 or 5%%)", s)
	}
	if v < 0 || v >= 100 {
		return 0, fmt.Errorf("must be from 0 to 99%%, not %s%%", strconv.FormatFloat(v, 'g', -1, 64))
	}
	return v / 100, nil
}

// server sets the server of the run: --dsn, or the embedded one with its settings.
func (r *runCmd) server(cfg *runner.Config, sc *scenario.Scenario) error {
	given, err := server.ParseSettings(r.PgConf)
	if err != nil {
		return err
	}
	settings := append(append([]server.Setting(nil), sc.Settings...), given...)
	if r.Force && r.Keep {
		return usagef("--keep keeps a schema keybench created; with --force keybench works beside someone else's objects in it and removes its own at the end")
	}
	if r.DSN == "" && r.Keep {
		return usagef("--keep applies to --dsn; the embedded server is thrown away after the run")
	}
	switch {
	case r.ShardCount != nil && !r.Distribute:
		return usagef("--shard-count goes with --distribute")
	case r.ShardCount != nil && (*r.ShardCount < 1 || *r.ShardCount > 64000):
		return usagef("--shard-count must be from 1 to 64000, not %d", *r.ShardCount)
	case r.Distribute && r.DSN == "":
		return usagef("--distribute needs a Citus server (--dsn): the embedded server is plain PostgreSQL")
	}
	cfg.Distribute = r.Distribute
	if r.ShardCount != nil {
		cfg.ShardCount = *r.ShardCount
	}
	if cfg.Tenants, err = r.tenants(); err != nil {
		return err
	}
	if r.DistributeBy == "reference" && !r.Distribute {
		return usagef("--distribute-by reference makes the keyed table a Citus reference table and needs --distribute (a Citus server at --dsn)")
	}
	cfg.Reference = r.DistributeBy == "reference"
	if len(cfg.Plan.Params.Caches) > 0 {
		for _, kv := range r.PgConf {
			if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == "shared_buffers" {
				return usagef("--shared-buffers and --pg-conf shared_buffers both set: give the sizes to --shared-buffers")
			}
		}
		// The server starts with the first size: no restart before the first cell.
		settings = append(settings, server.Setting{Name: "shared_buffers", Value: fmt.Sprintf("%dkB", cfg.Plan.Params.Caches[0]>>10)})
	}
	replicas := sc.Replicas
	if r.Replicas != nil {
		if *r.Replicas < 0 || *r.Replicas > MaxReplicas {
			return usagef("--replicas must be from 0 to %d, not %d", MaxReplicas, *r.Replicas)
		}
		replicas = *r.Replicas
	}
	if r.DSN != "" {
		if r.PgVersion != "" || r.PgBin != "" || len(r.PgConf) > 0 || len(r.SharedBuffers) > 0 || r.Replicas != nil && *r.Replicas > 0 {
			return usagef("--pg-version, --pg-bin, --pg-conf, --shared-buffers and --replicas apply to the embedded server, not to --dsn (its standbys are measured when it has them)")
		}
		if len(cfg.Plan.Params.Caches) > 0 {
			return usagef("%s measures each size at a cache of its own, restarting the embedded server between them; on --dsn the cache is your server's", sc.Name)
		}
		cc, err := usage.ParseDSN(r.DSN)
		if err != nil {
			return err
		}
		cfg.ConnConfig = cc
		return nil
	}
	base := server.Options{Settings: settings, ColdCache: r.CacheMode == "cold", ColdCacheMB: sc.ColdCacheMB, Replicas: replicas}
	servers, err := r.embedded(base)
	if err != nil {
		return err
	}
	if len(servers) > 1 && replicas > 0 {
		return usagef("--replicas runs on one major: a list of --pg-version or --pg-bin runs each alone")
	}
	cfg.Embedded, r.servers = servers[0], servers
	return nil
}

// embedded are the embedded servers --pg-version and --pg-bin name, one
// for each entry of their lists (a list of one of them, the other one
// entry or none), each checked: a version keybench knows, a directory
// that holds PostgreSQL's binaries of the version given beside it.
func (r *runCmd) embedded(base server.Options) ([]server.Options, error) {
	split := func(s string) []string {
		if s == "" {
			return []string{""}
		}
		return strings.Split(s, ",")
	}
	versions, bins := split(r.PgVersion), split(r.PgBin)
	if len(versions) > 1 && len(bins) > 1 {
		return nil, usagef("give a list of --pg-version or of --pg-bin, not both")
	}
	var out []server.Options
	for i := range max(len(versions), len(bins)) {
		v, bin := versions[min(i, len(versions)-1)], bins[min(i, len(bins)-1)]
		if bin == "" {
			if _, err := server.ResolveVersion(v); err != nil {
				return nil, usagef("%v", err)
			}
		} else {
			dir, version, err := server.CheckBinDir(bin)
			if err != nil {
				return nil, usagef("%v", err)
			}
			if v != "" && !strings.HasPrefix(version+".", strings.SplitN(v, ".", 2)[0]+".") {
				return nil, usagef("--pg-bin %s holds PostgreSQL %s, not --pg-version %s; give one of the two", dir, version, v)
			}
		}
		o := base
		o.Version, o.BinDir = v, bin
		for _, seen := range out {
			if seen.Version == o.Version && seen.BinDir == o.BinDir {
				return nil, usagef("--pg-version %s is listed twice", cmp.Or(v, bin))
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// MaxReplicas bounds --replicas: each standby is a whole server on the same machine.
const MaxReplicas = 8

// redactArgs is the command line as results.json records it: the value of
// --dsn as usage.DescribeDSN gives it (host, port, user and database, as
// key=value pairs), never the string given, and secrets of other flags
// redacted.
func redactArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		out[i] = usage.RedactSecrets(a) // e.g. --pg-conf primary_conninfo='... password=...'
		switch {
		case a == "--dsn" && i+1 < len(out):
			out[i+1] = usage.DescribeDSN(out[i+1])
		case strings.HasPrefix(a, "--dsn="):
			out[i] = "--dsn=" + usage.DescribeDSN(strings.TrimPrefix(a, "--dsn="))
		}
	}
	return out
}

// orZero is an optional flag's value, 0 when it was not given.
func orZero(v *int) int {
	if v == nil {
		return 0
	}
	return *v
}

func validIdent(s string) bool {
	if s == "" || len(s) > 63 || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// writeReport renders the report of the results file at path beside it.
func writeReport(path string) error {
	res, err := readResults(path)
	if err != nil {
		return err
	}
	return report.WriteFile(res, projected(res), report.DefaultPath(path))
}

// pgDuration is a duration flag as pgbench takes it: a bare number is
// seconds (-T 10, -T 2.5), or a Go duration (10s, 1m30s, 500ms).
type pgDuration time.Duration

func (d *pgDuration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > float64(math.MaxInt64)/float64(time.Second) {
			return fmt.Errorf("%q is not a number of seconds", s)
		}
		*d = pgDuration(time.Duration(v * float64(time.Second)))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is neither seconds (10) nor a duration (10s, 1m30s)", s)
	}
	*d = pgDuration(v)
	return nil
}

// removeOut removes what a run wrote in dir, and dir when that leaves it
// empty (a directory of the user's with other files stays).
func removeOut(dir string) {
	for _, name := range []string{"results.json", "samples.csv", "report.html"} {
		_ = os.Remove(filepath.Join(dir, name))
	}
	_ = os.Remove(dir)
	if filepath.Base(filepath.Dir(dir)) == "keybench-results" {
		_ = os.Remove(filepath.Dir(dir)) // the default parent, when this run made it and nothing else is in it
	}
}

// maxRate bounds --rate: far beyond what any server keybench measures runs.
const maxRate = 10_000_000

// rateParams are the fixed rate and its latency limit (pgbench -R, --latency-limit).
func (r *runCmd) rateParams(p *scenario.Params) error {
	if r.Rate != nil {
		if !(*r.Rate > 0 && *r.Rate <= maxRate) {
			return usagef("--rate must be above 0 and at most %d transactions per second, not %g", maxRate, *r.Rate)
		}
		p.Rate = *r.Rate
	}
	if r.LatencyLimit != nil {
		if p.Rate == 0 {
			return usagef("--latency-limit needs --rate: it counts transactions late behind a fixed schedule")
		}
		if !(*r.LatencyLimit > 0 && *r.LatencyLimit <= 3_600_000) {
			return usagef("--latency-limit must be above 0 and at most an hour, in milliseconds, not %g", *r.LatencyLimit)
		}
		p.LatencyLimit = time.Duration(*r.LatencyLimit * float64(time.Millisecond))
	}
	return nil
}

// script makes --script FILE (-f) the script workload's run: the default
// scenario gives way to it; any other is refused.
func (r *runCmd) script() error {
	if r.Script == "" {
		return nil
	}
	if r.Scenario != "war" && r.Scenario != script.Name {
		return usagef("--script runs the %s workload: give no scenario (or %s), not %q", script.Name, script.Name, r.Scenario)
	}
	r.Scenario = script.Name
	if r.options == nil {
		r.options = map[string]string{}
	}
	r.options["file"] = r.Script
	return nil
}

// tenants reads --distribute-by tenant and its options (nil: by the key).
func (r *runCmd) tenants() (*workload.Tenants, error) {
	switch {
	case r.DistributeBy != "tenant" && (r.Tenants != nil || r.TenantSkew != ""):
		return nil, usagef("--tenants and --tenant-skew go with --distribute-by tenant")
	case r.DistributeBy != "tenant":
		return nil, nil
	case !r.Distribute:
		return nil, usagef("--distribute-by tenant shards on a tenant column and needs --distribute (a Citus server at --dsn)")
	case r.Tenants != nil && (*r.Tenants < 1 || *r.Tenants > 1_000_000_000):
		return nil, usagef("--tenants must be from 1 to 1000000000, not %d", *r.Tenants)
	}
	n, skew := 1000, r.TenantSkew
	if r.Tenants != nil {
		n = *r.Tenants
	}
	if skew == "" {
		skew = workload.TenantsZipf
	}
	return &workload.Tenants{N: n, Skew: skew}, nil
}

// checkDevice refuses a --device that names no device, and a file of
// figures that does not hold them, before anything runs.
func checkDevice(e *env, name string) error {
	if name == "" || name == "probe" || name == "reprobe" {
		return nil
	}
	if _, ok := device.Profiles[name]; !ok && !strings.HasSuffix(name, ".json") {
		return usagef("--device takes %s, not %q", strings.Join(device.Names(), ", "), name)
	}
	if strings.HasSuffix(name, ".json") {
		if _, err := device.Resolve(e.ctx, name, ""); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// checkSchema refuses a --schema that is no plain identifier or one of
// PostgreSQL's own.
func checkSchema(name string) error {
	if len(name) > 63 {
		return usagef("--schema is %d characters: PostgreSQL keeps 63 and would cut it to another schema's name; choose a shorter one", len(name))
	}
	if !validIdent(name) {
		return usagef("--schema must be a lower-case identifier (letters, digits, _), not %q", name)
	}
	if strings.HasPrefix(name, "pg_") || name == "information_schema" {
		return usagef("--schema %s is a name PostgreSQL reserves for its own schemas (pg_*, information_schema); choose another", name)
	}
	return nil
}

// checkOutputs checks, before anything runs, the exports' formats and the
// files the run writes besides its results directory: its exports (not the
// run's own files, not its script), and its --hist-file directory.
func (r *runCmd) checkOutputs() error {
	if err := r.check(); err != nil {
		return err
	}
	switch {
	case r.AggInterval != nil && *r.AggInterval < 1:
		return usagef("--aggregate-interval %d: a number of seconds, 1 or more", *r.AggInterval)
	case r.HistSeconds && r.HistFile == "":
		return usagef("--hist-per-second goes with --hist-file DIR (it is how that log is cut)")
	case r.AggInterval != nil && !r.Log:
		return usagef("--aggregate-interval goes with --log (-l), as pgbench's does: it aggregates the transaction log")
	}
	var protected []string
	if r.Out != "" {
		for _, name := range []string{"results.json", "samples.csv", "report.html"} {
			protected = append(protected, filepath.Join(r.Out, name))
		}
	}
	protected = append(protected, r.Script)
	if err := checkOutputs(r.targets(), protected, r.Force); err != nil {
		return err
	}
	if err := checkLogDir("--hist-file", r.HistFile, r.Force); err != nil || r.HistFile == "" {
		return err
	}
	if err := os.MkdirAll(r.HistFile, 0o755); err != nil {
		return usagef("--hist-file %s: %v", r.HistFile, err)
	}
	return nil
}
