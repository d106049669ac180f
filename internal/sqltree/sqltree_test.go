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

func TestRefsOf(t *testing.T) {
	tree, err := sqltree.Parse(`WITH x AS (SELECT public.evil(1)) INSERT INTO kb.t (id) SELECT nextval('kb.s'::regclass) FROM generate_series(1, 3) g
		WHERE g OPERATOR(public.===) 2 AND g::public.dom > 0 AND g BETWEEN 1 AND 2 -- lower(x) in a comment is no call`)
	if err != nil {
		t.Fatal(err)
	}
	r := sqltree.RefsOf(tree)
	var calls, ops, types []string
	for _, c := range r.Calls {
		calls = append(calls, c.String())
	}
	for _, o := range r.Ops {
		ops = append(ops, o.String())
	}
	for _, ty := range r.Types {
		types = append(types, ty.String())
	}
	if got := strings.Join(calls, " "); got != "public.evil nextval generate_series" {
		t.Errorf("calls: %s", got)
	}
	if got := strings.Join(ops, " "); got != "public.=== >" {
		t.Errorf("operators: %s", got)
	}
	if got := strings.Join(types, " "); got != "regclass public.dom" {
		t.Errorf("types: %s", got)
	}
	if s, ok := sqltree.StringArg(r.Calls[1], 0); !ok || s != "kb.s" {
		t.Errorf("nextval's argument: %q %v", s, ok)
	}
}

// TestVet: what a script and a copied CHECK may call, against a real
// catalog holding a user's function, operator, domain and sequence.
func TestVet(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, servertest.Server.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range []string{
		`DROP SCHEMA IF EXISTS vet_user CASCADE`, `DROP SCHEMA IF EXISTS vet_kb CASCADE`,
		`CREATE SCHEMA vet_user`, `CREATE SCHEMA vet_kb`,
		`CREATE TABLE vet_user.keep (a int)`, `INSERT INTO vet_user.keep VALUES (1), (2), (3)`,
		`CREATE FUNCTION vet_user.purge(int) RETURNS bool LANGUAGE sql AS 'DELETE FROM vet_user.keep; SELECT true'`,
		`CREATE FUNCTION vet_user.lower(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1'`,
		`CREATE OPERATOR vet_user.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = vet_user.purge_eq)`,
	} {
		if strings.Contains(s, "===") {
			if _, err := conn.Exec(ctx, `CREATE FUNCTION vet_user.purge_eq(int, int) RETURNS bool LANGUAGE sql AS 'DELETE FROM vet_user.keep; SELECT true'`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, s := range []string{`CREATE DOMAIN vet_user.dom AS int CHECK (vet_user.purge(VALUE))`,
		`CREATE SEQUENCE vet_user.seq`, `CREATE SEQUENCE vet_kb.seq`} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), `DROP SCHEMA vet_user CASCADE; DROP SCHEMA vet_kb CASCADE`)
	})
	cases := []struct {
		sql    string
		rule   sqltree.Rule
		refuse string // a part of why it is refused; "" when allowed
		path   string
	}{
		{`SELECT count(*), lower('A'), now(), random(), gen_random_uuid(), clock_timestamp() FROM vet_kb.t WHERE id = $1::uuid`, sqltree.Script, "", ""},
		{`SELECT nextval('vet_kb.seq'), setval('vet_kb.seq'::regclass, 3)`, sqltree.Script, "", ""},
		{`SELECT setval('vet_user.seq', 1)`, sqltree.Script, "outside keybench's schema", ""},
		{`SELECT nextval($1)`, sqltree.Script, "named by a value", ""},
		{`SELECT pg_terminate_backend(1)`, sqltree.Script, "acts beyond the session", ""},
		{`SELECT * FROM table_to_xml('vet_user.keep', true, false, '')`, sqltree.Script, "reads relations", ""},
		{`SELECT vet_user.purge(1)`, sqltree.Script, "not PostgreSQL's own", ""},
		{`SELECT purge(1)`, sqltree.Script, "not PostgreSQL's own", "vet_user"},
		{`SELECT purge(1)`, sqltree.Script, "does not have", ""},
		{`SELECT lower('x')`, sqltree.Script, "vet_user.lower(integer)", "vet_user"},
		{`SELECT 1 OPERATOR(vet_user.===) 2`, sqltree.Script, "not PostgreSQL's own", ""},
		{`SELECT 1 === 2`, sqltree.Script, "not PostgreSQL's own", "vet_user"},
		{`SELECT 1::vet_user.dom`, sqltree.Script, "not PostgreSQL's own", ""},
		{`SELECT 1::int + '2'::bigint, 'x'::varchar(3), 2::double precision`, sqltree.Script, "", "vet_user"},
		{`SELECT (amount >= 0 AND lower(note) <> '' AND length(note) < 100)`, sqltree.Immutable, "", ""},
		{`SELECT (random() < 2)`, sqltree.Immutable, "not immutable", ""},
		{`SELECT (now() > '2020-01-01')`, sqltree.Immutable, "not immutable", ""},
		{`SELECT vet_user.purge(a)`, sqltree.Immutable, "not PostgreSQL's own", ""},
	}
	for _, c := range cases {
		path := "public"
		if c.path != "" {
			path = c.path + ", public"
		}
		if _, err := conn.Exec(ctx, "SET search_path = "+path); err != nil {
			t.Fatal(err)
		}
		tree, err := sqltree.Parse(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		why, err := sqltree.Vet(ctx, conn, sqltree.RefsOf(tree), c.rule, "vet_kb")
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if c.refuse == "" && why != "" || c.refuse != "" && !strings.Contains(why, c.refuse) {
			t.Errorf("%s (path %s): %q, want %q", c.sql, path, why, c.refuse)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM vet_user.keep`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("the user's table holds %d rows of 3 after the checks (%v)", n, err)
	}
}
