package metrics

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// replication watches the server's streaming standbys over a cell, from
// the primary's pg_stat_replication: the WAL sent to each (before and
// after), its lags sampled every half second of the window, and, when the
// cell ends, how long its replay takes to reach the primary's position.
// Every byte a key's inserts write to the WAL is shipped to every standby
// and replayed there by one process: a key that writes more (full-page
// images of random index pages) costs each replica as much again.
type replication struct {
	env    *Env
	before map[string]int64 // sent positions at the start
	err    error

	// Filled by the sampling goroutine, read after it ends.
	samples map[string][]results.LagSample
	order   []string
	first   map[string]replPos
	last    map[string]replPos
	sampErr error
}

// replPos is a standby's replay position and the primary's WAL position at one sample.
type replPos struct {
	at              time.Time
	replay, primary int64
}

// replRow is one standby in pg_stat_replication.
type replRow struct {
	name                       string
	sent, replay, current      int64
	replayMS, writeMS, flushMS float64
}

// errNoPositions: pg_stat_replication shows a standby's positions only to
// superusers and members of pg_read_all_stats.
var errNoPositions = errors.New("this role cannot read pg_stat_replication's positions (it needs pg_read_all_stats)")

// readReplication lists the streaming standbys. A lag PostgreSQL shows as
// NULL (the standby has replayed everything and nothing new came) is 0.
func readReplication(ctx context.Context, conn *pgx.Conn) ([]replRow, error) {
	rows, err := conn.Query(ctx, `SELECT application_name, pg_wal_lsn_diff(sent_lsn, '0/0')::bigint, pg_wal_lsn_diff(replay_lsn, '0/0')::bigint,
		pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
		coalesce(extract(epoch FROM replay_lag) * 1000, 0)::float8, coalesce(extract(epoch FROM write_lag) * 1000, 0)::float8,
		coalesce(extract(epoch FROM flush_lag) * 1000, 0)::float8
		FROM pg_stat_replication WHERE state = 'streaming' ORDER BY application_name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []replRow
	for rows.Next() {
		var r replRow
		var sent, replay *int64
		if err := rows.Scan(&r.name, &sent, &replay, &r.current, &r.replayMS, &r.writeMS, &r.flushMS); err != nil {
			return nil, err
		}
		if sent == nil || replay == nil {
			return nil, errNoPositions
		}
		r.sent, r.replay = *sent, *replay
		out = append(out, r)
	}
	return out, rows.Err()
}

func startReplication(ctx context.Context, env *Env) *replication {
	w := &replication{env: env, before: map[string]int64{}, samples: map[string][]results.LagSample{}, first: map[string]replPos{}, last: map[string]replPos{}}
	// The standbys first replay what came before the cell (its table's
	// fill, the checkpoint): the cell's lags are its own.
	if rows, err := readReplication(ctx, env.Admin); err == nil && len(rows) > 0 {
		w.waitForReplay(ctx, rows[0].current, len(rows))
	}
	rows, err := readReplication(ctx, env.Admin)
	switch {
	case err != nil:
		w.err = err
	case len(rows) == 0:
		w.err = errors.New(env.noStandbyWhy())
	}
	for _, r := range rows {
		w.before[r.name] = r.sent
		w.order = append(w.order, r.name)
	}
	return w
}

func (env *Env) noStandbyWhy() string {
	if env.NoStandby != "" {
		return env.NoStandby
	}
	return "no standby streams from this server (pg_stat_replication is empty)"
}

// sample records the standbys' lags once.
func (w *replication) sample(ctx context.Context, conn *pgx.Conn, winStart time.Time) {
	rows, err := readReplication(ctx, conn)
	if err != nil {
		if ctx.Err() == nil {
			w.sampErr = err
		}
		return
	}
	now := time.Now()
	for _, r := range rows {
		if _, ok := w.before[r.name]; !ok {
			continue // a standby that connected during the cell has no start
		}
		w.samples[r.name] = append(w.samples[r.name], results.LagSample{T: now.Sub(winStart).Seconds(), ReplayMS: r.replayMS, WriteMS: r.writeMS,
			FlushMS: r.flushMS, ReplayBytes: float64(max(r.current-r.replay, 0))})
		p := replPos{at: now, replay: r.replay, primary: r.current}
		if _, ok := w.first[r.name]; !ok {
			w.first[r.name] = p
		}
		w.last[r.name] = p
	}
}

// catchUpLimit bounds the wait for a standby to replay a cell's WAL.
const catchUpLimit = 120 * time.Second

// stop reads the positions again, waits for every standby to replay what
// the primary wrote up to now, and records each standby.
func (w *replication) stop(ctx context.Context, into *results.Metrics) {
	if w.err != nil {
		into.Replication = unavailable[[]results.Standby](w.err.Error())
		return
	}
	if w.sampErr != nil {
		into.Replication = unavailable[[]results.Standby]("sampling pg_stat_replication: " + w.sampErr.Error())
		return
	}
	rows, err := readReplication(ctx, w.env.Admin)
	if err != nil {
		into.Replication = unavailable[[]results.Standby](err.Error())
		return
	}
	after := map[string]replRow{}
	var target int64
	for _, r := range rows {
		after[r.name] = r
		target = r.current
	}
	caughtUp := w.waitForReplay(ctx, target, len(w.order))
	var out []results.Standby
	for _, name := range w.order {
		a, ok := after[name]
		if !ok {
			into.Replication = unavailable[[]results.Standby]("standby " + name + " stopped streaming during the cell")
			return
		}
		s := results.Standby{Name: name, ShippedBytes: a.sent - w.before[name], Lag: w.samples[name]}
		if f, ok := w.first[name]; ok {
			l := w.last[name]
			s.WindowS, s.ReplayedBytes, s.PrimaryBytes = l.at.Sub(f.at).Seconds(), l.replay-f.replay, l.primary-f.primary
		}
		if d, ok := caughtUp[name]; ok {
			s.CatchUpS = results.Of(d.Seconds())
			s.KeptUp = d <= time.Second
		} else {
			s.CatchUpS = unavailable[float64]("the standby had not replayed the cell's WAL " + catchUpLimit.String() + " after it")
		}
		s.Summarize()
		out = append(out, s)
	}
	into.Replication = results.Of(out)
}

// waitForReplay polls until the standbys' (n of them) replay reaches
// target (up to catchUpLimit) and returns how long each took.
func (w *replication) waitForReplay(ctx context.Context, target int64, n int) map[string]time.Duration {
	start := time.Now()
	done := map[string]time.Duration{}
	for {
		rows, err := readReplication(ctx, w.env.Admin)
		if err != nil {
			return done
		}
		for _, r := range rows {
			if _, ok := done[r.name]; !ok && r.replay >= target {
				done[r.name] = time.Since(start)
			}
		}
		if len(done) >= n || time.Since(start) > catchUpLimit {
			return done
		}
		select {
		case <-ctx.Done():
			return done
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// mergeReplication joins the rounds' standbys: bytes add up, the lag
// samples follow each other, the catch-up is the slowest round's.
func mergeReplication(ms []results.Metrics, total int64) results.M[[]results.Standby] {
	out := combine(ms, func(m *results.Metrics) results.M[[]results.Standby] { return m.Replication },
		func(a, b []results.Standby) []results.Standby {
			c := make([]results.Standby, 0, len(a))
			for i := range a {
				if i >= len(b) || a[i].Name != b[i].Name {
					return a
				}
				x, y := a[i], b[i]
				x.ShippedBytes += y.ShippedBytes
				for _, l := range y.Lag {
					l.T += x.WindowS
					x.Lag = append(x.Lag, l)
				}
				x.WindowS += y.WindowS
				x.ReplayedBytes += y.ReplayedBytes
				x.PrimaryBytes += y.PrimaryBytes
				xc, ok1 := x.CatchUpS.Get()
				yc, ok2 := y.CatchUpS.Get()
				if ok1 && ok2 {
					x.CatchUpS = results.Of(math.Max(xc, yc))
				} else if ok1 {
					x.CatchUpS = y.CatchUpS
				}
				x.KeptUp = x.KeptUp && y.KeptUp
				c = append(c, x)
			}
			return c
		})
	if ss, ok := out.Get(); ok {
		for i := range ss {
			ss[i].ShippedBytesPerRow = results.PerRow(float64(ss[i].ShippedBytes), total)
			ss[i].Summarize()
		}
		out = results.Of(ss)
	}
	return out
}
