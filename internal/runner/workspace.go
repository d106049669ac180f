package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workload"
)

// The workspace is keybench's place on a server it does not own (--dsn): one
// schema, held by one run at a time, in which keybench drops only what it
// created. Its rules, each the answer to a way a user once lost data:
//
//   - A schema keybench creates carries schemaMarker in its comment, with the
//     extensions keybench created in it; a schema without the mark is
//     someone else's and is used only with --force.
//   - A marked schema kept by an earlier run (--keep) may since hold the
//     user's objects: it is refused unless --force, and never dropped with
//     CASCADE; keybench drops its own objects by name and then the schema
//     only if it is empty (DROP SCHEMA without CASCADE refuses otherwise).
//   - A run holds a session advisory lock on the schema's name for its whole
//     length, so a second run in the same schema and database is refused at
//     once instead of dropping the first run's tables.
//   - Clean-up runs on a fresh connection with short timeouts, whatever
//     happened to the run's own connections (a signal, a terminated
//     backend, a lock), after taking the schema's lock again; what it could
//     not remove is said, with the statements that remove it.

// schemaMarker is the comment keybench puts on schemas it creates, so that it never drops one it did not.
const schemaMarker = "created by keybench; dropped by keybench at the end of its run"

// extensionsMark precedes, in the schema's comment, the extensions keybench created in it.
const extensionsMark = "; extensions created by keybench: "

// ownFunction is the helper function keybench creates for server-made sequential uuids.
const ownFunction = keys.SeqUUIDFunction

// ownRelationPattern matches the relations keybench creates (the cell's
// tables, their partitions, indexes and sequences), as a LIKE pattern.
const ownRelationPattern = workload.CellTable + "%"

// sharedSchema is the workspace on a server reached by --dsn.
type sharedSchema struct {
	schema string
	// created: keybench created the schema in this run; marked: it carries
	// keybench's mark (created now or kept by an earlier run).
	created, marked bool
	// forced: --force, working beside objects that are not keybench's.
	forced bool
	// ownExtensions are the extensions in the schema that keybench created (now or in a kept run).
	ownExtensions []string
}

// lockSQL calls the advisory-lock function fn on the key of a schema's workspace (the schema name is $1).
func lockSQL(fn string) string {
	return "SELECT " + fn + "(hashtextextended('keybench workspace ' || $1, 0))"
}

// newRunID names this run's connections (application_name), so that
// clean-up can end exactly its own backends.
func newRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// openWorkspace takes the schema's lock and checks or creates the schema.
func openWorkspace(ctx context.Context, conn *pgx.Conn, schema string, force, keep bool) (*sharedSchema, error) {
	var got bool
	if err := conn.QueryRow(ctx, lockSQL("pg_try_advisory_lock"), schema).Scan(&got); err != nil {
		return nil, fmt.Errorf("locking schema %s: %w", schema, err)
	}
	if !got {
		return nil, &usage.Error{Msg: fmt.Sprintf("schema %q is in use by another keybench run on this database; wait for it to end or choose another --schema", schema)}
	}
	w := &sharedSchema{schema: schema, forced: force}
	var comment *string
	err := conn.QueryRow(ctx, "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1", schema).Scan(&comment)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		w.forced = false // nothing there to work beside: the schema is keybench's
		if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
			return nil, fmt.Errorf("creating schema %s: %w", schema, err)
		}
		w.created, w.marked = true, true
		return w, w.writeMark(ctx, conn)
	case err != nil:
		return nil, err
	}
	w.marked = comment != nil && strings.HasPrefix(*comment, schemaMarker)
	if w.marked {
		w.ownExtensions = parseExtensionsMark(*comment)
	}
	foreign, err := w.foreignObjects(ctx, conn)
	if err != nil {
		return nil, err
	}
	switch {
	case !w.marked && !force:
		return nil, &usage.Error{Msg: fmt.Sprintf("schema %q exists and was not created by keybench; choose another with --schema, or --force to work in it", schema)}
	case w.marked && len(foreign) > 0 && !force:
		return nil, &usage.Error{Msg: fmt.Sprintf("schema %q was kept by an earlier keybench run but now holds objects keybench did not create (%s); choose another --schema, or --force to work beside them (keybench then drops only its own)",
			schema, strings.Join(firstN(foreign, 5), ", "))}
	}
	if !w.marked {
		// Someone else's schema: objects named like keybench's would be dropped as its own.
		clash, err := w.ownObjects(ctx, conn)
		if err != nil {
			return nil, err
		}
		if len(clash) > 0 {
			return nil, &usage.Error{Msg: fmt.Sprintf("schema %q holds %s, which keybench would create and drop; choose another schema", schema, strings.Join(clash, ", "))}
		}
	}
	return w, nil
}

// writeMark records keybench's mark and the extensions it created in the schema's comment.
func (w *sharedSchema) writeMark(ctx context.Context, conn *pgx.Conn) error {
	if !w.marked || w.forced && !w.created {
		return nil // never comment on a schema that is not keybench's
	}
	c := schemaMarker
	if len(w.ownExtensions) > 0 {
		c += extensionsMark + strings.Join(w.ownExtensions, " ")
	}
	_, err := conn.Exec(ctx, fmt.Sprintf("COMMENT ON SCHEMA %s IS '%s'", w.schema, c))
	return err
}

// addExtensions records extensions keybench has just created in the schema.
func (w *sharedSchema) addExtensions(ctx context.Context, conn *pgx.Conn, created []string) error {
	for _, e := range created {
		if !slices.Contains(w.ownExtensions, e) {
			w.ownExtensions = append(w.ownExtensions, e)
		}
	}
	if len(created) == 0 {
		return nil
	}
	return w.writeMark(ctx, conn)
}

func parseExtensionsMark(comment string) []string {
	_, list, ok := strings.Cut(comment, extensionsMark)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range strings.Fields(list) {
		if validExtensionName(e) {
			out = append(out, e)
		}
	}
	return out
}

func validExtensionName(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// namespaceObjects lists, for every catalog with a namespace column, the
// objects of the schema other than members of keybench's own extensions,
// as "kind name".
const namespaceObjects = `
WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = $1),
own_ext AS (SELECT oid FROM pg_extension WHERE extname = ANY($2::text[]) AND extnamespace = (SELECT oid FROM ns)),
objs AS (
  SELECT 'pg_class'::regclass AS cat, c.oid, CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
         WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' WHEN 'I' THEN 'index' WHEN 'f' THEN 'foreign table' WHEN 'c' THEN 'type' ELSE 'relation' END AS kind, c.relname::text AS name
    FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_proc'::regclass, p.oid, 'function', p.proname::text FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_type'::regclass, t.oid, 'type', t.typname::text FROM pg_type t
    WHERE t.typnamespace = (SELECT oid FROM ns) AND t.typrelid = 0 AND NOT (t.typcategory = 'A' AND t.typelem <> 0)
  UNION ALL SELECT 'pg_collation'::regclass, o.oid, 'collation', o.collname::text FROM pg_collation o WHERE o.collnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_operator'::regclass, o.oid, 'operator', o.oprname::text FROM pg_operator o WHERE o.oprnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_opclass'::regclass, o.oid, 'operator class', o.opcname::text FROM pg_opclass o WHERE o.opcnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_opfamily'::regclass, o.oid, 'operator family', o.opfname::text FROM pg_opfamily o WHERE o.opfnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_conversion'::regclass, o.oid, 'conversion', o.conname::text FROM pg_conversion o WHERE o.connamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_ts_config'::regclass, o.oid, 'text search configuration', o.cfgname::text FROM pg_ts_config o WHERE o.cfgnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_ts_dict'::regclass, o.oid, 'text search dictionary', o.dictname::text FROM pg_ts_dict o WHERE o.dictnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_statistic_ext'::regclass, o.oid, 'statistics', o.stxname::text FROM pg_statistic_ext o WHERE o.stxnamespace = (SELECT oid FROM ns)
  UNION ALL SELECT 'pg_extension'::regclass, e.oid, 'extension', e.extname::text FROM pg_extension e
    WHERE e.extnamespace = (SELECT oid FROM ns) AND e.oid NOT IN (SELECT oid FROM own_ext)
)
SELECT kind, name FROM objs o
WHERE NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = o.cat AND d.objid = o.oid AND d.deptype = 'e' AND d.refobjid IN (SELECT oid FROM own_ext))
ORDER BY kind, name`

// isOwnName says whether an object of kind and name is one keybench creates.
func isOwnName(kind, name string) bool {
	switch kind {
	case "table", "index", "sequence":
		return workload.IsCellRelation(name)
	case "function":
		return name == ownFunction
	}
	return false
}

// foreignObjects lists the schema's objects that keybench did not create.
func (w *sharedSchema) foreignObjects(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	var out []string
	err := w.eachObject(ctx, conn, func(kind, name string) {
		if !isOwnName(kind, name) {
			out = append(out, kind+" "+name)
		}
	})
	return out, err
}

// ownObjects lists the schema's objects named like keybench's (outside its extensions).
func (w *sharedSchema) ownObjects(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	var out []string
	err := w.eachObject(ctx, conn, func(kind, name string) {
		if isOwnName(kind, name) {
			out = append(out, name)
		}
	})
	return out, err
}

func (w *sharedSchema) eachObject(ctx context.Context, conn *pgx.Conn, f func(kind, name string)) error {
	rows, err := conn.Query(ctx, namespaceObjects, w.schema, w.ownExtensions)
	if err != nil {
		return fmt.Errorf("listing the objects of schema %s: %w", w.schema, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, name string
		if err := rows.Scan(&kind, &name); err != nil {
			return err
		}
		f(kind, name)
	}
	return rows.Err()
}

// cleanupTimeout bounds the whole clean-up; lockTimeout each statement's wait for a lock.
const (
	cleanupTimeout     = 20 * time.Second
	cleanupLockTimeout = "3s"
)

// cleanUp removes what keybench created, on a fresh connection: it ends this
// run's own backends, takes the schema's lock, drops keybench's objects by
// name and the schema when keybench owns it and it is empty (or keeps it
// with --keep). It returns what was left on the server, each item with the
// statement that removes it; nil when nothing was.
func (w *sharedSchema) cleanUp(cc *pgx.ConnConfig, runID string, keep bool, logf func(string, ...any)) []string {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	c := cc.Copy()
	c.ConnectTimeout = 10 * time.Second
	c.RuntimeParams["application_name"] = "keybench cleanup " + runID
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
		return w.leftovers(nil, fmt.Sprintf("could not connect to clean up (%v)", err))
	}
	defer conn.Close(context.Background())
	// This run's own backends (a client stuck in a query, the admin
	// connection cut off by a signal) would hold locks the drops wait for.
	_, _ = conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name LIKE '%' || $1 AND application_name LIKE 'keybench%' AND pid <> pg_backend_pid()`, " "+runID)
	var locked bool
	for i := 0; i < 100 && !locked; i++ { // the run's admin session may take a moment to end (seconds on a loaded machine)
		if err := conn.QueryRow(ctx, lockSQL("pg_try_advisory_lock"), w.schema).Scan(&locked); err != nil {
			return w.leftovers(conn, fmt.Sprintf("could not lock schema %s to clean up (%v)", w.schema, err))
		}
		if !locked {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !locked {
		return w.leftovers(conn, fmt.Sprintf("another keybench run holds schema %s", w.schema))
	}
	defer func() { _, _ = conn.Exec(context.Background(), lockSQL("pg_advisory_unlock"), w.schema) }()
	keepExt := keep && w.marked
	// Drop, then look again: a session of the run that was ending as the
	// clean-up began may commit a table the first look did not see yet
	// (an interrupted prefill's first chunk).
	for pass := 0; pass < 5; pass++ {
		stmts := w.dropStatements(ctx, conn, keepExt)
		if pass > 0 && !dropsTables(stmts) {
			break
		}
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				logf("could not clean up (%s): %v", s, err)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if keep {
		if w.marked {
			logf("kept schema %s (--keep)", w.schema)
		}
		return nil
	}
	if w.marked && !w.forced {
		var n int
		_ = conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", w.schema).Scan(&n)
		if n == 1 {
			if _, err := conn.Exec(ctx, "DROP SCHEMA "+w.schema); err != nil {
				logf("schema %s not dropped: %v", w.schema, err)
			}
		}
	}
	return w.leftovers(conn, "")
}

// dropsTables says whether statements drop a table or sequence.
func dropsTables(statements []string) bool {
	for _, s := range statements {
		if strings.HasPrefix(s, "DROP TABLE") || strings.HasPrefix(s, "DROP SEQUENCE") {
			return true
		}
	}
	return false
}

// dropStatements are the statements that drop keybench's objects in the
// schema as they are now: tables (those with foreign keys first: a child
// table before its parent, as nothing is dropped with CASCADE) and
// sequences named like its own, its function, and its extensions (unless kept).
func (w *sharedSchema) dropStatements(ctx context.Context, conn *pgx.Conn, keepExtensions bool) []string {
	var out []string
	rows, err := conn.Query(ctx, `SELECT c.relkind::text, c.relname::text FROM pg_class c
		WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) AND c.relname LIKE $2
		  AND c.relkind IN ('r', 'p', 'S') AND NOT c.relispartition
		  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))
		ORDER BY c.relkind DESC, EXISTS (SELECT 1 FROM pg_constraint f WHERE f.conrelid = c.oid AND f.contype = 'f') DESC, c.relname DESC`, w.schema, ownRelationPattern)
	if err == nil {
		for rows.Next() {
			var kind, name string
			if rows.Scan(&kind, &name) == nil {
				if kind == "S" {
					out = append(out, "DROP SEQUENCE IF EXISTS "+w.schema+"."+name)
				} else {
					out = append(out, "DROP TABLE IF EXISTS "+w.schema+"."+name)
				}
			}
		}
		rows.Close()
	}
	out = append(out, fmt.Sprintf("DROP FUNCTION IF EXISTS %s.%s(bigint, bigint, bigint)", w.schema, ownFunction))
	if !keepExtensions {
		for _, e := range w.ownExtensions {
			out = append(out, "DROP EXTENSION IF EXISTS "+e)
		}
	}
	return out
}

// leftovers describes what keybench created that is still on the server:
// each item with the statement that removes it. why says why clean-up
// could not run; conn, when not nil, is used to see what is there.
func (w *sharedSchema) leftovers(conn *pgx.Conn, why string) []string {
	var left []string
	if conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var exists bool
		if conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", w.schema).Scan(&exists) == nil && !exists {
			return nil
		}
		own, err := w.ownObjects(ctx, conn)
		if err == nil {
			stmts := w.dropStatements(ctx, conn, false)
			var exts []string
			_ = conn.QueryRow(ctx, `SELECT coalesce(array_agg(extname::text), '{}') FROM pg_extension
				WHERE extname = ANY($1) AND extnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $2)`, w.ownExtensions, w.schema).Scan(&exts)
			if len(own) == 0 && len(exts) == 0 && !(w.created && !w.forced) {
				return nil
			}
			for _, s := range stmts {
				if strings.HasPrefix(s, "DROP FUNCTION") && !slices.Contains(own, ownFunction) {
					continue
				}
				if strings.HasPrefix(s, "DROP EXTENSION") && !slices.Contains(exts, strings.TrimPrefix(s, "DROP EXTENSION IF EXISTS ")) {
					continue
				}
				left = append(left, s)
			}
			if w.created && !w.forced {
				left = append(left, "DROP SCHEMA "+w.schema)
			}
			if len(left) == 0 {
				return nil
			}
			return []string{fmt.Sprintf("keybench left objects in schema %s%s; remove them with: %s", w.schema, because(why), strings.Join(left, "; "))}
		}
	}
	// Nothing could be read: name everything keybench may have created.
	stmts := []string{fmt.Sprintf("DROP TABLE IF EXISTS %s.%s", w.schema, workload.CellTable),
		fmt.Sprintf("DROP SEQUENCE IF EXISTS %s.%s%s", w.schema, workload.CellTable, keys.SequenceSuffix),
		fmt.Sprintf("DROP FUNCTION IF EXISTS %s.%s(bigint, bigint, bigint)", w.schema, ownFunction)}
	for _, e := range w.ownExtensions {
		stmts = append(stmts, "DROP EXTENSION IF EXISTS "+e)
	}
	if w.created && !w.forced {
		stmts = append(stmts, "DROP SCHEMA IF EXISTS "+w.schema)
	}
	return []string{fmt.Sprintf("keybench may have left objects in schema %s%s; remove them with: %s", w.schema, because(why), strings.Join(stmts, "; "))}
}

func because(why string) string {
	if why == "" {
		return ""
	}
	return " (" + why + ")"
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}
