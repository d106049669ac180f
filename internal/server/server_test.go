package server_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
)

func TestMain(m *testing.M) { os.Exit(servertest.Main(m, server.Options{ColdCache: true})) }

func TestResolveVersion(t *testing.T) {
	for in, want := range map[string]string{"": "18.6.0", "18": "18.6.0", "15": "15.19.0", "16": "16.15.0", "17": "17.11.0", "17.4.0": "17.4.0"} {
		if got, err := server.ResolveVersion(in); err != nil || got != want {
			t.Errorf("ResolveVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"9", "14", "18.x", "latest"} {
		if _, err := server.ResolveVersion(in); err == nil {
			t.Errorf("ResolveVersion(%q) accepted", in)
		}
	}
}

func TestEmbeddedServer(t *testing.T) {
	s := servertest.Server
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var version, listen, sb, direct string
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('listen_addresses'), current_setting('shared_buffers'), current_setting('debug_io_direct')").
		Scan(&version, &listen, &sb, &direct); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "18.") || listen != "" || sb != "16MB" || direct != "data" {
		t.Errorf("version %s, listen_addresses %q, shared_buffers %s, debug_io_direct %s", version, listen, sb, direct)
	}
	if !strings.Contains(s.CacheMode, "direct IO") {
		t.Errorf("cache mode %q", s.CacheMode)
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.PID()))
	if os.Geteuid() == 0 && strings.Contains(string(status), "\nUid:\t0\t") {
		t.Error("the server runs as root")
	}
	st, err := os.Stat(s.SocketDir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory %s: %v %v", s.SocketDir, st.Mode(), err)
	}
}

func TestStopRemovesEverything(t *testing.T) {
	s, err := server.Start(context.Background(), server.Options{Settings: []server.Setting{{Name: "max_connections", Value: "20"}}})
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := s.PID(), s.DataDir
	start := time.Now()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Errorf("postmaster %d still exists after Stop", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("data directory %s still exists", dir)
	}
	t.Logf("Stop took %s", time.Since(start).Round(time.Millisecond)) // the speed is bench/'s; what was done is above
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// TestRestartChangesASetting restarts a server with another shared_buffers
// (what --shared-buffers does between caches): the data stays, the setting
// changes, the old postmaster is gone and Exited follows the new one.
func TestRestartChangesASetting(t *testing.T) {
	ctx := context.Background()
	s, err := server.Start(ctx, server.Options{ColdCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	exec := func(sql string) string {
		t.Helper()
		c, err := pgx.Connect(ctx, s.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var out string
		if err := c.QueryRow(ctx, sql).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if c, err := pgx.Connect(ctx, s.ConnString()); err != nil {
		t.Fatal(err)
	} else if _, err := c.Exec(ctx, "CREATE TABLE kept AS SELECT 42::text AS v"); err != nil {
		t.Fatal(err)
	} else {
		c.Close(ctx)
	}
	oldPID, oldExited := s.PID(), s.Exited()
	if err := s.Restart(ctx, []server.Setting{{Name: "shared_buffers", Value: "3MB"}}); err != nil {
		t.Fatal(err)
	}
	if sb := exec("SELECT current_setting('shared_buffers')"); sb != "3MB" {
		t.Errorf("shared_buffers after the restart: %s", sb)
	}
	if v := exec("SELECT v FROM kept"); v != "42" {
		t.Errorf("the table's row after the restart: %q", v)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", oldPID)); err == nil || s.PID() == oldPID {
		t.Errorf("old postmaster %d still there (new %d)", oldPID, s.PID())
	}
	select {
	case <-oldExited:
	default:
		t.Error("the old Exited channel is open")
	}
	select {
	case <-s.Exited():
		t.Error("Exited is closed while the restarted server runs")
	default:
	}
	if err := s.Restart(ctx, []server.Setting{{Name: "shared_buffers", Value: "nonsense"}}); err == nil {
		t.Error("a restart with a setting PostgreSQL refuses succeeded")
	}
}

// TestMinimalWALFillsWithoutWAL restarts a server at MinimalWAL and fills a
// table in the transaction that empties it: the fill writes a small part
// of the table's bytes as WAL, its rows are there after a restart back,
// and a server whose user set how WAL is kept may not skip it.
func TestMinimalWALFillsWithoutWAL(t *testing.T) {
	ctx := context.Background()
	s, err := server.Start(ctx, server.Options{ColdCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if !s.WALSkippable() {
		t.Fatal("a server without standbys or WAL settings may not skip WAL")
	}
	if err := s.Restart(ctx, server.MinimalWAL); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	var level string
	var walBytes, tableBytes int64
	if err := c.QueryRow(ctx, "SELECT current_setting('wal_level')").Scan(&level); err != nil || level != "minimal" {
		t.Fatalf("wal_level %q, %v", level, err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE filled (id uuid PRIMARY KEY, n bigint)"); err != nil {
		t.Fatal(err)
	}
	var before string
	if err := c.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&before); err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "TRUNCATE filled"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO filled SELECT gen_random_uuid(), g FROM generate_series(1, 100000) g")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::text::pg_lsn)::bigint, pg_total_relation_size('filled')`, before).Scan(&walBytes, &tableBytes); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	if err := s.Restart(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if c, err = pgx.Connect(ctx, s.ConnString()); err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var rows int64
	if err := c.QueryRow(ctx, "SELECT current_setting('wal_level'), (SELECT count(*) FROM filled)").Scan(&level, &rows); err != nil || level == "minimal" || rows != 100000 {
		t.Errorf("after the restart back: wal_level %q, %d rows, %v", level, rows, err)
	}
	// Written with WAL, the fill's records would exceed the table's bytes.
	if walBytes*10 >= tableBytes {
		t.Errorf("the fill wrote %d bytes of WAL for a %d-byte table", walBytes, tableBytes)
	}
	kept, err := server.Start(ctx, server.Options{ColdCache: true, Settings: []server.Setting{{Name: "wal_level", Value: "logical"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Stop()
	if kept.WALSkippable() {
		t.Error("a server whose wal_level the user set may skip WAL")
	}
}

// TestStandbyStreams starts a server with a streaming standby: a row
// written on the primary is read on the standby, and Stop ends both.
func TestStandbyStreams(t *testing.T) {
	ctx := context.Background()
	s, err := server.Start(ctx, server.Options{ColdCache: true, Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if len(s.Standbys) != 1 {
		t.Fatalf("%d standbys", len(s.Standbys))
	}
	if s.WALSkippable() {
		t.Error("a server with a standby may skip WAL")
	}
	sb := s.Standbys[0]
	p, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if _, err := p.Exec(ctx, "CREATE TABLE shipped AS SELECT 7 AS v"); err != nil {
		t.Fatal(err)
	}
	var app, state string
	if err := p.QueryRow(ctx, "SELECT application_name, state FROM pg_stat_replication").Scan(&app, &state); err != nil || app != server.StandbyName(1) || state != "streaming" {
		t.Errorf("pg_stat_replication: %q %q %v", app, state, err)
	}
	c, err := pgx.Connect(ctx, sb.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var v int
	for deadline := time.Now().Add(10 * time.Second); ; {
		err = c.QueryRow(ctx, "SELECT v FROM shipped").Scan(&v)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var recovering bool
	_ = c.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&recovering)
	if err != nil || v != 7 || !recovering {
		t.Errorf("standby read %d (%v), in recovery %v", v, err, recovering)
	}
	c.Close(ctx)
	p.Close(ctx)
	// A restart of the primary (--shared-buffers) returns once the standby streams again.
	if err := s.Restart(ctx, []server.Setting{{Name: "shared_buffers", Value: "4MB"}}); err != nil {
		t.Fatal(err)
	}
	p, err = pgx.Connect(ctx, s.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	var streaming int
	if err := p.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&streaming); err != nil || streaming != 1 {
		t.Errorf("%d standbys streaming after the restart (%v)", streaming, err)
	}
	p.Close(ctx)
	pids := []int{s.PID(), sb.PID()}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("postmaster %d still exists after Stop", pid)
		}
	}
}
