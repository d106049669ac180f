package onyourserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/cli/clitest"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server/servertest"
)

// TestOtherPeoplesServer runs every preset as a role with only CREATE on
// one database, and compares a dump of that database before and after.
func TestOtherPeoplesServer(t *testing.T) {
	dsn := clitest.RestrictedDB(t, "appdb", "kbuser", "Role-pw-7f3a")
	app := clitest.Superuser(t, "appdb")
	before := servertest.Dump(t, app)
	var presets []string
	for _, s := range scenario.All() {
		// A preset of caches of its own restarts the embedded server at
		// each: on someone else's server it is refused in one line.
		if s.Source != "" && len(s.Defaults.Caches) == 0 {
			presets = append(presets, s.Name)
		}
	}
	// The user's own SQL (issue 40) runs in keybench's schema too.
	presets = append(presets, "script")
	for _, preset := range presets {
		out := t.TempDir()
		args := []string{"run", preset, "--quick", "--dsn", dsn, "--out", out, "-c", "2", "--rows", "2000", "-T", "1s", "--warmup", "0s"}
		if preset == "script" {
			args = append(args, "--script", clitest.WriteFile(t, "INSERT INTO :table (id, data, payload) VALUES (:key, 1, 'x');\nSELECT id FROM :table WHERE id = :key;\n"))
		}
		stdout, stderr, code := keybench(t, args...)
		if preset == "bulk" || preset == "queue" {
			out = t.TempDir()
			stdout, stderr, code = keybench(t, "run", preset, "--quick", "--dsn", dsn, "--out", out, "--rows", "20000")
		}
		if code != 0 {
			t.Errorf("%s: exit %d\n%s\n%s", preset, code, stdout, stderr)
			continue
		}
		var r struct {
			Notes    []string `json:"notes"`
			Warnings []string `json:"warnings"`
			Cells    []struct {
				Metrics map[string]any `json:"metrics"`
			} `json:"cells"`
		}
		b, _ := os.ReadFile(filepath.Join(out, "results.json"))
		json.Unmarshal(b, &r)
		// A role without CREATEROLE makes no role for the script: said.
		if preset == "script" && !strings.Contains(strings.Join(r.Warnings, "\n"), "may not create roles") {
			t.Errorf("script: no warning that the script ran as --dsn's role: %q", r.Warnings)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "may not run CHECKPOINT") {
			t.Errorf("%s: no note that the role may not checkpoint: %q", preset, r.Notes)
		}
		// Every cell says what it measured of splits and blocks, or why not.
		for i, c := range r.Cells {
			for _, name := range []string{"btree_splits_per_row", "blocks_per_txn"} {
				if c.Metrics[name] == nil {
					t.Errorf("%s cell %d: no %s", preset, i, name)
				}
			}
		}
		unavailable := map[string]string{}
		for name, v := range r.Cells[0].Metrics {
			if m, ok := v.(map[string]any); ok && m["unavailable"] != nil {
				unavailable[name] = fmt.Sprint(m["unavailable"])
			}
		}
		// Without superuser rights the extensions cannot be created: their collectors say so.
		if !strings.Contains(unavailable["buffercache"], "could not be created") || !strings.Contains(unavailable["wal_fpi_by_relation"], "could not be created") {
			t.Errorf("%s: unavailable metrics %v", preset, unavailable)
		}
		t.Logf("%s: %d cells; unavailable: %v", preset, len(r.Cells), keysOf(unavailable))
	}
	if after := servertest.Dump(t, app); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// A schema keybench did not create is refused, --force or not (public
	// holds a table named like keybench's).
	for _, schema := range []string{"theirs", "public"} {
		for _, force := range []string{"--rows=0", "--force"} {
			_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", schema, force, "--out", t.TempDir(), "-T", "1s", "--rows", "0")
			if code != 2 || !strings.Contains(stderr, "was not created by keybench") {
				t.Errorf("foreign schema %s (%s): exit %d: %s", schema, force, code, stderr)
			}
		}
	}
	// --keep leaves keybench's schema; the next run reuses it and drops it.
	keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kb_kept", "--keep", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	var n int
	app.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname = 'kb_kept'").Scan(&n)
	if n != 1 {
		t.Error("--keep did not keep the schema")
	}
	keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kb_kept", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	if after := servertest.Dump(t, app); after != before {
		t.Errorf("the database changed after --force and --keep runs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestSecretsNeverAppear gives the role's password in the DSN, in
// PGPASSWORD and in ~/.pgpass, and searches every output for it; also when
// the connection fails. (Its windows are 3 s: a 1-s window in which a busy
// machine's server answered nothing failed a run in CI.)
func TestSecretsNeverAppear(t *testing.T) {
	const password = "Zq9-secret-Wx4"
	dsn := clitest.RestrictedDB(t, "secretdb", "kbsecret", password)
	u, _ := url.Parse(dsn)
	noPass := *u
	noPass.User = url.User(u.User.Username())
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".pgpass"), []byte(fmt.Sprintf("%s:%s:secretdb:kbsecret:%s\n", u.Hostname(), u.Port(), password)), 0o600); err != nil {
		t.Fatal(err)
	}
	wrong := *u
	wrong.User = url.UserPassword(u.User.Username(), password+"-wrong")
	refused := *u
	refused.Host = "127.0.0.1:1"
	for _, tc := range []struct {
		name string
		dsn  string
		env  []string
		code int
	}{
		{"password in the DSN URL", dsn, nil, 0},
		{"password in a key=value DSN", fmt.Sprintf("host=%s port=%s dbname=secretdb user=kbsecret password=%s", u.Hostname(), u.Port(), password), nil, 0},
		{"PGPASSWORD", noPass.String(), []string{"PGPASSWORD=" + password}, 0},
		{".pgpass", noPass.String(), []string{"HOME=" + home}, 0},
		// The user's DSN pointing nowhere, or a wrong password: their input (exit 2, as for advise: issue 35).
		{"wrong password", wrong.String(), nil, 2},
		{"connection refused", refused.String(), nil, 2},
	} {
		out := t.TempDir()
		cmd := exec.Command(bin, "run", "war", "--quick", "--verbose", "--keys", "bigint,uuidv4", "--dsn", tc.dsn, "--out", out, "-T", "3s", "--rows", "2000")
		cmd.Env = append(os.Environ(), tc.env...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code, _ := clitest.ExitOf(func() *exec.Cmd { cmd.Start(); return cmd }(), time.Now())
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d: %s", tc.name, code, tc.code, clitest.LastLine(stderr.String()))
		}
		outputs := clitest.Outputs(stdout.String(), stderr.String(), out)
		for name, text := range outputs {
			if strings.Contains(text, password) {
				t.Errorf("%s: the password appears in %s", tc.name, name)
			}
		}
		if tc.code == 0 && len(outputs) < 5 { // stdout, stderr and the files
			t.Errorf("%s: outputs %v, want results.json, samples.csv and report.html beside stdout and stderr", tc.name, keysOf(outputs))
		}
		t.Logf("%s: exit %d, searched %d outputs", tc.name, code, len(outputs))
	}
}

// TestKeptSchemaKeepsTheUsersObjects is failure 1 of issue 10: a schema kept
// with --keep, in which the user then made a table and (in public) a view on
// it, was dropped with CASCADE by the next run. Now the next run refuses
// the schema; with --force it drops only keybench's own objects.
func TestKeptSchemaKeepsTheUsersObjects(t *testing.T) {
	dsn := clitest.RestrictedDB(t, "keepdb", "kbkeeper", "Keep-pw-31")
	app := clitest.Superuser(t, "keepdb")
	if _, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbkeep", "--keep", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint"); code != 0 {
		t.Fatalf("--keep run: exit %d: %s", code, stderr)
	}
	clitest.Exec(t, app, "GRANT USAGE, CREATE ON SCHEMA public TO kbkeeper")
	user := clitest.ConnectAs(t, dsn)
	clitest.Exec(t, user, "CREATE TABLE kbkeep.userdata AS SELECT i, md5(i::text) AS v FROM generate_series(1, 100) i",
		"CREATE VIEW public.userview AS SELECT * FROM kbkeep.userdata")
	before := servertest.Dump(t, app)
	_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbkeep", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	if code != 2 || len(clitest.ErrorLines(stderr)) != 1 || !strings.Contains(stderr, "userdata") {
		t.Errorf("a kept schema holding the user's table: exit %d: %s", code, stderr)
	}
	if after := servertest.Dump(t, app); after != before {
		t.Errorf("the refused run changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbkeep", "--force", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint,seq-uuid-time:gen=server"); code != 0 {
		t.Fatalf("--force beside the user's objects: exit %d: %s", code, stderr)
	}
	var n int
	if err := app.QueryRow(context.Background(), "SELECT count(*) FROM public.userview").Scan(&n); err != nil || n != 100 {
		t.Errorf("the user's view after --force: %d rows, %v", n, err)
	}
	left := servertest.Dump(t, app)
	for _, l := range strings.Split(left, "\n") {
		if strings.Contains(l, "kbkeep") && (strings.Contains(l, "kb_cell") || strings.Contains(l, "kb_seq_uuid") || strings.HasPrefix(l, "extension ")) {
			t.Errorf("keybench's object left after --force: %s", l)
		}
	}
}

// TestForceNeverDropsTheUsersTables is issue 24's data loss, as the
// hostile trial reproduced it: with --force in a schema of the user's,
// keybench dropped kb_cells and kb_cellar (they matched LIKE 'kb_cell%');
// in a schema it had kept, it took the user's kb_cell_archive for its own
// and dropped it, and the schema after it; and a script's checks took
// everything in --schema for keybench's. Now a schema keybench did not
// create is refused, --force or not; in one it kept, every object of the
// user's survives with its rows, whatever its name, and a name keybench
// needs that the user holds is a refusal.
func TestForceNeverDropsTheUsersTables(t *testing.T) {
	dsn := clitest.RestrictedDB(t, "lossdb", "kbloss", "Loss-pw-24")
	app := clitest.Superuser(t, "lossdb")
	clitest.Exec(t, app, "CREATE SCHEMA app2", "GRANT USAGE, CREATE ON SCHEMA app2 TO kbloss")
	owner := clitest.ConnectAs(t, dsn)
	clitest.Exec(t, owner, "CREATE TABLE app2.kb_cells AS SELECT i, md5(i::text) AS v FROM generate_series(1, 100) i")
	before := servertest.Dump(t, app)
	if _, stderr, code := keybench(t, "run", "insert", "--rows", "1000", "-T", "2s", "-c", "2", "--keys", "bigint,uuidv4",
		"--dsn", dsn, "--schema", "app2", "--force", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "not created by keybench") {
		t.Fatalf("--force in the user's schema: exit %d: %s", code, stderr)
	}
	if after := servertest.Dump(t, app); after != before {
		t.Fatalf("the user's schema changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// --keep, then the user's kb_cell_archive in keybench's schema: the rerun
	// is refused naming it (and kb_cells beside it); --force drops only keybench's.
	if _, stderr, code := keybench(t, "run", "insert", "--rows", "1000", "-T", "1s", "--keys", "bigint", "--dsn", dsn, "--schema", "kbk", "--keep", "--out", t.TempDir()); code != 0 {
		t.Fatalf("--keep: exit %d: %s", code, stderr)
	}
	user := clitest.ConnectAs(t, dsn)
	clitest.Exec(t, user, "CREATE TABLE kbk.kb_cell_archive AS SELECT i FROM generate_series(1, 50) i", "CREATE TABLE kbk.kb_cells AS SELECT i FROM generate_series(1, 60) i")
	kept := servertest.Dump(t, app)
	_, stderr, code := keybench(t, "run", "insert", "--rows", "1000", "-T", "1s", "--keys", "bigint", "--dsn", dsn, "--schema", "kbk", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "kb_cell_archive") || !strings.Contains(stderr, "kb_cells") {
		t.Errorf("a kept schema holding the user's tables: exit %d: %s", code, stderr)
	}
	if after := servertest.Dump(t, app); after != kept {
		t.Errorf("the refused run changed the database")
	}
	_, stderr, code = keybench(t, "run", "insert", "--rows", "1000", "-T", "1s", "--keys", "bigint", "--dsn", dsn, "--schema", "kbk", "--force", "--out", t.TempDir())
	if code != 0 || strings.Contains(stderr, "DROP TABLE kbk.kb_cell_archive") || strings.Contains(stderr, "DROP TABLE kbk.kb_cells") {
		t.Errorf("--force in the kept schema: exit %d: %s", code, stderr)
	}
	// Names the user holds in the kept schema: kb_cell2 (a second key in
	// rounds), kb_seq_uuid (a server-made sequential uuid): refused, nothing made.
	clitest.Exec(t, user, "CREATE TABLE kbk.kb_cell2 AS SELECT i FROM generate_series(1, 10) i",
		"CREATE FUNCTION kbk.kb_seq_uuid(a bigint, b bigint, c bigint) RETURNS uuid LANGUAGE sql AS 'SELECT gen_random_uuid()'")
	kept = servertest.Dump(t, app)
	for _, args := range [][]string{{"--keys", "bigint,uuidv4", "--rounds", "2"}, {"--keys", "seq-uuid-time:gen=server"}} {
		_, stderr, code := keybench(t, append([]string{"run", "insert", "--rows", "1000", "-T", "2s", "-c", "2", "--dsn", dsn, "--schema", "kbk", "--force", "--out", t.TempDir()}, args...)...)
		if code != 2 || len(clitest.ErrorLines(stderr)) != 1 || !strings.Contains(stderr, "did not create") && !strings.Contains(stderr, "holds code of someone else's") {
			t.Errorf("%v over the user's names: exit %d: %s", args, code, stderr)
		}
	}
	if after := servertest.Dump(t, app); after != kept {
		t.Errorf("a refused run changed the kept schema:\nbefore:\n%s\nafter:\n%s", kept, after)
	}
	for tb, rows := range map[string]int{"kb_cell_archive": 50, "kb_cells": 60} {
		var n int
		if err := app.QueryRow(context.Background(), "SELECT count(*) FROM kbk."+tb).Scan(&n); err != nil || n != rows {
			t.Errorf("%s after --force: %d rows, %v", tb, n, err)
		}
	}
}
