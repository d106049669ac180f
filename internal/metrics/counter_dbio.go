package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// dbioCounter: before PostgreSQL 16, which has no pg_stat_io, the IO time
// of the database's backends (pg_stat_database: blk_read_time and
// blk_write_time, with track_io_timing) and the WAL's write and flush time
// (pg_stat_wal, with track_wal_io_timing): the IO part of a transaction's
// cost on 15 (on 16 and later ioCounter's pg_stat_io has it per backend
// type). The database is the cell's alone on the embedded server.
type dbioCounter struct{}

type dbioSnap struct{ blockMS, walMS float64 }

func (dbioCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	if env.Major >= 16 {
		return nil, fmt.Errorf("on PostgreSQL %d pg_stat_io has it (io)", env.Major)
	}
	var s dbioSnap
	var timing, walTiming string
	err := env.Admin.QueryRow(ctx, `SELECT (blk_read_time + blk_write_time)::float8, current_setting('track_io_timing'),
		(SELECT (wal_write_time + wal_sync_time)::float8 FROM pg_stat_wal), current_setting('track_wal_io_timing')
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&s.blockMS, &timing, &s.walMS, &walTiming)
	switch {
	case err != nil:
		return nil, err
	case timing != "on":
		return nil, fmt.Errorf("track_io_timing is off on the server: block IO times are not counted")
	case walTiming != "on":
		return nil, fmt.Errorf("track_wal_io_timing is off on the server: the WAL's write and flush times are not counted")
	}
	return s, nil
}

func (dbioCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(dbioSnap), a.(dbioSnap)
	into.DatabaseIOMS = results.Of(after.blockMS - before.blockMS + after.walMS - before.walMS)
}

func (dbioCounter) unavailable(reason string, into *results.Metrics) {
	into.DatabaseIOMS = results.Unavailable[float64](reason)
}

func (dbioCounter) figures() []declared {
	return []declared{summed(func(m *results.Metrics) *results.M[float64] { return &m.DatabaseIOMS }, onCoordinator, func(a, b float64) float64 { return a + b })}
}
