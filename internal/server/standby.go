package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// Streaming standbys of the embedded server (--replicas): each is a copy
// of the primary's data directory taken right after initdb, while the
// cluster is cleanly stopped, started with standby.signal and a
// primary_conninfo over the private socket. It streams through a physical
// replication slot of its own, so the primary keeps the WAL a slow standby
// still needs instead of breaking it. A standby is a child of keybench
// like the primary: tied to it (it dies with keybench) and stopped before
// the primary at Stop.

// StandbyName is the application_name (and slot name) of standby i (1-based).
func StandbyName(i int) string { return fmt.Sprintf("keybench_standby_%d", i) }

// copyForStandbys copies the freshly initialised, stopped data directory
// once per standby (as the server's user, so the copies are its own).
func (e *Embedded) copyForStandbys(ctx context.Context, n int) ([]string, error) {
	var dirs []string
	for i := 1; i <= n; i++ {
		dir := filepath.Join(e.dir, fmt.Sprintf("standby%d", i))
		cp := e.run.command(ctx, "/bin/cp", "-a", e.DataDir, dir)
		if out, err := cp.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("copying the data directory for standby %d: %v: %s", i, err, lastLines(out, 3))
		}
		signal := filepath.Join(dir, "standby.signal")
		if err := os.WriteFile(signal, nil, 0o600); err != nil {
			return nil, err
		}
		if err := e.run.own(signal); err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

// startStandbys makes each standby's slot on the primary and starts it,
// then waits until every one streams.
func (e *Embedded) startStandbys(ctx context.Context, dirs []string) error {
	conn, err := pgx.Connect(ctx, e.ConnString())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for i, dir := range dirs {
		name := StandbyName(i + 1)
		if _, err := conn.Exec(ctx, "SELECT pg_create_physical_replication_slot($1, true)", name); err != nil {
			return fmt.Errorf("creating the replication slot of standby %d: %w", i+1, err)
		}
		s := &Embedded{Version: e.Version, BinDir: e.BinDir, DataDir: dir, SocketDir: e.SocketDir, Port: e.Port + i + 1,
			User: e.User, CacheMode: e.CacheMode, run: e.run, logPath: filepath.Join(e.dir, name+".log")}
		// The primary's settings (the cold cache, the WAL sizes), then the standby's own.
		s.args = append([]string{"-D", dir, "-k", e.SocketDir, "-p", fmt.Sprint(s.Port)}, e.conf...)
		conninfo := fmt.Sprintf("host=%s port=%d user=%s application_name=%s", e.SocketDir, e.Port, DBUser, name)
		s.args = append(s.args, "-c", "listen_addresses=", "-c", "primary_conninfo="+conninfo, "-c", "primary_slot_name="+name, "-c", "hot_standby=on")
		e.Standbys = append(e.Standbys, s) // stopped at Stop even when it fails to start
		if err := s.launch(ctx, nil); err != nil {
			return fmt.Errorf("standby %d: %w", i+1, err)
		}
	}
	return e.waitStreaming(ctx, conn)
}

// waitStreaming waits until every standby streams from the primary (after
// a start, or a restart of the primary, which they reconnect to).
func (e *Embedded) waitStreaming(ctx context.Context, conn *pgx.Conn) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		var streaming int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND application_name LIKE 'keybench_standby_%'").Scan(&streaming); err != nil {
			return err
		}
		if streaming == len(e.Standbys) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d standbys streaming after 60 s: %s", streaming, len(e.Standbys), e.Standbys[len(e.Standbys)-1].LogTail(3))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
