// Package retention is the retention workload: inserts go on while, once a
// round, a job expires the oldest slice of the history (a partition
// dropped, or DELETE by key or by created_at), its time, WAL and locks read.
package retention

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/workload"
)

// retention expires the oldest rows while inserts go on, as a table with a
// retention policy does: the clients insert (as insert does) while, once a
// round, a job beside them expires the next slice of the history — the
// oldest partition dropped (a table partitioned by time), or a DELETE of
// the rows older than the slice's end by key (WHERE id < the bound made
// from its time) or by created_at. Every method expires the same slice of
// the same history in the same round, so what differs is the method: the
// time it takes, the WAL it writes (read back from the WAL by the job's
// transaction: pg_walinspect), the locks it holds on the table the inserts
// go through, and what it leaves behind — the table's and the key index's
// size and density after a VACUUM, timed after the rounds. A partition
// drop writes a catalog change and a commit; a DELETE writes a record per
// row and, after the round's checkpoint, an image of every page it
// touches: orders of magnitude apart, which the verdict shows beside the
// insert rate.
type retention struct {
	s      workload.Setup
	batch  int
	method string
	expire time.Duration

	t      *workload.Table
	how    string // the method as it resolved for the table
	every  time.Duration
	first  time.Time
	walFn  string // pg_get_wal_records_info, qualified; "" when walWhy says why not
	walWhy string

	mu       sync.Mutex
	expiries []Expiry
	// before is the partly filled first slice, expired before the rounds.
	before *Expiry
	sum    *RetentionSummary
}

// retention's methods.
const (
	RetainAuto      = "auto"
	RetainDrop      = "drop"
	RetainKey       = "delete-key"
	RetainCreatedAt = "delete-created-at"
)

func init() {
	workload.Register(workload.Meta{
		Name: "retention",
		Description: "inserts while, once a round, a job expires the oldest slice of the history: the oldest partition dropped, or DELETE by key or by created_at " +
			"(method); its time, WAL and locks, and the table and key index after a VACUUM",
		Kind: results.SummaryKind[RetentionSummary](), View: retentionView,
		New:  func() workload.Workload { return &retention{} },
		Bare: workload.Bare{Rows: 100_000},
		// The round's CHECKPOINT after a DELETE of a slice, the WAL read back.
		RoundOverhead: 500 * time.Millisecond,
		Accepts: func(s *keys.Spec) string {
			if !s.Partition.On() && !s.OrdersByTime() && !s.HasCreatedAt() {
				return "nothing tells its old rows: the key does not order by time and the table has no created_at column or partitions"
			}
			return ""
		},
	})
}

func (r *retention) Options() []workload.Option {
	return []workload.Option{
		workload.BatchOption(&r.batch, 1),
		workload.Choice("method", &r.method, RetainAuto, []string{RetainAuto, RetainDrop, RetainKey, RetainCreatedAt},
			"how the oldest rows go: drop (the oldest partition), delete-key (DELETE WHERE id < bound), delete-created-at (DELETE WHERE created_at < bound), "+
				"or auto: drop where the table is partitioned by time, else by created_at where it is indexed, else by key where the key orders by time, else by created_at").Variants(),
		workload.Span("expire", &r.expire, 0, 0, 100*365*24*time.Hour, "the span of the history each round expires (0: a partition's, or a tenth of the history)"),
	}
}

func (r *retention) Configure(s workload.Setup) error {
	r.s = s
	if err := workload.DrawnRows("retention", "expires the oldest rows", s); err != nil {
		return err
	}
	return workload.CheckBatchBytes(r.batch, s.Payload)
}

func (r *retention) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	r.t = workload.KeyedTable(at, key, r.s)
	return []*workload.Table{r.t}
}

// resolve decides the table's method and slices.
func (r *retention) resolve(t *workload.Table) error {
	k := t.Key
	r.how = r.method
	if r.how == RetainAuto {
		switch {
		case t.TimePartitioned():
			r.how = RetainDrop
		case t.CreatedAt == workload.CreatedAtIndexed:
			r.how = RetainCreatedAt
		case k.OrdersByTime():
			r.how = RetainKey
		default:
			r.how = RetainCreatedAt
		}
	}
	switch {
	case r.how == RetainDrop && !t.TimePartitioned():
		return fmt.Errorf("method=drop: the table is not partitioned by time (partition=1d)")
	case r.how == RetainKey && !k.OrdersByTime():
		return fmt.Errorf("method=delete-key: %s does not order by time", k.Strategy.Name)
	case r.how == RetainCreatedAt && !t.HasCreatedAt():
		return fmt.Errorf("method=delete-created-at: the table has no created_at column")
	}
	r.every = r.expire
	if t.TimePartitioned() {
		if r.expire > 0 && r.expire != t.Every() {
			return fmt.Errorf("expire=%s: a table partitioned every %s expires a partition's span", keys.FormatSpan(r.expire), keys.FormatSpan(t.Every()))
		}
		r.every = t.Every()
	}
	if r.every == 0 {
		r.every = t.History.Span() / 10
	}
	r.first = t.FirstBound(r.every)
	return nil
}

func (r *retention) Hooks() workload.Hooks {
	return workload.Hooks{
		PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			r.t = tables[0]
			if err := r.resolve(tables[0]); err != nil {
				return err
			}
			r.walFn, r.walWhy = walRecordsFunction(ctx, conn)
			// The VACUUM after the rounds finds what the expiries left:
			// autovacuum, at a time of its own, would clean part of it.
			for _, name := range workload.LeafTables(tables) {
				if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s.%s SET (autovacuum_enabled = off)", tables[0].Schema, name)); err != nil {
					return err
				}
			}
			return r.expireFirst(ctx, conn, tables[0])
		},
		DuringWindow: r.expireNext,
		BeforeEvidence: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			if r.sum != nil {
				r.sum.Vacuum = workload.VacuumDeleted(ctx, conn, tables[0])
			}
			return nil
		},
	}
}

// expireFirst expires, before the rounds, the history's first slice when
// the history began inside it (a day's partition that holds its last
// hours only), so that every round expires a whole slice; its rows are no
// round's.
func (r *retention) expireFirst(ctx context.Context, conn *pgx.Conn, t *workload.Table) error {
	if !t.History.Start.After(r.first) {
		return nil
	}
	e := Expiry{OlderThan: r.first.Add(r.every)}
	if _, _, err := r.expireSlice(ctx, conn, t, &e); err != nil {
		return fmt.Errorf("expiring the history's first slice (before %s, partly filled): %w", e.OlderThan.Format(time.RFC3339), err)
	}
	r.first, r.before = e.OlderThan, &e
	return nil
}

// walRecordsFunction finds pg_walinspect's pg_get_wal_records_info, or says why not.
func walRecordsFunction(ctx context.Context, conn *pgx.Conn) (fn, why string) {
	schema, tampered, err := sqltree.Extension(ctx, conn, "pg_walinspect", sqltree.ExtensionUses["pg_walinspect"]...)
	switch {
	case err != nil:
		return "", err.Error()
	case tampered != "":
		return "", tampered
	case schema == "":
		return "", "pg_walinspect is not installed in this database (the WAL of each expiry is read back with it)"
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT has_function_privilege($1 || '.pg_get_wal_records_info(pg_lsn, pg_lsn)', 'EXECUTE')`, pgx.Identifier{schema}.Sanitize()).Scan(&ok); err != nil || !ok {
		return "", "this role may not run pg_walinspect's pg_get_wal_records_info (it needs pg_read_server_files)"
	}
	return pgx.Identifier{schema}.Sanitize() + ".pg_get_wal_records_info", ""
}

// Expiry is one round's expiry: the slice of the history it removed (the
// rows made before OlderThan), how, the rows, its time (the statement
// and the commit), the WAL its transaction wrote and the locks it held.
type Expiry struct {
	Round     int       `json:"round"`
	OlderThan time.Time `json:"older_than"`
	Partition string    `json:"partition,omitempty"`
	Rows      int64     `json:"rows"`
	Seconds   float64   `json:"seconds"`
	// Locks are the locks the expiry's transaction held on the table the
	// inserts go through (its parent, when partitioned) as it ended.
	Locks string               `json:"locks"`
	WAL   results.M[ExpiryWAL] `json:"wal,omitzero"`
	// Note says why the round expired nothing (the history is used up).
	Note string `json:"note,omitempty"`
}

// ExpiryWAL is what an expiry's transaction wrote to the WAL: its records
// (pg_walinspect, by its transaction id), their bytes and their full-page
// images.
type ExpiryWAL struct {
	Bytes    int64 `json:"bytes"`
	Records  int64 `json:"records"`
	FPI      int64 `json:"fpi"`
	FPIBytes int64 `json:"fpi_bytes"`
}

// expireNext is the round's job: the next slice of the history expired,
// timed; after the window, its WAL read back.
func (r *retention) expireNext(ctx context.Context, conn *pgx.Conn, tables []*workload.Table, ended <-chan struct{}) error {
	t := tables[0]
	r.mu.Lock()
	n := len(r.expiries)
	r.mu.Unlock()
	e := Expiry{Round: n + 1, OlderThan: r.first.Add(time.Duration(n+1) * r.every)}
	var lsn0, xid string
	if e.OlderThan.After(t.History.End()) {
		e.Note = "nothing expired: every slice of the history is gone (more rounds than the history's slices)"
	} else {
		var err error
		if lsn0, xid, err = r.expireSlice(ctx, conn, t, &e); err != nil {
			return fmt.Errorf("expiring rows older than %s (%s): %w", e.OlderThan.Format(time.RFC3339), r.how, err)
		}
	}
	select {
	case <-ended:
	case <-ctx.Done():
		return ctx.Err()
	}
	if lsn0 != "" {
		e.WAL = r.walOf(ctx, conn, lsn0, xid)
	}
	r.mu.Lock()
	r.expiries = append(r.expiries, e)
	r.mu.Unlock()
	return nil
}

// expireSlice runs one expiry in a transaction of its own, and returns where
// the WAL stood before it and its transaction id.
func (r *retention) expireSlice(ctx context.Context, conn *pgx.Conn, t *workload.Table, e *Expiry) (lsn0, xid string, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return "", "", err
	}
	defer tx.Rollback(context.Background())
	// A transaction id of its own, to find its WAL records by (the 32 bits
	// WAL records carry), and where the WAL stood before it.
	if err := tx.QueryRow(ctx, `SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text, pg_current_wal_insert_lsn()::text`).Scan(&xid, &lsn0); err != nil {
		return "", "", err
	}
	var took time.Duration
	switch r.how {
	case RetainDrop:
		parts := t.TimeParts()
		if t.Dropped >= len(parts)-1 || !parts[t.Dropped].To.Equal(e.OlderThan) {
			return "", "", fmt.Errorf("no partition ends at %s", e.OlderThan)
		}
		p := parts[t.Dropped]
		claim, err := t.Ledger.ClaimTable(ctx, tx, p.Name)
		if err != nil {
			return "", "", err
		}
		if claim == nil {
			return "", "", fmt.Errorf("%s.%s is not a table keybench recorded creating: not dropped", t.Schema, p.Name)
		}
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+t.Schema+"."+p.Name).Scan(&e.Rows); err != nil {
			return "", "", err
		}
		t0 := time.Now()
		if _, err := tx.Exec(ctx, claim.DropSQL()); err != nil {
			return "", "", err
		}
		took = time.Since(t0)
		if e.Locks, err = locksHeld(ctx, tx, t); err != nil {
			return "", "", err
		}
		if err := claim.Forget(ctx, tx); err != nil {
			return "", "", err
		}
		e.Partition = p.Name
	default:
		col, bound := "id", ""
		if r.how == RetainCreatedAt {
			col, bound = "created_at", workload.TimestampSQL(e.OlderThan)
		} else {
			bound = t.BoundSQL(e.OlderThan)
		}
		t0 := time.Now()
		tag, err := tx.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s < %s", t.Qualified(), col, bound))
		if err != nil {
			return "", "", err
		}
		took, e.Rows = time.Since(t0), tag.RowsAffected()
		if e.Locks, err = locksHeld(ctx, tx, t); err != nil {
			return "", "", err
		}
	}
	t1 := time.Now()
	if err := tx.Commit(ctx); err != nil {
		return "", "", err
	}
	e.Seconds = (took + time.Since(t1)).Seconds()
	if r.how == RetainDrop {
		t.Dropped++
	}
	return lsn0, xid, nil
}

// locksHeld are the locks the transaction holds on the table the inserts
// go through, and how many other relations it locked.
func locksHeld(ctx context.Context, tx pgx.Tx, t *workload.Table) (string, error) {
	rows, _ := tx.Query(ctx, `SELECT l.relation = $1::regclass, l.mode FROM pg_locks l
		WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND l.granted AND l.relation IS NOT NULL`, t.Qualified())
	var own []string
	others := 0
	var parent bool
	var mode string
	_, err := pgx.ForEachRow(rows, []any{&parent, &mode}, func() error {
		if parent {
			own = append(own, mode)
		} else {
			others++
		}
		return nil
	})
	sort.Strings(own)
	return fmt.Sprintf("%s on %s, %d other relations", strings.Join(own, "+"), t.Name, others), err
}

// walOf reads back what the expiry's transaction wrote to the WAL.
func (r *retention) walOf(ctx context.Context, conn *pgx.Conn, lsn0, xid string) results.M[ExpiryWAL] {
	if r.walFn == "" {
		return results.Unavailable[ExpiryWAL](r.walWhy)
	}
	var w ExpiryWAL
	err := conn.QueryRow(ctx, `SELECT coalesce(sum(record_length), 0)::int8, count(*), count(*) FILTER (WHERE fpi_length > 0), coalesce(sum(fpi_length), 0)::int8
		FROM `+r.walFn+`($1::pg_lsn, pg_current_wal_flush_lsn()) WHERE xid::text = $2`, lsn0, xid).Scan(&w.Bytes, &w.Records, &w.FPI, &w.FPIBytes)
	if err != nil {
		return results.Unavailable[ExpiryWAL]("reading the expiry's WAL back: " + err.Error())
	}
	return results.Of(w)
}

func (r *retention) NewWorker(ctx context.Context, conn *pgx.Conn, tables []*workload.Table, gen keys.Generator, id int) (workload.Worker, error) {
	return workload.NewInserter(ctx, conn.PgConn(), tables[0], gen, r.s, r.batch, id)
}

// RetentionSummary is a retention cell's own figures: how it expired the
// history's slices, each expiry, and the VACUUM after the rounds.
type RetentionSummary struct {
	results.IsSummary
	Method   string   `json:"retention_method"`
	Slice    string   `json:"retention_slice"`
	Expiries []Expiry `json:"expiries"`
	// FirstSlice is the history's first slice, partly filled, expired
	// before the rounds (its rows are no round's).
	FirstSlice *Expiry                          `json:"first_slice,omitempty"`
	Vacuum     results.M[workload.DeleteVacuum] `json:"retention_vacuum,omitzero"`
}

// Median is an expiry figure's median over the rounds that expired rows.
func (s *RetentionSummary) Median(f func(e Expiry) (float64, bool)) (float64, bool) {
	var xs []float64
	for _, e := range s.Expiries {
		if e.Note == "" {
			if v, ok := f(e); ok {
				xs = append(xs, v)
			}
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	sort.Float64s(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2], true
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2, true
}

func (r *retention) Summarize(o *workload.Outcome) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &RetentionSummary{Method: r.how, Slice: keys.FormatSpan(r.every), Expiries: r.expiries,
		Vacuum: results.Unavailable[workload.DeleteVacuum]("not run: the cell ended before")}
	// The expiries are the cell's writes too: a DELETE's rows are counted
	// by the server as deleted, a dropped partition's leave with it.
	var deleted, dropped int64
	for _, e := range r.expiries {
		if e.Partition != "" {
			dropped += e.Rows
		} else {
			deleted += e.Rows
		}
	}
	o.Work.Deleted += deleted
	o.Expected -= deleted + dropped
	if r.before != nil {
		o.Expected -= r.before.Rows // before the rounds: no session counted it
		s.FirstSlice = r.before
	}
	o.Cell.Metrics.Summary = s
	r.sum = s
	return nil
}

// text is an expiry's WAL as the tables show it.
func (w ExpiryWAL) text() string {
	return fmt.Sprintf("%s, %d records (%d images)", results.Bytes(w.Bytes), w.Records, w.FPI)
}

// retentionView is how retention cells are shown.
var retentionView = present.View{
	Columns: []present.Column{
		present.Rate, present.RateColumn, present.P99Column,
		workload.SummaryColumn("method", true, func(r *results.Results, g *results.Group, s *RetentionSummary) string {
			return fmt.Sprintf("%s, %s a round", s.Method, s.Slice)
		}),
		workload.SummaryColumn("rows / expiry", false, func(r *results.Results, g *results.Group, s *RetentionSummary) string {
			return medianText(s, func(e Expiry) (float64, bool) { return float64(e.Rows), true }, "%.0f")
		}),
		workload.SummaryColumn("expiry time", false, func(r *results.Results, g *results.Group, s *RetentionSummary) string {
			return medianText(s, func(e Expiry) (float64, bool) { return e.Seconds * 1000, true }, "%.1f ms")
		}),
		workload.SummaryColumn("WAL / expiry: records (images)", false, func(r *results.Results, g *results.Group, s *RetentionSummary) string {
			for _, e := range s.Expiries {
				if e.Note == "" && !e.WAL.IsZero() {
					if _, ok := e.WAL.Get(); !ok {
						return e.WAL.Text(ExpiryWAL.text)
					}
				}
			}
			b, ok := s.Median(func(e Expiry) (float64, bool) { w, ok := e.WAL.Get(); return float64(w.Bytes), ok })
			if !ok {
				return "-"
			}
			n, _ := s.Median(func(e Expiry) (float64, bool) { w, ok := e.WAL.Get(); return float64(w.Records), ok })
			f, _ := s.Median(func(e Expiry) (float64, bool) { w, ok := e.WAL.Get(); return float64(w.FPI), ok })
			return fmt.Sprintf("%s: %.0f (%.0f)", results.Bytes(int64(b)), n, f)
		}),
		workload.SummaryColumn("lock on the table", true, func(r *results.Results, g *results.Group, s *RetentionSummary) string {
			for _, e := range s.Expiries {
				if e.Note == "" {
					mode, _, _ := strings.Cut(e.Locks, " on ")
					return mode
				}
			}
			return "-"
		}),
		workload.SummaryColumn("VACUUM after", false, func(r *results.Results, g *results.Group, s *RetentionSummary) string {
			return s.Vacuum.Text(func(v workload.DeleteVacuum) string { return fmt.Sprintf("%.2f s", v.Seconds) })
		}),
		{Figure: results.Figure{Header: "table, key index after (leaf density)"}, Text: func(r *results.Results, g *results.Group) string {
			m := r.Last(g).Metrics
			return m.TableBytes.Text(results.Bytes) + ", " + m.KeyIndexBytes.Text(results.Bytes) + " (" + m.LeafDensity.Text(func(d float64) string { return fmt.Sprintf("%.0f%%", d*100) }) + ")"
		}},
	},
	Notes: present.Always("retention: the clients insert while, once a round, a job expires the oldest slice of the history; rate and p99: the inserts'; " +
		"expiry time: the statement and its commit (median over the rounds); WAL / expiry: what its transaction wrote (pg_walinspect, by its transaction id), " +
		"its records and, in brackets, its full-page images (after the round's checkpoint, the first change to each page writes one: a DELETE's heap pages, a drop's catalog pages); " +
		"autovacuum is off on the table, so that the VACUUM after the rounds finds what the expiries left; lock on the table: the strongest lock the expiry held on the table the inserts go through (inserts wait behind an AccessExclusiveLock); " +
		"VACUUM after: the VACUUM after the rounds; table, key index after: their sizes and the key index's leaf density after it (pgstatindex);"),
	Charts: []present.Chart{
		{Heading: "Retention: time per expiry", Title: "time per expiry", YLabel: "milliseconds (log scale)", Categories: []string{"expiry"}, LogY: true,
			Caption: "The median time of each round's expiry of the same slice of the history: a partition dropped, or the rows deleted by key or by created_at.",
			Values: func(c *results.Cell) ([]float64, bool) {
				return expiryFigure(c, func(e Expiry) (float64, bool) { return e.Seconds * 1000, true })
			},
			Missing: "no expiry was measured"},
		{Heading: "Retention: WAL per expiry", Title: "WAL per expiry", YLabel: "KiB (log scale)", Categories: []string{"expiry"}, LogY: true,
			Caption: "What each expiry's transaction wrote to the WAL (pg_walinspect, its records by its transaction id), median over the rounds: a DELETE writes a record per row and an image of each page it first touches after a checkpoint.",
			Values: func(c *results.Cell) ([]float64, bool) {
				return expiryFigure(c, func(e Expiry) (float64, bool) { w, ok := e.WAL.Get(); return float64(w.Bytes) / 1024, ok })
			},
			Missing: "no expiry's WAL was read back (pg_walinspect)"},
	},
}

// expiryFigure is a figure's median over a cell's expiries, for a chart.
func expiryFigure(c *results.Cell, f func(Expiry) (float64, bool)) ([]float64, bool) {
	s, ok := c.Metrics.Summary.(*RetentionSummary)
	if !ok {
		return nil, false
	}
	v, ok := s.Median(f)
	return []float64{v}, ok
}

// medianText is a figure's median over the expiries, as format says, or "-".
func medianText(s *RetentionSummary, f func(Expiry) (float64, bool), format string) string {
	v, ok := s.Median(f)
	if !ok {
		return "-"
	}
	return fmt.Sprintf(format, v)
}
