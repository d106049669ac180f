package metrics

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
)

// TestMain starts one embedded server with a streaming standby for the
// package's tests that watch a real standby (the fuzz target needs none).
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		os.Exit(m.Run())
	}
	os.Exit(servertest.Main(m, server.Options{Replicas: 1}))
}

// logged collects what the collectors say in the progress output.
type logged struct {
	mu    sync.Mutex
	lines []string
}

func (l *logged) logf(f string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(f, a...))
}

func (l *logged) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func standbyEnv(t *testing.T, admin *pgx.Conn, wait time.Duration, log *logged) Env {
	cc, err := pgx.ParseConfig(servertest.Server.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	return Env{Admin: admin, ConnConfig: cc, Schema: "public", Table: "t", StandbyWait: wait, Lagging: map[string]bool{}, Logf: log.logf}
}

// TestPausedStandbyIsBounded is issue 24's: a standby whose replay was
// paused (pg_wal_replay_pause) made keybench wait 120 s in silence before
// and after every window, and recorded the age of its last reply as fresh
// samples, identical every half second. Now each wait is bounded by the
// budget and said in the progress output, the standby is recorded as
// falling behind (and not waited for again), and only new replies are samples.
func TestPausedStandbyIsBounded(t *testing.T) {
	ctx := context.Background()
	primary := servertest.Connect(t)
	standby, err := pgx.Connect(ctx, servertest.Server.Standbys[0].ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close(ctx)
	exec := func(c *pgx.Conn, sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(primary, "CREATE TABLE IF NOT EXISTS paused (i int, v text)")
	exec(standby, "SELECT pg_wal_replay_pause()")
	defer exec(standby, "SELECT pg_wal_replay_resume()")
	exec(primary, "INSERT INTO paused SELECT i, md5(i::text) FROM generate_series(1, 20000) i")
	var log logged
	env := standbyEnv(t, primary, 2*time.Second, &log)
	start := time.Now()
	s := startNow(ctx, env)
	for range 6 {
		exec(primary, "INSERT INTO paused SELECT i, md5(i::text) FROM generate_series(1, 5000) i")
		time.Sleep(500 * time.Millisecond)
	}
	var m results.Metrics
	s.Stop(ctx, &m)
	t.Logf("a paused standby: start and stop in %s; said: %s", time.Since(start).Round(time.Millisecond), log.text())
	if !strings.Contains(log.text(), "did not replay") || !strings.Contains(log.text(), "falling behind") {
		t.Errorf("no word of the standby in the progress: %q", log.text())
	}
	ss, ok := m.Replication.Get()
	if !ok || len(ss) != 1 {
		t.Fatalf("replication: %+v", m.Replication)
	}
	sb := ss[0]
	if sb.BehindAtStartBytes <= 0 || sb.KeptUp || sb.CatchUpS.Reason() == "" || !strings.Contains(sb.CatchUpS.Reason(), "--standby-wait") {
		t.Errorf("the paused standby: behind %d at the start, kept up %v, catch-up %+v", sb.BehindAtStartBytes, sb.KeptUp, sb.CatchUpS)
	}
	// Samples are replies: never two with the same reply (the same figures
	// every half second of a reply ten seconds old).
	for i := 1; i < len(sb.Lag); i++ {
		if sb.Lag[i].ReplayMS == sb.Lag[i-1].ReplayMS && sb.Lag[i].WriteMS == sb.Lag[i-1].WriteMS && sb.Lag[i].FlushMS == sb.Lag[i-1].FlushMS && sb.Lag[i].ReplayBytes == sb.Lag[i-1].ReplayBytes {
			t.Errorf("samples %d and %d are the same reply: %+v", i-1, i, sb.Lag[i])
		}
	}
	// The next cell does not wait for it again: nothing more is said of it.
	said := log.text()
	s = startNow(ctx, env)
	s.Stop(ctx, &m)
	if again := strings.TrimPrefix(log.text(), said); strings.Contains(again, "did not replay") || strings.Contains(again, "waiting") {
		t.Errorf("a standby known to fall behind was waited for again: %q", again)
	}
}

// TestPositionsOfARoleWithoutTheRight: pg_stat_replication hides a
// standby's positions from a role without pg_read_all_stats; the reason
// says so and names the grant. A superuser right after the standbys
// reconnect (positions NULL for a moment) is never told it lacks a right.
func TestPositionsOfARoleWithoutTheRight(t *testing.T) {
	ctx := context.Background()
	admin := servertest.Connect(t)
	for _, s := range []string{"DROP ROLE IF EXISTS kbnostats", "CREATE ROLE kbnostats LOGIN"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	cc, _ := pgx.ParseConfig(servertest.Server.ConnString())
	cc.User = "kbnostats"
	plain, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	var log logged
	var m results.Metrics
	startNow(ctx, standbyEnv(t, plain, time.Second, &log)).Stop(ctx, &m)
	if r := m.Replication.Reason(); !strings.Contains(r, "pg_read_all_stats") {
		t.Errorf("a role without the right: %q", r)
	}
	// Superuser, just after a restart of the primary (its standby reconnects).
	if err := servertest.Server.Restart(ctx, nil); err != nil {
		t.Fatal(err)
	}
	admin = servertest.Connect(t)
	startNow(ctx, standbyEnv(t, admin, 5*time.Second, &log)).Stop(ctx, &m)
	if r := m.Replication.Reason(); strings.Contains(r, "pg_read_all_stats") {
		t.Errorf("a superuser after a restart is told it lacks a right: %q", r)
	}
}

// startNow starts a session whose window starts at once (no warm-up).
func startNow(ctx context.Context, env Env) *Session {
	s := Start(ctx, env)
	s.WindowStarts(time.Now())
	return s
}
