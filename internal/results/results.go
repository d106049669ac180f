// Package results is keybench's results.json: the versioned record of a run
// and the single source of every other output (samples.csv, the console
// summary, the HTML report). It is written after every cell, atomically, so
// that an interrupted or failed run keeps everything it measured.
//
// Fields documented as stable never change meaning: schema_version, status,
// environment.server_version, environment.settings and, per cell, key,
// workload, clients, status, rows_before, duration_s, txns, rows_inserted,
// tps, latency_ms, errors, timeline and metrics.
package results

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/stats"
)

// SchemaVersion is the version of the results.json layout. Version 2 typed
// every metric and added fields; it moved none, so a version-1 file reads
// into the same structs (ReadableVersions). Version 3 wrote every interval
// of the analysis as one type (stats.Interval: lo, hi, level); the
// analysis of an earlier file is made anew when it is read (Analysis.Check).
const SchemaVersion = 3

// ReadableVersions are the schema versions Read accepts.
var ReadableVersions = []int{1, 2, 3}

// Run statuses.
const (
	StatusOK          = "ok"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	StatusRunning     = "running"
	// StatusInvalid marks a cell whose row count did not match the server's.
	StatusInvalid = "invalid"
)

// Results is one run.
type Results struct {
	SchemaVersion int         `json:"schema_version"`
	Status        string      `json:"status"`
	Error         string      `json:"error,omitempty"`
	Scenario      string      `json:"scenario"`
	Keybench      Tool        `json:"keybench"`
	StartedAt     time.Time   `json:"started_at"`
	FinishedAt    *time.Time  `json:"finished_at,omitempty"`
	Environment   Environment `json:"environment"`
	Plan          Plan        `json:"plan"`
	// Keys are the run's keys as the catalog describes them: what each
	// gives away and keeps apart, beside what the cells measured.
	Keys []KeyFacts `json:"keys,omitempty"`
	// Notes are caveats about the whole run.
	Notes []string `json:"notes,omitempty"`
	// Majors are the servers of a run over several PostgreSQL majors, in
	// the order they ran, each with its own run's directory (whose
	// results.json is that major's run whole); Environment is the first's.
	Majors []MajorRun `json:"pg_majors,omitempty"`
	// Warnings are caveats the first screen leads with, under its answer:
	// code of someone else's that ran beside keybench's (event triggers
	// allowed), what of a copied shape (--like) was not copied.
	Warnings []string `json:"warnings,omitempty"`
	Cells    []Cell   `json:"cells"`
	// Analysis is everything decided about the cells (package verdict
	// makes it once; every output reads it): derived, rewritten whenever
	// the cells change.
	Analysis *Analysis `json:"analysis,omitempty"`

	// kinds is the catalog the cells were read with (UseKinds).
	kinds Kinds
}

// UseKinds reads the cells with the catalog ks: each cell's kind, its
// workload's summary as the workload's own type (a cell of a workload ks
// does not hold keeps it raw), and what an older file did not record
// (Kind.Upgrade). Parse calls it; a run calls it on the results it makes.
func (r *Results) UseKinds(ks Kinds) error {
	r.kinds = ks
	for i := range r.Cells {
		c := &r.Cells[i]
		c.kind = ks.Of(c.Workload)
		if raw, ok := c.Metrics.Summary.(RawSummary); ok && c.kind.NewSummary != nil {
			b, err := json.Marshal(raw)
			if err != nil {
				return err
			}
			s := c.kind.NewSummary()
			if err := json.Unmarshal(b, s); err != nil {
				return fmt.Errorf("cell %s (%s): the workload's summary: %w", c.Key, c.Workload, err)
			}
			c.Metrics.Summary = s
		}
		if up := c.kind.Upgrade; up != nil {
			up(c)
		}
	}
	return nil
}

// KindOf is how a workload's cells read, in the catalog the results were
// read with (UseKinds).
func (r *Results) KindOf(workload string) Kind { return r.kinds.Of(workload) }

// Tool identifies the keybench that produced the results.
type Tool struct {
	Version string   `json:"version"`
	Command []string `json:"command"`
}

// Plan records the parameters the run was planned with.
// Scale is a user's table and server, to carry a run to: rows, the cache
// (shared_buffers) the key index competes for, the insert rate for WAL per
// day (0: none given) and, when set, the table's bytes per row.
type Scale struct {
	Rows       int64 `json:"rows"`
	CacheBytes int64 `json:"cache_bytes"`
	// CacheAssumed says CacheBytes is a quarter of the RAM given, not the
	// user's shared_buffers.
	CacheAssumed bool    `json:"cache_assumed,omitempty"`
	InsertRate   float64 `json:"insert_rate,omitempty"`
	RowBytes     float64 `json:"row_bytes,omitempty"`
	// Clients chooses the curves of a run that measured several client
	// counts (0: its first); curves never pool two.
	Clients int `json:"clients,omitempty"`
	// Hardware is the user's machine for the cost model (nil: none).
	Hardware *Machine `json:"machine,omitempty"`
}

// Hardware is a machine the cost model prices a run's parts on (package
// projection): cores, the disk (random access, sequential write, flush),
// shared_buffers and the OS page cache the key index keeps beyond it.
type Machine struct {
	Cores         int       `json:"cores"`
	Disk          DiskCosts `json:"disk"`
	SharedBuffers int64     `json:"shared_buffers"`
	OSCache       int64     `json:"os_cache"`
	OSReadMS      float64   `json:"os_read_ms"`
}

// DiskCosts are a disk's costs: a random 8 kB access (a read, or a
// write's seek), the sequential write rate, and a write followed by a
// flush (a commit).
type DiskCosts struct {
	ReadMS    float64 `json:"random_ms"`
	WriteMBps float64 `json:"write_mbps"`
	FlushMS   float64 `json:"flush_ms"`
}

type Plan struct {
	Keys []string `json:"keys"`
	// Workload lists the plan's workloads with their own options
	// ("lookup:query=range"); Options are those set for every workload of
	// the plan that declares them (the cells record each one's own, resolved).
	Workload string            `json:"workload"`
	Options  map[string]string `json:"options,omitempty"`
	Clients  []int             `json:"clients"`
	Rows     []int64           `json:"rows"`
	// SharedBuffers are the caches (bytes) every cell ran at, the
	// embedded server restarted between them (--shared-buffers).
	SharedBuffers []int64 `json:"shared_buffers,omitempty"`
	// Scaled: Rows[i] ran at SharedBuffers[i] only (the scale preset);
	// WindowTableShare: each cell's window was that share of its table's
	// rows, in transactions.
	Scaled bool `json:"scaled,omitempty"`
	// Secondary are the keyed table's secondary indexes (--secondary:
	// random:WIDTH, time).
	Secondary []string `json:"secondary,omitempty"`
	// Like is the user's table whose shape the keyed table took (--like).
	Like             string  `json:"like,omitempty"`
	WindowTableShare float64 `json:"window_table_share,omitempty"`
	WarmupS          float64 `json:"warmup_s"`
	// WarmupFixed: every warm-up ran WarmupS (--warmup-until time);
	// otherwise each ended once the rate was steady, WarmupS the longest.
	WarmupFixed bool    `json:"warmup_fixed,omitempty"`
	DurationS   float64 `json:"duration_s,omitempty"`
	TxnsPerCli  int64   `json:"txns_per_client,omitempty"`
	// RateTPS is the fixed rate every window ran at (--rate; 0: flat
	// out), LatencyLimitMS its latency limit (--latency-limit).
	RateTPS        float64 `json:"rate_tps,omitempty"`
	LatencyLimitMS float64 `json:"latency_limit_ms,omitempty"`
	Payload        int     `json:"payload_bytes"`
	// CreatedAt is the keyed table's created_at column: column, indexed
	// ("": none); PartitionBy its partitions by time ("1d", "100000rows";
	// ""), each for the keys that say none of their own; HistoryS the span
	// of time a prefill stands for (0: its rows at 1000 a second).
	CreatedAt   string  `json:"created_at,omitempty"`
	PartitionBy string  `json:"partition_by,omitempty"`
	HistoryS    float64 `json:"history_s,omitempty"`
	// FillIndexed: each key index was built before the prefill, which grew
	// it as inserts do (--fill indexed).
	FillIndexed bool  `json:"fill_indexed,omitempty"`
	Repeat      int   `json:"repeat"`
	Seed        int64 `json:"seed"`
	// Rounds splits each cell's window into rounds interleaved across the
	// plan's cells: the most rounds, when Sequential stops them early.
	Rounds int `json:"rounds,omitempty"`
	// MinEffect is the equivalence margin the verdict's designs were given.
	MinEffect float64 `json:"min_effect,omitempty"`
	// Sequential is the design that stopped the rounds of a group once
	// every comparison of its keys was decided (absent: every round ran,
	// the comparisons made once at the end with Holm's correction).
	Sequential *stats.Sequential `json:"sequential,omitempty"`
	// CostSequential is the work's design (per transaction),
	// which may have run rounds past Rounds within BudgetS.
	CostSequential *stats.Sequential `json:"cost_sequential,omitempty"`
	// Against is the key the question compares every other with: only
	// those pairs were tested (stats.FamilyReference); "": every pair.
	Against string  `json:"against,omitempty"`
	BudgetS float64 `json:"budget_s,omitempty"`
	Quick   bool    `json:"quick"`
	// Sampling says whether the samplers ran; OnError what a failed cell did to the run.
	Sampling bool   `json:"sampling"`
	OnError  string `json:"on_error,omitempty"`
	// Pivot is how the scenario lays its summary table out (absent: one row per group).
	Pivot *Pivot `json:"pivot,omitempty"`
	// Question is what the preset asks (its verdict answers it);
	// Questions, when the preset asks several, each with the keys and
	// tasks that answer it.
	Question string `json:"question,omitempty"`
	// Ask is the question in one line, for the first screen.
	Ask       string     `json:"ask,omitempty"`
	Questions []Question `json:"questions,omitempty"`
	// Origins say whose default each key is (the frameworks preset): the
	// answer speaks in their names.
	Origins []Origin `json:"origins,omitempty"`
	// Cells is the number of cells planned (after workloads skipped keys they cannot run).
	Cells int `json:"cells,omitempty"`
	// AtScale is the user's scale the report carries the run to
	// (run --project-rows and --project-ram), when given.
	AtScale *Scale `json:"at_scale,omitempty"`
	// Force and Keep are --force and --keep (a --dsn run's schema).
	Force bool `json:"force,omitempty"`
	Keep  bool `json:"keep,omitempty"`
	// The embedded server as asked for: --pg-version, --pg-bin, --cache-mode
	// and --pg-conf with the scenario's own settings (secrets redacted); the
	// server as it ran is in environment.
	PgVersion string   `json:"pg_version,omitempty"`
	PgBin     string   `json:"pg_bin,omitempty"`
	CacheMode string   `json:"cache_mode,omitempty"`
	PgConf    []string `json:"pg_conf,omitempty"`
}

// Pivot lays the summary table out with keys down and one column per table
// size or client count, as 000 (table sizes) and 002 (clients) showed theirs.
type Pivot struct {
	// By is PivotRows or PivotClients.
	By string `json:"by"`
	// Bloat adds the key index's bloat to each cell (002's second figure).
	Bloat bool `json:"bloat,omitempty"`
}

// What a pivot's columns are.
const (
	PivotRows    = "rows_before"
	PivotClients = "clients"
)

// Environment is where the run happened.
type Environment struct {
	ServerVersion string `json:"server_version"`
	ServerKind    string `json:"server_kind"` // embedded, pg-bin or dsn
	// Engine is what answered: PostgreSQL, Citus (with its workers), CockroachDB, YugabyteDB.
	Engine       engine.Engine `json:"engine,omitzero"`
	ServerBinDir string        `json:"server_bin_dir,omitempty"`
	ServerUser   string        `json:"server_os_user,omitempty"`
	Schema       string        `json:"schema"`
	CacheMode    string        `json:"cache_mode"`
	// Standbys are the streaming standbys keybench started beside the
	// embedded server (--replicas): their names (application_name).
	Standbys []string          `json:"standbys,omitempty"`
	Settings map[string]string `json:"settings"`
	Host     Host              `json:"host"`
	// LoadAverage is the machine's load (1, 5 and 15 minutes) when the
	// run started and when it finished: a busy machine explains noisy
	// rates (it is keybench's machine, the server's only when embedded).
	LoadAverage M[LoadAverage] `json:"load_average,omitzero"`
	// Device is the disk the run's work is priced on (package device; nil
	// in a file of an earlier keybench, priced on DefaultDevice).
	Device *Device `json:"device,omitempty"`
}

// Device is a disk's unit costs, what the work figure prices a round's
// counts at: a random 8 kB read (ReadMS), the sequential write rate (a
// written block's 8 kB, the WAL's bytes) and a write followed by its
// flush (FlushMS, a commit). Name says which disk; Source where its
// figures come from (a probe of this machine's disk, a documented
// profile, the user's file).
type Device struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Kind is where its figures come from: DeviceProbe, DeviceProfile or
	// DeviceFile ("" in a file of an earlier keybench: ParseDevice's
	// reading of its name and source).
	Kind      string     `json:"kind,omitempty"`
	ReadMS    float64    `json:"random_read_ms"`
	WriteMBps float64    `json:"write_mbps"`
	FlushMS   float64    `json:"flush_ms"`
	ProbedAt  *time.Time `json:"probed_at,omitempty"`
}

// Device kinds.
const (
	DeviceProbe   = "probe"   // this machine's disk, probed
	DeviceProfile = "profile" // a documented profile (nvme, network, hdd)
	DeviceFile    = "file"    // the user's figures
)

// KindOf is the device's kind; for a file of an earlier keybench, which
// recorded none, read once here from how its name and source were written.
func (d Device) KindOf() string {
	switch {
	case d.Kind != "":
		return d.Kind
	case strings.HasPrefix(d.Name, "this machine's disk"):
		return DeviceProbe
	case strings.HasPrefix(d.Source, "profile:") || strings.Contains(d.Source, "priced on the profile:"):
		return DeviceProfile
	}
	return DeviceFile
}

// LoadAverage is /proc/loadavg at the run's start and end.
type LoadAverage struct {
	Start [3]float64 `json:"start"`
	End   [3]float64 `json:"end"`
}

// Host describes the machine keybench ran on.
type Host struct {
	Hostname  string `json:"hostname"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	Kernel    string `json:"kernel"`
	CPUModel  string `json:"cpu_model"`
	CPUs      int    `json:"cpus"`
	MemBytes  uint64 `json:"mem_bytes"`
	GoVersion string `json:"go_version"`
}

// BudgetStop is a budget ending a task's rounds undecided: the rounds
// run, the planned and the design's most, the seconds a round of every key
// took, the budget.
type BudgetStop struct {
	Rounds  int     `json:"rounds"`
	Planned int     `json:"planned"`
	Most    int     `json:"most"`
	RoundS  float64 `json:"round_s"`
	BudgetS float64 `json:"budget_s"`
}

// Origin is a framework's default id as the framework makes it: the
// framework and the version it holds from, how it declares the column and
// makes the value (in its own words), the key of keybench's catalog that
// makes the same column and values, what keybench cannot reproduce of it
// (Differs: "" where nothing), and the page it is traced to.
type Origin struct {
	Framework string `json:"framework"`
	Declared  string `json:"declared"`
	Key       string `json:"key"`
	Differs   string `json:"differs,omitempty"`
	Source    string `json:"source"`
}

// MajorRun is one PostgreSQL major of a run over several: its major, its
// server's version, and the directory its own results are in (relative
// to the merged results.json's).
type MajorRun struct {
	Major         int    `json:"major"`
	ServerVersion string `json:"server_version"`
	Dir           string `json:"dir"`
}

// Cell is one measured combination of key, workload and clients.
type Cell struct {
	Key          string `json:"key"`
	KeyCanonical string `json:"key_canonical"`
	KeyColumn    string `json:"key_column"`
	KeyGen       string `json:"key_generated_by"`
	KeyNote      string `json:"key_note,omitempty"`
	Workload     string `json:"workload"`
	// Options are the workload's options as the cell ran them (name →
	// value as text: every option of the workload that applied), and
	// Variant the values of its variant options (a read's query kind and
	// read distribution: "point", "recent"), which tell its task from the
	// same workload's others.
	Options map[string]string `json:"options,omitempty"`
	Variant []string          `json:"variant,omitempty"`
	// PrefillKey is the key the table was filled with before the window,
	// when it is not Key (a table switching keys: uuidv7 rows into a
	// uuidv4 history).
	PrefillKey string `json:"prefill_key,omitempty"`
	// PgMajor is the PostgreSQL major the cell ran on when the run
	// measured several (--pg-version 15,18: one server after another);
	// 0: the run's one server (Environment).
	PgMajor int `json:"pg_major,omitempty"`
	// SharedBuffers is the cache (bytes) the server was restarted with for
	// the cell when the run measured several (--shared-buffers); 0: the
	// server's own, one for the whole run.
	SharedBuffers int64    `json:"shared_buffers,omitempty"`
	Clients       int      `json:"clients"`
	Repeat        int      `json:"repeat"`
	Status        string   `json:"status"`
	Error         string   `json:"error,omitempty"`
	RowsBefore    int64    `json:"rows_before"`
	Prefill       *Prefill `json:"prefill,omitempty"`
	WarmupS       float64  `json:"warmup_s"`
	// WarmupSteady: the (first) warm-up ended early, the rate being steady.
	WarmupSteady bool    `json:"warmup_steady,omitempty"`
	DurationS    float64 `json:"duration_s"`
	Txns         int64   `json:"txns"`
	RowsInserted int64   `json:"rows_inserted"`
	// RowsUpdated, RowsDeleted and RowsRead are the window's other work on rows.
	RowsUpdated int64 `json:"rows_updated,omitempty"`
	RowsDeleted int64 `json:"rows_deleted,omitempty"`
	RowsRead    int64 `json:"rows_read,omitempty"`
	// RoleRows are the rows each role of the cell's clients handled in the
	// window, when its clients have roles (a queue's producers and consumers).
	RoleRows     map[string]int64 `json:"role_rows,omitempty"`
	TPS          float64          `json:"tps"`
	RowsPerS     float64          `json:"rows_per_s"`
	LatencyMS    Latency          `json:"latency_ms"`
	Errors       int64            `json:"errors"`
	ErrorSamples []string         `json:"error_samples,omitempty"`
	// Warnings are caveats about the cell's figures that do not invalidate
	// them (clients still waiting when the window ended, a lock met).
	Warnings []string  `json:"warnings,omitempty"`
	RowCheck *RowCheck `json:"row_check,omitempty"`
	Timeline []Second  `json:"timeline"`
	// DDL is the SQL that made the cell's tables (the key's helpers, the
	// tables, their indexes), to read or run again.
	DDL []string `json:"ddl,omitempty"`
	// Rounds are the cell's window in rounds interleaved with the other
	// cells' (--rounds), each one independent sample of the cell's rate.
	Rounds []Round `json:"rounds,omitempty"`
	// BudgetStop says the run's budget ended the cell's rounds while its
	// work comparisons were undecided (nil: it did not).
	BudgetStop *BudgetStop `json:"budget_stop,omitempty"`
	// Cost is what the window's transactions cost, per transaction, when
	// the cell ran as one window (a cell in rounds has it per round).
	Cost    *RoundCost `json:"cost,omitempty"`
	Metrics Metrics    `json:"metrics"`
	// HistFile is the cell's HdrHistogram interval log (--hist-file).
	HistFile string `json:"hist_file,omitempty"`
	// TxnLog is the cell's pgbench-format transaction (or aggregate) log (--log).
	TxnLog string `json:"txn_log,omitempty"`
	// Pace is the fixed-rate schedule the window ran on (--rate; nil: flat out).
	Pace *Pace `json:"pace,omitempty"`
	// Cluster is the cell read on each worker of a distributed engine
	// (Citus, --distribute): nil elsewhere.
	Cluster *Cluster `json:"cluster,omitempty"`

	// kind is how the cell's workload reads (Results.UseKinds, SetKind).
	kind Kind
}

// Pace is a cell's fixed-rate schedule as it ran (pgbench -R): the rate
// asked of all its clients together, the transactions its schedule
// started in the window (a Poisson count, within about its square root of
// the rate times the window: every key of a run draws the same schedule),
// how late the measured ones started behind it (LatencyMS counts from the
// scheduled start), and, with a latency limit, those slower than it from
// their schedule (Late) and those not sent, already that late (Skipped).
type Pace struct {
	RateTPS        float64 `json:"rate_tps"`
	LatencyLimitMS float64 `json:"latency_limit_ms,omitempty"`
	Scheduled      int64   `json:"scheduled_txns"`
	LagMS          Latency `json:"lag_ms"`
	// Late and Skipped are counted against a latency limit alone: without
	// one they are absent with why, never 0.
	Late    M[int64] `json:"late_txns,omitzero"`
	Skipped M[int64] `json:"skipped_txns,omitzero"`
}

// PaceHeld is the share of its schedule a cell must run to have held its
// rate: the transactions completed in the window against those scheduled
// in it (not against the rate times the window, which a Poisson count
// misses by its own noise).
const PaceHeld = 0.97

// RoundsP99 is the cell's p99 as every output names it: the median of its
// rounds' p99 (at a fixed rate, from each scheduled start), its window's
// where it ran one window; the window's over all its transactions pooled
// is LatencyMS.P99 ("p99 pooled").
func (c *Cell) RoundsP99() float64 {
	v := c.RoundP99s()
	if len(v) == 0 {
		return c.LatencyMS.P99
	}
	return stats.Summarize(v).Median
}

// RoundsMedianRate is the median of the cell's rounds' rates (0: no round
// ran one).
func (c *Cell) RoundsMedianRate() float64 {
	var v []float64
	for _, rd := range c.Rounds {
		if rd.Rate > 0 {
			v = append(v, rd.Rate)
		}
	}
	if len(v) == 0 {
		return 0
	}
	return stats.Summarize(v).Median
}

// RoundP99s are the cell's rounds' p99s (none in a file of earlier rounds).
func (c *Cell) RoundP99s() []float64 {
	var v []float64
	for _, rd := range c.Rounds {
		switch {
		case rd.P99MS > 0:
			v = append(v, rd.P99MS)
		case rd.LatencyMS != nil && rd.LatencyMS.P99 > 0:
			v = append(v, rd.LatencyMS.P99)
		}
	}
	return v
}

// Held says the cell ran its fixed schedule (within PaceHeld).
func (c *Cell) Held() bool {
	return c.Pace == nil || c.Pace.Scheduled == 0 || float64(c.Txns) >= PaceHeld*float64(c.Pace.Scheduled)
}

// ScheduleShare is the share of its schedule the cell ran (1 flat out).
func (c *Cell) ScheduleShare() float64 {
	if c.Pace == nil || c.Pace.Scheduled == 0 {
		return 1
	}
	return float64(c.Txns) / float64(c.Pace.Scheduled)
}

// Round is one round of a cell: when it ran (seconds since the run
// started), how long its measured window was, and its rate.
type Round struct {
	Round     int     `json:"round"`
	StartS    float64 `json:"start_s"`
	DurationS float64 `json:"duration_s"`
	Txns      int64   `json:"txns"`
	Rate      float64 `json:"rate"`
	// WarmupS is the round's warm-up as it ran (a steady warm-up ends
	// early: WarmupSteady).
	WarmupS      float64 `json:"warmup_s,omitempty"`
	WarmupSteady bool    `json:"warmup_steady,omitempty"`
	// CheckpointS is how long the round's own CHECKPOINT took, after its
	// window: its writes and CPU are in the round's cost.
	CheckpointS float64 `json:"checkpoint_s,omitempty"`
	// Cost is what the round's transactions cost, per transaction (nil in
	// files of earlier rounds).
	Cost *RoundCost `json:"cost,omitempty"`
	// P99MS is the round's 99th-percentile latency at a fixed rate (--rate;
	// 0 flat out), from each transaction's scheduled start: the sample
	// keys are compared on when they all run the same rate.
	P99MS float64 `json:"p99_ms,omitempty"`
	// LatencyMS is the round's window's latency (its HDR histogram's
	// percentiles; from each scheduled start at a fixed rate): what
	// compare's gate tests, round against round (nil in files of earlier
	// rounds).
	LatencyMS *Latency `json:"latency_ms,omitempty"`
}

// RoundCost is what one round's transactions cost, per transaction, over
// every transaction the round ran (warm-up and window: Txns): the figures
// a busy machine hardly moves, where the rate drowns in its noise.
type RoundCost struct {
	Txns int64 `json:"txns"`
	// ServerMS is the server's time per transaction: its backends' time on
	// a CPU (ServerCPUMS, /proc/PID/schedstat) and in IO (IOMS: relation IO
	// and the WAL's writes and flushes, pg_stat_io and pg_stat_wal timing).
	ServerMS    M[float64] `json:"server_ms_per_txn,omitzero"`
	ServerCPUMS M[float64] `json:"server_cpu_ms_per_txn,omitzero"`
	IOMS        M[float64] `json:"io_ms_per_txn,omitzero"`
	// ServerRunQueueMS is the backends' time waiting for a CPU: the
	// contention, another process's cost to the run, not the key's.
	ServerRunQueueMS M[float64] `json:"server_runqueue_ms_per_txn,omitzero"`
	// ClientCPUMS and ClientRunQueueMS are keybench's own threads'.
	ClientCPUMS      M[float64] `json:"client_cpu_ms_per_txn,omitzero"`
	ClientRunQueueMS M[float64] `json:"client_runqueue_ms_per_txn,omitzero"`
	// WAL bytes, full-page images and blocks read from outside the cache per transaction.
	WALBytes   M[float64] `json:"wal_bytes_per_txn,omitzero"`
	WALFPI     M[float64] `json:"wal_fpi_per_txn,omitzero"`
	BlocksRead M[float64] `json:"blocks_read_per_txn,omitzero"`
	// The work of the whole server per transaction: the CPU of every one
	// of its processes (ServerAllCPUMS; CPUByProcess by kind: the client
	// backends, the checkpointer, the background writer, the WAL writer,
	// autovacuum, IO workers, those that exited; the autovacuum CPU spent
	// on another key's tables moved to that key's next round, recorded
	// apart), the round's own CHECKPOINT included; the blocks every backend read from outside
	// shared buffers (ServerReads), the blocks written or added to a
	// relation (ServerWrites), and the WAL's flushes. Package verdict
	// prices them on a device (its work figure).
	ServerAllCPUMS M[float64]            `json:"server_all_cpu_ms_per_txn,omitzero"`
	CPUByProcess   M[map[string]float64] `json:"server_cpu_ms_per_txn_by_process,omitzero"`
	ServerReads    M[float64]            `json:"server_reads_per_txn,omitzero"`
	ServerWrites   M[float64]            `json:"server_writes_per_txn,omitzero"`
	WALFlushes     M[float64]            `json:"wal_flushes_per_txn,omitzero"`
	// OthersCPUShare is the share of the machine's CPU (every core over the
	// round) that processes other than the server and keybench took.
	OthersCPUShare M[float64] `json:"others_cpu_share,omitzero" kb:"share"`
	// StealShare is the share of the machine's CPU its hypervisor gave
	// other guests of the host (/proc/stat's steal): cores the machine
	// had on paper and not in fact.
	StealShare M[float64] `json:"steal_share,omitzero" kb:"share"`
	// AutovacuumPlaced is the autovacuum CPU per transaction the round's
	// follower placed on a table (this key's or another's, which
	// CPUByProcess moves): beside the kinds "autovacuum" and "exited
	// during the round", how much of it was placed; unavailable, with
	// why, where the workers were not followed.
	AutovacuumPlaced M[float64] `json:"autovacuum_placed_ms_per_txn,omitzero"`
}

// cellJSON has Cell's fields without its methods.
type cellJSON Cell

// UnmarshalJSON reads a cell, its metrics and its workload's summary.
func (c *Cell) UnmarshalJSON(b []byte) error {
	var v struct {
		cellJSON
		RawMetrics json.RawMessage `json:"metrics"`
		// Schema 2 named a read's variant by its two options.
		Query    string `json:"query"`
		ReadDist string `json:"read_dist"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Cell(v.cellJSON)
	if c.Variant == nil {
		for _, s := range []string{v.Query, v.ReadDist} {
			if s != "" {
				c.Variant = append(c.Variant, s)
			}
		}
	}
	if len(v.RawMetrics) == 0 || string(v.RawMetrics) == "null" {
		return nil
	}
	if err := json.Unmarshal(v.RawMetrics, &c.Metrics); err != nil {
		return fmt.Errorf("cell %s (%s): metrics: %w", c.Key, c.Workload, err)
	}
	// Its summary, raw: Results.UseKinds reads it with the workload's kind.
	s, err := decodeSummary(Kind{}, v.RawMetrics, collectorNames())
	if err != nil {
		return fmt.Errorf("cell %s (%s): the workload's summary: %w", c.Key, c.Workload, err)
	}
	c.Metrics.Summary = s
	return nil
}

// Kind is how the cell's workload reads (Results.UseKinds, SetKind).
func (c *Cell) Kind() Kind { return c.kind }

// SetKind sets how the cell's workload reads: a run's cells, made by the
// workload that declares it.
func (c *Cell) SetKind(k Kind) { c.kind = k }

// Task is what the cell ran: its workload and, for a read workload, its
// query kind and read distribution ("<workload> point recent").
func (c *Cell) Task() string { return task(c.Workload, c.Variant, c.SharedBuffers, c.PgMajor) }

// task names what a cell or group ran: its workload, its variant, the
// cache when the run measured several ("insert at shared_buffers 16.0
// MiB"), and the PostgreSQL major when it measured several ("insert on
// PostgreSQL 15"): keys are compared only under the same task.
func task(workload string, variant []string, cache int64, major int) string {
	out := workload
	for _, v := range variant {
		if v != "" {
			out += " " + v
		}
	}
	if cache > 0 {
		out += " at shared_buffers " + Bytes(cache)
	}
	if major > 0 {
		out += fmt.Sprintf(" on PostgreSQL %d", major)
	}
	return out
}

// Prefill records how the table was filled before the window.
type Prefill struct {
	Rows        int64   `json:"rows"`
	Method      string  `json:"method"`
	LoadS       float64 `json:"load_s"`
	RowsPerS    float64 `json:"rows_per_s"`
	IndexBuildS float64 `json:"index_build_s"`
	VacuumS     float64 `json:"vacuum_checkpoint_s"`
	// Note says who made the keys when it is not plain from the key (the
	// server makes them, keybench's generator made the prefill's).
	Note string `json:"note,omitempty"`
	// Together is how many cells were filled at once with this one (2:
	// its times shared the server with another cell's fill; 0 or 1: alone).
	Together int `json:"filled_together,omitempty"`
	// History is the time span the prefill stands for, when the key's
	// values depend on the clock.
	History *History `json:"history,omitempty"`
}

// History says what span of time a prefill of clock-dependent keys stands
// for: its rows were made as if inserted at RowsPerS over SpanS seconds
// that ended EndsBeforeWindowS seconds before the window began.
type History struct {
	RowsPerS          float64 `json:"rows_per_s"`
	SpanS             float64 `json:"span_s"`
	EndsBeforeWindowS float64 `json:"ends_before_window_s"`
	// Note says how the keys were made (or why the history was not applied).
	Note string `json:"note"`
}

// Latency holds window latency statistics in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	// StdDev is the transactions' standard deviation, as pgbench prints
	// beside the average ("latency stddev"); absent in earlier files.
	StdDev float64 `json:"stddev,omitempty"`
	P50    float64 `json:"p50"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
}

// RowsAtEnd is the rows the cell's keyed table held when its sizes were
// read, the one row count every output sizes it by: the server's count at
// the cell's end (RowCheck, warm-up rows included), else the rows before
// the window plus those it inserted less those it deleted.
func (c *Cell) RowsAtEnd() int64 {
	if c.RowCheck != nil && c.RowCheck.Server > 0 {
		return c.RowCheck.Server
	}
	return c.RowsBefore + c.RowsInserted - c.RowsDeleted
}

// RowCheck compares the rows the clients wrote with the rows the server
// holds in the keyed table, and (Written) the rows they inserted, updated
// and deleted with the server's counts of them.
type RowCheck struct {
	Expected int64 `json:"expected"`
	Server   int64 `json:"server"`
	OK       bool  `json:"ok"`
	// Written is absent when the server's counts could not be read.
	Written *WrittenCheck `json:"written,omitempty"`
}

// WrittenCheck is what the clients said their transactions wrote (warm-ups
// and the window's edges included) against what the server counted for the
// cell's tables over the same sessions (pg_stat_user_tables); the rows the
// clients read are recorded but not checked (the server's counts of tuples
// read include its own reads: foreign-key checks, index lookups).
type WrittenCheck struct {
	Clients       Tuples `json:"clients"`
	Server        Tuples `json:"server"`
	ReadByClients int64  `json:"read_by_clients"`
	OK            bool   `json:"ok"`
}

// Write stores r as dir/results.json and dir/samples.csv, each through a
// temporary file renamed into place. The analysis is written as it is:
// package verdict makes it (verdict.Write analyses, then writes).
func (r *Results) Write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "results.json"), append(b, '\n')); err != nil {
		return err
	}
	return writeAtomicFunc(filepath.Join(dir, "samples.csv"), r.WriteSamples)
}

// WriteSamples writes the per-second series of every cell as CSV.
func (r *Results) WriteSamples(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"cell", "key", "workload", "clients", "repeat", "t", "tps", "rows_per_s", "p99_ms", "errors"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for i, c := range r.Cells {
		for _, s := range c.Timeline {
			_ = cw.Write([]string{strconv.Itoa(i), c.Key, c.Workload, strconv.Itoa(c.Clients), strconv.Itoa(c.Repeat),
				strconv.Itoa(s.T), f(s.TPS), f(s.RowsPS), f(s.P99ms), strconv.FormatInt(s.Errors, 10)})
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeAtomic(path string, data []byte) error {
	return writeAtomicFunc(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// temps are the temporary files of the writes under way, which
// RemoveTemps removes when keybench exits before they end.
var temps struct {
	sync.Mutex
	open   map[string]bool
	closed bool
}

// RemoveTemps removes the temporary file of every write under way and
// lets no other begin: keybench calls it as it exits, so that a write
// that an interrupt cut short (its command returning before the write's
// goroutine ended) leaves nothing behind.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for name := range temps.open {
		_ = os.Remove(name)
	}
	temps.open = nil
}

// createTemp creates a temporary file in dir that RemoveTemps would
// remove; release removes it (if it is still there) and forgets it.
func createTemp(dir, pattern string) (f *os.File, release func(), err error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, nil, errors.New("keybench is exiting: nothing more is written")
	}
	if f, err = os.CreateTemp(dir, pattern); err != nil {
		return nil, nil, err
	}
	if temps.open == nil {
		temps.open = map[string]bool{}
	}
	temps.open[f.Name()] = true
	return f, func() {
		temps.Lock()
		delete(temps.open, f.Name())
		temps.Unlock()
		_ = os.Remove(f.Name())
	}, nil
}

// CheckWritable says whether a file can be created in dir, by creating one
// and removing it.
func CheckWritable(dir string) error {
	f, release, err := createTemp(dir, ".keybench-write-check-*")
	if err != nil {
		return err
	}
	f.Close()
	release()
	return nil
}

// AllowTemps lets writes begin again after RemoveTemps (a command run
// again in the same process, as tests do).
func AllowTemps() {
	temps.Lock()
	temps.closed = false
	temps.Unlock()
}

func writeAtomicFunc(path string, fill func(io.Writer) error) error {
	tmp, release, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer release()
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// MaxFileBytes bounds a results file keybench reads: far above any run's
// (a day-long cell's timeline is a few MB), far below what would exhaust memory.
const MaxFileBytes = 256 << 20

// Read loads a results.json, rejecting files of another schema version,
// its cells read with the workloads' catalog ks (UseKinds; nil: every
// workload's summary stays raw), read by ReadFile to MaxFileBytes.
func Read(path string, ks Kinds) (*Results, error) {
	b, err := ReadFile(path, MaxFileBytes, "a results.json written by keybench run")
	if err != nil {
		return nil, err
	}
	return Parse(b, path, ks)
}

// ReadFile reads a file a user names, whole: a regular file only, of at
// most max bytes (what says what it should be, in the refusal), since a
// device (/dev/zero) would be read without end and a FIFO would block
// until something wrote to it.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d MiB: not %s", path, max>>20, what)
	}
	return b, nil
}

// WriteFileAtomic writes b to path through a temporary file of a unique
// name in the same directory, renamed into place; on failure nothing is
// left behind.
func WriteFileAtomic(path string, b []byte) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	return writeAtomic(path, b)
}

// Parse reads a results.json held in memory (Read); name names it in errors.
// Whatever the bytes, it returns results or an error, never panics.
func Parse(b []byte, name string, ks Kinds) (*Results, error) {
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not a keybench results file: %v", name, err)
	}
	if err := r.UseKinds(ks); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if !slices.Contains(ReadableVersions, r.SchemaVersion) {
		return nil, fmt.Errorf("%s has schema_version %d; this keybench reads %v", name, r.SchemaVersion, ReadableVersions)
	}
	if r.Cells == nil {
		return nil, errors.New(name + " has no cells")
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	for i, k := range r.Keys { // files written before reveals_time said it in words only
		r.Keys[i].RevealsTime = k.RevealsTime || strings.HasPrefix(k.Reveals, "creation time")
	}
	return &r, nil
}

// KeyFacts is a key of the run as the catalog describes it (keybench
// keys): its column, its bytes there (a cell measures its own:
// key_bytes), whether its values sort by creation time, what one value
// reveals, its random bits and the time they share, how it is unique by
// construction, the probability of a collision at 1B rows (made at 1,000
// a second) and at a million a second for a year (absent where Unique
// says why none), and its length as text.
type KeyFacts struct {
	Key         string   `json:"key"`
	Column      string   `json:"column"`
	StoredBytes int      `json:"stored_bytes"`
	Sortable    string   `json:"sortable"`
	Reveals     string   `json:"reveals"`
	RevealsTime bool     `json:"reveals_time,omitempty"`
	RandomBits  int      `json:"random_bits"`
	PerUnitS    float64  `json:"random_bits_per_s,omitempty"`
	Unique      string   `json:"unique,omitempty"`
	CollisionB  *float64 `json:"collision_1b_rows,omitempty"`
	CollisionY  *float64 `json:"collision_1m_per_s_year,omitempty"`
	URLChars    int      `json:"url_chars"`
}
