package metrics

import (
	"context"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// serverIOCounter: what every process of the server did to the disk, as
// counts (results.ServerIO): on 16 and later pg_stat_io's relation reads,
// writes and extends over every backend type (the checkpointer's and the
// background writer's writes with the backends'), and the WAL's flushes
// (pg_stat_io's wal object on 18, pg_stat_wal's wal_sync on 16 and 17);
// before 16, pg_stat_database's blks_read (the database's backends),
// pg_stat_bgwriter's buffers written by checkpoints, the background
// writer and backends, and pg_stat_wal's wal_sync. Counts need no timing
// setting: they are what a key's work costs on any disk (priced by
// package verdict on a named device).
type serverIOCounter struct{}

type serverIOSnap struct {
	reads, writes, extends, flushes int64
	source                          string
}

func (serverIOCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	var s serverIOSnap
	switch {
	case env.Major >= 18:
		s.source = "pg_stat_io (relation and wal objects, every backend type)"
		return s, env.Admin.QueryRow(ctx, `SELECT coalesce(sum(reads) FILTER (WHERE object = 'relation'),0)::bigint,
			coalesce(sum(writes) FILTER (WHERE object = 'relation'),0)::bigint, coalesce(sum(extends) FILTER (WHERE object = 'relation'),0)::bigint,
			coalesce(sum(fsyncs) FILTER (WHERE object = 'wal'),0)::bigint FROM pg_stat_io`).Scan(&s.reads, &s.writes, &s.extends, &s.flushes)
	case env.Major >= 16:
		s.source = "pg_stat_io (relation object, every backend type); pg_stat_wal's wal_sync"
		return s, env.Admin.QueryRow(ctx, `SELECT coalesce(sum(reads),0)::bigint, coalesce(sum(writes),0)::bigint, coalesce(sum(extends),0)::bigint,
			(SELECT wal_sync FROM pg_stat_wal) FROM pg_stat_io WHERE object = 'relation'`).Scan(&s.reads, &s.writes, &s.extends, &s.flushes)
	}
	s.source = "pg_stat_database's blks_read; pg_stat_bgwriter's buffers_checkpoint, buffers_clean and buffers_backend; pg_stat_wal's wal_sync"
	return s, env.Admin.QueryRow(ctx, `SELECT (SELECT blks_read FROM pg_stat_database WHERE datname = current_database()),
		buffers_checkpoint + buffers_clean + buffers_backend, (SELECT wal_sync FROM pg_stat_wal) FROM pg_stat_bgwriter`).Scan(&s.reads, &s.writes, &s.flushes)
}

func (serverIOCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(serverIOSnap), a.(serverIOSnap)
	into.ServerIO = results.Of(results.ServerIO{Source: after.source, Reads: after.reads - before.reads, Writes: after.writes - before.writes,
		Extends: after.extends - before.extends, WALFlushes: after.flushes - before.flushes})
}

func (serverIOCounter) unavailable(reason string, into *results.Metrics) {
	into.ServerIO = results.Unavailable[results.ServerIO](reason)
}

func (serverIOCounter) figures() []declared {
	return []declared{summed(func(m *results.Metrics) *results.M[results.ServerIO] { return &m.ServerIO }, onCoordinator, func(a, b results.ServerIO) results.ServerIO {
		return results.ServerIO{Source: b.Source, Reads: a.Reads + b.Reads, Writes: a.Writes + b.Writes, Extends: a.Extends + b.Extends, WALFlushes: a.WALFlushes + b.WALFlushes}
	})}
}
