package sqltree_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/sqltree"
)

func TestMain(m *testing.M) { os.Exit(servertest.Main(m, server.Options{})) }

// TestReadTree reads a rewritten tree as PostgreSQL 15 prints it (line
// breaks at spaces, a string holding an escaped brace, a regclass
// constant): every OID of a function, operator, type and relation, and
// the sequence nextval is given.
func TestReadTree(t *testing.T) {
	const tree = `({QUERY :commandType 1 :querySource 0 :canSetTag true :utilityStmt <>
:rtable ({RANGETBLENTRY :alias <> :eref {ALIAS :aliasname t\{x :colnames ("id"
"data")} :rtekind 0 :relid 16386 :relkind r :rellockmode 1}) :jointree {FROMEXPR :fromlist ({RANGETBLREF :rtindex 1}) :quals {OPEXPR :opno 410 :opfuncid 467 :opresulttype 16 :opretset false
:args ({VAR :varno 1 :varattno 1 :vartype 20} {PARAM :paramkind 0 :paramid 1 :paramtype 20})}}
:targetList ({TARGETENTRY :expr {FUNCEXPR :funcid 1574 :funcresulttype 20 :args
({CONST :consttype 2205 :consttypmod -1 :constlen 4 :constbyval true :constisnull false :location 116 :constvalue 4 [ -107 64 0 0 0 0 0 0 ]})
:location 108} :resno 1 :resname next\ val}) :sortClause ({SORTGROUPCLAUSE :tleSortGroupRef 1 :eqop 410 :sortop 413 :nulls_first true})
:rowCompare {ROWCOMPAREEXPR :opnos (o 96 97) :inputcollids (o 0 0)}})`
	r, err := sqltree.ReadTree(tree)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]uint32{"funcs": {467, 1574}, "ops": {96, 97, 410, 413}, "types": {16, 20, 2205}, "rels": {16386}, "sequences": {16533}}
	got := map[string]map[uint32]bool{"funcs": r.Funcs, "ops": r.Ops, "types": r.Types, "rels": r.Rels, "sequences": r.Sequences}
	for k, w := range want {
		if len(got[k]) != len(w) {
			t.Errorf("%s: %v, want %v", k, got[k], w)
		}
		for _, o := range w {
			if !got[k][o] {
				t.Errorf("%s: %v lacks %d", k, got[k], o)
			}
		}
	}
	if len(r.Unknown) != 0 || r.Unbound {
		t.Errorf("unknown %v, unbound %v", r.Unknown, r.Unbound)
	}
	if r, err := sqltree.ReadTree(`{FUNCEXPR :funcid 1574 :args ({VAR :vartype 25})} {NEWTHING :x 1}`); err != nil || !r.Unbound || len(r.Unknown) != 1 {
		t.Errorf("a sequence from a column and an unknown node: %+v %v", r, err)
	}
	for _, bad := range []string{`{QUERY :rtable (`, `{OPEXPR :opno 1`, `)`} {
		if _, err := sqltree.ReadTree(bad); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}

func TestScriptStatement(t *testing.T) {
	for _, c := range []struct {
		sql     string
		control bool
		refuse  string
	}{
		{"INSERT INTO keybench.t (id) VALUES ($1)", false, ""},
		{"WITH x AS (SELECT 1) SELECT * FROM x", false, ""},
		{"MERGE INTO kb.t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE", false, ""},
		{"BEGIN", true, ""},
		{"commit", true, ""},
		{"INSERT INTO keybench.t VALUES (1); DELETE FROM shop.orders", false, "2 statements"},
		{"DO $$ BEGIN PERFORM 1; END $$", false, "not a query"},
		{"COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'", false, "not a query"},
		{"SET search_path = public", false, "not a query"},
		{"SELECT 1 INTO kb.copy", false, "SELECT INTO"},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE", false, "alone"},
		{"SELEC 1", false, "parser"},
	} {
		control, why := sqltree.ScriptStatement(c.sql)
		if control != c.control || (c.refuse == "") != (why == "") || !strings.Contains(why, c.refuse) {
			t.Errorf("%s: control %v, %q; want %v, %q", c.sql, control, why, c.control, c.refuse)
		}
	}
}

func TestNeedsQuoting(t *testing.T) {
	for name, want := range map[string]bool{"keybench": false, "kb_2": false, "action": false, "select": true, "user": true, "Kb": true, "a-b": true, "": true, "2kb": true} {
		if got := sqltree.NeedsQuoting(name); got != want {
			t.Errorf("%q: %v", name, got)
		}
	}
}

// TestJudge: what a script and a copied CHECK may call, as the server
// resolves them, against a real catalog holding a user's function,
// operator, cast, domain, default operator class and sequence — each one
// a way around a guard that reads names.
func TestJudge(t *testing.T) {
	ctx := context.Background()
	admin := servertest.Connect(t)
	for _, s := range []string{
		`DROP SCHEMA IF EXISTS vet_user CASCADE`, `DROP SCHEMA IF EXISTS vet_kb CASCADE`,
		`CREATE SCHEMA vet_user`, `CREATE SCHEMA vet_kb`,
		`CREATE TABLE vet_user.keep (a int)`, `INSERT INTO vet_user.keep VALUES (1), (2), (3)`,
		`CREATE FUNCTION vet_user.purge(int) RETURNS bool LANGUAGE sql AS 'DELETE FROM vet_user.keep; SELECT true'`,
		`CREATE FUNCTION vet_user.purge_eq(int, int) RETURNS bool LANGUAGE sql AS 'DELETE FROM vet_user.keep; SELECT true'`,
		`CREATE FUNCTION vet_user.to_text(bigint) RETURNS text LANGUAGE sql AS 'DELETE FROM vet_user.keep; SELECT ''x'''`,
		`CREATE FUNCTION vet_user.json_cmp(json, json) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 0'`,
		`CREATE OPERATOR vet_user.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = vet_user.purge_eq)`,
		`CREATE DOMAIN vet_user.dom AS int CHECK (vet_user.purge(VALUE))`,
		`CREATE SEQUENCE vet_user.seq`, `CREATE SEQUENCE vet_kb.seq`,
		`CREATE TABLE vet_kb.t (id bigint PRIMARY KEY, data bigint, j json, n text)`,
		`CREATE TABLE vet_kb.keybench_ledger (catalog regclass, objid oid, kind text, name text)`,
		`INSERT INTO vet_kb.keybench_ledger VALUES ('pg_class', 'vet_kb.t'::regclass, 'table', 't'), ('pg_class', 'vet_kb.seq'::regclass, 'sequence', 'seq')`,
		`CREATE TABLE vet_kb.theirs (a int)`,
		`CREATE CAST (bigint AS text) WITH FUNCTION vet_user.to_text(bigint)`,
	} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), `DROP CAST IF EXISTS (bigint AS text); DROP SCHEMA vet_user CASCADE; DROP SCHEMA vet_kb CASCADE`)
	})
	cc, err := pgx.ParseConfig(servertest.Server.ConnString() + " options=-csearch_path=vet_user,public,pg_catalog")
	if err != nil {
		t.Fatal(err)
	}
	sqltree.Pin(cc, "vet_kb")
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var path string
	if err := conn.QueryRow(ctx, "SHOW search_path").Scan(&path); err != nil || path != sqltree.PinnedPath("vet_kb") {
		t.Fatalf("search_path %q (%v): the DSN's options won over the pinned path", path, err)
	}
	res, err := sqltree.NewResolver(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close(ctx)
	at := sqltree.Scope{Schema: "vet_kb", Ledger: "vet_kb.keybench_ledger"}
	cases := []struct {
		sql    string
		refuse string // a part of why it is refused; "" when allowed
	}{
		{`SELECT count(*), lower('A'), now(), random(), gen_random_uuid(), clock_timestamp() FROM vet_kb.t WHERE id = $1`, ""},
		{`INSERT INTO vet_kb.t (id, data) VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET data = excluded.data`, ""},
		{`SELECT nextval('vet_kb.seq'), setval('vet_kb.seq'::regclass, 3)`, ""},
		{`SELECT id, data FROM vet_kb.t ORDER BY data DESC, id LIMIT 5`, ""},
		{`SELECT setval('vet_user.seq', 1)`, "outside keybench's schema"},
		{`SELECT nextval($1)`, "named by a value"},
		{`SELECT pg_terminate_backend(1)`, "acts beyond the session"},
		{`SELECT * FROM table_to_xml('vet_user.keep', true, false, '')`, "reads relations"},
		{`SELECT vet_user.purge(1)`, "not PostgreSQL's own"},
		{`SELECT 1 OPERATOR(vet_user.===) 2`, "not PostgreSQL's own"},
		{`SELECT 1 FROM vet_kb.t WHERE 1 OPERATOR(vet_user.===) ANY (SELECT 1)`, "not PostgreSQL's own"},
		{`SELECT 1::vet_user.dom`, "domain"},
		{`SELECT id::text FROM vet_kb.t`, "vet_user.to_text"},
		{`SELECT t.f FROM vet_kb.t t`, "does not exist"}, // the pinned path does not reach vet_user
		{`SELECT * FROM vet_user.keep`, "outside keybench's schema"},
		{`WITH d AS (DELETE FROM vet_user.keep RETURNING 1) SELECT * FROM d`, "outside keybench's schema"},
		{`DELETE FROM vet_kb.keybench_ledger`, "not one of the tables keybench made"},
		{`INSERT INTO vet_kb.theirs VALUES (1)`, "not one of the tables keybench made"},
		{`SELECT pg_catalog.record_in('(y)'::cstring, 'vet_kb.t'::regtype, -1)`, "by reference"},
		{`SELECT pg_catalog.satisfies_hash_partition('vet_kb.t'::regclass, 2, 0, 1)`, "by reference"},
	}
	for _, s := range []string{`CREATE FUNCTION vet_user.f(vet_kb.t) RETURNS int LANGUAGE sql AS 'DELETE FROM vet_user.keep; SELECT 1'`} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, c := range cases {
		tree, why, err := res.Resolve(ctx, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if why == "" {
			if why, err = sqltree.Judge(ctx, conn, tree, sqltree.Script, at); err != nil {
				t.Fatalf("%s: %v", c.sql, err)
			}
		}
		if c.refuse == "" && why != "" || c.refuse != "" && !strings.Contains(why, c.refuse) {
			t.Errorf("%s: %q, want %q", c.sql, why, c.refuse)
		}
	}
	// A default operator class of the user's on json: what ORDER BY and a
	// comparison of json arrays would reach.
	if _, err := admin.Exec(ctx, `CREATE FUNCTION vet_user.lt(json, json) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT false';
		CREATE FUNCTION vet_user.eq(json, json) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT true';
		CREATE OPERATOR vet_user.< (LEFTARG = json, RIGHTARG = json, FUNCTION = vet_user.lt);
		CREATE OPERATOR vet_user.= (LEFTARG = json, RIGHTARG = json, FUNCTION = vet_user.eq);
		CREATE OPERATOR CLASS vet_user.json_ops DEFAULT FOR TYPE json USING btree AS OPERATOR 1 vet_user.<, OPERATOR 3 vet_user.=, FUNCTION 1 vet_user.json_cmp(json, json)`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`SELECT j FROM vet_kb.t ORDER BY json_build_object('a', id)`, `SELECT ARRAY[j] = ARRAY[j] FROM vet_kb.t`} {
		tree, why, err := res.Resolve(ctx, q)
		if err == nil && why == "" {
			why, err = sqltree.Judge(ctx, conn, tree, sqltree.Script, at)
		}
		if err != nil || why == "" {
			t.Errorf("%s: %q %v: a default operator class of the user's on json was not refused", q, why, err)
		}
	}
	// Copied expressions, as the server stored them.
	if _, err := admin.Exec(ctx, `CREATE TABLE vet_user.shaped (a int CHECK (a >= 0 AND length(a::text) < 9), b int CHECK (vet_user.purge(b)), c timestamptz CHECK (c > now()))`); err != nil {
		t.Fatal(err)
	}
	rows, _ := conn.Query(ctx, `SELECT conbin::text FROM pg_constraint WHERE conrelid = 'vet_user.shaped'::regclass ORDER BY conname`)
	trees, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(trees) != 3 {
		t.Fatalf("%d checks: %v", len(trees), err)
	}
	for i, want := range []string{"", "vet_user.purge", "not immutable"} {
		r, err := sqltree.ReadTree(trees[i])
		if err != nil {
			t.Fatal(err)
		}
		why, err := sqltree.Judge(ctx, conn, r, sqltree.Immutable, sqltree.Scope{})
		if err != nil || (want == "") != (why == "") || !strings.Contains(why, want) {
			t.Errorf("check %d: %q %v, want %q", i, why, err, want)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM vet_user.keep`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("the user's table holds %d rows of 3 after the checks (%v)", n, err)
	}
}

func TestScriptStatementTypes(t *testing.T) {
	for sql, refuse := range map[string]string{
		"SELECT '{x}'::public.pwn_dom[]":            "", // judged by the catalog before the server parses it (JudgeNamedTypes)
		"SELECT '(x)'::app.holder":                  "",
		"SELECT 'x'::public.citext(3)":              "modifier",
		"SELECT 'public.tm(3)'::regtype":            "regtype",
		"SELECT 1::pg_catalog.int8, 'x'::text":      "",
		"SELECT nextval('keybench.s'::regclass)":    "",
		"SELECT CAST(1 AS pg_catalog.regprocedure)": "regprocedure",
	} {
		_, why := sqltree.ScriptStatement(sql)
		if (refuse == "") != (why == "") || !strings.Contains(why, refuse) {
			t.Errorf("%s: %q, want %q", sql, why, refuse)
		}
	}
}
