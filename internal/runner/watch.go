package runner

// Watching a window from the outside: keybench's own stalls, and what
// clients that make no progress wait for.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/keybench/keybench/internal/usage"
)

// stallWatch says, in the progress output, when the clients stop making
// progress in the window: what they wait for, since when, and who holds
// them up. A window can otherwise sit silently behind another session's
// lock for minutes.
type stallWatch struct {
	r        *run
	last     atomic.Int64 // unix nanos of the last second with a completed transaction
	quit     chan struct{}
	finished chan struct{}
}

// stallReportAfter is how long the clients may go without completing a
// transaction before the progress output says what they wait for; it is
// said again every stallReportEvery while it lasts.
const (
	stallReportAfter = 3 * time.Second
	stallReportEvery = 10 * time.Second
)

// watchStalls watches a window that starts after warmup at the latest
// (started says when it did): the driver reports completed transactions
// from the window's start on.
func (r *run) watchStalls(ctx context.Context, warmup time.Duration) *stallWatch {
	w := &stallWatch{r: r, quit: make(chan struct{}), finished: make(chan struct{})}
	w.last.Store(time.Now().Add(warmup).UnixNano())
	go w.loop(ctx)
	return w
}

// started is told when the window started.
func (w *stallWatch) started(t time.Time) { w.last.Store(t.UnixNano()) }

// second is told each second's completed transactions (from the driver's sampler).
func (w *stallWatch) second(txns int64) {
	if txns > 0 {
		w.last.Store(time.Now().UnixNano())
	}
}

func (w *stallWatch) stop() {
	close(w.quit)
	<-w.finished
}

func (w *stallWatch) loop(ctx context.Context) {
	defer close(w.finished)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = conn.Close(cctx)
			cancel()
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var reported time.Time
	for {
		select {
		case <-w.quit:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		since := time.Unix(0, w.last.Load())
		if time.Since(since) < stallReportAfter || time.Since(reported) < stallReportEvery {
			continue
		}
		reported = time.Now()
		if conn == nil {
			cc := w.r.conn.Copy()
			cc.ConnectTimeout = 5 * time.Second
			var err error
			if conn, err = pgx.ConnectConfig(ctx, cc); err != nil {
				w.r.ui.Logf("  no transaction completed since %s (%.0f s); the server could not be asked why: %v", since.Format("15:04:05"), time.Since(since).Seconds(), err)
				conn = nil
				continue
			}
		}
		w.r.ui.Logf("  no transaction completed since %s (%.0f s): %s", since.Format("15:04:05"), time.Since(since).Seconds(), describeWaits(ctx, conn, w.r.clientApp()))
	}
}

// describeWaits says what the clients named app are waiting for and which
// sessions block them.
func describeWaits(ctx context.Context, conn *pgx.Conn, app string) string {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	rows, _ := conn.Query(qctx, `SELECT count(*), coalesce(wait_event_type || ':' || wait_event, ''), min(query_start),
			coalesce((SELECT string_agg(DISTINCT format('pid %s (%s, %s: %s)', b.pid, coalesce(nullif(b.application_name, ''), b.usename), b.state, left(b.query, 60)), '; ')
			  FROM pg_stat_activity b WHERE b.pid IN (SELECT unnest(pg_blocking_pids(a2.pid)) FROM pg_stat_activity a2 WHERE a2.application_name = $1)), '')
		FROM pg_stat_activity a WHERE application_name = $1 AND state = 'active'
		GROUP BY 2 ORDER BY 1 DESC`, app)
	var parts []string
	var blockers string
	var n int
	var wait, by string
	var start *time.Time
	if _, err := pgx.ForEachRow(rows, []any{&n, &wait, &start, &by}, func() error {
		p := fmt.Sprintf("%d %s waiting on %s", n, map[bool]string{true: "client", false: "clients"}[n == 1], wait)
		if wait == "" {
			p = fmt.Sprintf("%d %s running", n, map[bool]string{true: "client", false: "clients"}[n == 1])
		}
		if start != nil {
			p += " since " + start.Local().Format("15:04:05")
		}
		parts = append(parts, p)
		if by != "" {
			blockers = by
		}
		return nil
	}); err != nil {
		return "the server could not be asked why: " + err.Error()
	}
	if len(parts) == 0 {
		return "no client is running a statement"
	}
	out := strings.Join(parts, ", ")
	if blockers != "" {
		out += "; blocked by " + blockers
	}
	return usage.RedactSecrets(out)
}

// explainLockTimeout turns a statement keybench gave up on after
// adminLockTimeout into a sentence that says so.
func explainLockTimeout(err error, what string) error {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == "55P03" {
		return fmt.Errorf("%s: another session holds a lock keybench needs (it waited %s, its lock_timeout): %w", what, adminLockTimeout, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
