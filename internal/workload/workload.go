// Package workload defines what the clients of a cell do. Each workload
// registers itself with its name and description (as CockroachDB's workload
// package does); the runner and the driver know nothing of any single one.
//
// Every workload works on one table, (id KEY, data bigint, payload text),
// created fresh for each cell in keybench's schema. Prefilled rows carry
// data values that are a permutation of 1..rows in a scattered order, so
// that a read of a random value in that range always finds a row and the
// index on data is built from unordered inserts, as in the source benchmark
// of "UUID Benchmark War".
package workload

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
)

// Table is the table a cell runs against.
type Table struct {
	// Schema and Name are simple lower-case identifiers.
	Schema, Name string
	// Key is the key strategy bound to the server.
	Key *keys.Resolved
	// Payload is the length of the payload text per row (0: NULL).
	Payload int
	// DataIndex adds an index on data (reads by data need it).
	DataIndex bool
	// History, when set, is the time span the prefill stands for: server-made
	// keys that can be made for another time are made at the history's times.
	History *History
	// Partitions, when positive, makes the table a parent partitioned by
	// LIST (data) into partitions <name>_p0 … _p<n-1>, partition i holding
	// data = i; each partition gets its own key index (a primary key on a
	// partitioned parent would have to include data).
	Partitions int
}

// Partition is the qualified name of partition i.
func (t *Table) Partition(i int) string { return fmt.Sprintf("%s_p%d", t.Qualified(), i) }

// dataValue is the data column of the i-th loaded row of n.
func (t *Table) dataValue(i, n int64) int64 {
	if t.Partitions > 0 {
		return i % int64(t.Partitions)
	}
	return DataValue(i, n)
}

func (t *Table) dataValueSQL(n int64) string {
	if t.Partitions > 0 {
		return fmt.Sprintf("i %% %d", t.Partitions)
	}
	return dataValueSQL(n)
}

// Qualified is the schema-qualified table name.
func (t *Table) Qualified() string { return t.Schema + "." + t.Name }

// Options are the workload parameters a scenario or the user sets.
type Options struct {
	// Rows is the size of the prefilled table; data values of reads are drawn from 1..Rows.
	Rows int64
	// Batch is the number of rows each insert transaction writes.
	Batch int
	// ReadBy is "data" (through the secondary index, as in 001) or "key".
	ReadBy string
	// Seed makes each worker's random choices reproducible.
	Seed int64
	// Chunk and LoadMethod configure the bulk workloads.
	Chunk      int64
	LoadMethod string
	// Clients is the cell's client count (a queue splits them into roles).
	Clients int
	// Partitions is the queue table's partition count.
	Partitions int
}

// Worker is one client's transaction loop body, bound to its own connection.
type Worker interface {
	// Txn runs one transaction and returns the rows it inserted.
	Txn() (rows int, err error)
}

// Workload is a registered workload.
type Workload interface {
	// NeedsDataIndex says whether the table gets an index on data.
	NeedsDataIndex() bool
	// Prepare runs once per cell after the table is filled (e.g. to sample keys to read).
	Prepare(ctx context.Context, conn *pgx.Conn, t *Table) error
	// NewWorker prepares a worker's statements on its connection.
	NewWorker(ctx context.Context, conn *pgconn.PgConn, t *Table, gen keys.Generator, id int) (Worker, error)
}

// Meta describes a registered workload.
type Meta struct {
	Name        string
	Description string
	New         func(o Options) (Workload, error)
	// Accepts, if set, says why the workload cannot run with a key ("" when it can).
	Accepts func(*keys.Spec) string
	// Kind says how the workload's cells read in results, the console and
	// the report (the zero Kind: transactions per second over a window).
	Kind results.Kind
}

var registry = map[string]Meta{}

// Register adds a workload, and the kind of its cells to results; workloads call it from init.
func Register(m Meta) {
	if m.Kind.Columns == nil && m.Kind.NewSummary == nil && m.Kind.RateUnit == "" {
		m.Kind.SecondsTimeline = true
	}
	registry[m.Name] = m
	results.Register(m.Name, m.Kind)
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

// scatterPrime spreads 1..n over a permutation: (i*p mod n)+1 is a bijection
// on 1..n whenever p is a prime that does not divide n.
const scatterPrime = 2147483647

// DataValue is the data column of the i-th prefilled row (1-based) of n.
func DataValue(i, n int64) int64 {
	if n%scatterPrime == 0 {
		return i
	}
	return (i%n)*scatterPrime%n + 1
}

// dataValueSQL is DataValue in SQL over a generate_series column named i.
func dataValueSQL(n int64) string {
	if n%scatterPrime == 0 {
		return "i"
	}
	return fmt.Sprintf("(i %% %d) * %d %% %d + 1", n, scatterPrime, n)
}

// payloadSQL makes a payload of length n from the row number i.
func payloadSQL(n int) string {
	if n <= 0 {
		return "NULL"
	}
	return fmt.Sprintf("left(repeat(md5(i::text), %d), %d)", (n+31)/32, n)
}

// CreateTable drops and creates the cell's table without indexes; BuildIndexes adds them after the prefill.
func CreateTable(ctx context.Context, conn *pgx.Conn, t *Table, sv keys.Server) error {
	stmts := []string{"DROP TABLE IF EXISTS " + t.Qualified()}
	if t.Key.Gen == keys.GenServer {
		stmts = append(stmts, "DROP SEQUENCE IF EXISTS "+t.Qualified()+"_kbseq")
	}
	stmts = append(stmts, t.Key.Setup(sv)...)
	col := t.Key.ColumnType()
	if t.Key.Gen == keys.GenServer {
		col += " " + t.Key.ColumnDefault
	}
	create := fmt.Sprintf("CREATE TABLE %s (id %s NOT NULL, data bigint NOT NULL, payload text)", t.Qualified(), col)
	if t.Partitions > 0 {
		create += " PARTITION BY LIST (data)"
	}
	stmts = append(stmts, create)
	for i := 0; i < t.Partitions; i++ {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s PARTITION OF %s FOR VALUES IN (%d)", t.Partition(i), t.Qualified(), i))
	}
	return execAll(ctx, conn, stmts)
}

// IndexStatements are the statements that build the table's indexes.
func IndexStatements(t *Table) []string {
	if t.Partitions > 0 {
		var out []string
		for i := 0; i < t.Partitions; i++ {
			p := *t
			p.Name, p.Partitions = fmt.Sprintf("%s_p%d", t.Name, i), 0
			out = append(out, IndexStatements(&p)...)
		}
		return out
	}
	var out []string
	q := t.Qualified()
	switch t.Key.Index {
	case keys.IndexPK:
		out = append(out, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s_pkey PRIMARY KEY (id)", q, t.Name))
	case keys.IndexUnique:
		out = append(out, fmt.Sprintf("CREATE UNIQUE INDEX %s_id_key ON %s (id)", t.Name, q))
	case keys.IndexBtree, keys.IndexHash, keys.IndexBrin:
		out = append(out, fmt.Sprintf("CREATE INDEX %s_id_idx ON %s USING %s (id)", t.Name, q, t.Key.Index))
	}
	if t.DataIndex {
		out = append(out, fmt.Sprintf("CREATE INDEX %s_data_idx ON %s (data)", t.Name, q))
	}
	return out
}

// KeyIndexNames are the qualified names of the key's indexes: one, or one
// per partition; none for index=none.
func KeyIndexNames(t *Table) []string {
	var suffix string
	switch t.Key.Index {
	case keys.IndexPK:
		suffix = "_pkey"
	case keys.IndexUnique:
		suffix = "_id_key"
	case keys.IndexNone:
		return nil
	default:
		suffix = "_id_idx"
	}
	if t.Partitions == 0 {
		return []string{t.Qualified() + suffix}
	}
	out := make([]string, t.Partitions)
	for i := range out {
		out[i] = t.Partition(i) + suffix
	}
	return out
}

func execAll(ctx context.Context, conn *pgx.Conn, stmts []string) error {
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
