// Package advise reads a user's own database and says which of its tables
// pay for their primary key, how much, and which keybench run reproduces
// each one's shape (`keybench advise`).
//
// It is strictly read-only, safe on a production primary or a hot standby:
// every read is one READ ONLY transaction with a short statement_timeout and
// lock_timeout, takes only ACCESS SHARE locks, and creates nothing (no
// extension, no temporary object). What the role may not read is
// unavailable, with the reason and the grant that would give it, never a
// zero. The figures come from the catalog (pg_class, pg_index, pg_attrdef,
// pg_sequence, pg_constraint), the statistics (pg_stats, pg_stat_user_tables,
// pg_stat_wal), and, where installed and granted, pgstattuple's pgstatindex
// and pg_buffercache; the key's order is also sampled from the key index
// itself (consecutive keys read through it, their heap positions compared).
//
// The verdict (verdict.go) is pure logic over those figures; the lab command
// (lab.go) scales the table's key index over its cache to the embedded
// server's. The JSON this package's Report marshals to is documented in
// docs/advise.md and is stable: fields are added, never renamed.
package advise

import (
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/stats"
)

// Options say what to read.
type Options struct {
	// Sample is the window over which rates (inserts, updates, deletes, WAL)
	// are measured as deltas of the server's counters.
	Sample time.Duration
	// Tables limits the look to these tables (schema.name or name as
	// search_path finds it); empty: every user table.
	Tables []string
	// RAM is the server's memory when the user gives it (0: unknown).
	RAM int64
	// Curves is a keybench run with measured curves (a growth run), read to
	// put a cost on each paying table; nil: no projection.
	Curves *results.Results
	// CurvesFile names Curves in the command the report prints.
	CurvesFile string
	// StatementTimeout bounds every statement (default 5 s).
	StatementTimeout time.Duration
	// Progress, when set, is told after each table is read; Log, when set,
	// what advise starts (the tables found, the sample window).
	Progress Progress
	Log      func(format string, a ...any)
}

// Report is what advise found: the server, the sample window, and each table
// with its key, figures, verdict and lab command, most paying first.
type Report struct {
	Server Server  `json:"server"`
	Sample Sample  `json:"sample"`
	Tables []Table `json:"tables"`
	// Curves is the results file read for the projections ("" without one).
	Curves string `json:"curves,omitempty"`
	// CurvesCommand is the run that makes curves, printed when none was given.
	CurvesCommand string `json:"curves_command,omitempty"`
	// LabsNote says why --lab ran no lab ("" when it ran some, or was not asked).
	LabsNote string `json:"labs_note,omitempty"`
}

// Server is what advise read of the server as a whole.
type Server struct {
	Version    string `json:"version"`
	VersionNum int    `json:"version_num"`
	Database   string `json:"database"`
	Role       string `json:"role"`
	// Standby is true on a hot standby (pg_is_in_recovery()).
	Standby bool `json:"standby"`
	// SharedBuffers is shared_buffers in bytes, the cache a key index is set against.
	SharedBuffers int64 `json:"shared_buffers_bytes"`
	// RAM is the memory the user gave with --ram (0: not given).
	RAM int64 `json:"ram_bytes,omitempty"`
	// Extensions are the installed extensions advise reads when present.
	Extensions []string `json:"extensions"`
	// Notes say what advise could not read server-wide, and why.
	Notes []string `json:"notes,omitempty"`
}

// Sample is the window the rates were measured over.
type Sample struct {
	Seconds float64 `json:"seconds"`
	// WALBytesPerS is the database cluster's WAL per second (pg_stat_wal on
	// a primary; the replayed LSN's advance on a standby).
	WALBytesPerS results.M[float64] `json:"wal_bytes_per_s,omitzero"`
	// FPIPerS is full-page images per second (pg_stat_wal, primary only).
	FPIPerS results.M[float64] `json:"fpi_per_s,omitzero"`
}

// Table is one table: its key, its figures and the verdict.
type Table struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Skipped is why the table could not be read (dropped while advise
	// ran, locked, not readable); its figures are absent and the rest of the
	// tables were read.
	Skipped string `json:"skipped,omitempty"`
	// Partitions is how many partitions a partitioned table has (its
	// figures are their sums, under its name; 0: a plain table), and
	// SampledPartition the one its rows were sampled in (its largest).
	Partitions       int    `json:"partitions,omitempty"`
	SampledPartition string `json:"sampled_partition,omitempty"`
	// Key is the primary key, or the largest unique key; nil when it has neither.
	Key *Key `json:"key,omitempty"`
	// Origin is the framework the key looks made by (a likely origin:
	// originOf), nil where none matches.
	Origin *Origin `json:"likely_origin,omitempty"`
	// pooledBy50: a sequence <table>_seq beside it steps by 50 (readPooled).
	pooledBy50 bool
	// Rows is the row count the planner holds (reltuples; n_live_tup when
	// never analyzed), unavailable where the relation's size contradicts it.
	Rows          results.M[int64] `json:"rows,omitzero"`
	TableBytes    int64            `json:"table_bytes"`
	IndexesBytes  int64            `json:"indexes_bytes"`
	KeyIndexBytes int64            `json:"key_index_bytes,omitempty"`
	// RowBytes is the average width of a row's columns (pg_stats), or the
	// heap's bytes per row less the tuple overhead when pg_stats is not readable.
	RowBytes results.M[float64] `json:"row_bytes,omitzero"`
	// KeyIndexOverCache and KeyIndexOverRAM are the key index over
	// shared_buffers and over --ram.
	KeyIndexOverCache float64            `json:"key_index_over_cache,omitempty"`
	KeyIndexOverRAM   results.M[float64] `json:"key_index_over_ram,omitzero"`
	// LeafDensity is the key index's average leaf density, 0..1, measured by
	// pgstatindex or estimated from the catalog (DensityMethod says which).
	LeafDensity   results.M[float64] `json:"key_index_leaf_density,omitzero"`
	DensityMethod string             `json:"key_index_density_method,omitempty"`
	// DensityNote says why an estimated density was not measured.
	DensityNote string `json:"key_index_density_note,omitempty"`
	// CacheShare is the share of shared_buffers the key index holds now (pg_buffercache).
	CacheShare results.M[float64] `json:"key_index_cache_share,omitzero"`
	// ReferencedBy are the foreign keys that reference the table's key.
	ReferencedBy []ForeignKey `json:"referenced_by,omitempty"`
	// Rates over the sample window.
	InsertsPerS results.M[float64] `json:"inserts_per_s,omitzero"`
	UpdatesPerS results.M[float64] `json:"updates_per_s,omitzero"`
	DeletesPerS results.M[float64] `json:"deletes_per_s,omitzero"`
	// InsertsFrom says how InsertsPerS was measured (counters, or the
	// heap's growth on a standby).
	InsertsFrom string `json:"inserts_from,omitempty"`
	// Inserters is how many distinct backends were seen writing the table
	// during the window: holding its ROW EXCLUSIVE lock (pg_locks), however
	// the statement was issued, or running one that names it.
	Inserters results.M[int] `json:"inserters,omitzero"`
	// Users is how many distinct backends were seen reading or writing it
	// (its ACCESS SHARE or ROW EXCLUSIVE lock) during the window.
	Users results.M[int] `json:"backends_seen,omitzero"`
	// Mix is what its traffic did during the window, per second, as its
	// lab replays it.
	Mix *Mix `json:"mix,omitempty"`
	// RunsOut are the table's integer columns a sequence feeds (its key's
	// or any other, owned or not), each with when it runs out.
	RunsOut []FedColumn `json:"runs_out,omitempty"`
	// OverflowDays is how long the soonest of them lasts, in days, and
	// OverflowAt when (UTC, RFC 3339; absent past ten years).
	OverflowDays results.M[float64] `json:"key_overflow_days,omitzero"`
	OverflowAt   string             `json:"key_overflow_at,omitempty"`
	// Secondary are the table's other single-column indexes, each with the
	// order its inserts take, which its lab table reproduces (--secondary).
	Secondary []SecondaryIndex `json:"secondary_indexes,omitempty"`
	Verdict   Verdict          `json:"verdict"`
	// Lab is the keybench run that reproduces the table's shape, and
	// Migrate the run that switches its new rows to an ordered key,
	// MigrateTo.
	Lab       *Lab   `json:"lab,omitempty"`
	Migrate   string `json:"migrate_command,omitempty"`
	MigrateTo string `json:"migrate_to,omitempty"`
	// Switches are what changing the key would cost: its new rows to an
	// ordered key, its type (a text uuid to uuid, an int4 to bigint).
	Switches []Switch `json:"switches,omitempty"`
	// LabResult is what the lab measured (advise --lab); LabFlatOut what
	// the same lab measured flat out, run when the first, at the table's
	// rate, found no difference in work.
	LabResult  *LabResult `json:"lab_result,omitempty"`
	LabFlatOut *LabResult `json:"lab_flat_out,omitempty"`
}

// How a Switch changes the key (Switch.How).
const (
	SwitchDefault = "default"
	SwitchType    = "type"
)

// Switch is one change of a table's key and what it costs: whether it
// rewrites the table (a new type: the table and every index on it, and each
// referencing column with its index), the constraints rebuilt with it, the
// locks it takes, and the keybench run that measures it where there is one.
type Switch struct {
	To string `json:"to"`
	// How: "default" (new rows only: the column's default changes, no row
	// is rewritten) or "type" (ALTER COLUMN ... TYPE: every row rewritten).
	How string `json:"how"`
	// RewriteBytes are the bytes rewritten: the table and its indexes, and
	// each referencing table's index on the key (0 for a default).
	RewriteBytes int64 `json:"rewrite_bytes"`
	// Rebuilt are the foreign keys whose columns change type with the key:
	// each referencing table rewritten and the constraint validated again.
	Rebuilt []string `json:"rebuilt_constraints,omitempty"`
	Locks   []string `json:"locks"`
	// Measure is the keybench run that measures the switch ("": none does).
	Measure string `json:"measure_command,omitempty"`
}

// LabResult is the lab's measured verdict on a table's key: its server
// time per transaction and its rate against the ordered key the lab ran
// beside it (each a ratio with its interval and whether the direction is
// known), or why it could not say.
type LabResult struct {
	Results string `json:"results"` // the lab's results.json
	Key     string `json:"key"`
	Against string `json:"against,omitempty"`
	// Cost and Rate are the key's over Against's; nil when not compared,
	// CostUnavailable then why the costs were not.
	Cost            *LabRatio `json:"cost,omitempty"`
	CostUnavailable string    `json:"cost_unavailable,omitempty"`
	Rate            *LabRatio `json:"rate,omitempty"`
	// WAL is the key's WAL per transaction over Against's, the WAL family
	// of the lab's analysis (nil: not compared).
	WAL *LabRatio `json:"wal,omitempty"`
	// Counts are the key's counts per transaction over Against's that set
	// its work apart (the lab's analysis's reasons, largest first), shown
	// beside its work whether or not the work differs.
	Counts []results.Reason `json:"counts,omitempty"`
	// Shortfall says which of the lab's keys ran under 97% of its fixed
	// schedule ("" where every key kept it, or it ran flat out).
	Shortfall string `json:"shortfall,omitempty"`
	// Unavailable is why the lab gave no verdict.
	Unavailable string `json:"unavailable,omitempty"`
}

// LabRatio is one comparison of the lab: the key's figure over the other
// key's, its interval, and Significant when the direction is known (the
// interval then excludes 1).
type LabRatio struct {
	Ratio float64 `json:"ratio"`
	stats.Interval
	Significant bool `json:"significant"`
}

// Key is a table's key: its column, type, how its values are made, and its order.
type Key struct {
	Constraint string   `json:"constraint"`
	Kind       string   `json:"kind"` // "primary key" or "unique"
	Index      string   `json:"index"`
	Columns    []string `json:"columns"`
	Type       string   `json:"type"`
	// Made says how the values are made: "identity", "sequence",
	// "gen_random_uuid()", "uuidv7()", "function NAME()", "application".
	Made string `json:"made"`
	// Default is the column's default expression as the catalog holds it.
	Default string `json:"default,omitempty"`
	// SequenceCache is the sequence's CACHE, for identity and sequence keys.
	SequenceCache int64 `json:"sequence_cache,omitempty"`
	// baseOID is the first column's type, through a domain to its base;
	// base its name, as advise's reads cast the column to it (set by
	// reader.unread, "" where its values are not read).
	baseOID uint32
	base    string
	// types are the columns' types, in order (Type joins them).
	types []string
	// UUIDText is true for uuids stored as text/varchar/char(32) (sampled values are uuid-shaped).
	UUIDText bool `json:"uuid_as_text,omitempty"`
	// UUIDVersion is the version the sampled uuid values carry (4, 7, ...; 0: not a uuid, or mixed).
	UUIDVersion int `json:"uuid_version,omitempty"`
	// UUIDVersions counts the sampled uuid values by version ("v4": n):
	// a column whose rows were made by several generators (a switch from
	// uuidv4 to uuidv7 part-way) holds a mix.
	UUIDVersions map[string]int `json:"uuid_versions,omitempty"`
	// UUIDMix is each uuid version's share of the rows, read on heap pages
	// sampled at random over the whole table, with its 95% interval;
	// UUIDMixRead says how many rows and pages it read, or why it was not.
	UUIDMix     []VersionShare `json:"uuid_mix,omitempty"`
	UUIDMixRead string         `json:"uuid_mix_read,omitempty"`
	// Correlation is pg_stats.correlation of the key column: 1 for keys stored in order, near 0 for random ones.
	Correlation results.M[float64] `json:"correlation,omitzero"`
	// LeafOrder is the share of consecutive keys, read through the key
	// index at sampled points, whose rows lie in heap order (insertion
	// order for a table that is only inserted into): 1 ordered, ~0.5 random.
	LeafOrder results.M[float64] `json:"leaf_order,omitzero"`
	// Order is the verdict on the key's order: "ordered", "partly ordered", "random", "unknown".
	Order string `json:"order"`
	// Reveals is what the key tells whoever sees it: "creation time", "a count", or "".
	Reveals string `json:"reveals,omitempty"`
}

// ForeignKey is a foreign key referencing a table's key.
type ForeignKey struct {
	Table      string `json:"table"`
	Constraint string `json:"constraint"`
	// IndexBytes is the size of the referencing table's index that leads
	// with the foreign key's columns (0 with Indexed false: none, so each
	// delete or key update of the parent scans the child).
	Indexed    bool  `json:"indexed"`
	IndexBytes int64 `json:"index_bytes,omitempty"`
	// Rows is the referencing table's row count (pg_class.reltuples), and
	// KeyBytes what the key's width takes of its index: a copy of the key
	// per row (the key's bytes times its rows; unavailable without them).
	Rows     int64              `json:"rows,omitempty"`
	KeyBytes results.M[float64] `json:"key_bytes_in_index,omitzero"`
}

// Verdict classes.
const (
	RunsOut    = "runs out"     // its key's sequence or type ends within RunsOutDays at the sampled rate: an emergency
	Pays       = "pays"         // an unordered key on a table inserted into now
	PaysInSize = "pays in size" // an unordered key on a table not inserted into during the sample
	TooSmall   = "too small"    // unordered, but the key index is too small to matter
	// NotShown: an unordered key on a table inserted into now, but no
	// figure read shows what the order costs (or the figures that would
	// could not be read): its lab measures it.
	NotShown     = "cost not shown"
	DoesNotPay   = "does not pay"  // the key is ordered
	NoKey        = "no key"        // no primary or unique key
	OrderUnknown = "order unknown" // the key's order could not be read
	// NoDifference: its lab measured the key beside an ordered one and
	// found no difference in the work per transaction at its size and rate.
	NoDifference = "measured: no difference"
	Skipped      = "skipped" // the table could not be read (Table.Skipped says why)
)

// ClassMeaning says each verdict class in plain words, for the summary's
// legend.
var ClassMeaning = map[string]string{
	RunsOut:      "its key runs out of values within 30 days at the sampled insert rate: the next insert past the last value fails (an emergency, first whatever else)",
	Pays:         "it is inserted into now with a key in random order: each insert lands on a leaf anywhere in the key index, which costs reads where the cache does not hold that leaf and, after each checkpoint, a whole-page image of each leaf first changed; its own lines say which the figures show",
	PaysInSize:   "its key's random order made its index larger than an ordered key's would be (half-empty pages), though nothing was inserted during the sample",
	TooSmall:     "its key is random, but its index is too small beside the cache for the order to cost anything measurable",
	NotShown:     "it is inserted into now with a key in random order, but no figure read shows what the order costs — its key index cached whole, no full-page image in the sample, its leaves full, or those figures could not be read (its lines say which and why): its lab measures it",
	DoesNotPay:   "its key is made in order: new rows go to the index's last page",
	NoKey:        "it has no primary or unique key to judge",
	OrderUnknown: "the key's order could not be read (see why)",
	NoDifference: "its lab ran the key beside an ordered one at the table's size, rate and clients and found no difference in the server's work per transaction; its own lines say what would decide it",
	Skipped:      "the table could not be read (see why)",
}

// Verdict is a table's class, why, and its cost where curves give one.
type Verdict struct {
	Class string `json:"class"`
	// Rank orders the paying tables, 1 paying most (0: not paying).
	Rank int `json:"rank,omitempty"`
	// Why is the evidence in keybench's voice, one sentence each.
	Why []string `json:"why"`
	// Cost is what the measured curves say the key costs, with a --curves run.
	Cost *Cost `json:"cost,omitempty"`
}

// Cost is a paying table's key against an ordered one at the table's own
// index/cache ratio, read off a run's curves (package projection).
type Cost struct {
	// Key and Ordered are the run's keys standing for the table's and for an ordered one.
	Key     string `json:"key"`
	Ordered string `json:"ordered"`
	// Relative is the table key's insert rate relative to the ordered
	// key's, with its interval (none: Level 0).
	Relative float64 `json:"relative_rate"`
	stats.Interval
	Outside bool `json:"outside_measured_range,omitempty"`
	// KeyIndexBytes and OrderedKeyIndexBytes are the projected key index sizes.
	KeyIndexBytes        int64 `json:"key_index_bytes"`
	OrderedKeyIndexBytes int64 `json:"ordered_key_index_bytes"`
	// WALPerDay and OrderedWALPerDay at the table's measured insert rate.
	WALPerDay        results.M[float64] `json:"wal_bytes_per_day,omitzero"`
	OrderedWALPerDay results.M[float64] `json:"ordered_wal_bytes_per_day,omitzero"`
}

// Lab is the keybench run reproducing a table's shape on the embedded server.
type Lab struct {
	Command string `json:"command"`
	// Rows and SharedBuffers scale the table's key index over its cache;
	// Ratio is that ratio, the one the lab's table is built to.
	Rows          int64   `json:"rows"`
	SharedBuffers int64   `json:"shared_buffers_bytes"`
	Ratio         float64 `json:"key_index_over_cache"`
	Key           string  `json:"key"`
	// Workload is what the lab runs: insert, or mix with its weights (the
	// table's statements per second, by kind) where the table's traffic
	// holds more than inserts; Mix says that mix and where it was read.
	Workload string `json:"workload"`
	Mix      string `json:"mix,omitempty"`
	Payload  int    `json:"payload"`
	Clients  int    `json:"clients"`
	// Secondary are the table's other indexes as the lab table carries
	// them (--secondary: random:WIDTH, time; "": none).
	Secondary string `json:"secondary,omitempty"`
	// RateTPS is the table's measured insert rate the lab runs at (--rate;
	// 0: flat out, the rate unmeasured or too low for a window).
	RateTPS float64 `json:"rate_tps,omitempty"`
	// PgVersion is the server's major the lab's embedded server runs
	// ("": keybench's default, the Notes say why).
	PgVersion string `json:"pg_version,omitempty"`
	// TxnsPerClient is the lab's window (-t): a tenth of its rows over its
	// rounds, at most 30 s of them at RateTPS.
	TxnsPerClient int `json:"txns_per_client"`
	// Notes say what the lab could not match.
	Notes []string `json:"notes,omitempty"`
}

// QualifiedName is the table's schema-qualified name as advise prints it:
// each part quoted where SQL would need it, and a control character (a
// newline in a name) written as its escape, so that a name never breaks a
// line or a terminal.
func (t Table) QualifiedName() string {
	return sqltree.Printable(t.Schema) + "." + sqltree.Printable(t.Name)
}

// SecondaryIndex is one of a table's indexes beside its key: its column,
// whether it is unique, the order of its inserts (Ordered: a created_at's;
// Random: an email's; OrderUnknown: its column has no statistics) and the
// column's mean width in bytes (pg_stats.avg_width).
type SecondaryIndex struct {
	Index  string `json:"index"`
	Column string `json:"column"`
	Unique bool   `json:"unique,omitempty"`
	Order  string `json:"order"`
	Width  int    `json:"width_bytes,omitempty"`
}
