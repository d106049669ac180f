package metrics

import (
	"context"
	"errors"
	"fmt"
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
//
// Waiting for a standby is bounded (Env.StandbyWait) and said in the
// progress output: a standby that cannot catch up — its replay paused, a
// recovery_min_apply_delay, a machine too slow — is recorded as such and
// the run goes on; the run's later cells do not wait for it again.
type replication struct {
	env    *Env
	before map[string]int64 // sent positions at the start
	// behind is how far a standby's replay was behind when the cell began,
	// for a standby that did not catch up with what came before.
	behind map[string]int64
	err    error

	// Filled by the sampling goroutine, read after it ends.
	samples   map[string][]results.LagSample
	order     []string
	first     map[string]replPos
	last      map[string]replPos
	lastReply map[string]time.Time
	sampErr   error
}

// replPos is a standby's replay position and the primary's WAL position at one sample.
type replPos struct {
	at              time.Time
	replay, primary int64
}

// replRow is one standby in pg_stat_replication: its positions (nil until
// it has reported them, or when the role may not read them), its lags (nil:
// NULL) and the time of its last reply.
type replRow struct {
	name                       string
	sent, write, flush, replay *int64
	current                    int64
	replayMS, writeMS, flushMS *float64
	replyAt                    *time.Time
}

// caughtUp says the standby has replayed everything the primary wrote.
func (r replRow) caughtUp() bool { return r.replay != nil && *r.replay >= r.current }

// errNoPositions: pg_stat_replication shows a standby's positions only to
// superusers and members of pg_read_all_stats.
var errNoPositions = errors.New("this role cannot read pg_stat_replication's positions (grant it pg_read_all_stats)")

// readReplication lists the streaming standbys.
func readReplication(ctx context.Context, conn *pgx.Conn) ([]replRow, error) {
	rows, err := conn.Query(ctx, `SELECT application_name,
		pg_wal_lsn_diff(sent_lsn, '0/0')::bigint, pg_wal_lsn_diff(write_lsn, '0/0')::bigint,
		pg_wal_lsn_diff(flush_lsn, '0/0')::bigint, pg_wal_lsn_diff(replay_lsn, '0/0')::bigint,
		pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
		(extract(epoch FROM replay_lag) * 1000)::float8, (extract(epoch FROM write_lag) * 1000)::float8,
		(extract(epoch FROM flush_lag) * 1000)::float8, reply_time
		FROM pg_stat_replication WHERE coalesce(state, 'hidden from this role') IN ('streaming', 'hidden from this role')
		ORDER BY application_name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (r replRow, err error) {
		return r, row.Scan(&r.name, &r.sent, &r.write, &r.flush, &r.replay, &r.current, &r.replayMS, &r.writeMS, &r.flushMS, &r.replyAt)
	})
}

// canReadPositions says whether the role sees pg_stat_replication's
// positions: a superuser or a member of pg_read_all_stats.
func canReadPositions(ctx context.Context, conn *pgx.Conn) bool {
	var ok bool
	err := conn.QueryRow(ctx, `SELECT rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') FROM pg_roles WHERE rolname = current_user`).Scan(&ok)
	return err == nil && ok
}

// positioned reads the standbys once they have reported their positions:
// right after a standby (re)connects its positions are NULL for a moment.
// NULL positions for a role that may read them are waited for (up to the
// budget); for a role that may not, they are the permission's.
func (w *replication) positioned(ctx context.Context) ([]replRow, error) {
	deadline := time.Now().Add(w.env.standbyWait())
	for {
		rows, err := readReplication(ctx, w.env.Admin)
		if err != nil {
			return nil, err
		}
		var silent []string
		for _, r := range rows {
			if r.sent == nil || r.replay == nil {
				silent = append(silent, r.name)
			}
		}
		if len(silent) == 0 {
			return rows, nil
		}
		if !canReadPositions(ctx, w.env.Admin) {
			return nil, errNoPositions
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("standby %s has not reported its positions to the primary within %s (it may have just restarted)", silent[0], w.env.standbyWait())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func startReplication(ctx context.Context, env *Env) *replication {
	w := &replication{env: env, before: map[string]int64{}, behind: map[string]int64{}, samples: map[string][]results.LagSample{},
		first: map[string]replPos{}, last: map[string]replPos{}, lastReply: map[string]time.Time{}}
	rows, err := readReplication(ctx, env.Admin)
	switch {
	case err != nil:
		w.err = err
		return w
	case len(rows) == 0:
		w.err = errors.New(env.noStandbyWhy())
		return w
	}
	if rows, err = w.positioned(ctx); err != nil {
		w.err = err
		return w
	}
	// The standbys first replay what came before the cell (its table's
	// fill, the checkpoint): the cell's lags are its own, unless a standby
	// cannot catch up within the budget.
	done := w.waitForReplay(ctx, rows[0].current, rows, "what came before the cell")
	if rows, err = w.positioned(ctx); err != nil {
		w.err = err
		return w
	}
	for _, r := range rows {
		w.before[r.name] = *r.sent
		w.order = append(w.order, r.name)
		if _, ok := done[r.name]; !ok {
			w.behind[r.name] = max(r.current-*r.replay, 0)
		}
	}
	return w
}

func (env *Env) noStandbyWhy() string {
	if env.NoStandby != "" {
		return env.NoStandby
	}
	return "no standby streams from this server (pg_stat_replication is empty)"
}

// lag is a sampled lag: the value PostgreSQL shows, or 0 for a NULL when
// the standby has replayed everything (PostgreSQL clears the lags of an
// idle standby that has caught up); ok is false for a NULL otherwise (the
// standby has not reported it).
func lag(v *float64, r replRow) (float64, bool) {
	if v != nil {
		return *v, true
	}
	return 0, r.caughtUp()
}

// sample records the standbys' lags once: a standby whose last reply the
// previous sample already saw gives no new sample (its figures are that
// reply's, however old).
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
		if _, ok := w.before[r.name]; !ok || r.replay == nil || r.replyAt == nil {
			continue // a standby that connected during the cell has no start; one without a reply no figures
		}
		if prev, ok := w.lastReply[r.name]; ok && !r.replyAt.After(prev) {
			continue
		}
		replay, ok1 := lag(r.replayMS, r)
		write, ok2 := lag(r.writeMS, r)
		flush, ok3 := lag(r.flushMS, r)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		w.lastReply[r.name] = *r.replyAt
		w.samples[r.name] = append(w.samples[r.name], results.LagSample{T: now.Sub(winStart).Seconds(), ReplayMS: replay, WriteMS: write,
			FlushMS: flush, ReplayBytes: float64(max(r.current-*r.replay, 0))})
		p := replPos{at: now, replay: *r.replay, primary: r.current}
		if _, ok := w.first[r.name]; !ok {
			w.first[r.name] = p
		}
		w.last[r.name] = p
	}
}

// DefaultStandbyWait bounds each wait for a standby to replay what the
// primary wrote (before a cell, and after it to time its catch-up).
const DefaultStandbyWait = 30 * time.Second

func (env *Env) standbyWait() time.Duration {
	if env.StandbyWait > 0 {
		return env.StandbyWait
	}
	return DefaultStandbyWait
}

// stop reads the positions again, waits for every standby to replay what
// the primary wrote up to now, and records each standby.
func (w *replication) stop(ctx context.Context, into *results.Metrics) {
	if w.err != nil {
		into.Replication = results.Unavailable[[]results.Standby](w.err.Error())
		return
	}
	if w.sampErr != nil {
		into.Replication = results.Unavailable[[]results.Standby]("sampling pg_stat_replication: " + w.sampErr.Error())
		return
	}
	rows, err := w.positioned(ctx)
	if err != nil {
		into.Replication = results.Unavailable[[]results.Standby](err.Error())
		return
	}
	after := map[string]replRow{}
	var target int64
	for _, r := range rows {
		after[r.name] = r
		target = r.current
	}
	caughtUp := w.waitForReplay(ctx, target, rows, "the cell's WAL")
	var out []results.Standby
	for _, name := range w.order {
		a, ok := after[name]
		if !ok {
			into.Replication = results.Unavailable[[]results.Standby]("standby " + name + " stopped streaming during the cell")
			return
		}
		s := results.Standby{Name: name, ShippedBytes: *a.sent - w.before[name], Lag: w.samples[name], BehindAtStartBytes: w.behind[name]}
		if f, ok := w.first[name]; ok {
			l := w.last[name]
			s.WindowS, s.ReplayedBytes, s.PrimaryBytes = l.at.Sub(f.at).Seconds(), l.replay-f.replay, l.primary-f.primary
		}
		if d, ok := caughtUp[name]; ok {
			s.CatchUpS = results.Of(d.Seconds())
			s.KeptUp = d <= time.Second && s.BehindAtStartBytes == 0
		} else {
			s.CatchUpS = results.Unavailable[float64](fmt.Sprintf("the standby had not replayed the cell's WAL %s after it (the wait's budget, --standby-wait)", w.env.standbyWait()))
		}
		s.Summarize()
		out = append(out, s)
	}
	into.Replication = results.Of(out)
}

// waitForReplay polls until each standby's replay reaches target, up to
// the wait's budget, saying in the progress output which standby it waits
// for, how far behind it is and since when; it returns how long each
// standby that got there took. A standby that did not get there within a
// budget once is not waited for again in the run (Env.Lagging).
func (w *replication) waitForReplay(ctx context.Context, target int64, rows []replRow, what string) map[string]time.Duration {
	start := time.Now()
	done := map[string]time.Duration{}
	waitFor := 0
	for _, r := range rows {
		if w.env.Lagging != nil && w.env.Lagging[r.name] {
			continue
		}
		waitFor++
	}
	lastSaid := start
	for {
		rows, err := readReplication(ctx, w.env.Admin)
		if err != nil {
			return done
		}
		var slowest string
		var behind int64
		for _, r := range rows {
			if r.replay == nil {
				continue
			}
			if _, ok := done[r.name]; !ok && *r.replay >= target {
				done[r.name] = time.Since(start)
			}
			if _, ok := done[r.name]; !ok && target-*r.replay > behind {
				slowest, behind = r.name, target-*r.replay
			}
		}
		waited := time.Since(start)
		reached := 0
		for name := range done {
			if w.env.Lagging == nil || !w.env.Lagging[name] {
				reached++
			}
		}
		if reached >= waitFor || ctx.Err() != nil {
			return done
		}
		if waited > w.env.standbyWait() {
			for _, r := range rows {
				if _, ok := done[r.name]; !ok && w.env.Lagging != nil {
					w.env.Lagging[r.name] = true
				}
			}
			w.env.logf("standby %s did not replay %s within %s (%s behind): recorded as falling behind; the run goes on without waiting for it again",
				slowest, what, w.env.standbyWait(), results.Bytes(behind))
			return done
		}
		if time.Since(lastSaid) >= 5*time.Second {
			lastSaid = time.Now()
			w.env.logf("waiting for standby %s to replay %s: %s behind, for %s (at most %s, --standby-wait)",
				slowest, what, results.Bytes(behind), waited.Round(time.Second), w.env.standbyWait())
		}
		select {
		case <-ctx.Done():
			return done
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// figures: the WAL shipped to a standby is read from the primary's view.
func (*replication) figures() []declared {
	return []declared{merged(func(m *results.Metrics) *results.M[[]results.Standby] { return &m.Replication }, onCoordinator, mergeReplication)}
}

// mergeReplication joins the rounds' standbys: bytes add up, the lag
// samples follow each other, the catch-up is the slowest round's.
func mergeReplication(ms []results.Metrics, tot totals, _ *results.Metrics) results.M[[]results.Standby] {
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
				x.BehindAtStartBytes = max(x.BehindAtStartBytes, y.BehindAtStartBytes)
				xc, ok1 := x.CatchUpS.Get()
				yc, ok2 := y.CatchUpS.Get()
				switch {
				case ok1 && ok2:
					x.CatchUpS = results.Of(math.Max(xc, yc))
				case ok1: // a round that did not catch up makes the cell not
					x.CatchUpS = y.CatchUpS
				}
				x.KeptUp = x.KeptUp && y.KeptUp
				c = append(c, x)
			}
			return c
		})
	if ss, ok := out.Get(); ok {
		for i := range ss {
			ss[i].ShippedBytesPerRow = results.PerRow(float64(ss[i].ShippedBytes), tot.rows)
			ss[i].Summarize()
		}
		out = results.Of(ss)
	}
	return out
}
