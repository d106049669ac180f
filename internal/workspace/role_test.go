package workspace_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/workspace"
)

// TestScriptRole is the second wall behind a script's vetting: its
// clients run as a role made for the run that may use keybench's schema
// and what the ledger records there, and nothing of the user's; clean-up
// drops it. Made by a superuser and by a role with CREATEROLE alone; a
// role with neither makes none and says why.
func TestScriptRole(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	exec(t, c, "DROP SCHEMA IF EXISTS kbrole CASCADE", "DROP SCHEMA IF EXISTS shoprole CASCADE",
		"DROP ROLE IF EXISTS kb_maker", "DROP ROLE IF EXISTS kb_plain",
		"CREATE SCHEMA shoprole", "CREATE TABLE shoprole.orders AS SELECT i FROM generate_series(1, 10) i",
		"GRANT USAGE ON SCHEMA shoprole TO PUBLIC",
		"CREATE ROLE kb_maker LOGIN CREATEROLE", "CREATE ROLE kb_plain LOGIN",
		"GRANT CREATE ON DATABASE "+pgx.Identifier{databaseOf(t, c)}.Sanitize()+" TO kb_maker, kb_plain",
		"GRANT SELECT ON shoprole.orders TO kb_maker, kb_plain")
	t.Cleanup(func() {
		exec(t, c, "DROP SCHEMA IF EXISTS kbrole CASCADE", "DROP SCHEMA shoprole CASCADE")
		exec(t, c, "REVOKE ALL ON DATABASE "+pgx.Identifier{databaseOf(t, c)}.Sanitize()+" FROM kb_maker, kb_plain", "DROP ROLE kb_maker", "DROP ROLE kb_plain")
	})
	for _, user := range []string{"", "kb_maker"} {
		cc := connConfig(t)
		if user != "" {
			cc.User = user
		}
		uc, err := pgx.ConnectConfig(ctx, cc)
		if err != nil {
			t.Fatal(err)
		}
		w, err := workspace.Open(ctx, uc, workspace.Options{Schema: "kbrole", RunID: "r" + user})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Create(ctx, uc, cell("kbrole", "kb_cell")...); err != nil {
			t.Fatal(err)
		}
		role, why, err := w.ScriptRole(ctx, uc)
		if err != nil || why != "" || role == "" {
			t.Fatalf("%q: the script's role: %q %q %v", user, role, why, err)
		}
		if err := w.GrantScript(ctx, uc, role); err != nil {
			t.Fatal(err)
		}
		// A client's session, as the runner makes it.
		sc, err := pgx.ConnectConfig(ctx, cc)
		if err != nil {
			t.Fatal(err)
		}
		exec(t, sc, "SET ROLE "+pgx.Identifier{role}.Sanitize(),
			"INSERT INTO kbrole.kb_cell (data, payload) VALUES (1, 'x')",
			"SELECT nextval('kbrole.kb_cell_kbseq'), kbrole.kb_seq_uuid(1, 2, 3)",
			"UPDATE kbrole.kb_cell SET data = 2", "DELETE FROM kbrole.kb_cell")
		for _, q := range []string{"SELECT count(*) FROM shoprole.orders", "DELETE FROM shoprole.orders",
			"SELECT count(*) FROM kbrole." + workspace.LedgerTable, "CREATE TABLE kbrole.mine (i int)", "CREATE TABLE shoprole.mine (i int)"} {
			if _, err := sc.Exec(ctx, q); err == nil || !strings.Contains(err.Error(), "permission denied") {
				t.Errorf("%q: as the script's role, %s: %v", user, q, err)
			}
		}
		sc.Close(ctx)
		if user == "" {
			// Someone grants the role what is theirs while it exists: its
			// rights go at clean-up, the role with them.
			exec(t, c, "GRANT SELECT ON shoprole.orders TO "+pgx.Identifier{role}.Sanitize(), "GRANT USAGE ON SCHEMA shoprole TO "+pgx.Identifier{role}.Sanitize())
		}
		exec(t, uc, "SELECT pg_advisory_unlock_all()")
		if left := w.CleanUp(cc, t.Logf); left != nil {
			t.Errorf("%q: left: %v", user, left)
		}
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = $1", role).Scan(&n); err != nil || n != 0 {
			t.Errorf("%q: role %s left (%d, %v)", user, role, n, err)
		}
		uc.Close(ctx)
	}
	// A role that may not create one: none, and why.
	cc := connConfig(t)
	cc.User = "kb_plain"
	pc, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	w, err := workspace.Open(ctx, pc, workspace.Options{Schema: "kbrole", RunID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if role, why, err := w.ScriptRole(ctx, pc); err != nil || role != "" || !strings.Contains(why, "CREATEROLE") {
		t.Errorf("a role without CREATEROLE: %q %q %v", role, why, err)
	}
	exec(t, pc, "SELECT pg_advisory_unlock_all()")
	w.CleanUp(cc, t.Logf)
	var orders int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM shoprole.orders").Scan(&orders); err != nil || orders != 10 {
		t.Errorf("the user's rows: %d, %v", orders, err)
	}
}

// databaseOf is the database c is connected to.
func databaseOf(t *testing.T, c *pgx.Conn) string {
	t.Helper()
	var db string
	if err := c.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestJudgeAfterCreation: a trigger someone adds to keybench's table after
// it was made (while the rounds run) is found by Judge, which a run calls
// before and after each round.
func TestJudgeAfterCreation(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	exec(t, c, "DROP SCHEMA IF EXISTS kbjudge CASCADE")
	w, err := workspace.Open(ctx, c, workspace.Options{Schema: "kbjudge", RunID: "j"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { exec(t, c, "SELECT pg_advisory_unlock_all()"); w.CleanUp(connConfig(t), t.Logf) }()
	if err := w.Create(ctx, c, cell("kbjudge", "kb_cell")...); err != nil {
		t.Fatal(err)
	}
	if err := w.Judge(ctx, c, "kb_cell"); err != nil {
		t.Fatalf("a table as keybench made it: %v", err)
	}
	exec(t, c, "CREATE FUNCTION kbjudge_trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
		"CREATE TRIGGER audit BEFORE INSERT ON kbjudge.kb_cell FOR EACH ROW EXECUTE FUNCTION kbjudge_trg()")
	defer exec(t, c, "DROP TRIGGER IF EXISTS audit ON kbjudge.kb_cell", "DROP FUNCTION kbjudge_trg()")
	if err := w.Judge(ctx, c, "kb_cell"); !isUsage(err) || !strings.Contains(err.Error(), "trigger audit") {
		t.Errorf("a trigger added after: %v", err)
	}
	// A statistics object: ANALYZE would compute its expression.
	exec(t, c, "DROP TRIGGER audit ON kbjudge.kb_cell", "CREATE STATISTICS kbjudge_st ON (data + 1) FROM kbjudge.kb_cell")
	if err := w.Judge(ctx, c, "kb_cell"); !isUsage(err) || !strings.Contains(err.Error(), "statistics object kbjudge_st") {
		t.Errorf("a statistics object added after: %v", err)
	}
	exec(t, c, "DROP STATISTICS kbjudge_st")
}
