package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/cli/clitest"
	"github.com/keybench/keybench/internal/workload/all"

	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/verdict"
)

// likeSchema is a user's schema of hostile names: a table whose key
// column, columns and indexes need quoting, with an enum of its own, a
// CHECK, a default, a partial index, a unique one, one on an expression
// and a foreign key to another table of theirs, holding rows.
const likeSchema = `
CREATE SCHEMA "My ""Shop""";
CREATE TYPE "My ""Shop""".state AS ENUM ('new', 'paid', 'it''s sent');
CREATE TABLE "My ""Shop""".customers (id int PRIMARY KEY);
INSERT INTO "My ""Shop""".customers SELECT g FROM generate_series(1, 10) g;
CREATE TABLE "My ""Shop"""."Order; DROP" (
	"Key Col" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	"Customer-Id" int NOT NULL REFERENCES "My ""Shop""".customers,
	"note'" varchar(40),
	status "My ""Shop""".state NOT NULL DEFAULT 'new',
	amount numeric(10,2) NOT NULL CHECK (amount >= 0),
	created timestamptz NOT NULL DEFAULT now());
CREATE INDEX "by customer" ON "My ""Shop"""."Order; DROP" ("Customer-Id") WHERE amount > 0;
CREATE UNIQUE INDEX "one note" ON "My ""Shop"""."Order; DROP" ("note'");
CREATE INDEX "lower note" ON "My ""Shop"""."Order; DROP" (lower("note'"));
INSERT INTO "My ""Shop"""."Order; DROP" ("Customer-Id", "note'", amount) SELECT 1 + g % 10, 'n' || g, g FROM generate_series(1, 500) g;
ANALYZE "My ""Shop"""."Order; DROP";`

// TestLikeCopiesOnlyTheShape (issue 53): run --script --like on a table
// of hostile names runs the script on a copy of its definition in
// keybench's schema for each key — the key column under its own name
// taking the key, the other columns filled — and leaves the user's
// schema as it was: its definition and its rows, object for object.
func TestLikeCopiesOnlyTheShape(t *testing.T) {
	admin := clitest.Superuser(t, "postgres")
	ctx := context.Background()
	drop := func() { _, _ = admin.Exec(context.Background(), `DROP SCHEMA IF EXISTS "My ""Shop""" CASCADE`) }
	drop()
	t.Cleanup(drop)
	if _, err := admin.Exec(ctx, likeSchema); err != nil {
		t.Fatal(err)
	}
	dump := func() string {
		var d string
		err := admin.QueryRow(ctx, `SELECT string_agg(x, E'\n' ORDER BY x) FROM (
			SELECT c.relname || ' ' || c.relkind::text || ' ' || coalesce(pg_get_indexdef(c.oid), '') AS x FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'My "Shop"'
			UNION ALL SELECT conname || ' ' || pg_get_constraintdef(co.oid) FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace WHERE n.nspname = 'My "Shop"'
			UNION ALL SELECT a.attrelid::regclass::text || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'My "Shop"' AND a.attnum > 0
			UNION ALL SELECT 'rows ' || count(*) || ' ' || md5(string_agg(o::text, ',' ORDER BY o."Key Col")) FROM "My ""Shop"""."Order; DROP" o
			UNION ALL SELECT 'enum ' || string_agg(enumlabel, ',' ORDER BY enumsortorder) FROM pg_enum) s`).Scan(&d)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	before := dump()
	script := filepath.Join(t.TempDir(), "s.sql")
	os.WriteFile(script, []byte(`INSERT INTO :table ("Key Col", "Customer-Id", amount) VALUES (:key, 3, 9.5);`+"\n"+
		`SELECT count(*) FROM :table WHERE "Customer-Id" = 3 AND amount > 0;`+"\n"), 0o644)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--script", script, "--like", `"My ""Shop"""."Order; DROP"`, "--dsn", servertest.Server.TCPURL(), "--schema", "kb_like",
		"--out", out, "--keys", "bigint,uuidv4", "-T", "1s", "--warmup", "0s", "--rows", "300", "-c", "1", "--force")
	b, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("exit %d:\n%s", cmd.ProcessState.ExitCode(), b)
	}
	if !strings.Contains(string(b), `its key column "Key Col" (bigint) takes each key`) || !strings.Contains(string(b), "foreign key") || !strings.Contains(string(b), `index "lower note" is on an expression`) {
		t.Errorf("the run does not say what of the shape it copied:\n%s", b)
	}
	res, err := verdict.Read(filepath.Join(out, "results.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Status != "ok" || c.RowsInserted == 0 {
			t.Errorf("%s: %s, %d rows inserted by the script (%s)", c.Key, c.Status, c.RowsInserted, c.Error)
		}
	}
	if res.Plan.Like != `"My ""Shop"""."Order; DROP"` {
		t.Errorf("results.json records --like as %q", res.Plan.Like)
	}
	if after := dump(); after != before {
		t.Errorf("the user's schema changed:\n%s\nwas\n%s", after, before)
	}
	var left int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'kb_like'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d relations left in keybench's schema (%v)", left, err)
	}
}

// hostileSchema is a user's database that keybench's statements could
// reach: a CHECK and a partial index predicate calling functions that
// delete the user's rows and write an audit table, a sequence of theirs,
// and a function of theirs.
const hostileSchema = `
CREATE SCHEMA hostile;
CREATE TABLE hostile.keep_me (a int);
INSERT INTO hostile.keep_me SELECT g FROM generate_series(1, 500) g;
CREATE TABLE hostile.audit (at timestamptz);
CREATE SEQUENCE hostile.dom_key_seq START 20000;
SELECT nextval('hostile.dom_key_seq');
CREATE FUNCTION hostile.purge(int) RETURNS bool LANGUAGE sql AS 'DELETE FROM hostile.keep_me WHERE a = $1; SELECT true';
CREATE FUNCTION hostile.audited(bigint) RETURNS bool LANGUAGE sql IMMUTABLE AS 'INSERT INTO hostile.audit VALUES (now()); SELECT true';
CREATE TABLE hostile.chk_purge_tbl (
	id bigint PRIMARY KEY,
	n int NOT NULL CHECK (hostile.purge(n)),
	m int CHECK (m >= 0),
	data bigint);
CREATE INDEX chk_audited ON hostile.chk_purge_tbl (m) WHERE hostile.audited(data);`

// TestLikeAndScriptsRunNoCodeOfTheUsers (issue 60): a copied CHECK or
// index predicate that calls a function of the user's is not copied (and
// said so), so keybench's prefill and the script's inserts run none of it;
// a script calling setval on the user's sequence, pg_terminate_backend or
// a function of the user's is refused before any of it runs (as the server
// resolves it on the first cell's table), its line named; the user's dump
// is the same after each.
func TestLikeAndScriptsRunNoCodeOfTheUsers(t *testing.T) {
	admin := clitest.Superuser(t, "postgres")
	ctx := context.Background()
	drop := func() { _, _ = admin.Exec(context.Background(), `DROP SCHEMA IF EXISTS hostile CASCADE`) }
	drop()
	t.Cleanup(drop)
	if _, err := admin.Exec(ctx, hostileSchema); err != nil {
		t.Fatal(err)
	}
	before := servertest.Dump(t, admin)
	run := func(script string) (string, int) {
		f := filepath.Join(t.TempDir(), "s.sql")
		os.WriteFile(f, []byte(script), 0o644)
		cmd := exec.Command(bin, "run", "--script", f, "--like", "hostile.chk_purge_tbl", "--dsn", servertest.Server.TCPURL(), "--schema", "kb_hostile",
			"--out", t.TempDir(), "--keys", "bigint,uuidv4", "-T", "1s", "--warmup", "0s", "--rows", "300", "-c", "1", "--rounds", "1", "--force")
		b, _ := cmd.CombinedOutput()
		return string(b), cmd.ProcessState.ExitCode()
	}
	out, code := run("INSERT INTO :table (id, n, m) VALUES (:key, 7, 1);\nSELECT count(*) FROM :table WHERE m = 1;\n")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"CHECK chk_purge_tbl_n_check: not copied", "hostile.purge(integer)", "index chk_audited: not copied"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run does not say %q:\n%s", want, out)
		}
	}
	if after := servertest.Dump(t, admin); after != before {
		t.Fatalf("the user's database changed under --like:\n%s\nwas\n%s", after, before)
	}
	for _, c := range []struct{ script, line, why string }{
		{"SELECT 1 FROM :table;\nSELECT setval('hostile.dom_key_seq', 1);\n", "line 2", "outside keybench's schema"},
		{"SELECT pg_terminate_backend(pg_backend_pid()) FROM :table;\n", "line 1", "pg_terminate_backend"},
		{"-- a comment\nSELECT count(*) FROM :table WHERE hostile.purge(3);\n", "line 2", "hostile.purge(integer)"},
		{"SELECT * FROM :table WHERE m = (SELECT count(*) FROM table_to_xml('hostile.keep_me', true, false, '') x);\n", "line 1", "table_to_xml"},
	} {
		out, code := run(c.script)
		if code != 2 || !strings.Contains(out, "script "+c.line+" is refused") || !strings.Contains(out, c.why) {
			t.Errorf("%q: exit %d, want 2 naming %s and %q:\n%s", c.script, code, c.line, c.why, out)
		}
	}
	if after := servertest.Dump(t, admin); after != before {
		t.Errorf("the user's database changed under refused scripts:\n%s\nwas\n%s", after, before)
	}
}

// TestLikeCopiesCommonTables (issue 63): a table whose payload is jsonb
// (a column keybench's own table has, of another type), with a text
// data column, a NOT NULL array, a kb_data of its own and NOT NULL columns
// of PostgreSQL's less common types (bit, xml, tsvector, point, macaddr, a
// range, pg_lsn, "char", numeric(5,2)) is copied — its columns as its
// own, keybench's renamed kb_payload and kb_data_2, said, a GIN index on an
// enum array copied as text left, said — and the script runs.
func TestLikeCopiesCommonTables(t *testing.T) {
	admin := clitest.Superuser(t, "postgres")
	ctx := context.Background()
	drop := func() { _, _ = admin.Exec(context.Background(), `DROP SCHEMA IF EXISTS common CASCADE`) }
	drop()
	t.Cleanup(drop)
	if _, err := admin.Exec(ctx, `CREATE SCHEMA common; CREATE TYPE common.mood AS ENUM ('a', 'b');
		CREATE TABLE common.events (moods common.mood[], id bigint PRIMARY KEY, payload jsonb NOT NULL, data text, tags text[] NOT NULL, at timestamptz NOT NULL DEFAULT now(),
			kb_data text, price numeric(5,2) NOT NULL DEFAULT 1.5, small numeric(2) NOT NULL DEFAULT 7, b bit(3) NOT NULL DEFAULT B'101',
			vb varbit(2) NOT NULL DEFAULT B'1', x xml NOT NULL DEFAULT '<a/>', tv tsvector NOT NULL DEFAULT 'a', tq tsquery NOT NULL DEFAULT 'a',
			pt point NOT NULL DEFAULT '(1,2)', mac macaddr NOT NULL DEFAULT '08002b010203', r int4range NOT NULL DEFAULT '[1,2)',
			lsn pg_lsn NOT NULL DEFAULT '0/1', ch "char" NOT NULL DEFAULT 'a');
		CREATE INDEX events_moods ON common.events USING gin (moods);
		INSERT INTO common.events (id, payload, data, tags) SELECT g, jsonb_build_object('n', g), 'd' || g, ARRAY['a'] FROM generate_series(1, 100) g;
		ANALYZE common.events`); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "s.sql")
	os.WriteFile(f, []byte(`INSERT INTO :table (id, payload, tags) VALUES (:key, '{"k": 1}', '{x}');`+"\n"+`SELECT count(*) FROM :table WHERE payload ? 'k';`+"\n"), 0o644)
	cmd := exec.Command(bin, "run", "--script", f, "--like", "common.events", "--dsn", servertest.Server.TCPURL(), "--schema", "kb_common",
		"--out", t.TempDir(), "--keys", "bigint:gen=client,uuidv4", "-T", "1s", "--warmup", "0s", "--rows", "300", "-c", "1", "--rounds", "1", "--force")
	b, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("exit %d:\n%s", cmd.ProcessState.ExitCode(), b)
	}
	for _, want := range []string{"your column payload is jsonb: copied as yours; keybench's own text payload is kb_payload", "keybench's own bigint data is kb_data_2", "index events_moods (gin) is on a column copied as text: not copied"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the run does not say %q:\n%s", want, b)
		}
	}
}
