package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/keybench/keybench/internal/results"
)

// ioCounter: pg_stat_io (16+), summed over client backends and over all
// backends, for relations.
type ioCounter struct{}

// ioSnap holds the sums for all backends and for client backends: reads,
// writes, extends, hits, evictions, fsyncs; the clients' read time (ms; why
// none when track_io_timing is off) and the WAL's flushes.
type ioSnap struct {
	all, clients  [6]int64
	clientsReadMS float64
	// clientsIOMS is the client backends' time in relation IO (reads,
	// writes, extends, fsyncs), walIOMS the WAL's writes and flushes (the
	// client backends' on 18, the cluster's before): with the backends'
	// CPU, what a transaction cost the server (track_io_timing,
	// track_wal_io_timing).
	clientsIOMS, walIOMS  float64
	noTiming, noWALTiming string
	walFsyncs             int64
	walErr                string
}

func (ioCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	if env.Major < 16 {
		return nil, fmt.Errorf("pg_stat_io needs PostgreSQL 16 (this is %d)", env.Major)
	}
	rows, _ := env.Admin.Query(ctx, `SELECT backend_type = 'client backend',
		coalesce(sum(reads),0)::bigint, coalesce(sum(writes),0)::bigint, coalesce(sum(extends),0)::bigint,
		coalesce(sum(hits),0)::bigint, coalesce(sum(evictions),0)::bigint, coalesce(sum(fsyncs),0)::bigint,
		coalesce(sum(read_time),0)::float8,
		coalesce(sum(read_time),0)::float8 + coalesce(sum(write_time),0)::float8 + coalesce(sum(extend_time),0)::float8 + coalesce(sum(fsync_time),0)::float8
		FROM pg_stat_io WHERE object = 'relation' GROUP BY 1`)
	var s ioSnap
	var client bool
	var v [6]int64
	var readMS, ioMS float64
	if _, err := pgx.ForEachRow(rows, []any{&client, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &readMS, &ioMS}, func() error {
		for i := range v {
			s.all[i] += v[i]
			if client {
				s.clients[i] += v[i]
			}
		}
		if client {
			s.clientsReadMS += readMS
			s.clientsIOMS += ioMS
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var timing string
	if err := env.Admin.QueryRow(ctx, `SELECT current_setting('track_io_timing')`).Scan(&timing); err != nil {
		return nil, err
	}
	if timing != "on" {
		s.noTiming = "track_io_timing is off on the server: read times are not counted"
	}
	walQ := `SELECT coalesce(sum(fsyncs),0)::bigint, coalesce(sum(write_time + fsync_time) FILTER (WHERE backend_type = 'client backend'),0)::float8,
		current_setting('track_wal_io_timing') FROM pg_stat_io WHERE object = 'wal'`
	if env.Major < 18 {
		walQ = `SELECT wal_sync, (wal_write_time + wal_sync_time)::float8, current_setting('track_wal_io_timing') FROM pg_stat_wal`
	}
	var walTiming string
	if err := env.Admin.QueryRow(ctx, walQ).Scan(&s.walFsyncs, &s.walIOMS, &walTiming); err != nil {
		s.walErr = err.Error()
	} else if walTiming != "on" {
		s.noWALTiming = "track_wal_io_timing is off on the server: the WAL's write and flush times are not counted"
	}
	return s, nil
}

func (ioCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(ioSnap), a.(ioSnap)
	out := results.IO{Source: "pg_stat_io (object relation; blocks of 8 kB)"}
	for i := range out.All {
		out.All[i], out.Clients[i] = after.all[i]-before.all[i], after.clients[i]-before.clients[i]
	}
	if after.noTiming != "" {
		out.ClientsReadMS = results.Unavailable[float64](after.noTiming)
		out.ClientsIOMS = results.Unavailable[float64](after.noTiming)
	} else {
		out.ClientsReadMS = results.Of(after.clientsReadMS - before.clientsReadMS)
		out.ClientsIOMS = results.Of(after.clientsIOMS - before.clientsIOMS)
	}
	switch {
	case after.walErr != "":
		out.WALIOMS = results.Unavailable[float64](after.walErr)
	case after.noWALTiming != "":
		out.WALIOMS = results.Unavailable[float64](after.noWALTiming)
	default:
		out.WALIOMS = results.Of(after.walIOMS - before.walIOMS)
	}
	if after.walErr != "" {
		out.WALFsyncs = results.Unavailable[int64](after.walErr)
	} else {
		out.WALFsyncs = results.Of(after.walFsyncs - before.walFsyncs)
	}
	into.IO = results.Of(out)
}

func (ioCounter) figures() []declared {
	return []declared{merged(func(m *results.Metrics) *results.M[results.IO] { return &m.IO }, onCoordinator, mergeIO)}
}

func (ioCounter) unavailable(reason string, into *results.Metrics) {
	into.IO = results.Unavailable[results.IO](reason)
}
