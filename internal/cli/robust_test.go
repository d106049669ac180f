package cli_test

// Robustness and safety, as a user meets them: faults in the middle of a
// run, other people's servers, and secrets. Each test runs the keybench
// binary; the package's own server (servertest) plays someone else's server.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/cli/clitest"

	"github.com/jackc/pgx/v5"

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
	code, took := clitest.ExitOf(cmd, start)
	t.Logf("exit %d %s after the postmaster was killed; stderr: %s", code, took.Round(time.Millisecond), clitest.LastLine(stderr.String()))
	if code != 1 {
		t.Errorf("exit %d after %s, want 1", code, took)
	}
	if el := clitest.ErrorLines(stderr.String()); len(el) != 1 || !strings.Contains(el[0], "server exited") {
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
	code, took := clitest.ExitOf(cmd, start)
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

// TestTerminatedClient terminates one client's backend in the middle of the
// first cell, as a DBA of someone else's server might: the cell fails with
// the server's message, and the run stops or goes on as --on-error says.
func TestTerminatedClient(t *testing.T) {
	dsn := servertest.Server.TCPURL()
	admin := clitest.Superuser(t, "postgres")
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
		code, _ := clitest.ExitOf(cmd, time.Now())
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
		if el := clitest.ErrorLines(stderr.String()); len(el) != 1 {
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
	code, took := clitest.ExitOf(cmd, start)
	el := clitest.ErrorLines(stderr.String())
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

// TestSecondRunInTheSameSchemaIsRefused is failure 2 of issue 10: two runs
// with the same --dsn and --schema dropped each other's tables.
func TestSecondRunInTheSameSchemaIsRefused(t *testing.T) {
	dsn := clitest.RestrictedDB(t, "twodb", "kbtwo", "Two-pw-88")
	out := t.TempDir()
	first := exec.Command(bin, "run", "insert", "--dsn", dsn, "--schema", "kbshared", "--out", out, "-T", "4s", "--warmup", "0s", "--rows", "0", "--keys", "bigint,uuidv4", "-c", "2")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitTable(t, clitest.Superuser(t, "twodb"), "kbshared")
	start := time.Now()
	_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--schema", "kbshared", "--out", t.TempDir(), "-T", "1s", "--rows", "0", "--keys", "bigint")
	t.Logf("second run: exit %d after %s: %s", code, time.Since(start).Round(time.Millisecond), clitest.LastLine(stderr))
	if code != 2 || len(clitest.ErrorLines(stderr)) != 1 || !strings.Contains(stderr, `"kbshared" is in use by another keybench run`) {
		t.Errorf("second run in the same schema: exit %d: %s", code, stderr)
	}
	if code, _ := clitest.ExitOf(first, time.Now()); code != 0 {
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
	dsn := clitest.RestrictedDB(t, "intdb", "kbint", "Int-pw-55")
	app := clitest.Superuser(t, "intdb")
	admin := clitest.Superuser(t, "postgres")
	before := servertest.Dump(t, app)
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
		{"backends terminated in prefill", "kbint2", false, func(*exec.Cmd) {
			clitest.Exec(t, admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'intdb' AND application_name LIKE 'keybench%'")
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
		code, took := clitest.ExitOf(cmd, start)
		t.Logf("%s: exit %d after %s", tc.name, code, took.Round(time.Millisecond))
		if code != tc.code {
			t.Errorf("%s: exit %d after %s, want %d: %s", tc.name, code, took, tc.code, stderr.String())
		}
		if after := servertest.Dump(t, app); after != before {
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
	locker := clitest.Superuser(t, "intdb")
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
	code, took := clitest.ExitOf(cmd, start)
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
		clitest.Exec(t, clitest.ConnectAs(t, dsn), s)
	}
	if after := servertest.Dump(t, app); after != before {
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
	outputs := clitest.Outputs(stdout, stderr, out)
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
	admin := clitest.Superuser(t, "postgres")
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
	code, _ := clitest.ExitOf(cmd, time.Now())
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
	dsn := clitest.RestrictedDB(t, "joindb", "kbjoin", "Join-pw-91")
	app := clitest.Superuser(t, "joindb")
	before := servertest.Dump(t, app)
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
	dsn := clitest.RestrictedDB(t, "retdb", "kbret", "Ret-pw-29")
	app := clitest.Superuser(t, "retdb")
	before := servertest.Dump(t, app)
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
	code, took := clitest.ExitOf(cmd, start)
	if code != 130 {
		t.Errorf("exit %d after %s, want 130: %s", code, took, stderr.String())
	}
	if after := servertest.Dump(t, app); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s\n%s", before, after, stderr.String())
	}
}

// TestDistributeNeedsCitus: --distribute against a server without the
// citus extension is bad input, said in one line, before keybench makes
// anything there.
func TestDistributeNeedsCitus(t *testing.T) {
	dsn := clitest.RestrictedDB(t, "appdb_dist", "kbuser_dist", "Dist-pw-51c2")
	app := clitest.Superuser(t, "appdb_dist")
	before := servertest.Dump(t, app)
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := keybench(t, "run", "insert", "--dsn", dsn, "--distribute", "--shard-count", "4", "--keys", "bigint", "-T", "1", "--out", out)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if code != 2 || strings.Count(stderr, "keybench: ") != 1 || !strings.HasPrefix(last, "keybench: error: --distribute needs Citus, and the server at --dsn is PostgreSQL 18") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if after := servertest.Dump(t, app); after != before {
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
	dsn := clitest.RestrictedDB(t, "partdb", "kbpart", "Part-pw-35")
	app := clitest.Superuser(t, "partdb")
	before := servertest.Dump(t, app)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "insert", "--dsn", dsn, "--schema", "kbpart", "--out", out, "--rows", "20000", "--history", "3d",
		"--keys", "uuidv7:partition=1d", "-T", "30s", "--warmup", "0s", "-c", "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	locker := clitest.Superuser(t, "partdb")
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
	if code, took := clitest.ExitOf(cmd, start); code != 130 {
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
	if _, err := clitest.ConnectAs(t, dsn).PgConn().Exec(context.Background(), removal).ReadAll(); err != nil {
		t.Fatalf("the printed clean-up failed as one command: %v", err)
	}
	if after := servertest.Dump(t, app); after != before {
		t.Errorf("after the printed clean-up, the database still differs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
