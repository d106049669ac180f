// Package clitest runs the keybench binary as a user does, for the tests
// of package cli and of the packages its long tests are split into (each a
// test binary of its own, so that no package of them needs more than half
// of go test's time on a busy machine): it builds the binary, runs it, and
// plays someone else's server on the package's own (servertest.Server).
package clitest

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
)

// Build builds the keybench binary into dir and returns its path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "keybench")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/keybench/keybench/cmd/keybench").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building keybench: %v\n%s", err, out)
	}
	return bin, nil
}

// Run runs the binary with args and returns what it printed and its exit
// code.
func Run(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

// WriteFile writes text to a file of the test's and returns its path.
func WriteFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.sql")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ErrorLines are the "keybench: " lines of stderr.
func ErrorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "keybench: ") {
			out = append(out, l)
		}
	}
	return out
}

// LastLine is the last line of s.
func LastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

// Superuser connects to the package's server as its superuser.
func Superuser(t *testing.T, db string) *pgx.Conn {
	t.Helper()
	u, _ := url.Parse(servertest.Server.TCPURL())
	u.Path = "/" + db
	return ConnectAs(t, u.String())
}

// Exec runs each statement on c, failing the test on the first error.
func Exec(t *testing.T, c *pgx.Conn, sql ...string) {
	t.Helper()
	for _, s := range sql {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// ConnectAs connects with dsn for the test.
func ConnectAs(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// RestrictedDB makes a database of "someone else's": a role with only
// CREATE on it and no superuser rights, and a schema of the owner's with a
// table of data in it. It returns the role's DSN (password in it).
func RestrictedDB(t *testing.T, db, role, password string) string {
	t.Helper()
	admin := Superuser(t, "postgres")
	Exec(t, admin, "DROP DATABASE IF EXISTS "+db, "CREATE DATABASE "+db, fmt.Sprintf("DROP ROLE IF EXISTS %s", role),
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' NOSUPERUSER NOCREATEDB NOCREATEROLE", role, password),
		fmt.Sprintf("GRANT CREATE ON DATABASE %s TO %s", db, role))
	app := Superuser(t, db)
	Exec(t, app, "CREATE SCHEMA app", "CREATE TABLE app.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text)",
		"INSERT INTO app.orders (note) SELECT 'order ' || i FROM generate_series(1, 1000) i",
		"CREATE TABLE public.kb_cell (x int)", "INSERT INTO public.kb_cell VALUES (42)",
		"CREATE SCHEMA theirs", "COMMENT ON SCHEMA theirs IS 'not keybench''s'", "GRANT USAGE, CREATE ON SCHEMA theirs, public TO "+role,
		"CREATE TABLE theirs.keep_me (x int)", "INSERT INTO theirs.keep_me VALUES (1), (2)")
	u, _ := url.Parse(servertest.Server.TCPURL())
	u.User, u.Path = url.UserPassword(role, password), "/"+db
	return u.String()
}

// ExitOf waits for cmd and returns its exit code and how long that took from start.
func ExitOf(cmd *exec.Cmd, start time.Time) (int, time.Duration) {
	_ = cmd.Wait() // its error is the exit code, read from the process's state (-1: it never ran, or a signal ended it)
	return cmd.ProcessState.ExitCode(), time.Since(start)
}

// Main builds the binary into a directory of its own (its path in *bin),
// runs the package's tests beside a server of the package's own, listening
// on loopback TCP with password authentication (someone else's server for
// --dsn), and removes the binary: a test package's TestMain.
func Main(m *testing.M, bin *string) int {
	return MainWith(m, bin, server.Options{TCP: true, ColdCache: true})
}

// MainWith is Main beside a server started with o (TCP is always on).
func MainWith(m *testing.M, bin *string, o server.Options) int {
	o.TCP = true
	dir, err := os.MkdirTemp("", "keybench-test-bin-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *bin, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return servertest.Main(m, o)
}

// Outputs are everything a run showed: its stdout and stderr, and each file
// it wrote in dir (by name).
func Outputs(stdout, stderr, dir string) map[string]string {
	out := map[string]string{"stdout": stdout, "stderr": stderr}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// SyncBuffer is a buffer a process writes while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
