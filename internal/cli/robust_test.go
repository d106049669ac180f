package cli_test

// Robustness and safety, as a user meets them: faults in the middle of a
// run, other people's servers, and secrets. Each test runs the keybench
// binary; the package's own server (servertest) plays someone else's server.

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
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/testenv"
)

type savedResults struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Cells  []struct {
		Key      string `json:"key"`
		Workload string `json:"workload"`
		Status   string `json:"status"`
		Error    string `json:"error"`
	} `json:"cells"`
}

func readResults(t *testing.T, out string) savedResults {
	t.Helper()
	var r savedResults
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("results.json: %v", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("results.json is not valid JSON: %v\n%s", err, b)
	}
	return r
}

// exitOf waits for cmd and returns its exit code and how long that took from start.
func exitOf(cmd *exec.Cmd, start time.Time) (int, time.Duration) {
	err := cmd.Wait()
	took := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), took
	}
	if err != nil {
		return -1, took
	}
	return 0, took
}

// errorLines are the "keybench: " lines of stderr.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "keybench: ") {
			out = append(out, l)
		}
	}
	return out
}

func TestPostmasterKilledMidCell(t *testing.T) {
	out := t.TempDir()
	var stderr strings.Builder
	cmd := exec.Command(bin, "run", "insert", "--out", out, "--keys", "bigint,uuidv4,uuidv7", "-T", "4s", "--warmup", "0s", "-c", "2", "--rows", "0")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitCells(t, out, 1)
	time.Sleep(1500 * time.Millisecond) // into the second cell's window
	servers := postgresChildren(cmd.Process.Pid)
	if len(servers) != 1 {
		t.Fatalf("postmasters: %v", servers)
	}
	start := time.Now()
	syscall.Kill(servers[0], syscall.SIGKILL)
	code, took := exitOf(cmd, start)
	t.Logf("exit %d %s after the postmaster was killed; stderr: %s", code, took.Round(time.Millisecond), lastLine(stderr.String()))
	if code != 1 {
		t.Errorf("exit %d after %s, want 1", code, took)
	}
	if el := errorLines(stderr.String()); len(el) != 1 || !strings.Contains(el[0], "server exited") {
		t.Errorf("error lines %q", el)
	}
	r := readResults(t, out)
	if r.Status != "failed" || len(r.Cells) != 2 || r.Cells[0].Status != "ok" || r.Cells[1].Status != "failed" || r.Cells[1].Error == "" {
		t.Errorf("results: %+v", r)
	}
}

func TestSIGTERMKeepsResultsAndStopsTheServer(t *testing.T) {
	out := t.TempDir()
	cmd := startRun(t, out, 1, "insert", "--keys", "bigint,uuidv4,uuidv7", "-T", "2s", "--warmup", "0s", "-c", "2", "--rows", "0")
	servers := postgresChildren(cmd.Process.Pid)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	code, took := exitOf(cmd, start)
	t.Logf("exit %d %s after SIGTERM", code, took.Round(time.Millisecond))
	if code != 130 {
		t.Errorf("exit %d after %s, want 130", code, took)
	}
	if r := readResults(t, out); r.Status != "interrupted" || len(r.Cells) == 0 || r.Cells[0].Status != "ok" {
		t.Errorf("results after SIGTERM: %+v", r)
	}
	for _, p := range servers {
		if alive(p) {
			t.Errorf("postgres %d outlived keybench", p)
		}
	}
}

func waitCells(t *testing.T, out string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var r savedResults
		if b, err := os.ReadFile(filepath.Join(out, "results.json")); err == nil && json.Unmarshal(b, &r) == nil && len(r.Cells) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the run did not reach %d cells", n)
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

// superuser connects to the package's server as its superuser.
func superuser(t *testing.T, db string) *pgx.Conn {
	t.Helper()
	u, _ := url.Parse(servertest.Server.TCPURL())
	u.Path = "/" + db
	c, err := pgx.Connect(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec1(t *testing.T, c *pgx.Conn, sql ...string) {
	t.Helper()
	for _, s := range sql {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestTerminatedClient terminates one client's backend in the middle of the
// first cell, as a DBA of someone else's server might: the cell fails with
// the server's message, and the run stops or goes on as --on-error says.
func TestTerminatedClient(t *testing.T) {
	dsn := servertest.Server.TCPURL()
	admin := superuser(t, "postgres")
	for _, onError := range []string{"stop", "continue"} {
		out := t.TempDir()
		var stderr strings.Builder
		cmd := exec.Command(bin, "run", "insert", "--dsn", dsn, "--schema", "kb_term_"+onError, "--out", out, "--on-error", onError,
			"--keys", "bigint,uuidv7", "-T", "3s", "--warmup", "0s", "-c", "3", "--rows", "0")
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var killed int
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && killed == 0; time.Sleep(100 * time.Millisecond) {
			_ = admin.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity
				WHERE application_name LIKE 'keybench client%' AND state IS NOT NULL ORDER BY pid LIMIT 1) s`).Scan(&killed)
		}
		code, _ := exitOf(cmd, time.Now())
		r := readResults(t, out)
		t.Logf("--on-error %s: exit %d, %d cells, first cell %s: %s", onError, code, len(r.Cells), r.Cells[0].Status, r.Cells[0].Error)
		if killed != 1 || code != 1 || len(r.Cells) == 0 || r.Cells[0].Status != "failed" || !strings.Contains(r.Cells[0].Error, "terminating connection") {
			t.Errorf("--on-error %s: terminated %d, exit %d, results %+v", onError, killed, code, r)
			continue
		}
		if want := map[string]int{"stop": 1, "continue": 2}[onError]; len(r.Cells) != want || r.Status != "failed" {
			t.Errorf("--on-error %s: %d cells (want %d), status %s", onError, len(r.Cells), want, r.Status)
		}
		if onError == "continue" && r.Cells[1].Status != "ok" {
			t.Errorf("the cell after the failed one: %+v", r.Cells[1])
		}
		if el := errorLines(stderr.String()); len(el) != 1 {
			t.Errorf("error lines %q", el)
		}
	}
}

// TestDiskFullDuringPrefill puts the embedded server's data directory on a
// small filesystem (TMPDIR on a 80 MB tmpfs) and prefills more than fits.
func TestDiskFullDuringPrefill(t *testing.T) {
	small, err := os.MkdirTemp("", "keybench-small-*") // traversable by the server's user, unlike t.TempDir
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(small)
	if err := syscall.Mount("tmpfs", small, "tmpfs", 0, "size=80m,mode=1777"); err != nil {
		testenv.Skip(t, "cannot mount a small filesystem here (needs root): %v", err)
	}
	defer syscall.Unmount(small, syscall.MNT_DETACH)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "insert", "--out", out, "--keys", "bigint,uuidv4", "--rows", "2000000", "-T", "1s")
	cmd.Env = append(os.Environ(), "TMPDIR="+small)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code, took := exitOf(cmd, start)
	el := errorLines(stderr.String())
	t.Logf("exit %d after %s: %q", code, took.Round(time.Millisecond), el)
	if code != 1 || len(el) != 1 || !strings.Contains(el[0], "No space left on device") {
		t.Errorf("exit %d, error lines %q", code, el)
	}
	r := readResults(t, out)
	if r.Status != "failed" || len(r.Cells) != 1 || r.Cells[0].Status != "failed" || !strings.Contains(r.Cells[0].Error, "No space left on device") {
		t.Errorf("results: %+v", r)
	}
	leftovers, _ := filepath.Glob(filepath.Join(out, "*.tmp"))
	entries, _ := os.ReadDir(small)
	if len(leftovers) > 0 || len(entries) > 0 {
		t.Errorf("left behind: %v in the results, %d entries on the small filesystem", leftovers, len(entries))
	}
}

// catalogDump is servertest.Dump: the database's catalog and contents.
func catalogDump(t *testing.T, c *pgx.Conn) string { t.Helper(); return servertest.Dump(t, c) }

// restrictedDB makes a database of "someone else's": a role with only
// CREATE on it and no superuser rights, and a schema of the owner's with a
// table of data in it. It returns the role's DSN (password in it).
func restrictedDB(t *testing.T, db, role, password string) string {
	t.Helper()
	admin := superuser(t, "postgres")
	exec1(t, admin, "DROP DATABASE IF EXISTS "+db, "CREATE DATABASE "+db, fmt.Sprintf("DROP ROLE IF EXISTS %s", role),
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' NOSUPERUSER NOCREATEDB NOCREATEROLE", role, password),
		fmt.Sprintf("GRANT CREATE ON DATABASE %s TO %s", db, role))
	app := superuser(t, db)
	exec1(t, app, "CREATE SCHEMA app", "CREATE TABLE app.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text)",
		"INSERT INTO app.orders (note) SELECT 'order ' || i FROM generate_series(1, 1000) i",
		"CREATE TABLE public.kb_cell (x int)", "INSERT INTO public.kb_cell VALUES (42)",
		"CREATE SCHEMA theirs", "COMMENT ON SCHEMA theirs IS 'not keybench''s'", "GRANT USAGE, CREATE ON SCHEMA theirs, public TO "+role,
		"CREATE TABLE theirs.keep_me (x int)", "INSERT INTO theirs.keep_me VALUES (1), (2)")
	u, _ := url.Parse(servertest.Server.TCPURL())
	u.User, u.Path = url.UserPassword(role, password), "/"+db
	return u.String()
}

// TestOtherPeoplesServer runs every preset as a role with only CREATE on
// one database, and compares a dump of that database before and after.
func TestOtherPeoplesServer(t *testing.T) {
	dsn := restrictedDB(t, "appdb", "kbuser", "Role-pw-7f3a")
	app := superuser(t, "appdb")
	before := catalogDump(t, app)
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
			args = append(args, "--script", writeFile(t, "INSERT INTO :table (id, data, payload) VALUES (:key, 1, 'x');\nSELECT id FROM :table WHERE id = :key;\n"))
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
			Notes []string `json:"notes"`
			Cells []struct {
				Metrics map[string]any `json:"metrics"`
			} `json:"cells"`
		}
		b, _ := os.ReadFile(filepath.Join(out, "results.json"))
		json.Unmarshal(b, &r)
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
	if after := catalogDump(t, app); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// A schema keybench did not create is refused, unless --force, which
	// works in it and leaves it as it was.
	_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "theirs", "--out", t.TempDir(), "-T", "1s", "--rows", "0")
	if code != 2 || !strings.Contains(stderr, "was not created by keybench") {
		t.Errorf("foreign schema: exit %d: %s", code, stderr)
	}
	if _, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "theirs", "--force", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint,seq-uuid-time:gen=server"); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
	// public holds a table named like keybench's: even --force refuses to touch it.
	if _, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "public", "--force", "--out", t.TempDir(), "-T", "1s"); code != 2 || !strings.Contains(stderr, "kb_cell") {
		t.Errorf("--force over a kb_cell of theirs: exit %d: %s", code, stderr)
	}
	// --keep leaves keybench's schema; the next run reuses it and drops it.
	keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kb_kept", "--keep", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	var n int
	app.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname = 'kb_kept'").Scan(&n)
	if n != 1 {
		t.Error("--keep did not keep the schema")
	}
	keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kb_kept", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	if after := catalogDump(t, app); after != before {
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
// the connection fails.
func TestSecretsNeverAppear(t *testing.T) {
	const password = "Zq9-secret-Wx4"
	dsn := restrictedDB(t, "secretdb", "kbsecret", password)
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
		cmd := exec.Command(bin, "run", "war", "--quick", "--verbose", "--keys", "bigint,uuidv4", "--dsn", tc.dsn, "--out", out, "-T", "1s", "--rows", "2000")
		cmd.Env = append(os.Environ(), tc.env...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code, _ := exitOf(func() *exec.Cmd { cmd.Start(); return cmd }(), time.Now())
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d: %s", tc.name, code, tc.code, lastLine(stderr.String()))
		}
		outputs := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
		files, _ := filepath.Glob(filepath.Join(out, "*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			outputs[filepath.Base(f)] = string(b)
		}
		for name, text := range outputs {
			if strings.Contains(text, password) {
				t.Errorf("%s: the password appears in %s", tc.name, name)
			}
		}
		if tc.code == 0 && len(files) < 3 {
			t.Errorf("%s: outputs %v, want results.json, samples.csv and report.html", tc.name, files)
		}
		t.Logf("%s: exit %d, searched %d outputs", tc.name, code, len(outputs))
	}
}

// TestKeptSchemaKeepsTheUsersObjects is failure 1 of issue 10: a schema kept
// with --keep, in which the user then made a table and (in public) a view on
// it, was dropped with CASCADE by the next run. Now the next run refuses
// the schema; with --force it drops only keybench's own objects.
func TestKeptSchemaKeepsTheUsersObjects(t *testing.T) {
	dsn := restrictedDB(t, "keepdb", "kbkeeper", "Keep-pw-31")
	app := superuser(t, "keepdb")
	if _, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbkeep", "--keep", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint"); code != 0 {
		t.Fatalf("--keep run: exit %d: %s", code, stderr)
	}
	exec1(t, app, "GRANT USAGE, CREATE ON SCHEMA public TO kbkeeper")
	user := connectAs(t, dsn)
	exec1(t, user, "CREATE TABLE kbkeep.userdata AS SELECT i, md5(i::text) AS v FROM generate_series(1, 100) i",
		"CREATE VIEW public.userview AS SELECT * FROM kbkeep.userdata")
	before := catalogDump(t, app)
	_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbkeep", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	if code != 2 || len(errorLines(stderr)) != 1 || !strings.Contains(stderr, "userdata") {
		t.Errorf("a kept schema holding the user's table: exit %d: %s", code, stderr)
	}
	if after := catalogDump(t, app); after != before {
		t.Errorf("the refused run changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbkeep", "--force", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint,seq-uuid-time:gen=server"); code != 0 {
		t.Fatalf("--force beside the user's objects: exit %d: %s", code, stderr)
	}
	var n int
	if err := app.QueryRow(context.Background(), "SELECT count(*) FROM public.userview").Scan(&n); err != nil || n != 100 {
		t.Errorf("the user's view after --force: %d rows, %v", n, err)
	}
	left := catalogDump(t, app)
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
// and dropped it, and the schema after it. Now every object of the user's
// survives with its rows, whatever its name, and a name keybench needs that
// the user holds is a refusal.
func TestForceNeverDropsTheUsersTables(t *testing.T) {
	dsn := restrictedDB(t, "lossdb", "kbloss", "Loss-pw-24")
	app := superuser(t, "lossdb")
	exec1(t, app, "CREATE SCHEMA app2", "GRANT USAGE, CREATE ON SCHEMA app2 TO kbloss")
	// The user's objects are the role's own: keybench, running as that
	// role, could drop every one of them.
	owner := connectAs(t, dsn)
	userTables := func(rows map[string]int) {
		for tb, n := range rows {
			exec1(t, owner, fmt.Sprintf("CREATE TABLE app2.%s AS SELECT i, md5(i::text) AS v FROM generate_series(1, %d) i", tb, n))
		}
	}
	trial := func() {
		t.Helper()
		// The trial's command: each key alone on kb_cell, which is free.
		before := catalogDump(t, app)
		if _, stderr, code := keybench(t, "run", "insert", "--rows", "1000", "-T", "2s", "-c", "2", "--keys", "bigint,uuidv4",
			"--dsn", dsn, "--schema", "app2", "--force", "--out", t.TempDir()); code != 0 {
			t.Fatalf("--force beside the user's tables: exit %d: %s", code, stderr)
		}
		if after := catalogDump(t, app); after != before {
			t.Fatalf("the user's schema changed:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	}
	// The trial's schema: names LIKE 'kb_cell%' matched, which the old refusal missed.
	userTables(map[string]int{"kb_cells": 100, "kb_cellar": 10, "kbxcellfoo": 10})
	exec1(t, owner, "CREATE FUNCTION app2.kb_seq_uuid_mine() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	trial()
	// Names the old rule refused in a new schema but took for keybench's in a kept one, and keybench's function's own name.
	userTables(map[string]int{"kb_cell_history": 10, "kb_cell2": 10})
	exec1(t, owner, "CREATE FUNCTION app2.kb_seq_uuid(a bigint, b bigint, c bigint) RETURNS uuid LANGUAGE sql AS 'SELECT gen_random_uuid()'")
	trial()
	before := catalogDump(t, app)
	// Names the user holds: kb_cell2 (a second key in rounds), kb_seq_uuid (a server-made sequential uuid).
	for _, args := range [][]string{{"--keys", "bigint,uuidv4", "--rounds", "2"}, {"--keys", "seq-uuid-time:gen=server"}} {
		_, stderr, code := keybench(t, append([]string{"run", "insert", "--rows", "1000", "-T", "2s", "-c", "2", "--dsn", dsn, "--schema", "app2", "--force", "--out", t.TempDir()}, args...)...)
		if code != 2 || len(errorLines(stderr)) != 1 || !strings.Contains(stderr, "did not create") {
			t.Errorf("%v over the user's names: exit %d: %s", args, code, stderr)
		}
		t.Logf("%v: %s", args, lastLine(stderr))
	}
	if after := catalogDump(t, app); after != before {
		t.Errorf("a refused run changed the user's schema:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// --keep, then the user's kb_cell_archive in keybench's schema: the rerun
	// is refused naming it (and kb_cells beside it); --force drops only keybench's.
	if _, stderr, code := keybench(t, "run", "insert", "--rows", "1000", "-T", "1s", "--keys", "bigint", "--dsn", dsn, "--schema", "kbk", "--keep", "--out", t.TempDir()); code != 0 {
		t.Fatalf("--keep: exit %d: %s", code, stderr)
	}
	user := connectAs(t, dsn)
	exec1(t, user, "CREATE TABLE kbk.kb_cell_archive AS SELECT i FROM generate_series(1, 50) i", "CREATE TABLE kbk.kb_cells AS SELECT i FROM generate_series(1, 60) i")
	kept := catalogDump(t, app)
	_, stderr, code := keybench(t, "run", "insert", "--rows", "1000", "-T", "1s", "--keys", "bigint", "--dsn", dsn, "--schema", "kbk", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "kb_cell_archive") || !strings.Contains(stderr, "kb_cells") {
		t.Errorf("a kept schema holding the user's tables: exit %d: %s", code, stderr)
	}
	if after := catalogDump(t, app); after != kept {
		t.Errorf("the refused run changed the database")
	}
	_, stderr, code = keybench(t, "run", "insert", "--rows", "1000", "-T", "1s", "--keys", "bigint", "--dsn", dsn, "--schema", "kbk", "--force", "--out", t.TempDir())
	if code != 0 || strings.Contains(stderr, "DROP TABLE kbk.kb_cell_archive") || strings.Contains(stderr, "DROP TABLE kbk.kb_cells") {
		t.Errorf("--force in the kept schema: exit %d: %s", code, stderr)
	}
	for tb, rows := range map[string]int{"kb_cell_archive": 50, "kb_cells": 60} {
		var n int
		if err := app.QueryRow(context.Background(), "SELECT count(*) FROM kbk."+tb).Scan(&n); err != nil || n != rows {
			t.Errorf("%s after --force: %d rows, %v", tb, n, err)
		}
	}
}

func connectAs(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestSecondRunInTheSameSchemaIsRefused is failure 2 of issue 10: two runs
// with the same --dsn and --schema dropped each other's tables.
func TestSecondRunInTheSameSchemaIsRefused(t *testing.T) {
	dsn := restrictedDB(t, "twodb", "kbtwo", "Two-pw-88")
	out := t.TempDir()
	first := exec.Command(bin, "run", "insert", "--dsn", dsn, "--schema", "kbshared", "--out", out, "-T", "4s", "--warmup", "0s", "--rows", "0", "--keys", "bigint,uuidv4", "-c", "2")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitTable(t, superuser(t, "twodb"), "kbshared")
	start := time.Now()
	_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbshared", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	t.Logf("second run: exit %d after %s: %s", code, time.Since(start).Round(time.Millisecond), lastLine(stderr))
	if code != 2 || len(errorLines(stderr)) != 1 || !strings.Contains(stderr, `"kbshared" is in use by another keybench run`) {
		t.Errorf("second run in the same schema: exit %d: %s", code, stderr)
	}
	if code, _ := exitOf(first, time.Now()); code != 0 {
		t.Errorf("the first run: exit %d", code)
	}
	if r := readResults(t, out); r.Status != "ok" || len(r.Cells) != 2 {
		t.Errorf("the first run's results: %+v", r)
	}
}

// TestInterruptedRunsLeaveNothing is failure 3 of issue 10: a run stopped
// by SIGINT in prefill, by the termination of its backends, or by SIGINT
// while another session's lock blocks it leaves nothing of keybench's on
// the server, or says what it left and how to remove it.
func TestInterruptedRunsLeaveNothing(t *testing.T) {
	dsn := restrictedDB(t, "intdb", "kbint", "Int-pw-55")
	app := superuser(t, "intdb")
	admin := superuser(t, "postgres")
	before := catalogDump(t, app)
	waitPrefill := func(schema string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			var n int
			// This case's COPY (into its schema's table): a backend of the
			// case before may still be ending with a COPY of its own.
			_ = admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE datname = 'intdb' AND application_name LIKE 'keybench%'
				AND query ILIKE 'COPY%' AND query LIKE '%"' || $1 || '"."kb_cell"%'`, schema).Scan(&n)
			if n > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the prefill never started")
			}
		}
	}
	prefill := []string{"run", "insert-read", "--dsn", dsn, "--rows", "2000000", "--keys", "uuidv4:as=text:gen=client", "-T", "5s"}
	for _, tc := range []struct {
		name, schema string
		force        bool
		stop         func(cmd *exec.Cmd)
		code         int
	}{
		{"SIGINT in prefill", "kbint1", false, func(cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGINT) }, 130},
		{"SIGINT in prefill, --force in their schema", "theirs", true, func(cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGINT) }, 130},
		{"backends terminated in prefill", "kbint2", false, func(*exec.Cmd) {
			exec1(t, admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'intdb' AND application_name LIKE 'keybench%'")
		}, 1},
	} {
		out := t.TempDir()
		args := append(append([]string(nil), prefill...), "--schema", tc.schema, "--out", out)
		if tc.force {
			args = append(args, "--force")
		}
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitPrefill(tc.schema)
		time.Sleep(300 * time.Millisecond)
		start := time.Now()
		tc.stop(cmd)
		code, took := exitOf(cmd, start)
		t.Logf("%s: exit %d after %s", tc.name, code, took.Round(time.Millisecond))
		if code != tc.code {
			t.Errorf("%s: exit %d after %s, want %d: %s", tc.name, code, took, tc.code, stderr.String())
		}
		if after := catalogDump(t, app); after != before {
			t.Errorf("%s: the database changed:\nbefore:\n%s\nafter:\n%s\nkeybench said:\n%s", tc.name, before, after, stderr.String())
		}
	}
	// Another session locks keybench's table while the run inserts: the
	// clients wait, SIGINT stops the run, and what could not be dropped
	// under the lock is named with the statements that remove it.
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "insert", "--dsn", dsn, "--schema", "kbint3", "--out", out, "--rows", "0", "--keys", "bigint", "-T", "30s", "--warmup", "0s", "-c", "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	locker := superuser(t, "intdb")
	waitTable(t, locker, "kbint3")
	time.Sleep(time.Second)
	tx, err := locker.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(context.Background(), "LOCK TABLE kbint3.kb_cell IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	code, took := exitOf(cmd, start)
	t.Logf("SIGINT under another session's lock: exit %d after %s", code, took.Round(time.Millisecond))
	if code != 130 {
		t.Errorf("exit %d after %s, want 130", code, took)
	}
	var r struct {
		Notes []string `json:"notes"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	_ = json.Unmarshal(b, &r)
	var removal string
	for _, n := range append(r.Notes, strings.Split(stderr.String(), "\n")...) {
		if i := strings.Index(n, "remove them with: "); i >= 0 {
			removal = n[i+len("remove them with: "):]
		}
	}
	if removal == "" || !strings.Contains(removal, "kb_cell") {
		t.Fatalf("no statement to remove what was left under the lock; notes %q; stderr %s", r.Notes, stderr.String())
	}
	t.Logf("left under the lock, to remove with: %s", removal)
	_ = tx.Rollback(context.Background())
	for _, s := range strings.Split(removal, "; ") {
		exec1(t, connectAs(t, dsn), s)
	}
	if after := catalogDump(t, app); after != before {
		t.Errorf("after the statements keybench named, the database still differs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestServerSecretsNeverRecorded is failure 4 of issue 10: every non-default
// setting was recorded verbatim, so a primary_conninfo with a password
// reached results.json and report.html.
func TestServerSecretsNeverRecorded(t *testing.T) {
	const password = "Leak-pw-4410"
	out := t.TempDir()
	stdout, stderr, code := keybench(t, "run", "insert", "--verbose", "--keys", "bigint", "-T", "1s", "--warmup", "0s", "--rows", "0", "--out", out,
		"--pg-conf", "primary_conninfo=host=nowhere user=rep password="+password)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	outputs := map[string]string{"stdout": stdout, "stderr": stderr}
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		outputs[filepath.Base(f)] = string(b)
	}
	for name, text := range outputs {
		if strings.Contains(text, password) {
			t.Errorf("the password appears in %s", name)
		}
	}
	var r struct {
		Environment struct {
			Settings map[string]string `json:"settings"`
		} `json:"environment"`
	}
	_ = json.Unmarshal([]byte(outputs["results.json"]), &r)
	if _, ok := r.Environment.Settings["primary_conninfo"]; ok || r.Environment.Settings["shared_buffers"] == "" {
		t.Errorf("recorded settings: %v", r.Environment.Settings)
	}
}

// TestStoppedProcessMarksTheCell is failure 7 of issue 10: keybench stopped
// (SIGSTOP) for seconds in the window gave an "ok" cell at a quarter of
// the rate. Now the cell is invalid and says why.
func TestStoppedProcessMarksTheCell(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "insert", "--dsn", servertest.Server.TCPURL(), "--schema", "kb_stopped", "--out", out,
		"--keys", "bigint", "-T", "8s", "--warmup", "0s", "--rows", "0", "-c", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	admin := superuser(t, "postgres")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var n int
		_ = admin.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'keybench client%' AND state IS NOT NULL").Scan(&n)
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no client connected")
		}
	}
	time.Sleep(2 * time.Second)
	cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(4 * time.Second)
	cmd.Process.Signal(syscall.SIGCONT)
	code, _ := exitOf(cmd, time.Now())
	r := readResults(t, out)
	t.Logf("exit %d, cell %s: %s", code, r.Cells[0].Status, r.Cells[0].Error)
	if code != 1 || r.Cells[0].Status != "invalid" || !strings.Contains(r.Cells[0].Error, "keybench did not run for at least") {
		t.Errorf("exit %d, results %+v", code, r)
	}
}

// waitTable waits until schema.kb_cell exists on the package's server.
func waitTable(t *testing.T, c *pgx.Conn, schema string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var n int
		_ = c.QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'kb_cell'", schema).Scan(&n)
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run never made its table in %s", schema)
		}
	}
}

// TestInterruptedJoinLeavesNothing: a cell with a child table whose
// foreign key references the keyed table, interrupted in its window, is
// cleaned up without CASCADE: the child first, then its parent.
func TestInterruptedJoinLeavesNothing(t *testing.T) {
	dsn := restrictedDB(t, "joindb", "kbjoin", "Join-pw-91")
	app := superuser(t, "joindb")
	before := catalogDump(t, app)
	cmd := exec.Command(bin, "run", "join", "--dsn", dsn, "--schema", "kbjoin", "--out", t.TempDir(), "--rows", "20000", "--children", "2",
		"--keys", "uuidv4", "-T", "30s", "--warmup", "0s", "-c", "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var n int
		_ = app.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = 'joindb' AND query LIKE 'SELECT p.id%'").Scan(&n)
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the join window never started: %s", stderr.String())
		}
	}
	interruptLeavesNothing(t, cmd, app, before, &stderr)
}

// TestInterruptedRetentionLeavesNothing (issue 29): a role without
// superuser rights runs a retention on a table partitioned by day, and a
// SIGINT arrives while its job drops partitions and the clients insert:
// the run stops (130) and the database is as it was — the partitions were
// keybench's, recorded, and went with their table.
func TestInterruptedRetentionLeavesNothing(t *testing.T) {
	dsn := restrictedDB(t, "retdb", "kbret", "Ret-pw-29")
	app := superuser(t, "retdb")
	before := catalogDump(t, app)
	cmd := exec.Command(bin, "run", "retention", "--dsn", dsn, "--schema", "kbret", "--out", t.TempDir(), "--rows", "30000", "--history", "6d",
		"--keys", "uuidv7:partition=1d,uuidv4:created-at=indexed:partition=6h", "-T", "40s", "--rounds", "4", "--warmup", "0s", "-c", "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A retention window runs: a partition was dropped and the clients insert.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var dropped, inserting int
		// The first partition goes before the rounds (partly filled), the second in round 1.
		_ = app.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM unnest(ARRAY['kb_cell', 'kb_cell2']) t
				WHERE to_regclass('kbret.' || t) IS NOT NULL AND to_regclass('kbret.' || t || '_p1') IS NULL),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = 'retdb' AND application_name LIKE 'keybench%' AND state = 'active' AND query LIKE 'INSERT INTO kbret.%')`).
			Scan(&dropped, &inserting)
		if dropped > 0 && inserting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no partition was dropped: %s", stderr.String())
		}
	}
	time.Sleep(200 * time.Millisecond)
	interruptLeavesNothing(t, cmd, app, before, &stderr)
}

// interruptLeavesNothing sends the run SIGINT: it must exit 130 within 15 s
// and leave the database as the dump before it.
func interruptLeavesNothing(t *testing.T, cmd *exec.Cmd, app *pgx.Conn, before string, stderr *strings.Builder) {
	t.Helper()
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	code, took := exitOf(cmd, start)
	if code != 130 {
		t.Errorf("exit %d after %s, want 130: %s", code, took, stderr.String())
	}
	if after := catalogDump(t, app); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s\n%s", before, after, stderr.String())
	}
}

// TestDistributeNeedsCitus: --distribute against a server without the
// citus extension is bad input, said in one line, before keybench makes
// anything there.
func TestDistributeNeedsCitus(t *testing.T) {
	dsn := restrictedDB(t, "appdb_dist", "kbuser_dist", "Dist-pw-51c2")
	app := superuser(t, "appdb_dist")
	before := catalogDump(t, app)
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--distribute", "--shard-count", "4", "--keys", "bigint", "-T", "1", "--out", out)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if code != 2 || strings.Count(stderr, "keybench: ") != 1 || !strings.HasPrefix(last, "keybench: error: --distribute needs Citus, and the server at --dsn is PostgreSQL 18") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if after := catalogDump(t, app); after != before {
		t.Errorf("the database changed:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
		t.Error("a run that measured nothing left results.json")
	}
}

// TestInterruptedPartitionedCellCleanupAsOneCommand (issue 35): a SIGINT
// while another session locks a partitioned cell's table leaves the table
// and its partitions; the statements keybench prints to remove them, run
// as one command (psql -c: one implicit transaction, so one failing
// statement undoes them all), leave the database as it was: each partition
// is dropped before its parent would take it along.
func TestInterruptedPartitionedCellCleanupAsOneCommand(t *testing.T) {
	dsn := restrictedDB(t, "partdb", "kbpart", "Part-pw-35")
	app := superuser(t, "partdb")
	before := catalogDump(t, app)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "insert", "--dsn", dsn, "--schema", "kbpart", "--out", out, "--rows", "20000", "--history", "3d",
		"--keys", "uuidv7:partition=1d", "-T", "30s", "--warmup", "0s", "-c", "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	locker := superuser(t, "partdb")
	waitTable(t, locker, "kbpart")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var parts int
		_ = locker.QueryRow(context.Background(), `SELECT count(*) FROM pg_inherits WHERE inhparent = to_regclass('kbpart.kb_cell')`).Scan(&parts)
		if parts > 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cell's table was never partitioned: %s", stderr.String())
		}
	}
	time.Sleep(time.Second)
	tx, err := locker.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(context.Background(), "LOCK TABLE kbpart.kb_cell IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	if code, took := exitOf(cmd, start); code != 130 {
		t.Errorf("exit %d after %s, want 130: %s", code, took, stderr.String())
	}
	var removal string
	for _, n := range strings.Split(stderr.String(), "\n") {
		if i := strings.Index(n, "remove them with: "); i >= 0 {
			removal = n[i+len("remove them with: "):]
		}
	}
	if !strings.Contains(removal, "kb_cell_p") {
		t.Fatalf("no statements naming the partitions left under the lock: %s", stderr.String())
	}
	t.Logf("left under the lock, removed as one command: %s", removal)
	_ = tx.Rollback(context.Background())
	// One simple-protocol query: one implicit transaction, as psql -c runs it.
	if _, err := connectAs(t, dsn).PgConn().Exec(context.Background(), removal).ReadAll(); err != nil {
		t.Fatalf("the printed clean-up failed as one command: %v", err)
	}
	if after := catalogDump(t, app); after != before {
		t.Errorf("after the printed clean-up, the database still differs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
