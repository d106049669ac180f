package runner

// The adapter from a workload to the driver: one connection and one worker
// per client, prepared before the window, and the driver's result written
// into the cell.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

func closeAll(conns []*pgx.Conn) {
	for _, cn := range conns {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = cn.Close(cctx)
		cancel()
	}
}

// connectAll opens n connections at once (a backend's start is mostly
// the server's work, which the machine's cores share), in order; on an
// error it returns those it opened, for the caller to close.
func connectAll(ctx context.Context, cc *pgx.ConnConfig, n int) ([]*pgx.Conn, error) {
	conns, errs := make([]*pgx.Conn, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = pgx.ConnectConfig(ctx, cc) })
	}
	wg.Wait()
	opened := slices.DeleteFunc(slices.Clone(conns), func(c *pgx.Conn) bool { return c == nil })
	for i, err := range errs {
		if err != nil {
			return opened, fmt.Errorf("client %d: connecting: %w", i+1, err)
		}
	}
	return conns, nil
}

// connectClients opens one connection per client and prepares its statements.
func (cr *cellRun) connectClients(ctx context.Context) ([]*pgx.Conn, []driver.Client, error) {
	r, n := cr.r, cr.pc.Clients
	clients := make([]driver.Client, 0, n)
	cc := r.conn.Copy()
	cc.RuntimeParams["application_name"] = r.clientApp()
	conns, err := connectAll(ctx, cc, n)
	if err != nil {
		return conns, nil, err
	}
	role := ""
	for i, cn := range conns {
		w, err := cr.wl.NewWorker(ctx, cn, cr.tables, cr.gen, i)
		if err != nil {
			return conns, nil, fmt.Errorf("client %d: %w", i+1, err)
		}
		// After the worker checked and prepared its statements (as
		// keybench's role, which reads the ledger): a statement's rights
		// are checked as it runs, as the role the session is then.
		if i == 0 {
			if role, err = cr.scriptRole(ctx); err != nil {
				return conns, nil, err
			}
		}
		if role != "" {
			if _, err := cn.Exec(ctx, "SET ROLE "+role); err != nil {
				return conns, nil, fmt.Errorf("client %d: SET ROLE %s: %w", i+1, role, err)
			}
		}
		pg := cn.PgConn()
		dc := driver.Client{Txn: w.Txn, Conn: pg.Conn(), Broken: pg.IsClosed, Cancel: func() {
			cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = pg.CancelRequest(cctx)
		}}
		if rw, ok := w.(workload.RoleWorker); ok {
			dc.Role = rw.Role()
		}
		// A worker that can run as protocol messages runs on the driver's
		// event loops, over the connection's own socket.
		if m, ok := w.(driver.Machine); ok {
			if fc, ok := pg.Conn().(interface{ FD() int }); ok {
				dc.Machine, dc.FD = m, fc.FD()
			}
		}
		clients = append(clients, dc)
	}
	return conns, clients, nil
}

// scriptRole is the role, quoted, that the clients of a cell running the
// user's own SQL run as ("" for other cells, or where none could be made):
// made for the run at the first such cell, once its first client's check
// passed (a script refused makes none), and given the rights on the cell's
// tables. The first screen says which role the SQL ran as.
func (cr *cellRun) scriptRole(ctx context.Context) (string, error) {
	r := cr.r
	if m, _ := workload.Lookup(cr.pc.Task.Workload); !m.UserSQL {
		return "", nil
	}
	if !r.scriptRoleTried {
		r.scriptRoleTried = true
		role, why, err := r.ws.ScriptRole(ctx, r.admin)
		if err != nil {
			return "", err
		}
		r.scriptRole = role
		if why != "" {
			n := "your SQL ran as the role --dsn names, with its rights: " + why
			r.res.Warnings = append(r.res.Warnings, n)
			r.ui.Logf("warning: %s", n)
		} else {
			n := "your SQL ran as the role " + role + ", which may use keybench's schema alone"
			r.res.Notes = append(r.res.Notes, n)
			r.ui.Logf("note: %s", n)
		}
	}
	if r.scriptRole == "" {
		return "", nil
	}
	if !cr.granted {
		if err := r.ws.GrantScript(ctx, r.admin, r.scriptRole); err != nil {
			return "", err
		}
		cr.granted = true
	}
	return pgx.Identifier{r.scriptRole}.Sanitize(), nil
}

// clientApp is the application_name of the cell's clients, by which the
// sampler finds them; the run's id keeps two runs' clients apart.
func (r *run) clientApp() string { return "keybench client " + r.runID }

func (r *run) metricsEnv(tables []*workload.Table) metrics.Env {
	env := metrics.Env{Admin: r.admin, ConnConfig: r.conn, Schema: tables[0].Schema, Table: tables[0].Name, Major: r.major, Ext: r.ext, ClientApp: r.clientApp(),
		Relations: workload.Relations(tables), LeafTables: workload.LeafTables(tables),
		StandbyWait: r.cfg.StandbyWait, Lagging: r.lagging, Logf: func(f string, a ...any) { r.ui.Logf("  "+f, a...) }}
	if r.cfg.Sampling {
		env.WaitEvery, env.CacheEvery = 500*time.Millisecond, 2*time.Second
	}
	env.ServerPID, env.DataDir = r.target.process()
	_, env.NoStandby = r.target.standbys()
	return env
}

// waitForClientsGone waits (up to 5 s) until the clients' backends have
// exited, which flushes their statistics (WAL, IO) for the counters.
func (r *run) waitForClientsGone(ctx context.Context) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := r.admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", r.clientApp()).Scan(&n); err != nil || n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func windowUnits(w workload.Window, clients int) int64 {
	if w.Txns > 0 {
		return w.Txns * int64(clients)
	}
	return int64(w.Duration.Round(time.Second) / time.Second)
}

func fillDriverResult(c *results.Cell, d *driver.Result) {
	c.DurationS = d.Elapsed.Seconds()
	c.Txns, c.Errors = d.Txns, d.Errors
	c.RowsInserted, c.RowsUpdated, c.RowsDeleted, c.RowsRead = d.Work.Inserted, d.Work.Updated, d.Work.Deleted, d.Work.Read
	c.RoleRows = roleRows(d)
	c.TPS = d.TPS()
	if c.DurationS > 0 {
		c.RowsPerS = float64(d.Work.Changed()) / c.DurationS
	}
	c.LatencyMS = driver.LatencyMS(d.Latency)
	if p := d.Pace; p != nil {
		c.Pace = &results.Pace{RateTPS: p.Rate, LatencyLimitMS: float64(p.LatencyLimit) / float64(time.Millisecond), Scheduled: p.Scheduled,
			LagMS: driver.LatencyMS(p.Lag), Late: results.Of(p.Late), Skipped: results.Of(p.Skipped)}
		if p.LatencyLimit <= 0 {
			const why = "not counted: no --latency-limit to count them against"
			c.Pace.Late, c.Pace.Skipped = results.Unavailable[int64](why), results.Unavailable[int64](why)
		}
	}
	c.Timeline = d.Timeline
	c.ErrorSamples = d.ErrorSamples
}

// windowFailure is the reason a window's figures are no measurement at
// all: a transaction failed (a statement the server refuses fails every
// time), or none completed.
func windowFailure(d *driver.Result) error {
	if len(d.ErrorSamples) > 0 {
		return fmt.Errorf("%d transactions in the window failed (%d completed): %s", d.Errors, d.Txns, d.ErrorSamples[0])
	}
	if d.Txns == 0 {
		err := fmt.Errorf("no transaction completed in the window (%.1f s)", d.Elapsed.Seconds())
		if d.StalledS > 0 {
			err = fmt.Errorf("%w: %s", err, stallError(d))
		} else if d.Unfinished > 0 {
			err = fmt.Errorf("%w: %d clients were still in a transaction at its end, the longest for %.1f s (the server did not answer in the window)", err, d.Unfinished, d.LongestUnfinished.Seconds())
		}
		return err
	}
	return nil
}

// stallError explains a window in which keybench itself did not run.
func stallError(d *driver.Result) string {
	var at []string
	for _, s := range d.Stalls {
		at = append(at, fmt.Sprintf("%.1f s from %.0f s", s.Seconds, s.AtS))
	}
	return fmt.Sprintf("keybench did not run for at least %.1f s of the %.1f-s window (%s): the process was stopped or starved of CPU, "+
		"its clients sent nothing then, so the window's rate is not the server's", d.StalledS, d.Elapsed.Seconds(), strings.Join(at, ", "))
}

func firstOr(s []string, d string) string {
	if len(s) == 0 {
		return d
	}
	return s[0]
}

// roleRows are the rows each role of the window's clients changed (nil
// when its clients have no roles).
func roleRows(d *driver.Result) map[string]int64 {
	if len(d.Roles) == 0 {
		return nil
	}
	out := map[string]int64{}
	for name, rr := range d.Roles {
		out[name] = rr.Rows
	}
	return out
}
