package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/cli/clitest"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/verdict"
)

// Issue 49: every promise kept under attack.

// TestExportsCannotEatTheRun: an export aimed at a file of the run itself,
// into a directory that does not exist, or over a file already there, is
// refused before anything runs (exit 2, naming it); --force replaces an
// existing file, never the run's own.
func TestExportsCannotEatTheRun(t *testing.T) {
	out := t.TempDir()
	existing := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(existing, []byte("mine\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--export", "md=" + filepath.Join(out, "results.json")}, "results.json is a file this command writes"},
		{[]string{"--export", "csv=" + filepath.Join(out, "samples.csv"), "--force"}, "samples.csv is a file this command writes"},
		{[]string{"--export", "md=/nonexistent/dir/x.md"}, "/nonexistent/dir does not exist"},
		{[]string{"--export", "md=" + existing}, "exists (an earlier run's?); --force replaces it"},
		{[]string{"--export", "md=" + filepath.Join(out, "a.md"), "--export", "csv=" + filepath.Join(out, "a.md")}, "is another output of this command"},
	} {
		cmd := exec.Command(bin, append([]string{"run", "--quick", "--out", out}, c.args...)...)
		b, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), c.want) || strings.Contains(string(b), "PostgreSQL") {
			t.Errorf("%v: exit %d, want 2 before the run saying %q:\n%s", c.args, cmd.ProcessState.ExitCode(), c.want, b)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "mine\n" {
		t.Errorf("the user's file changed: %q", b)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a refused run left %d files in --out", len(entries))
	}
	// report: an export over the results it reads.
	res := filepath.Join(t.TempDir(), "results.json")
	os.WriteFile(res, []byte(`{"schema_version": 2, "cells": []}`), 0o644)
	cmd := exec.Command(bin, "report", res, "--export", "json="+res)
	if b, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "is a file this command writes or reads") {
		t.Errorf("report --export over its own results: exit %d:\n%s", cmd.ProcessState.ExitCode(), b)
	}
}

// TestTwoSIGTERMsStillCleanUp: a second SIGTERM during a --dsn run no
// longer kills keybench on the spot (exit 143, its schema left in the
// user's database): it says it is cleaning up, drops what it made, and
// exits 130.
func TestTwoSIGTERMsStillCleanUp(t *testing.T) {
	out := t.TempDir()
	var stderr strings.Builder
	cmd := exec.Command(bin, "run", "insert", "--dsn", servertest.Server.TCPURL(), "--schema", "kb_twice", "--out", out,
		"--keys", "bigint,uuidv4", "-T", "20s", "--warmup", "0s", "--rows", "0", "-c", "2")
	cmd.Stderr = &stderr
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
			cmd.Process.Kill()
			t.Fatal("no client connected")
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(50 * time.Millisecond) // two signals at once are one to the kernel
	cmd.Process.Signal(syscall.SIGTERM)
	code, _ := clitest.ExitOf(cmd, time.Now())
	var left int
	if err := admin.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname = 'kb_twice'").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if code != 130 || left != 0 || !strings.Contains(stderr.String(), "stopping in order") {
		t.Errorf("two SIGTERMs: exit %d, schema left %d, stderr:\n%s", code, left, stderr.String())
	}
}

// TestScriptCannotReachTheUsersTables: a --script on --dsn whose second
// statement drops (or deletes from) a table of the user's is refused
// before any of it runs, naming the line (exit 2); the user's table is as
// it was, row for row.
func TestScriptCannotReachTheUsersTables(t *testing.T) {
	admin := clitest.Superuser(t, "postgres")
	ctx := context.Background()
	for _, s := range []string{"DROP TABLE IF EXISTS public.precious", "CREATE TABLE public.precious (id int PRIMARY KEY, v text)",
		"INSERT INTO public.precious SELECT g, md5(g::text) FROM generate_series(1, 1000) g"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP TABLE IF EXISTS public.precious") })
	dump := func() string {
		var d string
		if err := admin.QueryRow(ctx, "SELECT count(*)::text || ':' || md5(string_agg(id::text || v, ',' ORDER BY id)) FROM public.precious").Scan(&d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	before := dump()
	for i, second := range []string{"DROP TABLE public.precious;", "DELETE FROM public.precious WHERE id < 10;", "WITH d AS (DELETE FROM public.precious RETURNING id) SELECT count(*) FROM d;"} {
		script := filepath.Join(t.TempDir(), "s.sql")
		os.WriteFile(script, []byte("INSERT INTO :table (data) VALUES (1);\n"+second+"\n"), 0o644)
		cmd := exec.Command(bin, "run", "--script", script, "--dsn", servertest.Server.TCPURL(), "--schema", "kb_script_guard", "--out", t.TempDir(),
			"--keys", "bigint", "-T", "1s", "--warmup", "0s", "--rows", "100", "-c", "1")
		b, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "line 2 is refused") {
			t.Errorf("case %d (%s): exit %d, want 2 naming line 2:\n%s", i, second, cmd.ProcessState.ExitCode(), b)
		}
		if after := dump(); after != before {
			t.Fatalf("case %d (%s): the user's table changed: %s, was %s", i, second, after, before)
		}
	}
}

// TestSIGINTDuringALabLeavesNothing: SIGINT while advise --lab runs a
// lab stops the lab's embedded server and removes its directory and
// shared memory before advise exits 130 (it used to return at once and
// leave them to a later run's sweep).
func TestSIGINTDuringALabLeavesNothing(t *testing.T) {
	admin := clitest.Superuser(t, "postgres")
	ctx := context.Background()
	for _, s := range []string{"DROP TABLE IF EXISTS public.labbed_sigint",
		"CREATE TABLE public.labbed_sigint (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int NOT NULL)",
		"INSERT INTO public.labbed_sigint (n) SELECT g FROM generate_series(1, 40000) g"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP TABLE IF EXISTS public.labbed_sigint") })
	tmp := t.TempDir()
	var stderr clitest.SyncBuffer
	cmd := exec.Command(bin, "advise", "--dsn", servertest.Server.ConnString(), "--sample", "1s", "--table", "public.labbed_sigint", "--lab", "--lab-out", filepath.Join(tmp, "labs"))
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var servers []int
	for deadline := time.Now().Add(3 * time.Minute); len(servers) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) || !alive(cmd.Process.Pid) {
			cmd.Process.Kill()
			t.Fatalf("the lab's server never started:\n%s", stderr.String())
		}
		if strings.Contains(stderr.String(), "prefill") || strings.Contains(stderr.String(), "round 1") {
			servers = postgresChildren(cmd.Process.Pid)
		}
	}
	dirs := dataDirs(servers)
	if len(dirs) == 0 {
		t.Fatalf("the lab's server %v has no data directory on its command line", servers)
	}
	shmBefore := keybenchSegments(t)
	cmd.Process.Signal(os.Interrupt)
	code, _ := clitest.ExitOf(cmd, time.Now())
	var left []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Dir(d)); err == nil { // the server's private directory holds its data directory
			left = append(left, filepath.Dir(d))
		}
	}
	if code != 130 || len(left) > 0 {
		t.Errorf("SIGINT during a lab: exit %d, left %v:\n%s", code, left, stderr.String())
	}
	for _, p := range servers {
		if alive(p) {
			t.Errorf("the lab's postgres %d outlived advise", p)
		}
	}
	if after := keybenchSegments(t); after > 0 && after >= shmBefore {
		t.Errorf("shared memory segments of the server's user: %d before the signal, %d after", shmBefore, after)
	}
}

// dataDirs are the data directories (-D) of the postmasters among pids.
func dataDirs(pids []int) []string {
	var out []string
	for _, p := range pids {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		for i, a := range args {
			if a == "-D" && i+1 < len(args) {
				out = append(out, args[i+1])
			}
		}
	}
	return out
}

// keybenchSegments counts the System V shared memory segments the
// unprivileged server user owns (ipcs -m): a server that stops removes its own.
func keybenchSegments(t *testing.T) int {
	t.Helper()
	out, err := exec.Command("ipcs", "-m").Output()
	if err != nil {
		t.Fatalf("ipcs (util-linux): %v", err)
	}
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[2] == "keybench" {
			n++
		}
	}
	return n
}

// gateRun writes a run of one key in rounds, each round's rate and p99
// as given, and returns its results.json.
func gateRun(t *testing.T, rates, p99s []float64) string {
	t.Helper()
	c := results.Cell{Key: "bigint", Workload: "insert", Clients: 8, RowsBefore: 1000, Status: results.StatusOK, Txns: 1000, DurationS: 1, Timeline: []results.Second{}}
	for i := range rates {
		c.Rounds = append(c.Rounds, results.Round{Round: i + 1, Rate: rates[i], Txns: 1000, LatencyMS: &results.Latency{P50: 1, P99: p99s[i], P999: p99s[i]},
			Cost: &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(0.2)}})
	}
	r := &results.Results{SchemaVersion: results.SchemaVersion, Status: results.StatusOK, Scenario: "insert", Cells: []results.Cell{c},
		Environment: results.Environment{ServerVersion: "18.6", Settings: map[string]string{}}}
	dir := t.TempDir()
	if err := verdict.Write(r, dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "results.json")
}

// TestGateThatCannotDecideDoesNotPass (issue 53): compare --fail-on exits
// 1 naming the measure that regressed (a p99 of 22 ms against 8 ms at the
// same rate, which the rate-only gate missed), and 3 — neither 0 nor 2 —
// when it cannot decide (two rounds a side), saying what would.
func TestGateThatCannotDecideDoesNotPass(t *testing.T) {
	eight := func(v float64) []float64 {
		out := make([]float64, 8)
		for i := range out {
			out[i] = v * (1 + 0.01*float64(i%3-1))
		}
		return out
	}
	a, b := gateRun(t, eight(1000), eight(8)), gateRun(t, eight(1000), eight(22))
	_, stderr, code := keybench(t, "compare", a, b, "--fail-on", "5%")
	if code != 1 || !strings.Contains(stderr, "p99 regressed +") {
		t.Errorf("a p99 regression at the same rate: exit %d: %s", code, stderr)
	}
	if _, stderr, code = keybench(t, "compare", a, b, "--fail-on", "rate=5%"); code != 0 {
		t.Errorf("the rate alone gated: exit %d: %s", code, stderr)
	}
	two := func(v float64) []float64 { return []float64{v, v * 1.01} }
	_, stderr, code = keybench(t, "compare", gateRun(t, two(1000), two(8)), gateRun(t, two(700), two(8)), "--fail-on", "5%")
	if code != 3 || !strings.Contains(stderr, "undecided") || !strings.Contains(stderr, "rounds") {
		t.Errorf("two rounds a side: exit %d, want 3 saying what would decide: %s", code, stderr)
	}
}
