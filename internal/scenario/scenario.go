// Package scenario holds keybench's presets: named experiments from the
// source write-ups with defaults scaled to finish on a laptop, and the bare
// workloads. A scenario turns its parameters, after the user's overrides,
// into the plan: the ordered list of cells to measure.
package scenario

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workload/all"
)

// Params are a scenario's tunable parameters; every one can be overridden.
type Params struct {
	// Workload lists the plan's workloads, comma-separated, each with
	// options of its own: "name[:option=value]..." ("lookup:query=range").
	Workload string
	// Options are set on every workload of the plan that declares them
	// (the preset's, then the user's --NAME VALUE over them); a variant
	// option may list values ("point,range"), each its own task. An item's
	// own options win over these.
	Options map[string]string
	Keys    []string
	Clients []int
	// Rows lists the table sizes (prefilled rows) to measure at.
	Rows []int64
	// Caches lists the embedded server's shared_buffers sizes, in bytes,
	// to measure every other combination at (--shared-buffers); none: the
	// cache the server started with. The server restarts between them.
	Caches []int64
	// Scaled pairs the sizes: Rows[i] runs at Caches[i] only (a table and
	// its cache grown together, the scale preset), not every size at
	// every cache.
	Scaled bool
	// TableShare, when set, is each cell's window in transactions: this
	// share of its table's prefilled rows, over all its clients and rounds
	// (CellTxns), so that tables of every size take the same share of
	// new rows (the same inserts per index page between checkpoints).
	TableShare float64
	// Warmup is the warm-up before each window: its longest, ended as
	// soon as the rate is steady (driver.Config.SteadyAfter), unless
	// FixedWarmup (--warmup-until time) runs it to its end.
	Warmup      time.Duration
	FixedWarmup bool
	Duration    time.Duration
	// Txns is per client; when set it replaces Duration (pgbench -t).
	Txns int64
	// Rate, when set, runs every window at that many transactions per
	// second of all the clients together, on a Poisson schedule (pgbench
	// -R); LatencyLimit counts the transactions slower than it from their
	// scheduled start, and skips those already that late (--latency-limit).
	Rate         float64
	LatencyLimit time.Duration
	Payload      int
	// CreatedAt is the keyed table's created_at column (keys.CreatedAt*;
	// "": none), and PartitionBy its partitions by time, for every key that
	// says none of its own (created-at=, partition=).
	CreatedAt   string
	PartitionBy keys.Partitioning
	// History is the span of time a prefill stands for (0: its rows at
	// workload.HistoryRowsPerS).
	History time.Duration
	// FillIndexed builds the key's indexes before the prefill (--fill
	// indexed): the prefill grows them as inserts do, their leaf density
	// the key's order's instead of CREATE INDEX's 90%.
	FillIndexed bool
	// Secondary are the keyed table's secondary indexes (--secondary), as
	// a user's table has them beside its key.
	Secondary []workload.Secondary
	// LikeTable is the user's table (schema.table on --dsn) whose shape
	// the keyed table takes (--like); Like its definition, read from the
	// server by the runner before the first cell.
	LikeTable string
	Like      *workload.Like
	Repeat    int
	// Rounds splits each cell's window into rounds interleaved across the
	// cells of one client count and table size (1: one window per cell).
	// RoundsGiven says the user chose them (--rounds): the plan then runs
	// exactly these; otherwise the plan decides (Build).
	Rounds      int
	RoundsGiven bool
	// AllRounds runs every round (--sequential off); otherwise a plan of
	// stats.MinSequentialRounds rounds or more (and one repeat) stops a group's
	// rounds once every comparison of its keys is decided (Plan.Sequential).
	AllRounds bool
	// AllPairs tests every pair of keys and stops the rounds only once
	// every pair is decided (--pairs all); otherwise the question's own
	// family (stats.FamilyBest: each key against the least).
	AllPairs bool
	// MinEffect is the sequential design's equivalence margin
	// (--min-effect): keys whose difference is shown to lie within it are
	// "the same" (0: none is claimed).
	MinEffect float64
}

// DefaultMinEffect is the difference in rate a person choosing a key does
// not care about: keys shown to be within 5% of each other are the same.
const DefaultMinEffect = stats.DefaultMargin

// Task is one workload of a plan with its options: a variant option's
// list makes a task per value.
type Task struct {
	Workload string
	// Values are the options set for it (name → text), before its defaults.
	Values map[string]string
	// Variant are its variant options' values as they resolved: what tells
	// it from the same workload's other tasks.
	Variant []string
}

// Name is the task as a person reads it: "lookup point recent".
func (t Task) Name() string { return strings.Join(append([]string{t.Workload}, t.Variant...), " ") }

// Tasks are the plan's workloads in every variant they run: each item of
// Workload with the plan's Options over its defaults and its own over
// those, a variant option's list of values making a task per value. An
// option no workload of the plan declares, or an item's option its
// workload does not declare, is a usage error; every task is built once
// (workload.Build) to check its options and learn its variant.
func (p *Params) Tasks() ([]Task, error) {
	items := strings.Split(p.Workload, ",")
	declared := map[string]bool{}
	var out []Task
	seen := map[string]bool{}
	for _, item := range items {
		parts := strings.Split(strings.TrimSpace(item), ":")
		name := parts[0]
		if _, ok := workload.Lookup(name); !ok {
			return nil, usage.Errorf("unknown workload %q%s (valid: %s)", name, usage.Suggest(name, workloadNames()), strings.Join(workloadNames(), ", "))
		}
		opts := map[string]workload.Option{}
		for _, o := range workload.OptionsOf(name) {
			opts[o.Name] = o
			declared[o.Name] = true
		}
		own := map[string]string{}
		for _, kv := range parts[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || v == "" {
				return nil, usage.Errorf("workload %q: %q must be option=value", item, kv)
			}
			if _, ok := opts[k]; !ok {
				return nil, usage.Errorf("workload %q: %s has no option %q (%s)", item, name, k, optionNames(name))
			}
			own[k] = v
		}
		// The plan's options this workload declares, its own over them;
		// variant lists multiply.
		combos := []map[string]string{{}}
		for _, o := range workload.OptionsOf(name) {
			v, ok := own[o.Name]
			if !ok {
				v, ok = p.Options[o.Name]
			}
			if !ok {
				continue
			}
			vals := []string{v}
			if o.Variant {
				vals = strings.Split(v, ",")
			} else if strings.Contains(v, ",") {
				return nil, usage.Errorf("%s: option %s takes one value, not the list %q", name, o.Name, v)
			}
			var next []map[string]string
			for _, c := range combos {
				for _, one := range vals {
					n := maps.Clone(c)
					n[o.Name] = strings.TrimSpace(one)
					next = append(next, n)
				}
			}
			combos = next
		}
		for _, values := range combos {
			b, err := workload.Build(name, p.setupFor(p.firstClients(), p.firstRows()), values)
			if err != nil {
				return nil, usage.Errorf("%v", err)
			}
			t := Task{Workload: name, Values: values, Variant: b.Variant}
			if !seen[t.Name()] { // a variant that does not apply to a task (latest draws no rows) makes no second task
				seen[t.Name()] = true
				out = append(out, t)
			}
		}
	}
	for name := range p.Options {
		if !declared[name] {
			return nil, usage.Errorf("--%s: no workload of this plan (%s) has the option %s%s", name, strings.Join(taskNames(items), ", "), name, whoDeclares(name))
		}
	}
	return out, nil
}

func (p *Params) firstClients() int {
	if len(p.Clients) == 0 {
		return 1
	}
	return p.Clients[0]
}

func (p *Params) firstRows() int64 {
	if len(p.Rows) == 0 {
		return 0
	}
	return p.Rows[len(p.Rows)-1]
}

// setupFor is a cell's setup at a client count and table size.
func (p *Params) setupFor(clients int, rows int64) workload.Setup {
	return workload.Setup{Rows: rows, Clients: clients, Payload: p.Payload, History: p.History, FillIndexed: p.FillIndexed, Secondary: p.Secondary, Like: p.Like}
}

func taskNames(items []string) []string {
	var out []string
	for _, it := range items {
		name, _, _ := strings.Cut(strings.TrimSpace(it), ":")
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func whoDeclares(option string) string {
	if ws := workload.Declaring(option); len(ws) > 0 {
		return " (" + strings.Join(ws, ", ") + " have it)"
	}
	return ""
}

func optionNames(name string) string {
	var out []string
	for _, o := range workload.OptionsOf(name) {
		out = append(out, o.Name)
	}
	if len(out) == 0 {
		return "it has none"
	}
	return "valid: " + strings.Join(out, ", ")
}

func workloadNames() []string {
	var out []string
	for _, m := range all.Workloads() {
		out = append(out, m.Name)
	}
	return out
}

// Kind is what a scenario is.
type Kind int8

const (
	// BareWorkload runs one workload alone at its own defaults.
	BareWorkload Kind = iota
	// Preset is a designed experiment: its keys, workloads, scale and question.
	Preset
)

// Scenario is a preset or a bare workload.
type Scenario struct {
	Name string
	// Order is the preset's place in the list of presets (war first);
	// presets without one follow by name, then the bare workloads.
	Order       int
	Description string
	// Kind says whether it is a preset or a bare workload.
	Kind Kind
	// Source names the write-ups the preset reproduces ("000, 003"; "":
	// none, the preset asks a question of its own).
	Source   string
	Defaults Params
	// Quick replaces the defaults' scale for --quick (a smoke run under a minute).
	Quick func(p *Params)
	// Settings are embedded-server settings the scenario runs with unless the user overrides them.
	Settings []server.Setting
	// Pivot is how the summary table lays out the scenario's cells (nil: a row per group).
	Pivot *results.Pivot
	// Question is what the preset asks, said at the head of its verdict;
	// Questions, for a preset that asks several, each with the keys and
	// tasks whose cells answer it.
	Question string
	// Ask is the preset's question in one line, said first on its first
	// screen (its answer follows: the work per key).
	Ask       string
	Questions []results.Question
	// Origins say whose default each key is (results.Origin): the
	// answer names the frameworks beside the keys.
	Origins []results.Origin
	// Against is the key the preset's question compares every key with
	// ("bigint": what each id costs against it): only those pairs are
	// tested (stats.FamilyReference), a fuller test of fewer pairs; ""
	// asks which key is least (stats.FamilyBest). --pairs all tests every
	// pair either way.
	Against string
	// ColdCacheMB, when set, is the embedded server's cold cache
	// (shared_buffers) for this preset instead of the default 16 MB: a
	// smaller cache keeps a table many times the cache quick to fill.
	ColdCacheMB int
	// Replicas is the streaming standbys the embedded server starts with
	// for this preset (--replicas overrides it).
	Replicas int
	// CacheRelative marks presets whose default table sizes are chosen
	// against the cold-cache embedded server's shared_buffers: on a server
	// with another cache they need --rows scaled to it.
	CacheRelative bool
}

// Params are the scenario's parameters: its defaults, scaled down by
// Quick for a smoke run, which has one round per cell and names no winner.
func (s *Scenario) Params(quick bool) Params {
	p := s.Defaults
	p.Keys = append([]string(nil), p.Keys...)
	p.Options = maps.Clone(p.Options)
	if p.Options == nil {
		p.Options = map[string]string{}
	}
	if quick && s.Quick != nil {
		s.Quick(&p)
		p.Rounds = 1
	}
	if p.MinEffect == 0 { // a preset's own margin stands
		p.MinEffect = DefaultMinEffect
	}
	return p
}

// FitRounds lowers the scenario's rounds to what the window holds (rounds
// of at least MinRoundWindow, or a transaction per client), for a window the
// user shortened without asking for rounds.
func (p *Params) FitRounds() {
	fit := int64(p.Duration / MinRoundWindow)
	if p.Txns > 0 {
		fit = p.Txns
	}
	if p.TableShare > 0 && len(p.Rows) > 0 && len(p.Clients) > 0 {
		fit = p.CellTxns(slices.Min(p.Rows), slices.Max(p.Clients)) // the smallest cell's
	}
	p.Rounds = int(max(1, min(int64(p.Rounds), fit)))
}

// PlannedCell is one planned measurement.
type PlannedCell struct {
	Key *keys.Spec
	// Task is the cell's workload with its options.
	Task    Task
	Clients int
	// Rows is the table's size before the window.
	Rows   int64
	Repeat int
	// Cache is the shared_buffers the cell runs with (0: the server's own).
	Cache int64
}

// registry holds every scenario by name: the presets, each registered by
// the file that declares it, and — added at first use, so that no file's
// order matters — every workload's bare scenario under its own name
// unless a preset has it (workload.Meta.Bare).
var (
	registry = map[string]*Scenario{}
	bareOnce sync.Once
)

func register(s *Scenario) {
	if _, dup := registry[s.Name]; dup {
		panic("scenario: duplicate scenario " + s.Name)
	}
	registry[s.Name] = s
}

// scenarios is the registry with the bare workloads in it.
func scenarios() map[string]*Scenario {
	bareOnce.Do(func() {
		for _, m := range all.Workloads() {
			if _, taken := registry[m.Name]; !taken {
				register(bare(m))
			}
		}
	})
	return registry
}

// Lookup returns the named scenario or a usage error listing the valid names.
func Lookup(name string) (*Scenario, error) {
	if s, ok := scenarios()[name]; ok {
		return s, nil
	}
	return nil, &usage.Error{Msg: fmt.Sprintf("unknown scenario %q%s (valid: %s)", name, usage.Suggest(name, Names()), strings.Join(Names(), ", "))}
}

// Presets lists the presets' names in their Order; Bare the bare workloads'.
func Presets() []string { return namesWhere(func(s *Scenario) bool { return s.Kind == Preset }) }

// Bare lists the bare workloads' names.
func Bare() []string { return namesWhere(func(s *Scenario) bool { return s.Kind == BareWorkload }) }

func namesWhere(keep func(*Scenario) bool) []string {
	var out []string
	for _, s := range All() {
		if keep(s) {
			out = append(out, s.Name)
		}
	}
	return out
}

// Names lists scenario names: presets first, then bare workloads.
func Names() []string {
	var out []string
	for _, s := range All() {
		out = append(out, s.Name)
	}
	return out
}

// All returns the scenarios: presets in their Order, then bare workloads by name.
func All() []*Scenario {
	all := scenarios()
	out := make([]*Scenario, 0, len(all))
	for _, s := range all {
		out = append(out, s)
	}
	rank := func(s *Scenario) int {
		switch {
		case s.Kind == BareWorkload:
			return 1 << 30
		case s.Order == 0:
			return 1 << 29
		}
		return s.Order
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Experiment is a run's plan, built once (Build) from a scenario and the user's
// overrides: the parameters, the keys, and the cells in the order they run.
type Experiment struct {
	Scenario *Scenario
	Params   Params
	Specs    []*keys.Spec
	Cells    []PlannedCell
	// Skipped says which keys a workload cannot run with, and why.
	Skipped []string
	// Sequential is the design that stops a group's rounds once every
	// comparison is decided; nil: every round runs. CostSequential is its
	// twin for the keys' costs, which may run the rounds on past the
	// preset's while a cost comparison is undecided, within Budget.
	Sequential, CostSequential *stats.Sequential
	// Against is the key every other is compared with (Scenario.Against,
	// where the plan has it and --pairs all is not asked; "": none).
	Against string
	// Budget bounds the time the rounds of a group may take with the
	// costs' extension (--budget). 0: the default, set from the machine's
	// measured pace as the rounds run (never before the planned rounds
	// ran: the runner's budget).
	Budget time.Duration
	// CPUShare is the share of the machine's CPUs a busy process got just
	// before the run (metrics.CPUShare; 0: not probed, a server elsewhere):
	// Estimate scales the work this machine does by it.
	CPUShare float64
	// TxnsPerS is the rate the run's cells measured so far (0: none yet):
	// Estimate counts the windows in transactions still ahead at it, not
	// at the preset's assumed rate (a 50,000-row table runs 8–12k tps
	// where war's runs 3k), and does not pace them again.
	TxnsPerS float64
	// FillRates are each key's prefills the run measured so far, in the
	// order filled (by key): Estimate expects the key's next fill at them.
	FillRates map[string][]FillRate
}

// Build validates the parameters and keys, decides the rounds and lays out
// the cells; every error is a usage.Error. The plan decides the rounds,
// once, whether it was built by the command line or by code: the user's
// when given, else the scenario's (see rounds).
func Build(sc *Scenario, p Params, specs []*keys.Spec) (*Experiment, error) {
	if !p.RoundsGiven {
		p.Rounds = sc.rounds(p)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, usage.Errorf("no key to measure: give at least one key spec (see 'keybench keys')")
	}
	for _, k := range specs {
		if err := k.ApplyLayout(p.CreatedAt, p.PartitionBy); err != nil {
			return nil, err
		}
		if err := p.checkPartitions(k); err != nil {
			return nil, err
		}
	}
	if n, ok := CountCells(p, len(specs)); !ok {
		return nil, usage.Errorf("the plan would have %s cells (keys x workloads x clients x rows x repeats); at most %d can run", n, MaxCells)
	}
	tasks, err := p.Tasks()
	if err != nil {
		return nil, err
	}
	if err := p.checkRate(tasks); err != nil {
		return nil, err
	}
	p.clientKeys(tasks, specs)
	cells, skipped := cellsOf(p, tasks, specs)
	if len(cells) == 0 {
		return nil, usage.Errorf("no cell to run: %s", strings.Join(skipped, "; "))
	}
	plan := &Experiment{Scenario: sc, Params: p, Specs: specs, Cells: cells, Skipped: skipped}
	if !p.AllPairs && sc.Against != "" && slices.ContainsFunc(specs, func(s *keys.Spec) bool { return s.Raw == sc.Against }) {
		plan.Against = sc.Against
	}
	if !p.AllRounds && p.Rounds >= stats.MinSequentialRounds && p.Repeat == 1 && len(specs) >= 2 {
		family := stats.FamilyPairs // --pairs all
		switch {
		case plan.Against != "":
			family = stats.FamilyReference
		case !p.AllPairs:
			family = stats.FamilyBest // the work decides: which key is least, what each costs against it
		}
		s, c := stats.NewRateDesign(p.Rounds, p.MinEffect), stats.NewCostDesign(p.Rounds, p.MinEffect, family)
		if family == stats.FamilyReference {
			c.Reference = plan.Against
		}
		plan.Sequential, plan.CostSequential = &s, &c
	}
	return plan, nil
}

// rounds is how many rounds the scenario runs its cells in when the user
// did not say: its own, the most a sequential design runs, as many as a
// shortened window holds; at a fixed rate, rounds at least (the keys compared on their rounds).
func (sc *Scenario) rounds(p Params) int {
	if p.Rate > 0 && p.Rounds <= 1 {
		// At a fixed rate every key runs the same rate: the keys are
		// compared on their rounds' latency and cost, so there are rounds.
		p.Rounds = stats.MinSequentialRounds
	}
	if p.Rounds <= 1 {
		return max(p.Rounds, 1)
	}
	p.FitRounds()
	return p.Rounds
}

// cellsOf lists the cells: for each client count, table size and repetition,
// every key in the given order, so that repetitions interleave (A B A B) and
// drift in the machine spreads over all keys alike. A workload that cannot
// run with a key (a FIFO queue needs an ordered index) skips it; skipped says
// which and why.
func cellsOf(p Params, tasks []Task, specs []*keys.Spec) (cells []PlannedCell, skipped []string) {
	seen := map[string]bool{}
	caches := p.Caches
	if len(caches) == 0 {
		caches = []int64{0}
	}
	// The cache is the outermost loop: the server restarts once per size.
	for ci, cache := range caches {
		for _, c := range p.Clients {
			for ri, rows := range p.Rows {
				if p.Scaled && ri != ci {
					continue // Rows[i] at Caches[i] only
				}
				for r := 1; r <= p.Repeat; r++ {
					for _, task := range tasks {
						w := task.Workload
						m, _ := workload.Lookup(w)
						for _, k := range specs {
							if m.Accepts != nil {
								if why := m.Accepts(k); why != "" {
									if msg := fmt.Sprintf("%s skips %s: %s", w, k.Raw, why); !seen[msg] {
										seen[msg] = true
										skipped = append(skipped, msg)
									}
									continue
								}
							}
							cells = append(cells, PlannedCell{Key: k, Task: task, Clients: c, Rows: rows, Repeat: r, Cache: cache})
						}
					}
				}
			}
		}
	}
	return cells, skipped
}

// MaxCells bounds a plan: more cells than this could not run in any
// reasonable time, and planning them would only exhaust memory.
const MaxCells = 10_000

// CountCells is the number of cells a plan of p over nkeys keys has (before
// workloads skip keys), computed without building it; ok is false when it
// exceeds MaxCells. The count is returned as text, since it may overflow.
func CountCells(p Params, nkeys int) (string, bool) {
	n := big.NewInt(int64(nkeys))
	tasks := len(strings.Split(p.Workload, ","))
	if t, err := p.Tasks(); err == nil {
		tasks = len(t)
	}
	caches := max(len(p.Caches), 1)
	if p.Scaled {
		caches = 1 // each size at its own cache
	}
	for _, f := range []int{tasks, len(p.Clients), len(p.Rows), max(p.Repeat, 1), caches} {
		n.Mul(n, big.NewInt(int64(f)))
	}
	return n.String(), n.Cmp(big.NewInt(MaxCells)) <= 0
}

// Limits of what a cell can run, checked before anything is allocated.
const (
	// MinCache is the smallest shared_buffers PostgreSQL starts with: 16 buffers of 8 kB.
	MinCache = 128 << 10
	// MaxPayload is the largest payload per row: a row of keybench's table is a key, a bigint and this text.
	MaxPayload = 1 << 20
)

// MaxHistory bounds the history a prefill stands for.
const MaxHistory = 100 * 365 * 24 * time.Hour

// checkPartitions checks that a key's table partitioned by time has
// partitions to speak of at every table size: at most
// workload.MaxTimePartitions of them.
func (p *Params) checkPartitions(k *keys.Spec) error {
	if !k.Partition.On() {
		return nil
	}
	for _, rows := range p.Rows {
		if n := workload.TimePartitionCount(rows, p.History, k.Partition); n > workload.MaxTimePartitions {
			span := workload.NewHistory(rows, p.History, time.Now()).Span()
			return usage.Errorf("key %q: %d rows over a history of %s make %d partitions of %s; at most %d (a longer partition, or --history)",
				k.Raw, rows, keys.FormatSpan(span.Round(time.Second)), n, k.Partition, workload.MaxTimePartitions)
		}
	}
	return nil
}

// Validate checks parameters after overrides, then every task's options
// at every client count and table size (the workloads check their own: a
// queue needs producers and consumers, a load one connection).
func (p *Params) Validate() error {
	bad := usage.Errorf
	if len(p.Clients) == 0 {
		return bad("--clients must be at least 1")
	}
	for _, c := range p.Clients {
		if c < 1 {
			return bad("--clients must be at least 1, not %d", c)
		}
		if c > 10000 {
			return bad("--clients must be at most 10000, not %d", c)
		}
	}
	for _, r := range p.Rows {
		if r < 0 {
			return bad("--rows must be 0 or more, not %d", r)
		}
	}
	for _, c := range p.Caches {
		if c < MinCache {
			return bad("--shared-buffers must be at least %s (PostgreSQL's 16 buffers), not %s", results.Bytes(MinCache), results.Bytes(c))
		}
		if c%1024 != 0 {
			return bad("--shared-buffers must be whole kilobytes, not %d bytes", c)
		}
	}
	switch {
	case len(p.Rows) == 0:
		return bad("--rows needs at least one size")
	case p.Scaled && len(p.Rows) != len(p.Caches):
		return bad("the scales pair --rows with --shared-buffers: give as many sizes to each, not %d and %d", len(p.Rows), len(p.Caches))
	case p.TableShare < 0 || p.TableShare > 100:
		return bad("the window's share of the table must be from 0 to 100, not %g", p.TableShare)
	case p.Warmup < 0:
		return bad("--warmup must not be negative, not %s", p.Warmup)
	case p.Txns < 0:
		return bad("--txns must be positive, not %d", p.Txns)
	case p.Txns == 0 && p.TableShare == 0 && p.Duration <= 0:
		return bad("--duration must be positive, not %s", p.Duration)
	case p.Rate > 0 && p.Txns == 0 && p.Duration > 0 && p.Rate*p.Duration.Seconds() < 1:
		// A schedule that starts no transaction in the window measures nothing.
		return bad("--rate %g over a %s window schedules %.3g transactions: at least one a window is needed (a rate of %.3g or more, or a longer --duration)",
			p.Rate, p.Duration, p.Rate*p.Duration.Seconds(), 1/p.Duration.Seconds())
	case p.Payload < 0 || p.Payload > MaxPayload:
		return bad("--payload must be from 0 to %d bytes, not %d", MaxPayload, p.Payload)
	case p.CreatedAt != "" && !slices.Contains(workload.CreatedAtValues, p.CreatedAt):
		return bad("--created-at must be one of %s, not %q", strings.Join(workload.CreatedAtValues, ", "), p.CreatedAt)
	case p.History < 0 || p.History > MaxHistory:
		return bad("--history must be from 0 (the rows at %d a second) to %s, not %s", workload.HistoryRowsPerS, keys.FormatSpan(MaxHistory), p.History)
	case p.Repeat < 1 || p.Repeat > MaxCells:
		return bad("--repeat must be from 1 to %d, not %d", MaxCells, p.Repeat)
	case p.Rounds < 0 || p.Rounds > 100:
		return bad("--rounds must be from 1 to 100, not %d", p.Rounds)
	case !(p.MinEffect >= 0 && p.MinEffect < 1):
		return bad("--min-effect must be from 0 to 99%%, not %g", p.MinEffect)
	case p.Rounds > 1 && p.Txns > 0 && p.Txns < int64(p.Rounds):
		return bad("--txns %d cannot be split into %d rounds", p.Txns, p.Rounds)
	case p.Rounds > 1 && p.Txns == 0 && p.TableShare == 0 && p.Duration < time.Duration(p.Rounds)*MinRoundWindow:
		return bad("--duration %s cannot be split into %d rounds of at least %s", p.Duration, p.Rounds, MinRoundWindow)
	case p.Txns == 0 && p.TableShare == 0 && p.Duration < time.Second:
		return bad("--duration must be at least 1s, not %s", p.Duration)
	}
	tasks, err := p.Tasks()
	if err != nil {
		return err
	}
	for _, task := range tasks {
		for _, c := range p.Clients {
			for _, rows := range p.Rows {
				if _, err := workload.Build(task.Workload, p.setupFor(c, rows), task.Values); err != nil {
					return bad("%v", err)
				}
			}
		}
	}
	return nil
}

// Setup is the workload setup of a planned cell.
func (p *Experiment) Setup(c PlannedCell, seed int64) workload.Setup {
	s := p.Params.setupFor(c.Clients, c.Rows)
	s.Seed = seed
	return s
}

// Build makes a planned cell's workload.
func (p *Experiment) Build(c PlannedCell, seed int64) (workload.Built, error) {
	return workload.Build(c.Task.Workload, p.Setup(c, seed), c.Task.Values)
}

// embeddedDefaults keep checkpoints out of short windows, as the source
// benchmarks did by raising max_wal_size.
var embeddedDefaults = []server.Setting{
	{Name: "max_wal_size", Value: "4GB"},
	{Name: "checkpoint_timeout", Value: "30min"},
}

func init() {
	register(timePreset())
	register(idsPreset())
	register(frameworksPreset())
}

// Workload is the scenario that runs the named workload alone (its bare
// scenario), also when a preset has its name (keybench run bulk:chunk=50000
// runs the workload bulk, not the preset).
func Workload(name string) (*Scenario, error) {
	m, ok := workload.Lookup(name)
	if !ok {
		return nil, usage.Errorf("unknown workload %q%s (valid: %s)", name, usage.Suggest(name, workloadNames()), strings.Join(workloadNames(), ", "))
	}
	if s, ok := scenarios()[name]; ok && s.Kind == BareWorkload {
		return s, nil
	}
	return bare(m), nil
}

// bare is the scenario that runs one workload alone, with its own options
// at their defaults.
func bare(m workload.Meta) *Scenario {
	clients := cmp.Or(m.Bare.Clients, 8)
	return &Scenario{
		Name:        m.Name,
		Description: "workload: " + m.Description,
		Defaults: Params{
			Workload: m.Name, Keys: []string{"bigint", "uuidv4", "uuidv7"}, Clients: []int{clients}, Rows: []int64{m.Bare.Rows},
			Warmup: 2 * time.Second, Duration: 15 * time.Second, Payload: 32, Repeat: 1, Rounds: 1,
		},
		Quick: func(p *Params) {
			p.Rows, p.Warmup, p.Duration, p.Txns = []int64{min(p.Rows[0], 10_000)}, time.Second, 3*time.Second, 0
		},
		Settings: embeddedDefaults,
	}
}

// checkRate refuses a fixed rate for a workload whose window is its own (a
// load's chunks, run as fast as it can): it would run flat out whatever
// --rate says.
func (p *Params) checkRate(tasks []Task) error {
	if p.Rate == 0 {
		return nil
	}
	for _, t := range tasks {
		if m, ok := workload.Lookup(t.Workload); ok {
			if _, own := m.New().(workload.Windowed); own {
				return usage.Errorf("--rate: %s runs a window of its own as fast as it can (a load's chunks); a fixed rate applies to the transactional workloads", t.Workload)
			}
		}
	}
	return nil
}

// clientKeys has keybench make the keys of every spec that leaves the
// choice open, where a task's workload needs them made by keybench
// (workload.KeyMaker) and the strategy has a client generator.
func (p *Params) clientKeys(tasks []Task, specs []*keys.Spec) {
	for _, t := range tasks {
		b, err := workload.Build(t.Workload, p.setupFor(p.Clients[0], p.Rows[0]), t.Values)
		if err != nil {
			continue // Tasks built it already; nothing to add here
		}
		if km, ok := b.Workload.(workload.KeyMaker); !ok || !km.MakesKeys() {
			continue
		}
		for _, s := range specs {
			if s.Gen == keys.GenAuto && s.Strategy.Client != nil {
				s.Gen = keys.GenClient
			}
		}
	}
}

// CellTxns is a cell's window in transactions per client: its table's
// share (TableShare) over its clients, or Txns (0: a window of Duration).
func (p *Params) CellTxns(rows int64, clients int) int64 {
	if p.TableShare > 0 {
		return max(1, int64(math.Ceil(float64(rows)*p.TableShare/float64(clients))))
	}
	return p.Txns
}
