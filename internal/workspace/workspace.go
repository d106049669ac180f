// Package workspace is keybench's place on a server: one schema, held by one
// run at a time, in which keybench records every object it creates at the
// moment it creates it and from which it drops exactly those objects.
//
// The record is a ledger: a table of keybench's own in the schema
// (LedgerTable), which records itself, the schema when keybench created it,
// and every table, sequence, function and extension keybench made, by
// catalog, OID and name, each in the same transaction as the statement that
// made it. It survives a crash of keybench, so the next run in the schema
// knows what is keybench's. Its rules, each the answer to a way a user once
// lost data:
//
//   - Nothing is ever dropped by its name or by a pattern: an object is
//     dropped only when the ledger records it and the catalog still holds
//     an object with that OID and that name in the schema. Never with
//     CASCADE: an object of the user's that depends on one of keybench's
//     (a view on its table) makes the drop fail, and it is left and said.
//   - A name keybench needs that an object it did not record holds is a
//     refusal (a usage error, exit 2), before the first cell: keybench never
//     replaces, adopts or drops it.
//   - A schema keybench did not create is used only with --force; a schema
//     it created and kept (--keep) that has since received objects it did
//     not record is refused unless --force. Either way its other objects
//     are never touched, never named in a "remove them with" notice.
//   - A run holds a session advisory lock on the schema's name for its whole
//     length, so a second run in the same schema and database is refused at
//     once instead of dropping the first run's tables.
//   - Clean-up runs on a fresh connection with short timeouts, whatever
//     happened to the run's own connections, after taking the schema's lock
//     again; what it could not remove is said, with the statements that
//     remove exactly it.
//
// Indexes, constraints, partitions and identity sequences are created with
// their tables and go with them (PostgreSQL drops an object's dependents of
// these kinds with it, without CASCADE); their names are checked like every
// other name keybench needs.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/usage"
)

// LedgerTable is the table in keybench's schema that records what keybench created.
const LedgerTable = "keybench_ledger"

// SchemaComment is the comment on a schema keybench creates: for people
// looking at the database (ownership is the ledger's record, not the comment).
const SchemaComment = "created by keybench; its objects are listed in " + LedgerTable + "; dropped by keybench at the end of its run"

// ObjectKind is a kind of object keybench creates or needs the name of.
type ObjectKind string

// The kinds of objects.
const (
	Schema    ObjectKind = "schema"
	Table     ObjectKind = "table"
	Sequence  ObjectKind = "sequence"
	Function  ObjectKind = "function"
	Extension ObjectKind = "extension"
	// Role is the role a user's script runs as (ScriptRole): not in the
	// schema but the cluster's, recorded in the ledger like the rest.
	Role ObjectKind = "role"
	// Index names an index (or a constraint's index) made with a table:
	// only its name is checked; it goes with its table.
	Index ObjectKind = "index"
)

// catalog is the system catalog an object of the kind is in.
func (k ObjectKind) catalog() string {
	switch k {
	case Schema:
		return "pg_namespace"
	case Function:
		return "pg_proc"
	case Extension:
		return "pg_extension"
	case Role:
		return "pg_authid"
	}
	return "pg_class"
}

// Object is an object keybench creates in its schema (or, for an
// extension, in the database, with its functions in the schema).
type Object struct {
	Kind ObjectKind
	// Name is the object's name, unqualified.
	Name string
	// Args are a function's argument types ("bigint, bigint, bigint").
	Args string
	// SQL are the statements that make it (none for an Index, which its table's statements make).
	SQL []string
}

// Label is how messages name the object.
func (o Object) Label(schema string) string {
	switch o.Kind {
	case Extension, Role:
		return string(o.Kind) + " " + o.Name
	case Function:
		return fmt.Sprintf("function %s.%s(%s)", schema, o.Name, o.Args)
	}
	return string(o.Kind) + " " + schema + "." + o.Name
}

// Options configure a workspace.
type Options struct {
	// Schema is the schema's name: a simple lower-case identifier.
	Schema string
	// Force works in a schema keybench created and kept that has since
	// received objects of someone else's (a schema keybench did not
	// create is refused, Force or not).
	Force bool
	// AllowEventTriggers runs on a server whose enabled event triggers
	// would run on keybench's DDL.
	AllowEventTriggers bool
	// Keep leaves the schema, its ledger and keybench's extensions at the end.
	Keep bool
	// Disposable says the whole server is keybench's and goes at the end
	// (the embedded server): nothing is cleaned up.
	Disposable bool
	// RunID names the run's connections (application_name "keybench … <RunID>"),
	// so that clean-up can end exactly its own backends.
	RunID string
	// Said, when set, is told of each object an earlier run left and this
	// one dropped before making its own (a run killed before its clean-up).
	Said func(format string, args ...any)
}

// Workspace is keybench's schema on a server, with its ledger.
type Workspace struct {
	o Options
	// owned: the ledger records the schema (keybench created it, now or in a kept run).
	owned bool
	// created: keybench created the schema in this run.
	created bool
}

// Schema is the workspace's schema.
func (w *Workspace) Schema() string { return w.o.Schema }

// lockSQL calls the advisory-lock function fn on the key of a schema's workspace (the schema name is $1).
func lockSQL(fn string) string {
	return "SELECT " + fn + "(hashtextextended('keybench workspace ' || $1, 0))"
}

// Open takes the schema's lock, and creates the schema and its ledger or
// checks the schema it finds. Before any of it, the server's enabled event
// triggers are read: each would run on keybench's DDL, so the run is
// refused naming them unless o.AllowEventTriggers (EventTriggers says
// which ran beside it).
func Open(ctx context.Context, conn *pgx.Conn, o Options) (*Workspace, error) {
	if sqltree.NeedsQuoting(o.Schema) {
		return nil, usage.Errorf("schema %s is not a plain lower-case name keybench can use unquoted (a keyword, or characters beyond a-z, 0-9 and _): choose another --schema", sqltree.Printable(o.Schema))
	}
	triggers, err := EventTriggers(ctx, conn)
	if err != nil {
		return nil, err
	}
	if len(triggers) > 0 && !o.AllowEventTriggers {
		return nil, usage.Errorf("this server has enabled event triggers (%s), which would run on every table keybench creates: keybench runs no code of yours; --allow-event-triggers runs beside them (said on the first screen)",
			strings.Join(firstN(triggers, 5), ", "))
	}
	pubs, err := publishing(ctx, conn, o.Schema)
	if err != nil {
		return nil, err
	}
	if len(pubs) > 0 {
		return nil, usage.Errorf("this database publishes every table or keybench's schema (publication %s): keybench's tables would be sent to its subscribers, and its clean-up's deletes refused or its tables missing there would stop their replication; run keybench in another database",
			strings.Join(firstN(pubs, 5), ", "))
	}
	var got bool
	if err := conn.QueryRow(ctx, lockSQL("pg_try_advisory_lock"), o.Schema).Scan(&got); err != nil {
		return nil, fmt.Errorf("locking schema %s: %w", o.Schema, err)
	}
	if !got {
		return nil, usage.Errorf("schema %q is in use by another keybench run on this database; wait for it to end or choose another --schema", o.Schema)
	}
	w := &Workspace{o: o}
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", o.Schema).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		w.created, w.owned = true, true
		return w, w.tx(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA "+o.Schema); err != nil {
				return fmt.Errorf("creating schema %s: %w", o.Schema, err)
			}
			if _, err := tx.Exec(ctx, fmt.Sprintf("COMMENT ON SCHEMA %s IS '%s'", o.Schema, SchemaComment)); err != nil {
				return err
			}
			if err := w.createLedger(ctx, tx); err != nil {
				return err
			}
			return w.record(ctx, tx, Object{Kind: Schema, Name: o.Schema})
		})
	}
	hasLedger, err := w.findLedger(ctx, conn)
	if err != nil {
		return nil, err
	}
	if hasLedger {
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+w.ledger()+` l JOIN pg_namespace n ON n.oid = l.objid
			WHERE l.catalog = 'pg_namespace'::regclass AND n.nspname = l.name AND n.nspname = $1)`, o.Schema).Scan(&w.owned); err != nil {
			return nil, fmt.Errorf("reading keybench's ledger in schema %s: %w", o.Schema, err)
		}
	}
	if !w.owned {
		return nil, usage.Errorf("schema %q exists and was not created by keybench (its ledger does not record it); keybench works only in a schema of its own: choose another --schema", o.Schema)
	}
	return w, w.checkKept(ctx, conn)
}

// checkKept refuses a schema an earlier run kept that now holds code of
// someone else's, or (without Force) any object keybench did not record.
func (w *Workspace) checkKept(ctx context.Context, conn *pgx.Conn) error {
	foreign, err := w.Foreign(ctx, conn)
	if err != nil {
		return err
	}
	code := foreignCode(foreign)
	if len(code) > 0 {
		return usage.Errorf("schema %q, kept by an earlier keybench run, now holds code of someone else's (%s), which keybench's own SQL could reach: keybench runs no code of yours; choose another --schema",
			w.o.Schema, strings.Join(firstN(code, 5), ", "))
	}
	if len(foreign) > 0 && !w.o.Force {
		return usage.Errorf("schema %q was kept by an earlier keybench run but now holds objects keybench did not create (%s); choose another --schema, or --force to work beside them (keybench then drops only what it recorded creating)",
			w.o.Schema, strings.Join(firstN(foreign, 5), ", "))
	}
	return nil
}

// foreignCode are the code objects among foreign (Foreign's): a function,
// an operator, a type, a cast, an operator class — found by keybench's own
// SQL, whose search path holds the schema (an operator of a closer
// argument type wins wherever it is), so refused, --force or not. --force
// works beside someone else's tables alone.
func foreignCode(foreign []string) []string {
	var code []string
	for _, f := range foreign {
		kind, _, _ := strings.Cut(f, " ")
		switch kind {
		case "table", "view", "materialized", "sequence", "index", "foreign", "relation", "collation", "statistics":
		default:
			code = append(code, f)
		}
	}
	return code
}

// ledger is the ledger's qualified name.
func (w *Workspace) ledger() string { return w.o.Schema + "." + LedgerTable }

// EventTriggers are the server's enabled event triggers, each as "name
// (event)".
func EventTriggers(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT pg_catalog.format('%s (%s)', evtname, evtevent) FROM pg_catalog.pg_event_trigger WHERE evtenabled <> 'D' ORDER BY evtname`)
	if err != nil {
		return nil, fmt.Errorf("reading the server's event triggers: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("reading the server's event triggers: %w", err)
	}
	for i := range names {
		names[i] = sqltree.EscapeControls(names[i])
	}
	return names, nil
}

// publishing lists the database's publications that would publish what
// keybench makes in schema: those FOR ALL TABLES, those naming a table of
// schema (a kept ledger), and (PostgreSQL 15+) those FOR TABLES IN SCHEMA
// naming it.
func publishing(ctx context.Context, q querier, schema string) ([]string, error) {
	read := func(sql string, args ...any) ([]string, error) {
		rows, err := q.Query(ctx, sql, args...)
		if err != nil {
			return nil, fmt.Errorf("reading the database's publications: %w", err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, fmt.Errorf("reading the database's publications: %w", err)
		}
		return names, nil
	}
	all, err := read(`SELECT p.pubname::pg_catalog.text FROM pg_catalog.pg_publication p WHERE p.puballtables
		OR EXISTS (SELECT 1 FROM pg_catalog.pg_publication_rel pr JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE pr.prpubid = p.oid AND n.nspname = $1) ORDER BY 1`, schema)
	if err != nil {
		return nil, err
	}
	v, err := read(`SELECT pg_catalog.current_setting('server_version_num')`)
	if err != nil || len(v) == 0 {
		return all, err
	}
	if n, _ := strconv.Atoi(v[0]); n < 150000 {
		return all, nil
	}
	bySchema, err := read(`SELECT p.pubname::pg_catalog.text FROM pg_catalog.pg_publication p
		JOIN pg_catalog.pg_publication_namespace pn ON pn.pnpubid = p.oid JOIN pg_catalog.pg_namespace n ON n.oid = pn.pnnspid
		WHERE n.nspname = $1 ORDER BY 1`, schema)
	return append(all, bySchema...), err
}

// ScopeOf is keybench's place on a server as its guard judges SQL in it:
// the schema, and the ledger whose functions are keybench's own.
func ScopeOf(schema string) sqltree.Scope {
	return sqltree.Scope{Schema: schema, Ledger: pgx.Identifier{schema, LedgerTable}.Sanitize()}
}

// judge refuses a relation of keybench's that would run code that is not
// PostgreSQL's own (sqltree.JudgeRelation): a trigger, rule or policy
// someone added, a default resolved to a function of the user's.
func (w *Workspace) judge(ctx context.Context, q sqltree.Querier, name string) error {
	why, err := sqltree.JudgeRelation(ctx, q, ScopeOf(w.o.Schema), name)
	if err != nil {
		return err
	}
	if why != "" {
		return usage.Errorf("keybench's own %s.%s is refused: %s; keybench runs nothing but PostgreSQL's own code on a server it does not own", w.o.Schema, sqltree.Printable(name), why)
	}
	return nil
}

// Judge judges keybench's tables named again, as a run goes on: a
// trigger, rule or policy someone added to one since it was made (a
// session of theirs, while the rounds run) is a refusal naming it.
func (w *Workspace) Judge(ctx context.Context, conn *pgx.Conn, names ...string) error {
	pubs, err := publishing(ctx, conn, w.o.Schema)
	if err != nil {
		return err
	}
	if len(pubs) > 0 {
		return usage.Errorf("a publication now sends keybench's tables to its subscribers (%s): keybench stops", strings.Join(firstN(pubs, 5), ", "))
	}
	// Code someone put in keybench's schema would be found by the
	// sessions' path ahead of PostgreSQL's own for a closer argument type.
	foreign, err := w.Foreign(ctx, conn)
	if err != nil {
		return err
	}
	if foreign = foreignCode(foreign); len(foreign) > 0 {
		return usage.Errorf("keybench's schema %s now holds code of someone else's (%s), which its sessions could reach: keybench stops", w.o.Schema, strings.Join(firstN(foreign, 5), ", "))
	}
	for _, n := range names {
		if err := w.judge(ctx, conn, n); err != nil {
			return err
		}
	}
	return nil
}

// createLedger creates the ledger and records it in itself.
func (w *Workspace) createLedger(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `CREATE TABLE `+w.ledger()+` (
		catalog regclass NOT NULL, objid oid NOT NULL, kind text NOT NULL, name text NOT NULL, args text NOT NULL DEFAULT '',
		run text NOT NULL, created timestamptz NOT NULL DEFAULT pg_catalog.now())`); err != nil {
		return fmt.Errorf("creating keybench's ledger %s: %w", w.ledger(), err)
	}
	if _, err := tx.Exec(ctx, "COMMENT ON TABLE "+w.ledger()+" IS 'the objects keybench created in this schema; keybench drops exactly these'"); err != nil {
		return err
	}
	if err := w.judge(ctx, tx, LedgerTable); err != nil {
		return err
	}
	return w.record(ctx, tx, Object{Kind: Table, Name: LedgerTable})
}

// findLedger says whether the schema holds keybench's ledger: a table of
// that name recording itself. A table of that name that does not is
// someone else's, and keybench needs the name: a refusal.
func (w *Workspace) findLedger(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var kind string
	err := conn.QueryRow(ctx, `SELECT c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = $2`, w.o.Schema, LedgerTable).Scan(&kind)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	refuse := usage.Errorf("schema %q holds a relation %s that keybench did not create, and keybench needs that name; choose another --schema", w.o.Schema, LedgerTable)
	if kind != "r" {
		return false, refuse
	}
	// Nothing of anyone else's runs when it is read: no trigger, rule,
	// policy or default of a function that is not PostgreSQL's own.
	if err := w.judge(ctx, conn, LedgerTable); err != nil {
		return false, err
	}
	var self bool
	// A savepoint-free probe: a table without the ledger's columns fails the query.
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+w.ledger()+`
		WHERE catalog = 'pg_class'::regclass AND objid = '`+w.ledger()+`'::regclass AND name = $1)`, LedgerTable).Scan(&self)
	if err != nil || !self {
		return false, refuse
	}
	return true, nil
}

// tx runs f in a transaction on conn.
func (w *Workspace) tx(ctx context.Context, conn *pgx.Conn, f func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, conn, f)
}

// record writes o, just created in tx, into the ledger with its OID.
func (w *Workspace) record(ctx context.Context, tx pgx.Tx, o Object) error {
	q, args := findSQL(w.o.Schema, o)
	tag, err := tx.Exec(ctx, `INSERT INTO `+w.ledger()+` (catalog, objid, kind, name, args, run)
		SELECT '`+o.Kind.catalog()+`'::regclass, f.oid, $`+fmt.Sprint(len(args)+1)+`, $`+fmt.Sprint(len(args)+2)+`, $`+fmt.Sprint(len(args)+3)+`, $`+fmt.Sprint(len(args)+4)+`
		FROM (`+q+`) f`, append(args, string(o.Kind), o.Name, o.Args, w.o.RunID)...)
	if err != nil {
		return fmt.Errorf("recording %s in keybench's ledger: %w", o.Label(w.o.Schema), err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("recording %s in keybench's ledger: found %d objects", o.Label(w.o.Schema), tag.RowsAffected())
	}
	return nil
}

// findSQL is a query of the OID of the object o names (none when there is none).
func findSQL(schema string, o Object) (string, []any) {
	switch o.Kind {
	case Schema:
		return "SELECT oid FROM pg_namespace WHERE nspname = $1", []any{o.Name}
	case Extension:
		return "SELECT oid FROM pg_extension WHERE extname = $1", []any{o.Name}
	case Role:
		return "SELECT oid FROM pg_roles WHERE rolname = $1", []any{o.Name}
	case Function:
		return `SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
			WHERE n.nspname = $1 AND p.proname = $2 AND oidvectortypes(p.proargtypes) = $3`, []any{schema, o.Name, o.Args}
	}
	return `SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, []any{schema, o.Name}
}

// Record is an object the ledger holds.
type Record struct {
	Object
	// OID is the object's OID when keybench created it.
	OID uint32
	// Exists says that the catalog still holds an object of that OID and
	// name in the schema (for an extension: that OID and name).
	Exists bool
	// References says that a table has a foreign key to another table (it is dropped first).
	References bool
	// Partition says that a table is a partition of another: it is dropped
	// before its parent, whose drop would take it along (and a later DROP
	// of it would fail the whole clean-up run as one command).
	Partition bool
}

// recordsSQL reads the ledger, each record with whether its object still exists.
const recordsSQL = `
SELECT l.kind, l.name, l.args, l.objid::int8,
  CASE l.catalog
    WHEN 'pg_class'::regclass THEN EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = l.objid AND c.relname = l.name AND c.relnamespace = s.oid)
    WHEN 'pg_proc'::regclass THEN EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = l.objid AND p.proname = l.name AND p.pronamespace = s.oid)
    WHEN 'pg_extension'::regclass THEN EXISTS (SELECT 1 FROM pg_extension e WHERE e.oid = l.objid AND e.extname = l.name)
    WHEN 'pg_namespace'::regclass THEN l.objid = s.oid AND l.name = s.nspname
    WHEN 'pg_authid'::regclass THEN EXISTS (SELECT 1 FROM pg_roles r WHERE r.oid = l.objid AND r.rolname = l.name)
    ELSE false END,
  EXISTS (SELECT 1 FROM pg_constraint f WHERE f.conrelid = l.objid AND f.contype = 'f' AND l.catalog = 'pg_class'::regclass),
  EXISTS (SELECT 1 FROM pg_class p WHERE p.oid = l.objid AND p.relispartition AND l.catalog = 'pg_class'::regclass)
FROM %s l, (SELECT oid, nspname FROM pg_namespace WHERE nspname = $1) s
ORDER BY l.created, l.ctid`

// Records reads the ledger.
func (w *Workspace) Records(ctx context.Context, q querier) ([]Record, error) {
	rows, err := q.Query(ctx, fmt.Sprintf(recordsSQL, w.ledger()), w.o.Schema)
	if err != nil {
		return nil, fmt.Errorf("reading keybench's ledger %s: %w", w.ledger(), err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (r Record, err error) {
		var kind string
		var oid int64
		err = row.Scan(&kind, &r.Name, &r.Args, &oid, &r.Exists, &r.References, &r.Partition)
		r.Kind, r.OID = ObjectKind(kind), uint32(oid)
		return r, err
	})
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// goesWithSQL is a recursive CTE "up" of the objects the objects of
// "seed" (cat, oid) go with: themselves, and what they depend on
// automatically or internally (an index on its table or on its
// constraint, the constraint on its table, a partition on its parent, an
// identity sequence on its table), up to the top; "led" is the ledger.
const goesWithSQL = `
up(root_cat, root_oid, cat, oid) AS (
  SELECT cat, oid, cat, oid FROM seed
  UNION
  SELECT up.root_cat, up.root_oid, d.refclassid, d.refobjid FROM pg_depend d JOIN up ON d.classid = up.cat AND d.objid = up.oid
  WHERE d.deptype IN ('a', 'i')),
owned AS (SELECT DISTINCT up.root_cat, up.root_oid FROM up JOIN led ON led.catalog::oid = up.cat AND led.objid = up.oid)`

// holderSQL finds what holds a name keybench needs: the OID of the
// relation, function or extension, and whether the ledger records it or
// one it goes with (an index of a recorded table, a partition).
const holderSQL = `
WITH RECURSIVE ns AS (SELECT oid FROM pg_namespace WHERE nspname = $1),
led AS (SELECT catalog, objid FROM %s),
seed AS (SELECT $2::regclass::oid AS cat, f.oid FROM (%s) f),` + goesWithSQL + `
SELECT seed.oid::int8, EXISTS (SELECT 1 FROM owned WHERE owned.root_oid = seed.oid) FROM seed`

// Reserve checks, before anything is created, that every name the run
// needs is free or held by an object keybench recorded: a name held by
// anything else is a usage error naming it.
func (w *Workspace) Reserve(ctx context.Context, conn *pgx.Conn, objs []Object) error {
	var taken []string
	seen := map[string]bool{}
	for _, o := range objs {
		if o.Kind == Extension || o.Kind == Schema {
			continue // an extension that exists is used where it is; the schema was checked by Open
		}
		label := o.Label(w.o.Schema)
		if seen[label] {
			continue
		}
		seen[label] = true
		_, ours, exists, err := w.holder(ctx, conn, o)
		if err != nil {
			return err
		}
		if exists && !ours {
			taken = append(taken, label)
		}
	}
	if len(taken) > 0 {
		return usage.Errorf("schema %q holds %s, which keybench did not create and whose names it needs; keybench never drops or replaces what it did not create: choose another --schema",
			w.o.Schema, strings.Join(firstN(taken, 5), ", "))
	}
	return nil
}

// holder finds the object that holds o's name: its OID, whether keybench
// recorded it (or it goes with one keybench recorded), and whether there is one.
func (w *Workspace) holder(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, o Object) (oid uint32, ours, exists bool, err error) {
	var find string
	args := []any{w.o.Schema, o.Kind.catalog()}
	switch o.Kind {
	case Function:
		find = `SELECT p.oid FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM ns) AND p.proname = $3 AND oidvectortypes(p.proargtypes) = $4`
		args = append(args, o.Name, o.Args)
	case Extension:
		find = `SELECT oid FROM pg_extension WHERE extname = $3`
		args = append(args, o.Name)
	case Role:
		find = `SELECT oid FROM pg_roles WHERE rolname = $3`
		args = append(args, o.Name)
	default:
		find = `SELECT c.oid FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relname = $3`
		args = append(args, o.Name)
	}
	var id int64
	err = q.QueryRow(ctx, fmt.Sprintf(holderSQL, w.ledger(), find), args...).Scan(&id, &ours)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, false, nil
	}
	if err != nil {
		return 0, false, false, fmt.Errorf("looking for %s: %w", o.Label(w.o.Schema), err)
	}
	return uint32(id), ours, true, nil
}

// Create makes objects and records each in the ledger, all in one
// transaction. An object of the same name that keybench recorded is
// dropped first (a table or sequence: a leftover of an earlier cell or
// run; every cell starts from a fresh table) or kept (a function or
// extension: the same as the one asked for); one it did not record is a
// refusal, and nothing is made.
func (w *Workspace) Create(ctx context.Context, conn *pgx.Conn, objs ...Object) error {
	return w.tx(ctx, conn, func(tx pgx.Tx) error {
		for _, o := range objs {
			_, ours, exists, err := w.holder(ctx, tx, o)
			if err != nil {
				return err
			}
			switch {
			case exists && !ours:
				return usage.Errorf("schema %q holds %s, which keybench did not create and needs the name of; choose another --schema", w.o.Schema, o.Label(w.o.Schema))
			case exists && (o.Kind == Function || o.Kind == Extension):
				continue
			case exists:
				if err := w.dropRecorded(ctx, tx, o); err != nil {
					return err
				}
				if w.o.Said != nil && !w.o.Disposable {
					w.o.Said("dropped %s, which keybench had recorded creating and an earlier cell or run left (one stopped before its clean-up)", o.Label(w.o.Schema))
				}
			}
			for _, s := range o.SQL {
				if _, err := tx.Exec(ctx, s); err != nil {
					return fmt.Errorf("%s: %w", sqltree.FirstLine(s), err)
				}
			}
			if o.Kind == Table {
				if err := w.judge(ctx, tx, o.Name); err != nil {
					return err
				}
			}
			if o.Kind != Index {
				if err := w.record(ctx, tx, o); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// DropTables drops tables keybench recorded creating (each with its
// indexes and partitions), children before parents as given last first.
// A name the ledger does not record, or records for an object that is no
// longer the one keybench made, is left alone.
func (w *Workspace) DropTables(ctx context.Context, conn *pgx.Conn, names ...string) error {
	var errs []error
	for i := len(names) - 1; i >= 0; i-- {
		o := Object{Kind: Table, Name: names[i]}
		err := w.tx(ctx, conn, func(tx pgx.Tx) error { return w.dropRecorded(ctx, tx, o) })
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Claim is a table keybench recorded creating, found in a transaction by
// ClaimTable: the statement that drops exactly it, and its record to
// forget in the same transaction once that ran. A workload that drops one
// of its own objects while it runs (retention's oldest partition) times
// the statement alone.
type Claim struct {
	w    *Workspace
	oid  uint32
	name string
}

// ClaimTable finds, in tx, the table named name when the ledger records it
// with the OID the catalog holds under that name, and locks nothing; nil
// when it does not (the table is not keybench's to drop).
func (w *Workspace) ClaimTable(ctx context.Context, tx pgx.Tx, name string) (*Claim, error) {
	o := Object{Kind: Table, Name: name}
	oid, _, exists, err := w.holder(ctx, tx, o)
	if err != nil || !exists {
		return nil, err
	}
	var recorded bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+w.ledger()+` WHERE catalog = 'pg_class'::regclass AND objid = $1 AND name = $2)`,
		int64(oid), name).Scan(&recorded); err != nil || !recorded {
		return nil, err
	}
	return &Claim{w: w, oid: oid, name: name}, nil
}

// DropSQL is the statement that drops the claimed table (never CASCADE).
func (c *Claim) DropSQL() string { return dropSQL(c.w.o.Schema, Object{Kind: Table, Name: c.name}) }

// Forget removes the claimed table's record, in the transaction that dropped it.
func (c *Claim) Forget(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `DELETE FROM `+c.w.ledger()+` WHERE catalog = 'pg_class'::regclass AND objid = $1`, int64(c.oid))
	return err
}

// dropRecorded drops the object o names if the ledger records it with the
// OID the catalog holds under that name, and removes its record.
func (w *Workspace) dropRecorded(ctx context.Context, tx pgx.Tx, o Object) error {
	oid, _, exists, err := w.holder(ctx, tx, o)
	if err != nil || !exists {
		return err
	}
	var recorded bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+w.ledger()+` WHERE catalog = '`+o.Kind.catalog()+`'::regclass AND objid = $1 AND name = $2)`,
		int64(oid), o.Name).Scan(&recorded); err != nil {
		return err
	}
	if !recorded {
		return nil
	}
	if o.Kind == Role {
		if err := revokeGranted(ctx, tx, o.Name); err != nil {
			return err
		}
	}
	for _, q := range dropStatements(w.o.Schema, o) {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	_, err = tx.Exec(ctx, `DELETE FROM `+w.ledger()+` WHERE catalog = '`+o.Kind.catalog()+`'::regclass AND objid = $1`, int64(oid))
	return err
}

// dropSQL is what drops o (never CASCADE), as one line of statements.
func dropSQL(schema string, o Object) string {
	return strings.Join(dropStatements(schema, o), "; ")
}

// dropStatements are the statements that drop o (never CASCADE): one, but
// for the script's role, whose right to use the schema goes first (its
// rights on keybench's tables, sequences and functions went with them).
func dropStatements(schema string, o Object) []string {
	if o.Kind == Role {
		role := pgx.Identifier{o.Name}.Sanitize()
		return []string{"REVOKE ALL ON SCHEMA " + schema + " FROM " + role, "DROP ROLE " + role}
	}
	return []string{dropSQLOne(schema, o)}
}

func dropSQLOne(schema string, o Object) string {
	switch o.Kind {
	case Extension:
		return "DROP EXTENSION " + o.Name
	case Function:
		return fmt.Sprintf("DROP FUNCTION %s.%s(%s)", schema, o.Name, o.Args)
	case Sequence:
		return "DROP SEQUENCE " + schema + "." + o.Name
	case Schema:
		return "DROP SCHEMA " + o.Name
	}
	return "DROP TABLE " + schema + "." + o.Name
}

// foreignSQL lists the schema's objects, in every catalog with a namespace
// column, that keybench did not record and that do not go with one it did
// (an index, partition or identity sequence of its table, a member of its
// extension), as "kind name".
const foreignSQL = `
WITH RECURSIVE ns AS (SELECT oid FROM pg_namespace WHERE nspname = $1),
led AS (SELECT catalog, objid FROM %s),
seed AS (
  SELECT 'pg_class'::regclass::oid AS cat, c.oid, CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
         WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' WHEN 'I' THEN 'index' WHEN 'f' THEN 'foreign table' WHEN 'c' THEN 'type' ELSE 'relation' END AS kind, c.relname::text AS name
    FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_proc'::regclass::oid, p.oid, 'function', p.proname::text FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_type'::regclass::oid, t.oid, 'type', t.typname::text FROM pg_type t
    WHERE t.typnamespace = (SELECT oid FROM ns) AND t.typrelid = 0 AND NOT (t.typcategory = 'A' AND t.typelem <> 0)
  UNION ALL SELECT 'pg_collation'::regclass::oid, o.oid, 'collation', o.collname::text FROM pg_collation o WHERE o.collnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_operator'::regclass::oid, o.oid, 'operator', o.oprname::text FROM pg_operator o WHERE o.oprnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_opclass'::regclass::oid, o.oid, 'operator class', o.opcname::text FROM pg_opclass o WHERE o.opcnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_opfamily'::regclass::oid, o.oid, 'operator family', o.opfname::text FROM pg_opfamily o WHERE o.opfnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_conversion'::regclass::oid, o.oid, 'conversion', o.conname::text FROM pg_conversion o WHERE o.connamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_ts_config'::regclass::oid, o.oid, 'text search configuration', o.cfgname::text FROM pg_ts_config o WHERE o.cfgnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_ts_dict'::regclass::oid, o.oid, 'text search dictionary', o.dictname::text FROM pg_ts_dict o WHERE o.dictnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_statistic_ext'::regclass::oid, o.oid, 'statistics', o.stxname::text FROM pg_statistic_ext o WHERE o.stxnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_extension'::regclass::oid, e.oid, 'extension', e.extname::text FROM pg_extension e WHERE e.extnamespace = (SELECT oid FROM ns)
),` + goesWithSQL + `
SELECT kind, name FROM seed o
WHERE NOT EXISTS (SELECT 1 FROM owned WHERE owned.root_cat = o.cat AND owned.root_oid = o.oid)
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = o.cat AND d.objid = o.oid AND d.deptype = 'e'
    AND d.refobjid IN (SELECT objid FROM led WHERE catalog = 'pg_extension'::regclass))
ORDER BY kind, name`

// Foreign lists the schema's objects that keybench did not record and that
// do not go with one it did, as "kind name".
func (w *Workspace) Foreign(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	q := fmt.Sprintf(foreignSQL, w.ledger())
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", w.ledger()).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		q = fmt.Sprintf(foreignSQL, "(SELECT NULL::regclass AS catalog, NULL::oid AS objid WHERE false)")
	}
	rows, err := conn.Query(ctx, q, w.o.Schema)
	if err != nil {
		return nil, fmt.Errorf("listing the objects of schema %s: %w", w.o.Schema, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		var kind, name string
		err := row.Scan(&kind, &name)
		return kind + " " + name, err
	})
}

// Clean-up's bounds: the whole clean-up, and each statement's wait for a lock.
const (
	cleanupTimeout     = 20 * time.Second
	cleanupLockTimeout = "3s"
)

// CleanUp removes what keybench recorded creating, on a fresh connection:
// it ends this run's own backends, takes the schema's lock, drops every
// recorded object that is still the one keybench made (tables with foreign
// keys first, then tables, sequences, functions, extensions unless kept),
// then the ledger and the schema when keybench created it, nothing else
// is in it and it is not kept. It returns what keybench made that is left
// on the server, each with the statement that removes it; nil when nothing
// is. A disposable workspace (the embedded server) is not cleaned up.
func (w *Workspace) CleanUp(cc *pgx.ConnConfig, logf func(string, ...any)) []string {
	if w.o.Disposable {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	c := cc.Copy()
	c.ConnectTimeout = 10 * time.Second
	c.RuntimeParams["application_name"] = "keybench cleanup " + w.o.RunID
	c.RuntimeParams["lock_timeout"] = cleanupLockTimeout
	c.RuntimeParams["statement_timeout"] = "15s"
	// The server may refuse a moment longer than the run's own sessions
	// take to end (its connection slots, a loaded machine): try again for
	// a while before leaving anything behind.
	var conn *pgx.Conn
	var err error
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if conn, err = pgx.ConnectConfig(ctx, c); err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		logf("connecting to clean up: %v; trying again", err)
	}
	if err != nil {
		return w.unknownLeftovers(fmt.Sprintf("could not connect to clean up (%v)", err))
	}
	defer conn.Close(context.Background())
	// This run's own backends (a client stuck in a query, the admin
	// connection cut off by a signal) would hold locks the drops wait for.
	_, _ = conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name LIKE '%' || $1 AND application_name LIKE 'keybench%' AND pid <> pg_backend_pid()`, " "+w.o.RunID)
	var locked bool
	for i := 0; i < 100 && !locked; i++ { // the run's admin session may take a moment to end (seconds on a loaded machine)
		if err := conn.QueryRow(ctx, lockSQL("pg_try_advisory_lock"), w.o.Schema).Scan(&locked); err != nil {
			return w.unknownLeftovers(fmt.Sprintf("could not lock schema %s to clean up (%v)", w.o.Schema, err))
		}
		if !locked {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !locked {
		return w.unknownLeftovers(fmt.Sprintf("another keybench run holds schema %s", w.o.Schema))
	}
	defer func() { _, _ = conn.Exec(context.Background(), lockSQL("pg_advisory_unlock"), w.o.Schema) }()
	if err := w.dropRecords(ctx, conn, logf); err != nil {
		return w.unknownLeftovers(err.Error())
	}
	if !w.o.Keep {
		w.dropLedgerAndSchema(ctx, conn, logf)
	} else if w.owned {
		logf("kept schema %s (--keep)", w.o.Schema)
	}
	// What is left is read in time of its own: the drops may have used the
	// clean-up's, and a user must be told what to remove.
	lctx, lcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer lcancel()
	return w.leftovers(lctx, conn)
}

// dropRecords drops what the ledger records, then reads the ledger again:
// a session of the run that was ending as the clean-up began may commit a
// table (and its record) the first read did not see yet. It stops at the
// first lock another session holds on keybench's objects (the rest would
// wait for it too: the leftovers' statements say what to run); an error
// is the ledger's, unreadable.
func (w *Workspace) dropRecords(ctx context.Context, conn *pgx.Conn, logf func(string, ...any)) error {
	tried := map[string]bool{}
	blocked := false // a lock another session holds: the rest would wait for it too
	for pass := 0; pass < 5 && !blocked; pass++ {
		recs, err := w.Records(ctx, conn)
		if err != nil {
			return err
		}
		var fresh []Object // not tried yet: what failed once fails again
		for _, o := range w.drops(recs) {
			if l := o.Label(w.o.Schema); !tried[l] {
				tried[l] = true
				fresh = append(fresh, o)
			}
		}
		if pass > 0 && len(fresh) == 0 {
			break
		}
		for _, o := range fresh {
			if err := w.tx(ctx, conn, func(tx pgx.Tx) error { return w.dropRecorded(ctx, tx, o) }); err != nil {
				logf("could not clean up: %v", err)
				if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == "55P03" { // lock_not_available
					logf("another session holds a lock on keybench's objects: the rest is left to the statements below")
					blocked = true
					break
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// drops are the recorded objects clean-up drops, in the order it drops
// them: tables with foreign keys, partitions, tables, sequences, functions, the script's role,
// then extensions unless kept; never the ledger or the schema. Each drop
// then finds its object still there, so the statements run as one command.
func (w *Workspace) drops(recs []Record) []Object {
	rank := func(r Record) int {
		switch {
		case r.Kind == Table && r.References:
			return 0
		case r.Kind == Table && r.Partition:
			return 1
		case r.Kind == Table:
			return 2
		case r.Kind == Sequence:
			return 3
		case r.Kind == Function:
			return 4
		case r.Kind == Role:
			return 5
		}
		return 6
	}
	var keep []Record
	for _, r := range recs {
		if !r.Exists || r.Kind == Schema || r.Name == LedgerTable && r.Kind == Table || r.Kind == Extension && w.o.Keep {
			continue
		}
		keep = append(keep, r)
	}
	slices.SortStableFunc(keep, func(a, b Record) int { return rank(a) - rank(b) })
	out := make([]Object, len(keep))
	for i, r := range keep {
		out[i] = r.Object
	}
	return out
}

// dropLedgerAndSchema ends the workspace when the ledger records nothing
// but itself and the schema: the ledger goes, and the schema with it when
// keybench created it and nothing else is in it.
func (w *Workspace) dropLedgerAndSchema(ctx context.Context, conn *pgx.Conn, logf func(string, ...any)) {
	recs, err := w.Records(ctx, conn)
	if err != nil {
		logf("%v", err)
		return
	}
	for _, r := range recs {
		if r.Exists && r.Kind != Schema && !(r.Kind == Table && r.Name == LedgerTable) {
			return // keybench's own objects are left: the ledger must say so to the next run
		}
	}
	foreign, err := w.Foreign(ctx, conn)
	if err != nil {
		logf("%v", err)
		return
	}
	if w.owned && len(foreign) > 0 {
		logf("schema %s not dropped: it holds objects keybench did not create (%s)", w.o.Schema, strings.Join(firstN(foreign, 5), ", "))
		return
	}
	err = w.tx(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DROP TABLE "+w.ledger()); err != nil {
			return err
		}
		if w.owned {
			_, err := tx.Exec(ctx, "DROP SCHEMA "+w.o.Schema)
			return err
		}
		return nil
	})
	if err != nil {
		logf("could not remove keybench's ledger and schema %s: %v", w.o.Schema, err)
	}
}

// leftovers says what keybench recorded creating that is still on the
// server, with the statements that remove exactly it; nil when nothing is
// (or the workspace is kept as asked).
func (w *Workspace) leftovers(ctx context.Context, conn *pgx.Conn) []string {
	var exists bool
	if conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", w.ledger()).Scan(&exists) == nil && !exists {
		return nil
	}
	recs, err := w.Records(ctx, conn)
	if err != nil {
		return w.unknownLeftovers(err.Error())
	}
	var stmts []string
	for _, o := range w.drops(recs) {
		stmts = append(stmts, dropSQL(w.o.Schema, o))
	}
	if w.o.Keep {
		if len(stmts) == 0 {
			return nil
		}
	} else {
		stmts = append(stmts, "DROP TABLE "+w.ledger())
		if w.owned {
			stmts = append(stmts, "DROP SCHEMA "+w.o.Schema)
		}
	}
	return []string{fmt.Sprintf("keybench left objects it created in schema %s (recorded in %s; the next keybench run with --schema %s removes them); remove them with: %s",
		w.o.Schema, w.ledger(), w.o.Schema, strings.Join(stmts, "; "))}
}

// unknownLeftovers says that clean-up could not look, and where keybench's
// record of what it created is.
func (w *Workspace) unknownLeftovers(why string) []string {
	return []string{fmt.Sprintf("keybench may have left objects it created in schema %s (%s); they are recorded in %s "+
		"(SELECT kind, name FROM %s), and the next keybench run with --schema %s removes them", w.o.Schema, why, w.ledger(), w.ledger(), w.o.Schema)}
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}
