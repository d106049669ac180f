package cli_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/cli/clitest"
	"github.com/keybench/keybench/internal/workload/all"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gofrs/uuid/v5"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/testenv"
)

var bin string

// TestMain builds the keybench binary once: these tests run it as a user would.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		os.Exit(m.Run()) // the fuzz targets need neither the binary nor a server
	}
	// A server of its own stands for "someone else's server" (--dsn).
	os.Exit(clitest.Main(m, &bin))
}

// keybench runs the package's binary (clitest.Run).
func keybench(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return clitest.Run(t, bin, args...)
}

func TestBadInputExits2WithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--keys", "nosuch"},
		{"run", "--clients", "0"},
		{"run", "--duration", "-1s"},
		{"run", "--dsn", "not-a-dsn"},
		{"run", "nosuchscenario"},
		{"run", "--pg-version", "9"},
		{"run", "--keys", "bigint:cache=0"},
		{"run", "--no-such-flag"},
		{"run", "--out", "/proc/keybench-cannot-write-here"},
		{"gen", "nosuch"},
		{"gen", "uuidv7", "-n", "-1"},
		{"report", "/nonexistent/results.json"},
		{"disk", "/nonexistent"},
		{"disk", "/proc"},
		{"disk", "/etc/hostname"},
		{"disk", os.TempDir(), "--size", "1kB"},
		{"disk", os.TempDir(), "--each", "0"},
		{"project", "../results/testdata/war.json", "--rows", "1e9", "--ram", "64GB", "--clients", "-1"},
		{"project", "../results/testdata/war.json", "--rows", "1e9"},
		{"project", "../results/testdata/war.json", "--against", "001"},
		{"project", "../results/testdata/war.json", "--rows", "1e9", "--ram", "64GB", "--disk-latency", "8ms"},
		{"project", "../results/testdata/war.json", "--rows", "1e9", "--ram", "64GB", "--disk-latency", "-8ms", "--disk-write-mbps", "100", "--disk-flush", "4ms"},
		{"project", "../results/testdata/war.json", "--rows", "1e9", "--ram", "64GB", "--cores", "4"},
		{"project", "../results/testdata/war.json", "--rows", "1e9", "--ram", "64GB", "--disk", "../results/testdata/war.json"},
		{"run", "insert", "--pg-conf", "no_such_setting=1", "--out", os.TempDir() + "/keybench-test-badconf"},
		{"run", "--warmup=-2s"},
		{"run", "--rows=-1"},
		{"run", "--repeat=-1"},
		{"run", "--batch=-1"},
		{"run", "--txns=-1"},
		{"run", "--partitions=-1"},
		{"run", "bulk", "--chunk=-5"},
		{"run", "queue", "-c", "1"},
		{"run", "queue", "--keys", "bigint:index=none", "--workload-is-not-a-flag"},
		{"run", "--on-error", "maybe"},
		{"run", "--cache-mode", "hot"},
		{"run", "--sampling", "maybe"},
		{"run", "--schema", "Bad-Name"},
		{"run", "--keep"},
		{"run", "--dsn", "postgres://u@h/db", "--pg-version", "18"},
		{"run", "--dsn", "postgres://u@h/db", "--shared-buffers", "16MB"},
		{"run", "--shared-buffers", "64kB"},
		{"run", "--distribute"},
		{"run", "--shard-count", "4"},
		// Issue 41: the distribution options need --distribute, a Citus server.
		{"run", "--distribute-by", "tenant"},
		{"run", "--distribute", "--distribute-by", "tenant"},
		{"run", "--tenants", "10"},
		{"run", "--tenant-skew", "uniform"},
		{"run", "--distribute-by", "shard"},
		{"run", "--distribute-by", "reference"},
		{"run", "--dsn", "postgres://u@h/db", "--distribute", "--distribute-by", "tenant", "--tenants", "-3"},
		{"run", "--replicas", "-1"},
		{"run", "--dsn", "postgres://u@h/db", "--replicas", "1"},
		{"run", "--shared-buffers", "16MB,16MB"},
		{"run", "--shared-buffers", "16XB"},
		{"run", "--shared-buffers", "16MB", "--pg-conf", "shared_buffers=32MB"},
		{"run", "--keys", "uuidv1:spacing=-1"},
		{"run", "--keys", "uuidv7:gen=server", "--pg-version", "15", "--out", os.TempDir() + "/keybench-test-badkey"},
		{"report", "/etc/passwd"},
		{"report", os.TempDir()},
		{"compare", "/etc/passwd"},
		{"compare", "/etc/hostname", "/etc/passwd"},
		// Issue 10: impossible values are usage errors before the first cell (5, 8, 9, 15).
		{"run", "insert", "--batch", "32768"},
		{"run", "insert", "--batch", "100000000"},
		{"run", "-T", "1ns"},
		{"run", "-T", "0s"},
		{"run", "--payload", "500000000"},
		{"run", "insert", "--batch", "20000", "--payload", "10000"},
		{"run", "--repeat", "10000000"},
		{"run", "--repeat", "1000000"},
		// Issue 35: zero rounds or repeats is no run at all.
		{"run", "--rounds", "0"},
		{"run", "--repeat", "0"},
		{"server", "--pg-conf", "port=6543"},
		{"run", "--dsn", strings.Replace(servertest.Server.ConnString(), "user=", "user=nosuchrole_", 1), "--keys", "bigint", "-T", "1"},
		{"run", "--dsn", "host=127.0.0.1 port=1 user=x dbname=x connect_timeout=2", "--keys", "bigint", "-T", "1"},
		{"run", "--pg-conf", "unix_socket_directories=/tmp"},
		{"run", "--keys", ""},
		{"run", "--pg-bin", "/nonexistent"},
		{"run", "--pg-bin", servertest.Server.BinDir, "--pg-version", "15"},
		{"run", "--txns", "10", "--duration", "5s"},
		{"run", "bulk", "--rows", "0"},
		{"run", "bulk", "--rows", "1000,0"},
		// Issue 14: the read workloads' options.
		{"run", "lookup", "--query", "scan"},
		{"run", "lookup", "--read-dist", "gaussian"},
		{"run", "insert", "--query", "point"},
		{"run", "war", "--read-dist", "recent"},
		{"run", "lookup", "--rows", "0"},
		{"run", "join", "--children", "0"},
		{"run", "--keys", "uuidv7:prefill=bigint"},
		{"run", "--prefill-key", "uuidv4:gen=server"},
		// Issue 24: floats that are no figure, reserved schemas.
		{"run", "lookup", "--recent-rows", "NaN"},
		{"run", "lookup", "--recent-rows", "0"},
		{"run", "lookup", "--recent-rows", "+Inf"},
		{"run", "-T", "NaN"},
		{"run", "--warmup", "Inf"},
		{"run", "--schema", "pg_temp"},
		{"run", "--schema", "information_schema"},
		{"run", "--project-rows", "1e9", "--project-ram", "64GB", "--project-insert-rate", "NaN"},
		{"run", "--project-rows", "1e9", "--project-ram", "64GB", "--project-insert-rate", "0"},
		// Issue 15: pgbench habits.
		{"run", "-M", "simple"},
		{"run", "-c", "-4"},
		{"run", "-T", "abc"},
		// Issue 40: a fixed rate, a script.
		{"run", "-R", "0"},
		{"run", "--rate", "NaN"},
		{"run", "--latency-limit", "5"},
		{"run", "-R", "100", "--latency-limit", "-1"},
		{"run", "bulk", "-R", "100"},
		{"run", "--script", "/nonexistent.sql"},
		{"run", "--script", clitest.WriteFile(t, "SELECT 1;\n")},
		{"run", "-f", clitest.WriteFile(t, "\\sleep 1\nSELECT * FROM :table;\n")},
		{"run", "-f", clitest.WriteFile(t, "SELECT :nope FROM :table;\n")},
		{"run", "lookup", "--script", clitest.WriteFile(t, "SELECT * FROM :table;\n")},
	} {
		_, errOut, code := keybench(t, args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		errLines := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "keybench: ") {
				errLines++
			}
		}
		last := lines[len(lines)-1]
		if code != 2 || errLines != 1 || !strings.HasPrefix(last, "keybench: error: ") || strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("keybench %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
	}
	if _, errOut, _ := keybench(t, "run", "--keys", "nosuch"); !strings.Contains(errOut, "valid: bigint, int, uuidv4") {
		t.Errorf("unknown key error does not list the valid names: %s", errOut)
	}
	for args, want := range map[string]string{
		"gen uuid7":       `did you mean "uuidv7"?`,
		"run warr":        `did you mean "war"?`,
		"run -c -4":       "--clients must be at least 1, not -4",
		"run --clinets 4": `did you mean "--clients"?`,
	} {
		if _, errOut, _ := keybench(t, strings.Fields(args)...); !strings.Contains(errOut, want) {
			t.Errorf("keybench %s: %q lacks %q", args, errOut, want)
		}
	}
}

func TestKeysListsTheCatalog(t *testing.T) {
	out, _, code := keybench(t, "keys")
	for _, n := range []string{"bigint", "int", "uuidv4", "uuidv7", "seq-uuid-time", "seq-uuid-seq", "ulid", "uuidv1", "uuidv6", "snowflake", "comb"} {
		if !strings.Contains(out, "│ "+n+" ") {
			t.Errorf("keys does not list %s", n)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestGenUUIDv7(t *testing.T) {
	out, _, code := keybench(t, "gen", "uuidv7", "-n", "100000")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 100000 {
		t.Fatalf("exit %d, %d lines", code, len(lines))
	}
	for i, l := range lines {
		u, err := uuid.FromString(l)
		if err != nil || u.Version() != 7 {
			t.Fatalf("line %d: %q is not a version-7 uuid", i, l)
		}
		if i > 0 && l <= lines[i-1] {
			t.Fatalf("line %d: %s does not follow %s", i, l, lines[i-1])
		}
	}
}

func TestGenSeqUUIDTimePrefix(t *testing.T) {
	before := time.Now().Unix()
	out, _, _ := keybench(t, "gen", "seq-uuid-time", "-n", "1")
	after := time.Now().Unix()
	prefix, err := strconv.ParseUint(out[:4], 16, 16)
	if err != nil {
		t.Fatal(err)
	}
	if prefix != uint64(before/60%65536) && prefix != uint64(after/60%65536) {
		t.Errorf("prefix %04x, want (unix seconds / 60) mod 65536 = %04x", prefix, before/60%65536)
	}
}

// postgresChildren lists the postgres processes whose parent is pid.
func postgresChildren(pid int) []int { return childrenNamed(pid, "postgres") }

// childrenNamed lists the child processes of pid whose command is name.
func childrenNamed(pid int, name string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndex(s, ")")+2:])
		if ppid, _ := strconv.Atoi(f[1]); ppid == pid && strings.Contains(s, "("+name+")") {
			out = append(out, p)
		}
	}
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// startRun starts a run and waits until its results.json reports at least minCells cells.
func startRun(t *testing.T, out string, minCells int, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--out", out}, args...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // drain progress
		s := bufio.NewScanner(stderr)
		for s.Scan() {
		}
	}()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		var r struct {
			Cells []json.RawMessage `json:"cells"`
		}
		if b, err := os.ReadFile(filepath.Join(out, "results.json")); err == nil && json.Unmarshal(b, &r) == nil && len(r.Cells) >= minCells {
			return cmd
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatal("the run did not reach its cells in time")
	return nil
}

func TestSIGINTKeepsResultsAndStopsTheServer(t *testing.T) {
	out := t.TempDir()
	// With a streaming standby: it goes down with the primary.
	cmd := startRun(t, out, 1, "insert", "--keys", "bigint,uuidv4,uuidv7", "-T", "2s", "--warmup", "0s", "-c", "2", "--replicas", "1")
	servers := postgresChildren(cmd.Process.Pid)
	if len(servers) != 2 {
		t.Errorf("%d postmasters (%v), want the primary and its standby", len(servers), servers)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	took := time.Since(start)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v after %s, want 130", err, took)
	}
	var r struct {
		Status string `json:"status"`
		Cells  []struct {
			Status string `json:"status"`
		} `json:"cells"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(b, &r); err != nil || r.Status != "interrupted" || len(r.Cells) == 0 || r.Cells[0].Status != "ok" {
		t.Errorf("results after SIGINT: %s", b)
	}
	for _, p := range servers {
		if alive(p) {
			t.Errorf("postgres %d outlived keybench", p)
		}
	}
}

func TestSIGKILLTakesTheServerDown(t *testing.T) {
	out := t.TempDir()
	cmd := startRun(t, out, 0, "insert", "--keys", "bigint", "-T", "60s", "--warmup", "0s", "-c", "2", "--replicas", "1")
	var servers []int
	for i := 0; i < 100 && len(servers) < 2; i++ {
		servers = postgresChildren(cmd.Process.Pid)
		time.Sleep(100 * time.Millisecond)
	}
	if len(servers) != 2 {
		t.Fatalf("%d postgres children (%v), want the primary and its standby", len(servers), servers)
	}
	var backends []int
	for _, s := range servers {
		backends = append(backends, postgresChildren(s)...)
	}
	// The killed server's private directory, from the postmaster's -D argument.
	args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", servers[0]))
	parts := strings.Split(string(args), "\x00")
	var dirs []string
	for i, a := range parts {
		if a == "-D" && i+1 < len(parts) {
			dirs = append(dirs, filepath.Dir(parts[i+1]))
		}
	}
	if len(dirs) != 1 {
		t.Fatalf("no -D in the postmaster's arguments %q", parts)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range append(servers, backends...) {
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(p) {
			t.Errorf("postgres %d still running 5 s after keybench was killed", p)
		}
	}
	// The next keybench that starts a server removes what the killed one left.
	if _, stderr, code := keybench(t, "run", "insert", "--keys", "bigint", "-T", "1s", "--warmup", "0s", "--rows", "0", "--out", t.TempDir()); code != 0 {
		t.Fatalf("next run: exit %d: %s", code, stderr)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s left by the killed keybench is still there", d)
		}
	}
	if n := orphanSegments(t); n > 0 {
		t.Errorf("%d shared memory segments of killed servers left after the next run", n)
	}
}

func TestQuickRun(t *testing.T) {
	out := t.TempDir()
	start := time.Now()
	stdout, stderr, code := keybench(t, "run", "--quick", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("quick run took %s", time.Since(start))
	var r map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	env := r["environment"].(map[string]any)
	if r["schema_version"] != float64(results.SchemaVersion) || r["status"] != "ok" || env["server_version"] == "" || len(env["settings"].(map[string]any)) == 0 {
		t.Errorf("results: %v", r)
	}
	cells := r["cells"].([]any)
	if len(cells) < 5 {
		t.Errorf("%d cells, want at least 5 keys", len(cells))
	}
	for _, c := range cells {
		cell := c.(map[string]any)
		for _, f := range []string{"key", "workload", "clients", "status", "rows_before", "duration_s", "txns", "rows_inserted", "tps", "latency_ms", "errors", "timeline", "metrics"} {
			if _, ok := cell[f]; !ok {
				t.Errorf("cell lacks %s", f)
			}
		}
		lat := cell["latency_ms"].(map[string]any)
		for _, f := range []string{"mean", "p50", "p95", "p99", "p999", "max"} {
			if _, ok := lat[f]; !ok {
				t.Errorf("latency_ms lacks %s", f)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(out, "report.html")); err != nil || st.Size() > 5<<20 || st.Size() < 10000 {
		t.Errorf("report.html: %v %v", st, err)
	}
	// keybench report regenerates the very same page from the saved results.
	again := filepath.Join(t.TempDir(), "again.html")
	if _, stderr, code := keybench(t, "report", filepath.Join(out, "results.json"), "--html", again); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	first, _ := os.ReadFile(filepath.Join(out, "report.html"))
	second, _ := os.ReadFile(again)
	if !bytes.Equal(first, second) {
		t.Error("keybench report did not regenerate an identical report.html")
	}
	// A quick run compared with itself: every key present, none tested (one
	// window per key: its per-second rates are no independent samples).
	cmpOut, stderr, code := keybench(t, "compare", filepath.Join(out, "results.json"), filepath.Join(out, "results.json"), "--html", filepath.Join(t.TempDir(), "cmp.html"))
	if code != 0 || strings.Count(cmpOut, "│ - (one window per key: its per-second rates are not independent samples") != len(cells) {
		t.Errorf("compare with itself: exit %d, %s\n%s", code, stderr, cmpOut)
	}
	for _, k := range []string{"uuidv4:as=text", "uuidv4", "uuidv7", "bigint"} {
		if !strings.Contains(stdout, "│ "+k+" ") {
			t.Errorf("summary lacks %s:\n%s", k, stdout)
		}
	}
}

// TestSharedBuffersList runs every key at two caches on the embedded
// server (--shared-buffers), restarting it between them: each cell ran
// with the cache it says, keys are compared only within a cache, and the
// report draws a curve per key and cache.
func TestSharedBuffersList(t *testing.T) {
	out := t.TempDir()
	_, stderr, code := keybench(t, "run", "insert", "--keys", "bigint,uuidv4", "--rows", "0,5000", "--shared-buffers", "1MB,2MB",
		"-T", "1", "--warmup", "0", "--rounds", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stderr, "restarting PostgreSQL with shared_buffers=2.0 MiB"); n != 1 {
		t.Errorf("%d restarts to 2 MiB logged, want 1:\n%s", n, stderr)
	}
	r := readRun(t, out)
	if len(r.Cells) != 8 || fmt.Sprint(r.Plan.SharedBuffers) != "[1048576 2097152]" {
		t.Fatalf("%d cells, plan's shared_buffers %v", len(r.Cells), r.Plan.SharedBuffers)
	}
	for i, c := range r.Cells {
		want := int64(1<<20) << (i / 4) // the cache is the plan's outer loop
		got, ok := c.Metrics.CacheBytes.Get()
		if c.Status != results.StatusOK || c.SharedBuffers != want || !ok || got != want {
			t.Errorf("cell %d (%s, %d rows): status %s, shared_buffers %d, measured cache %v; want %d", i, c.Key, c.RowsBefore, c.Status, c.SharedBuffers, c.Metrics.CacheBytes, want)
		}
	}
	groups := r.Analysis.Groups
	if len(groups) != 8 {
		t.Errorf("%d groups, want one per key, size and cache", len(groups))
	}
	for _, g := range groups {
		for _, v := range g.Compared {
			if o := findGroup(groups, v.Key, g.Shape()); o == nil {
				t.Errorf("%s compared with %s of another cache", results.Label(groups, &g), v.Key)
			}
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(page), "uuidv4 at 1.0 MiB #") || !strings.Contains(string(page), "uuidv4 at 2.0 MiB #") {
		t.Error("the report does not draw uuidv4's curve at both caches")
	}
}

// TestReplicasRecordTheStandby runs two keys with a streaming standby
// (--replicas 1): every cell records the WAL shipped to it (close to the
// WAL the primary wrote), its lags sampled in the window and its catch-up,
// and the console and report show them.
func TestReplicasRecordTheStandby(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := keybench(t, "run", "insert", "--verbose", "--keys", "bigint,uuidv4", "--rows", "20000", "--replicas", "1",
		"-T", "2", "--warmup", "0", "--rounds", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readRun(t, out)
	if fmt.Sprint(r.Environment.Standbys) != "[keybench_standby_1]" {
		t.Errorf("standbys %v", r.Environment.Standbys)
	}
	for _, c := range r.Cells {
		ss, ok := c.Metrics.Replication.Get()
		if !ok || len(ss) != 1 {
			t.Errorf("%s: replication %+v", c.Key, c.Metrics.Replication)
			continue
		}
		s := ss[0]
		shipped, _ := s.ShippedBytesPerRow.Get()
		wal, _ := c.Metrics.WALBytesPerRow.Get()
		if s.Name != "keybench_standby_1" || shipped <= 0 || math.Abs(shipped/wal-1) > 0.25 {
			t.Errorf("%s: shipped %.0f B per row, the primary wrote %.0f", c.Key, shipped, wal)
		}
		if _, ok := s.CatchUpS.Get(); !ok || len(s.Lag) < 2 || s.WindowS <= 0 || s.PrimaryBytes <= 0 {
			t.Errorf("%s: catch-up %+v, %d lag samples, window %.1f s, primary bytes %d", c.Key, s.CatchUpS, len(s.Lag), s.WindowS, s.PrimaryBytes)
		}
	}
	if !strings.Contains(stdout, "REPLICAS: KEY") && !strings.Contains(stdout, "replicas: key") {
		t.Errorf("no replicas table in the summary:\n%s", stdout)
	}
	page, _ := os.ReadFile(filepath.Join(out, "report.html"))
	for _, chart := range []string{"WAL shipped to each standby per inserted row", "Standby replay lag during the window"} {
		if !strings.Contains(string(page), chart) {
			t.Errorf("the report lacks %q", chart)
		}
	}
}

// readRun reads a run's results.json into keybench's own structs.
func readRun(t *testing.T, out string) *results.Results {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r results.Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func findGroup(groups []results.Group, key, shape string) *results.Group {
	for i := range groups {
		if groups[i].Key == key && groups[i].Shape() == shape {
			return &groups[i]
		}
	}
	return nil
}

// childNamed is a child process of pid whose command is name, or 0.
func childNamed(pid int, name string) int {
	if c := childrenNamed(pid, name); len(c) > 0 {
		return c[0]
	}
	return 0
}

// orphanSegments counts System V shared memory segments of the server's
// user that nothing is attached to and whose creator is gone.
func orphanSegments(t *testing.T) int {
	b, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		testenv.Skip(t, "no /proc/sysvipc/shm: %v", err)
	}
	n := 0
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 8 {
			continue
		}
		cpid, _ := strconv.Atoi(f[4])
		if f[6] == "0" && !alive(cpid) && f[7] == serverUID(t) {
			n++
		}
	}
	return n
}

func serverUID(t *testing.T) string {
	if os.Geteuid() != 0 {
		return strconv.Itoa(os.Getuid())
	}
	out, err := exec.Command("id", "-u", server.ServerUserName).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestSIGKILLDuringInitdb is failure 13 of issue 10: keybench killed during
// initdb left a directory the next run skipped for an hour, and every
// SIGKILL leaked a shared memory segment.
func TestSIGKILLDuringInitdb(t *testing.T) {
	cmd := exec.Command(bin, "run", "insert", "--keys", "bigint", "-T", "1s", "--warmup", "0s", "--rows", "0", "--out", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var initdb int
	for deadline := time.Now().Add(time.Minute); initdb == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		initdb = childNamed(cmd.Process.Pid, "initdb")
	}
	if initdb == 0 {
		cmd.Process.Kill()
		t.Fatal("never saw initdb")
	}
	args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", initdb))
	var dir string
	parts := strings.Split(string(args), "\x00")
	for i, a := range parts {
		if a == "-D" && i+1 < len(parts) {
			dir = filepath.Dir(parts[i+1])
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the killed run's directory %q: %v", dir, err)
	}
	if _, stderr, code := keybench(t, "run", "insert", "--keys", "bigint", "-T", "1s", "--warmup", "0s", "--rows", "0", "--out", t.TempDir()); code != 0 {
		t.Fatalf("next run: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s, left by keybench killed during initdb, is still there after the next run", dir)
	}
	if n := orphanSegments(t); n > 0 {
		t.Errorf("%d shared memory segments of killed servers left after the next run", n)
	}
}

// TestGenStops (issue 35): keybench gen of a hundred million keys ends
// within a second when its reader goes away (gen … | head -1), and exits
// 130 on SIGINT, where it used to run on, writing gigabytes.
func TestGenStops(t *testing.T) {
	cmd := exec.Command(bin, "gen", "uuidv7", "-n", "100000000")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || len(line) != 37 {
		t.Fatalf("first key %q: %v", line, err)
	}
	out.Close() // head -1 has read its line
	start := time.Now()
	if code, took := clitest.ExitOf(cmd, start); code != 0 { // it ended: a closed pipe ends the output it no longer wants
		t.Errorf("gen after its reader left: exit %d after %s, want 0", code, took)
	}
	cmd = exec.Command(bin, "gen", "uuidv7", "-n", "100000000")
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	start = time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	if code, took := clitest.ExitOf(cmd, start); code != 130 {
		t.Errorf("gen after SIGINT: exit %d in %s, want 130", code, took)
	}
}

// TestCompareFailOn (issue 40): compare as a regression gate. A recorded
// default run against itself: exit 0; against a copy whose uuidv4 rounds
// ran 30% slower: exit 1, naming the measurement, by how much and its
// p-value; --fail-on 40% lets that 30% through; a --fail-on that is no
// percentage is bad usage.
func TestCompareFailOn(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base.json")
	raw := resultstest.ReadGzip(t, "../report/testdata/cost/war-busy.json.gz")
	if err := os.WriteFile(base, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc["cells"].([]any) {
		cell := c.(map[string]any)
		if cell["key"] != "uuidv4" {
			continue
		}
		cell["tps"] = cell["tps"].(float64) * 0.7
		for _, rd := range cell["rounds"].([]any) {
			round := rd.(map[string]any)
			round["rate"] = round["rate"].(float64) * 0.7
		}
	}
	slower := filepath.Join(t.TempDir(), "slower.json")
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(slower, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Against itself, eight rounds of rates scattering by a tenth clear a
	// 25% gate on the rate, not a 5% one: a gate that cannot rule out the
	// regression does not pass (exit 3), and says how many rounds would.
	if _, stderr, code := keybench(t, "compare", base, base, "--fail-on", "rate=25%"); code != 0 {
		t.Errorf("a run against itself, its rate gated at 25%%: exit %d: %s", code, stderr)
	}
	if _, stderr, code := keybench(t, "compare", base, base, "--fail-on", "rate=5%"); code != 3 || !strings.Contains(stderr, "rounds a side would decide it") {
		t.Errorf("a run against itself, its rate gated at 5%%: exit %d: %s", code, stderr)
	}
	_, stderr, code := keybench(t, "compare", base, slower, "--fail-on", "5%")
	if code != 1 || !strings.Contains(stderr, "uuidv4 (insert-read") || !strings.Contains(stderr, "rate regressed -30%") || !strings.Contains(stderr, "p=") {
		t.Errorf("uuidv4 30%% slower: exit %d: %s", code, stderr)
	}
	if _, stderr, code := keybench(t, "compare", base, slower, "--fail-on", "rate=40%"); code == 1 {
		t.Errorf("a 30%% regression under --fail-on rate=40%%: exit %d: %s", code, stderr)
	}
	if _, stderr, code := keybench(t, "compare", base, slower, "--fail-on", "lots"); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("--fail-on lots: exit %d: %s", code, stderr)
	}
}

// TestExport (issue 40): --export md of a recorded default run is at most
// 25 lines and a Markdown table of every key; csv has a row a cell that
// encoding/csv reads; json reads back as results; an --export that is no
// FORMAT=FILE is bad usage, before anything runs.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, resultstest.ReadGzip(t, "../report/testdata/cost/war-busy.json.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	md, csvPath, js := filepath.Join(dir, "s.md"), filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.json")
	if _, stderr, code := keybench(t, "report", path, "--export", "md="+md, "--export", "csv="+csvPath, "--export", "json="+js); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(md)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	rows := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| key ") {
			rows++
		}
	}
	if len(lines) > 25 || rows != 6 || !strings.Contains(string(b), "|---|") || !strings.Contains(string(b), "A busy machine") {
		t.Errorf("the Markdown summary: %d lines, %d key rows:\n%s", len(lines), rows, b)
	}
	f, _ := os.Open(csvPath)
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil || len(records) != 7 || records[0][0] != "key" {
		t.Errorf("the CSV: %d records, %v", len(records), err)
	}
	if _, err := results.Read(js, all.Kinds()); err != nil {
		t.Errorf("the JSON does not read back: %v", err)
	}
	for _, bad := range []string{"md", "xml=out.xml", "md="} {
		if _, stderr, code := keybench(t, "run", "--export", bad, "--keys", "bigint"); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("--export %s: exit %d: %s", bad, code, stderr)
		}
	}
}

// TestHistFile (issue 40): --hist-file writes each cell's latency as an
// HdrHistogram interval log, a round an interval; HdrHistogram's own log
// reader reads it back, its counts adding up to the cell's transactions (a
// window of transactions: a timed one also holds the latency of each
// client's transaction still running at its end, which belongs to it).
func TestHistFile(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	if _, stderr, code := keybench(t, "run", "insert", "--keys", "bigint,uuidv4", "--rows", "0", "-t", "400", "--warmup", "0", "--rounds", "2",
		"--hist-file", dir, "--log", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res, err := results.Read(filepath.Join(out, "results.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		// --log (issue 53): pgbench -l's lines, one a measured transaction,
		// each client's numbered from 1 across the rounds.
		lines := readLog(t, c.TxnLog, filepath.Join(out, "logs"))
		next := map[string]int{}
		for _, f := range lines {
			if len(f) != 6 || f[3] != "0" {
				t.Fatalf("%s: a line not in pgbench's format: %q", c.Key, f)
			}
			next[f[0]]++
			if n, err := strconv.Atoi(f[1]); err != nil || n != next[f[0]] {
				t.Fatalf("%s: client %s's transaction %s, want %d", c.Key, f[0], f[1], next[f[0]])
			}
		}
		if int64(len(lines)) != c.Txns {
			t.Errorf("%s: the log holds %d transactions, the cell measured %d", c.Key, len(lines), c.Txns)
		}
		if c.HistFile == "" || filepath.Dir(c.HistFile) != dir {
			t.Fatalf("%s: no interval log recorded (%q)", c.Key, c.HistFile)
		}
		b, err := os.ReadFile(c.HistFile)
		if err != nil {
			t.Fatal(err)
		}
		r := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
		var total int64
		intervals := 0
		for h, err := r.NextIntervalHistogram(); h != nil && err == nil; h, err = r.NextIntervalHistogram() {
			total += h.TotalCount()
			intervals++
		}
		if intervals != len(c.Rounds) || total != c.Txns {
			t.Errorf("%s: %d intervals holding %d transactions; the cell ran %d rounds, %d transactions", c.Key, intervals, total, len(c.Rounds), c.Txns)
		}
	}
}

// readLog reads a cell's pgbench-format log, in dir, as its lines' fields.
func readLog(t *testing.T, path, dir string) [][]string {
	t.Helper()
	if path == "" || filepath.Dir(path) != dir {
		t.Fatalf("no log recorded in %s (%q)", dir, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, strings.Fields(l))
		}
	}
	return out
}

// TestAggregateLog (issue 53): --log --aggregate-interval 1 at a fixed
// rate writes pgbench 15's fifteen columns a second, the lag columns
// filled, the transactions adding up to the cell's; --aggregate-interval
// without --log is refused as pgbench refuses it.
func TestAggregateLog(t *testing.T) {
	out, hist := t.TempDir(), t.TempDir()
	if _, stderr, code := keybench(t, "run", "insert", "--keys", "bigint", "--rows", "0", "-T", "3", "-R", "200", "--warmup", "0", "--rounds", "1",
		"--log", "--aggregate-interval", "1", "--hist-file", hist, "--hist-per-second", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	c := readRun(t, out).Cells[0]
	// --hist-per-second: an interval a second of the window, together
	// holding its measured transactions.
	b, err := os.ReadFile(c.HistFile)
	if err != nil {
		t.Fatal(err)
	}
	r := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
	var inHist int64
	intervals := 0
	for h, err := r.NextIntervalHistogram(); h != nil && err == nil; h, err = r.NextIntervalHistogram() {
		inHist += h.TotalCount()
		intervals++
	}
	if intervals < 3 || intervals > 4 || inHist != c.Txns {
		t.Errorf("--hist-per-second: %d intervals holding %d transactions over a 3 s window of %d", intervals, inHist, c.Txns)
	}
	var txns int64
	lagged := false
	prev := int64(0)
	for _, f := range readLog(t, c.TxnLog, filepath.Join(out, "logs")) {
		if len(f) != 15 {
			t.Fatalf("an aggregate line of %d columns: %q", len(f), f)
		}
		v := make([]int64, len(f))
		for i := range f {
			var err error
			if v[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
				t.Fatalf("column %d not an integer: %q", i+1, f)
			}
		}
		if prev != 0 && v[0] != prev+1 {
			t.Errorf("intervals not a second apart: %d after %d", v[0], prev)
		}
		prev = v[0]
		txns += v[1]
		if v[1] > 0 && (v[4] > v[5] || v[2] < v[1]*v[4] || v[2] > v[1]*v[5]) {
			t.Errorf("latency sums out of their bounds: %q", f)
		}
		lagged = lagged || v[6] > 0
	}
	if txns != c.Txns || !lagged {
		t.Errorf("the aggregates hold %d transactions (the cell %d), lag seen %v", txns, c.Txns, lagged)
	}
	if _, stderr, code := keybench(t, "run", "insert", "--aggregate-interval", "1", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "goes with --log") {
		t.Errorf("--aggregate-interval without --log: exit %d: %s", code, stderr)
	}
}

// TestCacheIsTheRounds: a cell's cache (cache_bytes, and the key index
// over it) is the one its rounds ran with, not the larger one the embedded
// server is restarted with for a large fill and the evidence (a 200k-row
// fill is large enough): the curves projections read are index over the
// rounds' cache.
func TestCacheIsTheRounds(t *testing.T) {
	out := t.TempDir()
	if _, stderr, code := keybench(t, "run", "insert", "--keys", "bigint", "--rows", "200000", "-T", "1", "--warmup", "0", "--rounds", "1", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readRun(t, out)
	want, err := projection.ParseBytes(r.Environment.Settings["shared_buffers"])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Cells {
		got, ok := c.Metrics.CacheBytes.Get()
		kb, _ := c.Metrics.KeyIndexBytes.Get()
		ratio, _ := c.Metrics.KeyIndexCacheRatio.Get()
		// The ratio is the mean of the index's over the cell (it grew by a window's inserts).
		if end := float64(kb) / float64(want); !ok || got != want || ratio > end || ratio < 0.8*end {
			t.Errorf("%s: cache %v, key index over it %v; the rounds ran with %d", c.Key, c.Metrics.CacheBytes, ratio, want)
		}
	}
}
