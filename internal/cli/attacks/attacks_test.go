// Package attacks_test is the hostile trial of 2026-12-01 (issue 73) as
// tests: on a PostgreSQL 15 as Debian ships it (the machine's
// /usr/lib/postgresql/15, else the embedded 15), a database planted with
// functions, operators, casts, operator classes, triggers and hooks, each of
// which writes PWNED to the server's log and deletes a row of the user's
// through dblink (a session of its own, which no rollback undoes), and
// keybench run and advise pointed at it the ways the trial broke the promise
// "nothing of the user's runs". Each attack asserts what keybench said and
// its exit code, that PWNED is nowhere in the server's log, and that the
// database's dump (rows, sequences, schemas) is as it was.
package attacks_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/cli/clitest"
	"github.com/keybench/keybench/internal/server/servertest"
)

var bin string

func TestMain(m *testing.M) { os.Exit(clitest.MainWith(m, &bin, servertest.PG15())) }

// plant makes database db: the user's schema shop (orders with rows, its
// sequence at a value of its own, a kept table), dblink, and pwn(text), which
// logs PWNED and deletes one of shop.orders' rows through dblink; more is
// planted per attack. It returns the superuser's connection to it.
func plant(t *testing.T, db string) *pgx.Conn {
	t.Helper()
	admin := clitest.Superuser(t, "postgres")
	clitest.Exec(t, admin, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "CREATE DATABASE "+db)
	c := clitest.Superuser(t, db)
	u, _ := url.Parse(servertest.Server.TCPURL())
	u.Path = "/" + db
	self := strings.ReplaceAll(u.String(), "'", "''")
	clitest.Exec(t, c, "CREATE EXTENSION dblink", "CREATE SCHEMA shop",
		"CREATE TABLE shop.orders (id serial PRIMARY KEY, note text)",
		"INSERT INTO shop.orders (note) SELECT 'order ' || g FROM generate_series(1, 670) g",
		"SELECT setval('shop.orders_id_seq', 5000)",
		fmt.Sprintf(`CREATE FUNCTION public.pwn(what text) RETURNS void LANGUAGE plpgsql AS $$
			BEGIN
				RAISE WARNING 'PWNED by %%', what;
				PERFORM dblink_exec('%s', 'DELETE FROM shop.orders WHERE id = (SELECT min(id) FROM shop.orders)');
			END $$`, self))
	return c
}

// attack runs keybench with args against db and checks that it exits with
// code, says want, runs nothing planted (no PWNED in the log since) and
// leaves the database as it was.
func attack(t *testing.T, c *pgx.Conn, name string, code int, want string, args ...string) {
	t.Helper()
	before := servertest.Dump(t, c)
	logFrom := len(servertest.Server.Log())
	stdout, stderr, got := clitest.Run(t, bin, args...)
	if got != code || !strings.Contains(stderr+stdout, want) {
		t.Errorf("%s: exit %d, want %d saying %q:\n%s", name, got, code, want, clitest.LastLine(stderr))
	}
	if log := servertest.Server.Log()[logFrom:]; strings.Contains(log, "PWNED") {
		t.Errorf("%s: the user's code ran:\n%s", name, grepLines(log, "PWNED"))
	}
	if after := servertest.Dump(t, c); after != before {
		t.Errorf("%s: the database changed:\nbefore:\n%s\nafter:\n%s", name, before, after)
	}
}

func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// dsn is the superuser's DSN for db, with extra key=value settings.
func dsn(db string, extra ...string) string {
	u, _ := url.Parse(servertest.Server.TCPURL())
	u.Path = "/" + db
	var q []string
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		q = append(q, k+"="+strings.ReplaceAll(url.QueryEscape(v), "+", "%20")) // a space as %20, which libpq's and pgx's URLs read
	}
	u.RawQuery = strings.Join(q, "&")
	return u.String()
}

// script writes a script file.
func script(t *testing.T, text string) string { return clitest.WriteFile(t, text) }

// run is keybench run's arguments for a short script run on db.
func run(t *testing.T, db string, more ...string) []string {
	return append([]string{"run", "--dsn", dsn(db), "-T", "1s", "--warmup", "0s", "--rows", "200", "-c", "1", "--keys", "bigint", "--out", t.TempDir()}, more...)
}

// TestScriptsAreCheckedBeforeTheyRun: what the trial sent the server
// through the check itself — a second statement on a script line, DO, COPY
// TO PROGRAM — is refused by the local parser, exit 2, before any
// connection; so is a script too large to be one.
func TestScriptsAreCheckedBeforeTheyRun(t *testing.T) {
	c := plant(t, "scripts")
	touched := filepath.Join(t.TempDir(), "touched")
	for _, a := range []struct{ name, script, want string }{
		{"two statements on a line", "INSERT INTO :table (data) VALUES (1); DELETE FROM shop.orders;\n", "2 statements"},
		{"DO", "DO $$ BEGIN PERFORM public.pwn('do'); END $$;\n", "not a query"},
		{"COPY TO PROGRAM", "COPY (SELECT 1) TO PROGRAM 'touch " + touched + "';\n", "not a query"},
		{"SET search_path", "SET search_path = public;\nSELECT 1 FROM :table;\n", "not a query"},
		{"SELECT INTO", "SELECT * INTO shop.copy FROM :table;\n", "SELECT INTO"},
		{"CALL", "CALL public.p();\nSELECT 1 FROM :table;\n", "not a query"},
	} {
		attack(t, c, a.name, 2, a.want, run(t, "scripts", "--script", script(t, a.script))...)
	}
	if _, err := os.Stat(touched); err == nil {
		t.Error("COPY TO PROGRAM ran a command")
	}
	big := filepath.Join(t.TempDir(), "big.sql")
	f, _ := os.Create(big)
	f.WriteString("SELECT 1 FROM :table;\n")
	f.Truncate(11 << 20)
	f.Close()
	attack(t, c, "an 11 MB script", 2, "larger than 10 MiB", run(t, "scripts", "--script", big)...)
}

// TestResolvedNotNamed: calls the parse tree does not name as calls — an
// operator of the user's inside a subquery's ANY, attribute notation, a
// default operator class on json reached by ORDER BY — are refused as the
// server resolves them; a cast between PostgreSQL's types that is the
// user's refuses the server.
func TestResolvedNotNamed(t *testing.T) {
	c := plant(t, "resolved")
	clitest.Exec(t, c,
		`CREATE FUNCTION public.eq_pwn(bigint, bigint) RETURNS bool LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('operator'); RETURN $1 = $2; END $$`,
		`CREATE OPERATOR public.=#= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.eq_pwn)`,
		`CREATE FUNCTION public.f(anyelement) RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('attribute'); RETURN 1; END $$`,
		`CREATE FUNCTION public.json_lt(json, json) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('opclass'); RETURN false; END $$`,
		`CREATE FUNCTION public.json_eq(json, json) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('opclass'); RETURN true; END $$`,
		`CREATE FUNCTION public.json_cmp(json, json) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('opclass'); RETURN 0; END $$`,
		`CREATE OPERATOR public.< (LEFTARG = json, RIGHTARG = json, FUNCTION = public.json_lt)`,
		`CREATE OPERATOR public.= (LEFTARG = json, RIGHTARG = json, FUNCTION = public.json_eq)`,
		`CREATE OPERATOR CLASS public.json_ops DEFAULT FOR TYPE json USING btree AS OPERATOR 1 public.<, OPERATOR 3 public.=, FUNCTION 1 public.json_cmp(json, json)`,
	)
	for _, a := range []struct{ name, script, want string }{
		{"an operator in a subquery's ANY", "SELECT 1 FROM :table WHERE id OPERATOR(public.=#=) ANY (SELECT id FROM :table);\n", "public.=#="},
		{"attribute notation", "SELECT t.f FROM :table t;\n", "does not exist"},
		{"a default operator class on json, by ORDER BY", "SELECT 1 FROM :table ORDER BY json_build_object('a', id);\n", "public.<"},
		{"a default operator class on json, by an array's comparison", "SELECT ARRAY[json_build_object('a', id)] = ARRAY[json_build_object('a', 1)] FROM :table;\n", "operator class"},
		{"a row of the user's table", "SELECT 1 FROM :table;\nSELECT * FROM shop.orders;\n", "outside keybench's schema"},
		{"setval of the user's sequence", "SELECT 1 FROM :table;\nSELECT setval('shop.orders_id_seq', 1);\n", "outside keybench's schema"},
		{"a writable CTE on the user's table", "WITH d AS (DELETE FROM shop.orders RETURNING 1) SELECT count(*) FROM d;\nSELECT 1 FROM :table;\n", "outside keybench's schema"},
	} {
		attack(t, c, a.name, 2, a.want, run(t, "resolved", "--script", script(t, a.script))...)
	}
	clitest.Exec(t, c, `CREATE FUNCTION public.to_text(bigint) RETURNS text LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('cast'); RETURN 'x'; END $$`,
		`CREATE CAST (bigint AS text) WITH FUNCTION public.to_text(bigint)`)
	attack(t, c, "a user's cast between PostgreSQL's types", 2, "bigint AS text", run(t, "resolved", "--script", script(t, "SELECT id::text FROM :table;\n"))...)
	attack(t, c, "advise beside a user's cast", 2, "bigint AS text", "advise", "--dsn", dsn("resolved"))
}

// TestKeybenchsOwnSQL: a DSN whose search_path puts the user's now() and
// gen_random_uuid() first, and one with standard_conforming_strings off
// beside an enum label that would break out of its quotes, copied by
// --like: keybench's own SQL binds to PostgreSQL's alone and its run
// succeeds; --schema select is refused.
func TestKeybenchsOwnSQL(t *testing.T) {
	c := plant(t, "ownsql")
	clitest.Exec(t, c,
		`CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('now'); RETURN pg_catalog.now(); END $$`,
		`CREATE FUNCTION public.gen_random_uuid() RETURNS uuid LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('gen_random_uuid'); RETURN pg_catalog.gen_random_uuid(); END $$`,
		`CREATE FUNCTION public.random() RETURNS float8 LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('random'); RETURN 0.5; END $$`,
		`CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('clock_timestamp'); RETURN pg_catalog.now(); END $$`,
		`CREATE FUNCTION public.mul(float8, float8) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('*'); RETURN $1 OPERATOR(pg_catalog.*) $2; END $$`,
		`CREATE OPERATOR public.* (LEFTARG = float8, RIGHTARG = float8, FUNCTION = public.mul)`,
		`CREATE FUNCTION public.minus(bigint, integer) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('-'); RETURN $1 OPERATOR(pg_catalog.-) $2; END $$`,
		`CREATE OPERATOR public.- (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = public.minus)`,
		`CREATE TYPE shop.state AS ENUM ('new', 'x''); SELECT public.pwn(''enum''); --', 'x\''); SELECT public.pwn(''enum2''); --')`,
		`CREATE TABLE shop.shaped (id bigint PRIMARY KEY, state shop.state NOT NULL, note text)`)
	args := func(extra ...string) []string {
		return []string{"run", "--dsn", dsn("ownsql", extra...), "-T", "1s", "--warmup", "0s", "--rows", "300", "-c", "1", "--out", t.TempDir()}
	}
	attack(t, c, "a search_path of the user's", 0, "", append(args("options=-csearch_path=public,pg_catalog"), "--keys", "uuidv4,bigint,seq-uuid-seq:gen=server,uuidv4:as=text", "--secondary", "random:20")...)
	attack(t, c, "standard_conforming_strings off, an enum copied", 0, "",
		append(args("options=-cstandard_conforming_strings=off -csearch_path=public,pg_catalog"), "--keys", "bigint", "--like", "shop.shaped",
			"--script", script(t, "INSERT INTO :table (id, note) VALUES (:key, 'a');\n"))...)
	attack(t, c, "--schema select", 2, "select", append(args(), "--schema", "select", "--keys", "bigint")...)
}

// TestHooks: an event trigger on ddl_command_end refuses the run, naming
// it; a trigger the user adds to a kept ledger refuses the next run, --force
// or not; a schema of the user's is refused, --force or not (the trial's
// --schema shop --force deleted 670 rows and reset a sequence).
func TestHooks(t *testing.T) {
	c := plant(t, "hooks")
	clitest.Exec(t, c, `CREATE FUNCTION public.evt() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('event trigger'); END $$`,
		`CREATE EVENT TRIGGER kb_evt ON ddl_command_end EXECUTE FUNCTION public.evt()`)
	attack(t, c, "an event trigger", 2, "kb_evt", run(t, "hooks", "--keys", "bigint")...)
	clitest.Exec(t, c, "ALTER EVENT TRIGGER kb_evt DISABLE")
	attack(t, c, "--schema shop --force with a script", 2, "not created by keybench",
		run(t, "hooks", "--schema", "shop", "--force", "--script", script(t, "DELETE FROM :table;\nSELECT setval('shop.orders_id_seq', 1);\n"))...)
	if _, stderr, code := clitest.Run(t, bin, run(t, "hooks", "--schema", "kbkept", "--keep")...); code != 0 {
		t.Fatalf("--keep: exit %d: %s", code, stderr)
	}
	clitest.Exec(t, c, `CREATE FUNCTION public.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('ledger trigger'); RETURN NEW; END $$`,
		`CREATE TRIGGER kb_trg BEFORE INSERT ON kbkept.keybench_ledger FOR EACH ROW EXECUTE FUNCTION public.trg()`)
	for _, force := range []string{"--keep", "--force"} {
		attack(t, c, "a trigger on the kept ledger, "+force, 2, "kb_trg", run(t, "hooks", "--schema", "kbkept", force)...)
	}
}

// TestAdviseCallsNothing: advise's key walk through a domain whose CHECK
// calls the user's function, and as a role under a row-level security
// policy whose function is the user's: nothing of theirs runs.
func TestAdviseCallsNothing(t *testing.T) {
	c := plant(t, "advised")
	clitest.Exec(t, c,
		`CREATE FUNCTION public.ok(bigint) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('domain'); RETURN true; END $$`,
		`CREATE DOMAIN public.uid AS bigint CHECK (public.ok(VALUE))`,
		`CREATE TABLE public.accounts (id public.uid PRIMARY KEY, v text)`,
		`INSERT INTO public.accounts SELECT g, 'x' FROM generate_series(1, 3000) g`,
		`CREATE FUNCTION public.allowed(bigint) RETURNS bool LANGUAGE plpgsql STABLE AS $$ BEGIN PERFORM public.pwn('policy'); RETURN true; END $$`,
		`CREATE TABLE public.secrets (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)`,
		`INSERT INTO public.secrets (v) SELECT 'x' FROM generate_series(1, 3000)`,
		`ALTER TABLE public.secrets ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY p ON public.secrets USING (public.allowed(id))`,
		`ANALYZE`,
		`DROP ROLE IF EXISTS advisor`, `CREATE ROLE advisor LOGIN PASSWORD 'Advisor-pw-73'`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA public TO advisor`, `GRANT USAGE ON SCHEMA shop TO advisor`)
	attack(t, c, "advise as a superuser", 0, "accounts", "advise", "--dsn", dsn("advised"), "--sample", "1s")
	u, _ := url.Parse(dsn("advised"))
	u.User = url.UserPassword("advisor", "Advisor-pw-73")
	attack(t, c, "advise under a policy", 0, "row-level security", "advise", "--dsn", u.String(), "--sample", "1s", "--json")
}

// TestInputs: a rate that schedules no transaction in a window is refused.
func TestInputs(t *testing.T) {
	c := plant(t, "inputs")
	attack(t, c, "-R 1e-300", 2, "--rate", run(t, "inputs", "-R", "1e-300")...)
}

// TestSecondTrial: the hostile trial of 2026-12-02 against the guard by
// construction. Functions of PostgreSQL's own that look up and call what
// their argument names (record_in, array_in, domain_in through a domain
// whose CHECK is the user's, satisfies_hash_partition), a type of the
// user's schema named in a cast, a function of the user's adopted into an
// allowed extension, writes to keybench's own ledger, an operator and an
// access method planted in a kept schema or set as the database's default:
// each is refused, or runs with nothing of the user's.
func TestSecondTrial(t *testing.T) {
	c := plant(t, "second")
	clitest.Exec(t, c,
		`CREATE FUNCTION public.ok(bigint) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('domain'); RETURN true; END $$`,
		`CREATE DOMAIN public.uid AS bigint CHECK (public.ok(VALUE))`,
		`CREATE EXTENSION hstore`,
		`CREATE FUNCTION public.adopted(text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('adopted'); RETURN $1; END $$`,
		`ALTER EXTENSION hstore ADD FUNCTION public.adopted(text)`)
	var uid uint32
	if err := c.QueryRow(t.Context(), "SELECT 'public.uid'::regtype::oid").Scan(&uid); err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct{ name, script, want string }{
		{"record_in of the user's row type", "SELECT record_in('(1,x)'::cstring, " + fmt.Sprint(uid) + "::oid, -1) FROM :table;\n", "by reference"},
		{"domain_in of a domain whose CHECK is the user's", "SELECT domain_in('1'::cstring, " + fmt.Sprint(uid) + "::oid, -1) FROM :table;\n", "by reference"},
		{"array_in of that domain", "SELECT array_in('{1}'::cstring, " + fmt.Sprint(uid) + "::oid, -1) FROM :table;\n", "by reference"},
		{"satisfies_hash_partition", "SELECT satisfies_hash_partition(" + fmt.Sprint(uid) + "::oid, 2, 0, id) FROM :table;\n", "by reference"},
		{"a regtype naming the user's domain", "SELECT 'public.uid'::regtype FROM :table;\n", "regtype"},
		{"a cast to the user's domain array", "SELECT '{1}'::public.uid[] FROM :table;\n", "public"},
		{"a function adopted into an allowed extension", "SELECT public.adopted('x') FROM :table;\n", "adopted"},
	} {
		attack(t, c, a.name, 2, a.want, run(t, "second", "--script", script(t, a.script))...)
	}
	if _, stderr, code := clitest.Run(t, bin, run(t, "second", "--schema", "kbkept", "--keep")...); code != 0 {
		t.Fatalf("--keep: exit %d: %s", code, stderr)
	}
	attack(t, c, "a script writing keybench's ledger", 2, "not one of the tables keybench made",
		run(t, "second", "--schema", "kbkept", "--keep", "--script", script(t, "SELECT 1 FROM :table;\nDELETE FROM kbkept.keybench_ledger;\n"))...)
	clitest.Exec(t, c, `CREATE ACCESS METHOD pwnam TYPE TABLE HANDLER heap_tableam_handler`,
		`ALTER DATABASE second SET default_table_access_method = pwnam`)
	attack(t, c, "the database's default table access method", 0, "", run(t, "second", "--schema", "kbam")...)
	clitest.Exec(t, c, `ALTER DATABASE second RESET default_table_access_method`,
		`CREATE FUNCTION kbkept.plus(bigint, bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.pwn('kept operator'); RETURN 0; END $$`,
		`CREATE OPERATOR kbkept.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = kbkept.plus)`)
	for _, force := range []string{"--keep", "--force"} {
		attack(t, c, "an operator planted in a kept schema, "+force, 2, "code of someone else's", run(t, "second", "--schema", "kbkept", force)...)
	}
	// A script that passes runs as a role made for the run, dropped after it.
	attack(t, c, "a script that passes, as its own role", 0, "ran as the role keybench_script_",
		run(t, "second", "--script", script(t, "INSERT INTO :table (data) VALUES (1);\nSELECT count(*) FROM :table;\n"))...)
	var roles int
	if err := c.QueryRow(t.Context(), "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'keybench_script_%'").Scan(&roles); err != nil || roles != 0 {
		t.Errorf("the script's role is left: %d (%v)", roles, err)
	}
}

// TestThirdTrial is the third hostile trial's breaks (2026-12-02): the
// extensions keybench reads through with a member replaced in place or
// shadowed (pg_buffercache's view, pgstattuple's pgstatindex,
// pg_stat_statements' view), PostgreSQL's own function in SQL replaced in
// place (a string body and a BEGIN ATOMIC one), and a publication of every
// table, which would send keybench's tables to a subscriber and stop its
// replication. Each is refused or left unread, and nothing planted runs.
func TestThirdTrial(t *testing.T) {
	c := plant(t, "third")
	clitest.Exec(t, c, `CREATE FUNCTION public.pwnb(what text) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn(what); RETURN true; END $$`,
		`CREATE EXTENSION pg_buffercache`, `CREATE EXTENSION pgstattuple`, `CREATE EXTENSION pg_stat_statements`,
		`CREATE OR REPLACE VIEW public.pg_buffercache AS SELECT p.* FROM public.pg_buffercache_pages() AS p(bufferid int, relfilenode oid, reltablespace oid,
			reldatabase oid, relforknumber int2, relblocknumber int8, isdirty bool, usagecount int2, pinning_backends int) WHERE public.pwnb('buffercache view')`,
		`CREATE OR REPLACE FUNCTION public.pgstatindex(relname text, OUT version int, OUT tree_level int, OUT index_size int8, OUT root_block_no int8,
			OUT internal_pages int8, OUT leaf_pages int8, OUT empty_pages int8, OUT deleted_pages int8, OUT avg_leaf_density float8, OUT leaf_fragmentation float8)
			LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('pgstatindex'); END $$`,
		`ALTER EXTENSION pg_stat_statements DROP VIEW public.pg_stat_statements`, `DROP VIEW public.pg_stat_statements`,
		`CREATE VIEW public.pg_stat_statements AS SELECT 10::oid AS userid, (SELECT oid FROM pg_database WHERE datname = current_database()) AS dbid,
			1::int8 AS queryid, 'INSERT INTO shop.orders VALUES (1)'::text AS query, 5::int8 AS calls, 5::int8 AS rows WHERE public.pwnb('statements view')`,
		`ALTER EXTENSION pg_stat_statements ADD VIEW public.pg_stat_statements`)
	attack(t, c, "advise through replaced extension members", 0, "is not as it was installed", "advise", "--dsn", dsn("third"), "--sample", "1s")
	attack(t, c, "a run through replaced extension members", 0, "is not as it was installed",
		run(t, "third", "--script", script(t, "INSERT INTO :table (data) VALUES (1);\n"))...)
	// PostgreSQL's own bit_length, replaced in place by SQL naming the user's function.
	for _, body := range []string{`AS $$ SELECT CASE WHEN public.pwnb('bit_length') THEN pg_catalog.octet_length($1) * 8 END $$`,
		`BEGIN ATOMIC SELECT CASE WHEN public.pwnb('bit_length') THEN pg_catalog.octet_length($1) * 8 END; END`} {
		clitest.Exec(t, c, `CREATE OR REPLACE FUNCTION pg_catalog.bit_length(text) RETURNS int LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE `+body)
		attack(t, c, "a replaced SQL function of PostgreSQL's", 2, "bit_length(text) replaced",
			run(t, "third", "--script", script(t, "SELECT bit_length(payload) FROM :table LIMIT 1;\n"))...)
		attack(t, c, "advise beside a replaced SQL function of PostgreSQL's", 2, "bit_length(text) replaced", "advise", "--dsn", dsn("third"), "--sample", "1s")
	}
	clitest.Exec(t, c, `CREATE OR REPLACE FUNCTION pg_catalog.bit_length(text) RETURNS int LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT pg_catalog.octet_length($1) * 8'`,
		`CREATE PUBLICATION everything FOR ALL TABLES`)
	attack(t, c, "a publication of every table", 2, "publication everything", run(t, "third")...)
	clitest.Exec(t, c, `DROP PUBLICATION everything`, `CREATE EXTENSION citext`)
	// An allowed extension's type named in a script (once a false refusal):
	// judged by the catalog before the server parses the statement.
	attack(t, c, "an allowed extension's type in a script", 0, "",
		run(t, "third", "--script", script(t, "SELECT count(*) FROM :table WHERE payload::public.citext = 'A'::public.citext;\n"))...)
	// A call of a type's name is a cast the server reads as it parses: the
	// range's input reads its bounds with the domain's, whose CHECK is the
	// user's (the last trial's).
	clitest.Exec(t, c, `CREATE DOMAIN public.evil_dom AS text CHECK (public.pwnb(VALUE))`, `CREATE TYPE public.drange AS RANGE (subtype = public.evil_dom)`)
	for _, q := range []string{"SELECT public.drange('[a,b]') FROM :table;\n", `SELECT "public"."drange"('[a,b]') FROM :table;` + "\n", "SELECT public._evil_dom('{x}') FROM :table;\n"} {
		attack(t, c, "a call of a type's name", 2, "public", run(t, "third", "--script", script(t, q))...)
	}
	// :key in a select list, which the server would take for text (MERGE
	// … USING (SELECT :key AS k): once a false refusal): read again with
	// :key declared of the key's type.
	attack(t, c, ":key in a select list", 0, "",
		run(t, "third", "--keys", "bigint:gen=client", "--script", script(t, "INSERT INTO :table (id, data) VALUES (:key, 1);\nSELECT t.id FROM (SELECT :key AS k) s JOIN :table t ON t.id = s.k;\n"))...)
}

// TestFourthTrial is the re-trial of the third's fixes (2026-12-02): what
// PostgreSQL's own query_to_xml runs is SQL text, which no dependency
// shows — in an extension's view or in PostgreSQL's own function replaced
// in place — and a publication naming a kept ledger alone.
func TestFourthTrial(t *testing.T) {
	c := plant(t, "fourth")
	clitest.Exec(t, c, `CREATE EXTENSION pg_buffercache`,
		`CREATE OR REPLACE VIEW public.pg_buffercache AS SELECT p.* FROM public.pg_buffercache_pages() AS p(bufferid int, relfilenode oid, reltablespace oid,
			reldatabase oid, relforknumber int2, relblocknumber int8, isdirty bool, usagecount int2, pinning_backends int)
			WHERE pg_catalog.query_to_xml('SELECT public.pwn(''xml view'')', true, true, '') IS NOT NULL`)
	attack(t, c, "advise through query_to_xml in an extension's view", 0, "which runs SQL of its argument's", "advise", "--dsn", dsn("fourth"), "--sample", "1s")
	clitest.Exec(t, c, `DROP EXTENSION pg_buffercache CASCADE`)
	for _, body := range []string{`AS $$ SELECT CASE WHEN pg_catalog.query_to_xml('SELECT public.pwn(''xml'')', true, true, '') IS NOT NULL THEN pg_catalog.octet_length($1) * 8 END $$`,
		`BEGIN ATOMIC SELECT CASE WHEN pg_catalog.query_to_xml('SELECT public.pwn(''xml'')', true, true, '') IS NOT NULL THEN pg_catalog.octet_length($1) * 8 END; END`} {
		clitest.Exec(t, c, `CREATE OR REPLACE FUNCTION pg_catalog.bit_length(text) RETURNS int LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE `+body)
		attack(t, c, "PostgreSQL's own function replaced by SQL calling query_to_xml", 2, "bit_length(text) replaced", run(t, "fourth")...)
	}
	clitest.Exec(t, c, `CREATE OR REPLACE FUNCTION pg_catalog.bit_length(text) RETURNS int LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT pg_catalog.octet_length($1) * 8'`)
	if _, stderr, code := clitest.Run(t, bin, run(t, "fourth", "--schema", "kbpub", "--keep")...); code != 0 {
		t.Fatalf("--keep: exit %d: %s", code, stderr)
	}
	clitest.Exec(t, c, `CREATE PUBLICATION ledger_only FOR TABLE kbpub.keybench_ledger`)
	attack(t, c, "a publication of a kept ledger", 2, "publication ledger_only", run(t, "fourth", "--schema", "kbpub")...)
	clitest.Exec(t, c, `DROP PUBLICATION ledger_only`)
}

// TestHooksAddedDuringTheRounds: a session of the user's keeps trying to
// add a trigger calling their code to keybench's table while a script runs
// its rounds (the re-trial ran 17,046 of its calls in one round). The
// round holds the table, so the trigger waits; one added between rounds is
// found before the next runs anything. Whenever it lands, nothing of the
// user's runs: the run ends (0, or 2 naming the trigger) with no PWNED and
// the user's rows as they were.
func TestHooksAddedDuringTheRounds(t *testing.T) {
	c := plant(t, "during")
	clitest.Exec(t, c, `CREATE FUNCTION public.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM public.pwn('trigger'); RETURN NEW; END $$`)
	hooker := clitest.Superuser(t, "during")
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		tries := 0
		for ctx.Err() == nil {
			tries++
			_, _ = hooker.Exec(ctx, `DO $$ BEGIN IF pg_catalog.to_regclass('kbduring.kb_cell') IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgname = 'audit') THEN
				SET LOCAL lock_timeout = '100ms'; CREATE TRIGGER audit BEFORE INSERT ON kbduring.kb_cell FOR EACH ROW EXECUTE FUNCTION public.trg(); END IF; END $$`)
			time.Sleep(20 * time.Millisecond)
		}
		done <- tries
	}()
	before := servertest.Dump(t, c)
	logFrom := len(servertest.Server.Log())
	_, stderr, code := clitest.Run(t, bin, "run", "--dsn", dsn("during"), "--schema", "kbduring", "--rows", "500", "-c", "2", "--keys", "bigint,uuidv4",
		"--rounds", "4", "-T", "3s", "--warmup", "0s", "--out", t.TempDir(), "--script", script(t, "INSERT INTO :table (data) VALUES (1);\n"))
	stop()
	t.Logf("the user's session tried %d times", <-done)
	if code != 0 && !(code == 2 && strings.Contains(stderr, "trigger audit")) {
		t.Errorf("exit %d: %s", code, clitest.LastLine(stderr))
	}
	if log := servertest.Server.Log()[logFrom:]; strings.Contains(log, "PWNED") {
		t.Errorf("the user's trigger ran:\n%s", grepLines(log, "PWNED"))
	}
	if after := servertest.Dump(t, c); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
