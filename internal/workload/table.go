package workload

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/workspace"
)

// The names of keybench's relations in its schema live here, and only
// here (the keys' own objects are named by package keys:
// keys.SeqUUIDFunction, keys.SequenceSuffix). Names say what a relation is
// to a person reading the schema; they never decide what keybench drops:
// the workspace's ledger does.
const (
	// CellTable is the keyed table of every cell (of the n-th of several
	// cells at once: CellTable<n>); a workload's other tables are named
	// after it, <keyed table>_<suffix>.
	CellTable = "kb_cell"

	pkeySuffix           = "_pkey"
	uniqueSuffix         = "_id_key"
	keyIndexSuffix       = "_id_idx"
	dataIndexSuffix      = "_data_idx"
	createdAtIndexSuffix = "_created_at_idx"
)

// Relation roles, by which the collectors attribute WAL and buffer cache.
const (
	RoleTable          = results.RoleTable
	RoleKeyIndex       = results.RoleKeyIndex
	RoleDataIndex      = results.RoleDataIndex
	RoleCreatedAtIndex = results.RoleCreatedAtIndex
	RoleSecondaryIndex = results.RoleSecondaryIndex
)

// The created_at column of the keyed table (keys.CreatedAt*: --created-at,
// created-at=).
const (
	CreatedAtNone    = keys.CreatedAtNone
	CreatedAtColumn  = keys.CreatedAtColumn
	CreatedAtIndexed = keys.CreatedAtIndexed
)

// CreatedAtValues are --created-at's values.
var CreatedAtValues = keys.CreatedAtValues

// Table is a table of a cell: the keyed table (id KEY, data bigint,
// payload text), or a table of a workload's own (Columns set).
type Table struct {
	// Schema and Name are simple lower-case identifiers.
	Schema, Name string
	// Key is the key strategy bound to the server (the keyed table's; a
	// table of the workload's own may carry the key's type in its columns).
	Key *keys.Resolved
	// Rows is how many rows keybench's prefill puts in the keyed table
	// before the window (a table of the workload's own fills itself in Hooks.PostLoad).
	Rows int64
	// Payload is the length of the payload text per row (0: NULL).
	Payload int
	// DataIndex adds an index on data (reads by data need it).
	DataIndex bool
	// CreatedAt adds a created_at timestamptz column (CreatedAtColumn),
	// indexed (CreatedAtIndexed); "" or CreatedAtNone: none (the key's:
	// keys.Spec.CreatedAt). A window's rows take the server's
	// clock_timestamp(); a prefill's rows the times of History.
	CreatedAt string
	// History is the span of time the prefill stands for (set by
	// KeyedTable): row i is made at its i-th time, which a clock-made key
	// of the row encodes, its created_at holds, and the bounds of a
	// partition by time (Key.Partition) are made from.
	History *History
	// ServerAtHistory: the server makes the prefill's keys at the
	// history's times (keys.Resolved.ServerValueAt), during the prefill.
	ServerAtHistory bool
	// Dropped counts the oldest time partitions a retention has dropped.
	Dropped int
	// Ledger is the workspace that recorded the table's objects (set when
	// the runner creates them): a workload drops one of them (retention's
	// oldest partition) only through it.
	Ledger Claimer
	// Partitions, when positive, makes the table a parent partitioned by
	// LIST (data) into partitions <name>_p0 … _p<n-1>, partition i holding
	// data = i; each partition gets its own key index (a primary key on a
	// partitioned parent would have to include data).
	Partitions int
	// DeferIndexes leaves the indexes out of the fill: the workload builds
	// them itself (BuildIndexes), e.g. after a load. FillIndexed builds
	// them before the prefill, which then grows them as inserts do (a
	// random key's leaves split half full, not packed by CREATE INDEX).
	DeferIndexes bool
	FillIndexed  bool
	// Secondary are the keyed table's secondary indexes, each on a column
	// of its own whose values the server makes (--secondary).
	Secondary []Secondary

	// Columns, for a table of the workload's own, are its SQL column
	// definitions; Role names its relation for the collectors (its
	// indexes are Role + "_index"); Indexes are its indexes.
	Columns string
	Role    string
	Indexes []Index

	// Tenants, when set, gives the keyed table a tenant column the server
	// fills, makes its key local to the tenant (the key index is on
	// (tenant_id, id)) and, on a distributed engine, its shards the
	// tenants' (--distribute-by tenant).
	Tenants *Tenants

	// Reference makes the table, on a distributed engine, a reference
	// table: one shard copied to every node (--distribute-by reference).
	Reference bool

	// Like gives the keyed table the shape of a user's table (--like): its
	// key column's name, its other columns, indexes and CHECK constraints.
	Like *Like

	// DistributeBy is the column a distributed engine (Citus, --distribute)
	// shards a table of the workload's own on, and ColocateWith the table
	// whose shards its rows share (a child with its parent, so that the
	// foreign key and the join stay on one worker). A keyed table is
	// distributed on its key.
	DistributeBy, ColocateWith string
}

// Index is an index of a workload's own table.
type Index struct {
	// Suffix names it: <table>_<suffix>.
	Suffix  string
	Columns string
	Unique  bool
}

// Place is where a cell's tables go: keybench's schema, and the name of
// the cell's keyed table (CellTable, or CellTable<n> when several cells'
// tables live at once, as cells that run in rounds do); a workload's own
// tables are named after it.
type Place struct{ Schema, Table string }

// PlaceOf is the place of the n-th cell whose tables live at once (n from 1).
func PlaceOf(schema string, n int) Place {
	if n <= 1 {
		return Place{schema, CellTable}
	}
	return Place{schema, fmt.Sprintf("%s%d", CellTable, n)}
}

// Claimer is the workspace as a workload that drops one of its tables'
// objects sees it: it finds a table only when keybench recorded creating
// it (workspace.Workspace.ClaimTable).
type Claimer interface {
	ClaimTable(ctx context.Context, tx pgx.Tx, name string) (*workspace.Claim, error)
}

// KeyedTable is the cell's keyed table, as most workloads declare it: its
// created_at column and partitions as its key says, its history made now
// (it ends as the table is made, before the window).
func KeyedTable(at Place, key *keys.Resolved, s Setup) *Table {
	return &Table{Schema: at.Schema, Name: at.Table, Key: key, Rows: s.Rows, Payload: s.Payload, CreatedAt: key.CreatedAt,
		History: NewHistory(s.Rows, s.History, time.Now()), FillIndexed: s.FillIndexed, Secondary: s.Secondary, Like: s.Like}
}

// HasCreatedAt says whether the keyed table has a created_at column.
func (t *Table) HasCreatedAt() bool {
	return t.CreatedAt == CreatedAtColumn || t.CreatedAt == CreatedAtIndexed
}

// born says the prefill writes each row's created_at from the history.
func (t *Table) born() bool { return t.HasCreatedAt() && t.History != nil }

// OwnTable is a table of a workload's own, named <keyed table>_<suffix>.
func OwnTable(at Place, suffix, role, columns string, indexes ...Index) *Table {
	return &Table{Schema: at.Schema, Name: at.Table + "_" + suffix, Role: role, Columns: columns, Indexes: indexes}
}

// ownColumns are the keyed table's data and payload columns as SQL names
// them: data and payload, or what a copied shape renamed them to
// (Like.DataCol, PayloadCol).
func (t *Table) ownColumns() (data, payload string) {
	if t.Like != nil {
		return pgx.Identifier{t.Like.DataCol}.Sanitize(), pgx.Identifier{t.Like.PayloadCol}.Sanitize()
	}
	return "data", "payload"
}

// Keyed reports whether t is a keyed table (id KEY, data, payload).
func (t *Table) Keyed() bool { return t.Columns == "" }

// KeyColumn is the keyed table's key column, quoted as SQL needs it: id,
// or the user's table's under --like.
func (t *Table) KeyColumn() string {
	if t.Like != nil {
		return pgx.Identifier{t.Like.KeyColumn}.Sanitize()
	}
	return "id"
}

// Partition is the qualified name of partition i.
func (t *Table) Partition(i int) string { return fmt.Sprintf("%s_p%d", t.Qualified(), i) }

// Qualified is the schema-qualified table name.
func (t *Table) Qualified() string { return t.Schema + "." + t.Name }

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

// Objects are what creating the table makes in keybench's schema, in
// order, each with its statements: its key's helpers (a function, a
// sequence), then the table with its partitions, without indexes (built
// after the fill: IndexStatements). The runner creates them through the
// workspace, which records each.
func Objects(t *Table, sv keys.Server) []workspace.Object {
	if !t.Keyed() {
		return []workspace.Object{{Kind: workspace.Table, Name: t.Name, SQL: []string{fmt.Sprintf("CREATE TABLE %s (%s)", t.Qualified(), t.Columns)}}}
	}
	out := append(t.Key.Setup(sv), workspace.Object{Kind: workspace.Table, Name: t.Name, SQL: createStatements(t)})
	names, stmts := t.partitionStatements()
	for i := range names {
		out = append(out, workspace.Object{Kind: workspace.Table, Name: names[i], SQL: []string{stmts[i]}})
	}
	return out
}

// Names are every object the table takes a name for (Objects, its
// partitions and its indexes): the names keybench needs free.
func Names(t *Table, sv keys.Server) []workspace.Object {
	out := Objects(t, sv)
	for name, role := range Relations([]*Table{t}) {
		kind := workspace.Table
		if strings.HasSuffix(role, "index") {
			kind = workspace.Index
		}
		out = append(out, workspace.Object{Kind: kind, Name: name})
	}
	return out
}

// DDL is the SQL that makes the table as keybench makes it: its key's
// helpers, the table, its indexes (built after the fill).
func DDL(t *Table, sv keys.Server) []string {
	var out []string
	for _, o := range Objects(t, sv) {
		out = append(out, o.SQL...)
	}
	return append(out, IndexStatements(t)...)
}

// createStatements create the keyed table and its partitions, without indexes.
func createStatements(t *Table) []string {
	var stmts []string
	col := t.Key.ColumnType()
	if t.Key.Gen == keys.GenServer {
		col += " " + t.Key.ColumnDefault
	}
	createdAt := ""
	if t.HasCreatedAt() {
		createdAt = ", created_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp()"
	}
	tenant := ""
	if t.Tenants != nil {
		tenant = ", " + t.Tenants.column()
	}
	create := fmt.Sprintf("CREATE TABLE %s (id %s NOT NULL, data bigint NOT NULL, payload text%s%s%s)", t.Qualified(), col, createdAt, t.secondaryColumns(), tenant)
	if t.Like != nil {
		create = fmt.Sprintf("CREATE TABLE %s (%s %s NOT NULL%s%s)", t.Qualified(), t.KeyColumn(), col, t.Like.likeColumns(), createdAt)
	}
	switch {
	case t.Partitions > 0:
		create += " PARTITION BY LIST (data)"
	case t.TimePartitioned():
		create += " PARTITION BY RANGE (" + t.Key.PartitionColumn() + ")"
	}
	stmts = append(stmts, create)
	for i := 0; i < t.Partitions; i++ {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s PARTITION OF %s FOR VALUES IN (%d)", t.Partition(i), t.Qualified(), i))
	}
	return stmts
}

// DistributeStatement makes the table a Citus distributed table, sharded
// on its key (a keyed table) or on its DistributeBy column, with
// shardCount shards (0: Citus's default) or in its ColocateWith table's
// shards. It is run right after the table is created, before its fill.
func DistributeStatement(t *Table, shardCount int) (string, error) {
	if t.Reference {
		return fmt.Sprintf("SELECT create_reference_table('%s')", t.Qualified()), nil
	}
	col := t.DistributeBy
	if col == "" && t.Keyed() {
		col = "id"
		if t.Tenants != nil {
			col = TenantColumn
		}
	}
	if col == "" {
		return "", fmt.Errorf("table %s has no column to distribute it on", t.Qualified())
	}
	if t.ColocateWith != "" {
		// Citus takes the shard count of the table it co-locates with.
		return fmt.Sprintf("SELECT create_distributed_table('%s', '%s', colocate_with => '%s')", t.Qualified(), col, t.ColocateWith), nil
	}
	stmt := fmt.Sprintf("SELECT create_distributed_table('%s', '%s', colocate_with => 'none'", t.Qualified(), col)
	if shardCount > 0 {
		stmt += fmt.Sprintf(", shard_count => %d", shardCount)
	}
	return stmt + ")", nil
}

// IndexStatements are the statements that build the table's indexes.
func IndexStatements(t *Table) []string {
	q := t.Qualified()
	if !t.Keyed() {
		var out []string
		for _, ix := range t.Indexes {
			unique := ""
			if ix.Unique {
				unique = "UNIQUE "
			}
			out = append(out, fmt.Sprintf("CREATE %sINDEX %s_%s ON %s (%s)", unique, t.Name, ix.Suffix, q, ix.Columns))
		}
		return out
	}
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
	id := t.KeyColumn()
	pk := id
	if t.TimePartitioned() && t.Key.PartitionColumn() != "id" {
		pk = id + ", " + t.Key.PartitionColumn() // a partitioned table's unique keys hold its partition column
	}
	unique := id
	if t.Tenants != nil {
		pk, unique = TenantColumn+", "+pk, TenantColumn+", "+id // the key is the tenant's
	}
	switch t.Key.Index {
	case keys.IndexPK:
		out = append(out, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s%s PRIMARY KEY (%s)", q, t.Name, pkeySuffix, pk))
	case keys.IndexUnique:
		out = append(out, fmt.Sprintf("CREATE UNIQUE INDEX %s%s ON %s (%s)", t.Name, uniqueSuffix, q, unique))
	case keys.IndexBtree, keys.IndexHash, keys.IndexBrin:
		out = append(out, fmt.Sprintf("CREATE INDEX %s%s ON %s USING %s (%s)", t.Name, keyIndexSuffix, q, t.Key.Index, id))
	}
	if t.DataIndex {
		data, _ := t.ownColumns()
		out = append(out, fmt.Sprintf("CREATE INDEX %s%s ON %s (%s)", t.Name, dataIndexSuffix, q, data))
	}
	if t.CreatedAt == CreatedAtIndexed {
		out = append(out, fmt.Sprintf("CREATE INDEX %s%s ON %s (created_at)", t.Name, createdAtIndexSuffix, q))
	}
	out = append(out, t.secondaryIndexes()...)
	if t.Like != nil {
		out = append(out, t.Like.indexStatements(t)...)
	}
	return out
}

// BuildIndexes builds the table's indexes on conn.
func BuildIndexes(ctx context.Context, conn *pgx.Conn, t *Table) error {
	return execAll(ctx, conn, IndexStatements(t))
}

// KeyIndexNames are the qualified names of the key's indexes: one, or one
// per partition; none for index=none.
func KeyIndexNames(t *Table) []string {
	suffix := keyIndexSuffixOf(t.Key.Index)
	if suffix == "" {
		return nil
	}
	parts := t.LivePartitions()
	if len(parts) == 0 {
		return []string{t.Qualified() + suffix}
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = t.Schema + "." + p + suffix
	}
	return out
}

func keyIndexSuffixOf(ix keys.Index) string {
	switch ix {
	case keys.IndexPK:
		return pkeySuffix
	case keys.IndexUnique:
		return uniqueSuffix
	case keys.IndexNone:
		return ""
	}
	return keyIndexSuffix
}

// Relations maps the name of every relation of the tables (partitions and
// indexes included) to its role: "table", "key_index" and "data_index" for
// the keyed table, a table of the workload's own its Role and Role_index.
func Relations(tables []*Table) map[string]string {
	out := map[string]string{}
	for _, t := range tables {
		if !t.Keyed() {
			out[t.Name] = t.Role
			for _, ix := range t.Indexes {
				out[t.Name+"_"+ix.Suffix] = t.Role + "_index"
			}
			continue
		}
		parts := t.LivePartitions()
		names := append([]string{t.Name}, parts...)
		for i, n := range names {
			if i > 0 || len(parts) == 0 {
				if s := keyIndexSuffixOf(t.Key.Index); s != "" {
					out[n+s] = RoleKeyIndex
				}
				if t.DataIndex {
					out[n+dataIndexSuffix] = RoleDataIndex
				}
				if t.CreatedAt == CreatedAtIndexed {
					out[n+createdAtIndexSuffix] = RoleCreatedAtIndex
				}
				for i := range t.Secondary {
					out[n+secondarySuffix(i+1)] = RoleSecondaryIndex
				}
				if t.Like != nil {
					for i := range t.Like.Indexes {
						out[fmt.Sprintf("%s_like%d", n, i+1)] = RoleSecondaryIndex
					}
				}
			}
			out[n] = RoleTable
		}
	}
	return out
}

// LeafTables are the names of the tables that hold rows: partitions instead of their parent.
func LeafTables(tables []*Table) []string {
	var out []string
	for _, t := range tables {
		parts := t.LivePartitions()
		if len(parts) == 0 {
			out = append(out, t.Name)
		}
		out = append(out, parts...)
	}
	return out
}

func execAll(ctx context.Context, conn *pgx.Conn, stmts []string) error {
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", sqltree.FirstLine(s), err)
		}
	}
	return nil
}
