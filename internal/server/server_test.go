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
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Stop took %s", took)
	}
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
