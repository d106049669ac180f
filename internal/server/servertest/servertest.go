// Package servertest gives a test package one embedded server for all its
// tests, started in TestMain.
package servertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/server"
)

// Server is the package's server, set by Main before the tests run.
var Server *server.Embedded

// Main starts an embedded server (PostgreSQL 18 unless KEYBENCH_TEST_PG_VERSION
// says otherwise, or an installed PostgreSQL's binaries where
// KEYBENCH_TEST_PG_BIN names their directory), runs the tests, stops the
// server and returns the exit code.
func Main(m *testing.M, o server.Options) int {
	if o.Version == "" {
		o.Version = os.Getenv("KEYBENCH_TEST_PG_VERSION")
	}
	if o.BinDir == "" {
		o.BinDir = os.Getenv("KEYBENCH_TEST_PG_BIN")
	}
	o.Logf = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	s, err := server.Start(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "servertest: starting the embedded server:", err)
		return 1
	}
	Server = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "servertest: stopping:", err)
	}
	return code
}

// Dump is a schema dump of a database made by SQL (the embedded
// binaries have no pg_dump): every schema, relation, column, constraint,
// index, function, sequence, extension, comment and privilege outside the
// system schemas, and the contents of every user table, in a stable order.
func Dump(t testing.TB, c *pgx.Conn) string {
	t.Helper()
	const user = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'"
	queries := []string{
		`SELECT 'schema ' || n.nspname || ' owner ' || n.nspowner::regrole || ' acl ' || coalesce(n.nspacl::text, '-') || ' comment ' || coalesce(obj_description(n.oid, 'pg_namespace'), '-')
			FROM pg_namespace n WHERE ` + user,
		`SELECT 'relation ' || n.nspname || '.' || c.relname || ' kind ' || c.relkind::text || ' owner ' || c.relowner::regrole || ' acl ' || coalesce(c.relacl::text, '-')
			|| ' options ' || coalesce(c.reloptions::text, '-') || ' comment ' || coalesce(obj_description(c.oid, 'pg_class'), '-')
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + user,
		`SELECT 'column ' || n.nspname || '.' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' notnull ' || a.attnotnull
			|| ' default ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '-')
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attnum > 0 AND NOT a.attisdropped AND ` + user,
		`SELECT 'constraint ' || n.nspname || '.' || co.conname || ' ' || pg_get_constraintdef(co.oid) FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace WHERE ` + user,
		`SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + user,
		`SELECT 'function ' || pg_get_functiondef(p.oid) || ' acl ' || coalesce(p.proacl::text, '-') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.prokind IN ('f', 'p') AND ` + user,
		`SELECT 'sequence ' || s.schemaname || '.' || s.sequencename || ' last ' || coalesce(s.last_value::text, '-') FROM pg_sequences s`,
		`SELECT 'extension ' || e.extname || ' ' || e.extversion || ' in ' || e.extnamespace::regnamespace FROM pg_extension e`,
		`SELECT 'trigger ' || pg_get_triggerdef(tg.oid) FROM pg_trigger tg WHERE NOT tg.tgisinternal`,
		`SELECT 'type ' || n.nspname || '.' || ty.typname || ' ' || ty.typtype::text FROM pg_type ty JOIN pg_namespace n ON n.oid = ty.typnamespace WHERE ` + user,
		`SELECT 'database acl ' || coalesce(datacl::text, '-') FROM pg_database WHERE datname = current_database()`,
	}
	var lines []string
	for _, q := range queries {
		rows, _ := c.Query(context.Background(), q)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		lines = append(lines, got...)
	}
	// The contents of every user table.
	rows, _ := c.Query(context.Background(), `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		var sum string
		if err := c.QueryRow(context.Background(), fmt.Sprintf("SELECT count(*) || ' rows, md5 ' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '-') FROM %s t", tb)).Scan(&sum); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, "data "+tb+" "+sum)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// DumpWithout is Dump with the lines naming any of written left out: the
// tables (and their sequences) a test's writer changes while keybench reads.
func DumpWithout(t testing.TB, c *pgx.Conn, written ...string) string {
	t.Helper()
	var keep []string
	for _, l := range strings.Split(Dump(t, c), "\n") {
		if !slices.ContainsFunc(written, func(w string) bool { return strings.Contains(l, w) }) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// Debian15 is where Debian's PostgreSQL 15 binaries are.
const Debian15 = "/usr/lib/postgresql/15/bin"

// PG15 are the options of a PostgreSQL 15 as Debian ships it where its
// binaries are installed (Debian15), else the embedded 15.
func PG15() server.Options {
	if _, err := os.Stat(filepath.Join(Debian15, "postgres")); err == nil {
		return server.Options{BinDir: Debian15}
	}
	return server.Options{Version: "15"}
}

// Connect opens a connection to the package's server as its superuser,
// closed when the test ends.
func Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), Server.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}
