// Package workload defines what a cell does. Each workload registers itself
// (Register: its name, description and the Kind its cells read as), as
// CockroachDB's workload package does, declares its own options (Options:
// name, type, default, bounds and help, bound to its fields; Build sets and
// checks them, Configure checks what they cannot alone), and owns its
// cell's lifecycle: the tables it needs (Tables), what each client does
// (NewWorker), and optionally how the window runs (Windowed), what happens
// after the fill and after the window (Hooked), how the progress line reads
// (Progresser) and how the cell is summarised (Summarizer). The runner runs
// every workload through the same steps and knows none of them by name:
//
//	set up (create Tables) → fill (each table's Rows, indexes, VACUUM
//	ANALYZE, CHECKPOINT, Hooks.PostLoad) → clients (NewWorker) → warm-up
//	and window (Hooks.DuringWindow beside it) → Hooks.PostRun → Summarize
//	→ Hooks.BeforeEvidence → evidence → Hooks.Maintain → drop.
//
// The keyed table, (id KEY, data bigint, payload text), is created fresh for
// each cell in keybench's schema. Prefilled rows carry data values that are
// a permutation of 1..rows in a scattered order, so that a read of a random
// value in that range always finds a row and the index on data is built
// from unordered inserts, as in the source benchmark of "UUID Benchmark War".
package workload

import (
	"context"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
)

// Worker is one client's transaction loop body, bound to its own connection.
// A worker that also implements driver.Machine runs on the driver's event
// loops, over its connection's socket.
type Worker interface {
	// Txn runs one transaction and returns what it did to rows: inserted,
	// updated, deleted and read.
	Txn() (driver.Work, error)
}

// RoleWorker is a worker that has a role among the cell's clients (a
// queue's producers and consumers): the driver counts its rows by role.
type RoleWorker interface {
	Worker
	Role() string
}

// Workload is a registered workload configured for one cell (what
// CockroachDB's workload.Generator is).
type Workload interface {
	// Options declares the workload's own options, bound to its fields
	// (nil: none); Build sets them before Configure.
	Options() []Option
	// Configure receives the cell's setup once the options are set, and
	// checks what the options cannot alone (CockroachDB's Hooks.Validate).
	Configure(s Setup) error
	// Tables declares the cell's tables for its key; the first is the
	// keyed table (KeyedTable) whose key the cell measures. The runner
	// creates them, fills them and drops them.
	Tables(at Place, key *keys.Resolved) []*Table
	// NewWorker prepares client id's statements on its own connection.
	// gen makes the keys when keybench makes them (nil otherwise).
	NewWorker(ctx context.Context, conn *pgx.Conn, tables []*Table, gen keys.Generator, id int) (Worker, error)
}

// Hooks run at the lifecycle's turns; each may be nil.
type Hooks struct {
	// PostLoad runs once the tables are filled and indexed (e.g. to sample keys to read).
	PostLoad func(ctx context.Context, conn *pgx.Conn, tables []*Table) error
	// PostRun runs after the window, before the summary (e.g. to build the
	// indexes a load left out); it runs on the clients' first connection,
	// so the samplers still watch it.
	PostRun func(ctx context.Context, conn *pgx.Conn, tables []*Table) error
	// PostRunStep names what PostRun does in the progress ("building the
	// indexes"), printed with its time when it ends.
	PostRunStep string
	// DuringWindow runs once a round, as its window starts, while the
	// clients run it, on a connection of its own: a job beside the
	// clients' transactions (a retention expiring old rows while inserts
	// go on), whose figures are the workload's own. ended is closed when
	// the clients' window has ended: what the job does after it (reading
	// back what it did) no longer shares the machine with the measured
	// transactions. The round ends when both the window and it have ended.
	DuringWindow func(ctx context.Context, conn *pgx.Conn, tables []*Table, ended <-chan struct{}) error
	// BeforeEvidence runs once the rounds are over and summarized, outside
	// every measured session, before the evidence reads the table, on
	// keybench's own connection: work that must see the table as the
	// window left it and whose cost is no part of the window's figures (a
	// VACUUM of the dead entries deletes leave, which the evidence's
	// REINDEX would otherwise remove); the evidence then reads the table
	// as it left it.
	BeforeEvidence func(ctx context.Context, conn *pgx.Conn, tables []*Table) error
	// Maintain runs last, after the summary and the evidence (the key
	// index's size, density and bloat as the window left it), outside
	// every measured session, on keybench's own connection: work a
	// workload times apart from its window (VACUUM, REINDEX, COPY TO),
	// recorded into the summary it made.
	Maintain func(ctx context.Context, conn *pgx.Conn, tables []*Table) error
	// MaintainSays is what Maintain times, for the progress output
	// ("VACUUM, ANALYZE, REINDEX, COPY TO").
	MaintainSays string
}

// KeyMaker is a workload whose statements need the keys made by keybench
// (a script that names :key): the plan has keybench make them for every
// key that leaves the choice open and that keybench can make.
type KeyMaker interface{ MakesKeys() bool }

// Hooked is a workload with hooks.
type Hooked interface{ Hooks() Hooks }

// Window is how a cell's measured window runs; the runner fills it from
// the plan and a Windowed workload may change it.
type Window struct {
	Warmup, Duration time.Duration
	// SteadyAfter, when set, ends the warm-up once the rate is steady,
	// not before SteadyAfter (driver.Config.SteadyAfter).
	SteadyAfter time.Duration
	// Txns is per client; when set it replaces Duration.
	Txns int64
	// WarmupTxns, when set, replaces Warmup: that many transactions per
	// client first, not measured, so that every key of a round runs the
	// same work since the round's checkpoint and its cost per transaction
	// (full-page images above all) compares work with work.
	WarmupTxns int64
	// Unit names what the progress counts when Txns is set ("" reads "txns").
	Unit string
	// Rounds splits the window into rounds interleaved with the other
	// cells' (the plan's --rounds); a workload whose window cannot be split
	// (a load) sets 1.
	Rounds int
	// Rate and LatencyLimit run the window at a fixed rate (the plan's
	// --rate, driver.Config.Rate); a load runs flat out.
	Rate         float64
	LatencyLimit time.Duration
	// Round is the round the window is of (1, 2, …; 0: the only one): a
	// fixed rate's schedule is drawn anew each round, the same for every
	// key of the round (driver.Config.ScheduleSeed).
	Round int
}

// Windowed is a workload whose window is not the plan's (a load: its
// chunks are the transactions, without warm-up).
type Windowed interface{ Window(w *Window) }

// Progresser says what the progress line shows for a second of the window.
type Progresser interface{ Progress(s results.Second) string }

// Outcome is a cell's window as the driver measured it, handed to the
// workload to summarise.
type Outcome struct {
	Result *driver.Result
	// Cell holds the driver's figures; a Summarizer may replace them and
	// sets Cell.Metrics.Summary.
	Cell   *results.Cell
	Tables []*Table
	// Cores is the cores the server and keybench shared (0: the server is elsewhere).
	Cores int
	// Work is what every transaction of the cell did to rows, warm-up and
	// edges included (the driver's TotalWork); the runner checks it against
	// the server's counts. Expected is the rows the keyed table must hold at
	// the end: the prefill plus the rows inserted less the rows deleted; a
	// workload whose clients write another table (a child table) sets it.
	Work     driver.Work
	Expected int64
}

// Summarizer is a workload with figures of its own.
type Summarizer interface{ Summarize(o *Outcome) error }

// Meta describes a registered workload.
type Meta struct {
	Name        string
	Description string
	// New makes a fresh workload, its options at their defaults.
	New func() Workload
	// Accepts, if set, says why the workload cannot run with a key ("" when it can).
	Accepts func(*keys.Spec) string
	// Kind says what the workload's cells hold and what their rate counts
	// (the zero Kind: transactions per second over a window).
	Kind results.Kind
	// View says how the console and the report show its cells (the zero
	// View: as transactions).
	View present.View
	// Bare is how the workload runs alone (keybench run NAME).
	Bare Bare
	// RoundOverhead is the time a round of the workload takes beyond its
	// window and keybench's usual overhead, for the plan's estimate: the
	// CHECKPOINT before the next round after heavy writes, the WAL read
	// back (0: nothing to speak of); for a workload that loads its rows
	// (LoadRowsPerS), at a million rows, scaled to the cell's.
	RoundOverhead time.Duration
	// LoadRowsPerS, for a workload whose window loads the cell's rows
	// (no prefill), is the load's rate the estimate assumes.
	LoadRowsPerS float64
	// UserSQL says the workload's clients run the user's own SQL: they
	// run as a role with rights on keybench's schema alone where one can
	// be made (workspace.ScriptRole).
	UserSQL bool
}

// Bare is a workload's run alone: the table size it needs before its
// window (0: it starts empty) and its clients (0: 8).
type Bare struct {
	Rows    int64
	Clients int
}

var registry = map[string]Meta{}

// Register adds a workload to the catalog; workloads call it from init,
// and package workload/all imports each. Its view and its cells' kind
// stay in its Meta (all.Views, all.Kinds). A name registered twice is a bug that
// would silently replace a workload: it panics at start-up, as keys.Register does.
func Register(m Meta) {
	if _, dup := registry[m.Name]; dup {
		panic("workload: duplicate workload " + m.Name)
	}
	registry[m.Name] = m
}

// Lookup returns the named workload's metadata.
func Lookup(name string) (Meta, bool) { m, ok := registry[name]; return m, ok }

// All lists the registered workloads by name.
func All() []Meta {
	out := make([]Meta, 0, len(registry))
	for _, m := range registry {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SummaryOf is a cell's summary as a workload's own type S, and whether
// the cell has one of that type (a results file of another version, or a
// cell that failed before its summary, has none: a zero S stands in, for
// lists to range over, never for a figure).
func SummaryOf[S any](c *results.Cell) (*S, bool) {
	if s, ok := any(c.Metrics.Summary).(*S); ok {
		return s, true
	}
	return new(S), false
}

// FigureColumn is a column of the last cell's figure get names, as every
// table shows it: its header and text declared once, by its collector
// (metrics.ShownOf).
func FigureColumn(get func(*results.Metrics) any) present.Column {
	s, _ := metrics.ShownOf(get)
	return present.Column{Figure: results.Figure{Header: s.Header}, Text: func(r *results.Results, g *results.Group) string { return s.Text(&r.Last(g).Metrics) }}
}

// SummaryColumn is a column of the summary table read from a workload's
// own summary of the group's last cell; a cell without one shows "n/a"
// (not recorded), never a zero.
func SummaryColumn[S any](header string, left bool, text func(r *results.Results, g *results.Group, s *S) string) present.Column {
	return present.Column{Figure: results.Figure{Header: header}, Left: left, Text: func(r *results.Results, g *results.Group) string {
		s, ok := SummaryOf[S](r.Last(g))
		if !ok {
			return "n/a"
		}
		return text(r, g, s)
	}}
}
