// Package rangequery is the range-query workload: read-only transactions
// reading a recent window of time through the key's range where the key
// orders by time, or through created_at, with the partitions each scanned.
package rangequery

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

// range-query reads the rows of a recent window of time, as an
// application lists "the last hour": through the key's range where the
// key orders by time (bounds made from timestamps: a uuidv7's leading
// milliseconds, a counter's value at each time of its history), or
// through created_at (its index, or a scan of the table when it has
// none). What it answers is whether a uuidv7 key can replace a created_at
// index for such queries, and what a uuidv4 table without one pays: the
// blocks each query touches (its rows' heap pages, the index's leaves) —
// a direction the physics makes certain — beside the rate, and the plan
// the server chose, with the partitions it scanned of a table partitioned
// by time.
type rangeQuery struct {
	s      workload.Setup
	path   string
	window time.Duration
	recent float64
	t      *workload.Table
	col    string // the column the query bounds: id or created_at
	plan   results.M[workload.QueryPlan]
}

// range-query's paths.
const (
	PathAuto      = "auto"
	PathKey       = "key"
	PathCreatedAt = "created-at"
)

func init() {
	workload.Register(workload.Meta{
		Name: "range-query",
		Description: "read-only: each transaction reads the rows of a recent window of time (window) through the key's range where the key " +
			"orders by time, or through created_at (path); blocks per query and the plan, the partitions it scanned",
		Kind: results.SummaryKind[RangeQuerySummary](), View: rangeQueryView,
		New:  func() workload.Workload { return &rangeQuery{} },
		Bare: workload.Bare{Rows: 100_000},
		Accepts: func(s *keys.Spec) string {
			if !s.OrdersByTime() && !s.HasCreatedAt() {
				return "its key does not order by time and its table has no created_at column (created-at=column or indexed): no recent window to find"
			}
			return ""
		},
	})
}

func (q *rangeQuery) Options() []workload.Option {
	return []workload.Option{
		workload.Choice("path", &q.path, PathAuto, []string{PathAuto, PathKey, PathCreatedAt},
			"how the window is found: the key's range (key), created_at (created-at), or auto: created_at where it is indexed, "+
				"else the key where it orders by time, else created_at (a scan)").Variants(),
		workload.Span("window", &q.window, time.Hour, time.Millisecond, 100*365*24*time.Hour, "the span of the rows' time each query reads (of the prefill's history: see --history)"),
		workload.Float("recent-rows", &q.recent, workload.DefaultRecentRows, 0, 1, true, "the newest share of the history the windows start in (each query's window drawn uniformly within it)"),
	}
}

func (q *rangeQuery) Configure(s workload.Setup) error {
	q.s = s
	return workload.DrawnRows("range-query", "reads rows", s)
}

func (q *rangeQuery) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	q.t = workload.KeyedTable(at, key, q.s)
	return []*workload.Table{q.t}
}

// column is the column the query bounds for the table, or why it has none.
func (q *rangeQuery) column(t *workload.Table) (string, error) {
	byKey := t.Key.OrdersByTime()
	switch q.path {
	case PathKey:
		if !byKey {
			return "", fmt.Errorf("path=key: %s does not order by time", t.Key.Strategy.Name)
		}
		return "id", nil
	case PathCreatedAt:
		if !t.HasCreatedAt() {
			return "", fmt.Errorf("path=created-at: the table has no created_at column (created-at=column or indexed)")
		}
		return "created_at", nil
	}
	switch {
	case t.CreatedAt == workload.CreatedAtIndexed, !byKey && t.HasCreatedAt():
		return "created_at", nil
	case byKey:
		return "id", nil
	}
	return "", fmt.Errorf("%s does not order by time and the table has no created_at column", t.Key.Strategy.Name)
}

// PathName says how the query finds its window, as a person reads it.
func (q *rangeQuery) pathName() string {
	switch {
	case q.col == "id" && q.t.Key.Counts():
		return "key range (the history's value at each time)"
	case q.col == "id":
		return "key range (bounds made from timestamps)"
	case q.t.CreatedAt == workload.CreatedAtIndexed:
		return "created_at index"
	}
	return "created_at, no index"
}

func (q *rangeQuery) sql(t *workload.Table) string {
	return fmt.Sprintf("SELECT id, data, payload FROM %s WHERE %s >= $1 AND %s < $2", t.Qualified(), q.col, q.col)
}

// span is the part of the history the windows start in: the newest
// recent-rows share, at least one window.
func (q *rangeQuery) span() (from, to time.Time) {
	h := q.t.History
	to = h.End()
	recent := time.Duration(float64(h.Span()) * q.recent)
	return to.Add(-max(recent, q.window)), to
}

// bound is the query's parameter for time at: the column's value there.
func (q *rangeQuery) bound(dst []byte, at time.Time) []byte {
	k := q.t.Key
	switch {
	case q.col == "created_at":
		return binary.BigEndian.AppendUint64(dst[:0], uint64(at.Sub(pgEpoch).Microseconds()))
	case k.Counts():
		var raw [8]byte
		binary.BigEndian.PutUint64(raw[:], uint64(q.t.History.RowAt(at)))
		return k.Encode(dst[:0], raw[:])
	}
	raw, _ := k.TimeBound(at)
	return k.Encode(dst[:0], raw)
}

// pgEpoch is PostgreSQL's epoch for timestamps on the wire.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func (q *rangeQuery) format() int16 {
	if q.col == "id" {
		return q.t.Key.WireFormat()
	}
	return 1
}

func (q *rangeQuery) Hooks() workload.Hooks {
	return workload.Hooks{
		PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			var err error
			q.t = tables[0]
			q.col, err = q.column(tables[0])
			return err
		},
		PostRun: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			from, to := q.span()
			mid := from.Add(to.Sub(from)/2 - q.window/2)
			q.plan = workload.ExplainQuery(ctx, conn, q.sql(tables[0]), [][]byte{q.bound(nil, mid), q.bound(nil, mid.Add(q.window))}, []int16{q.format(), q.format()})
			return nil
		},
	}
}

const rangeQueryStmt = "kb_range_query"

func (q *rangeQuery) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, _ keys.Generator, id int) (workload.Worker, error) {
	t, conn := tables[0], c.PgConn()
	from, to := q.span()
	starts := to.Sub(from) - q.window // the windows start within [from, to - window]
	rng := rand.New(rand.NewPCG(uint64(q.s.Seed), uint64(id)+1))
	params := [][]byte{make([]byte, 0, 40), make([]byte, 0, 40)}
	set := func(p [][]byte) {
		lo := from
		if starts > 0 {
			lo = from.Add(time.Duration(rng.Int64N(int64(starts))))
		}
		p[0], p[1] = q.bound(p[0], lo), q.bound(p[1], lo.Add(q.window))
	}
	return workload.PrepareStmtWorker(ctx, conn, "range-query", rangeQueryStmt, q.sql(t), params, []int16{q.format(), q.format()}, set, workload.AnyRows)
}

// RangeQuerySummary is a range-query cell's own figures: how it found its
// windows, their span, the rows each query returned, and the plan of one.
type RangeQuerySummary struct {
	results.IsSummary
	Path        string                        `json:"range_path"`
	Window      string                        `json:"range_window"`
	RowsPerRead float64                       `json:"rows_per_query"`
	Partitions  int                           `json:"range_partitions,omitempty"`
	Plan        results.M[workload.QueryPlan] `json:"range_plan,omitzero"`
}

func (q *rangeQuery) Summarize(o *workload.Outcome) error {
	s := &RangeQuerySummary{Path: q.pathName(), Window: keys.FormatSpan(q.window), Partitions: len(q.t.LivePartitions())}
	if o.Result.Txns > 0 {
		s.RowsPerRead = float64(o.Result.Work.Read) / float64(o.Result.Txns)
	}
	s.Plan = q.plan
	o.Cell.Metrics.Summary = s
	return nil
}

// rangeQueryView is how rangeQuery cells are shown.
var rangeQueryView = present.View{
	Columns: []present.Column{
		present.Rate, present.RateColumn, present.P99Column,
		workload.SummaryColumn("path", true, func(r *results.Results, g *results.Group, s *RangeQuerySummary) string {
			return s.Path
		}),
		workload.SummaryColumn("rows / query", false, func(r *results.Results, g *results.Group, s *RangeQuerySummary) string {
			return fmt.Sprintf("%.0f", s.RowsPerRead)
		}),
		present.BlocksColumn("blocks / query (read)", results.BlocksAndReads),
		workload.SummaryColumn("plan", true, func(r *results.Results, g *results.Group, s *RangeQuerySummary) string {
			return s.Plan.Text(func(p workload.QueryPlan) string { return p.Text(s.Partitions) })
		}),
	},
	Charts: []present.Chart{{
		Heading: "Range query: blocks per query", Title: "blocks per query of a recent window", YLabel: "shared blocks (log scale)", Categories: []string{"blocks / query", "read from outside the cache"},
		LogY: true,
		Caption: "The shared blocks each query of a recent window of time touched (the table's and its indexes'; pg_statio): through the key's range, " +
			"through a created_at index, or by a scan of a table without one (each key's path is in the table).",
		Values: func(c *results.Cell) ([]float64, bool) {
			b, ok := c.Metrics.BlocksPerTxn.Get()
			return []float64{b.Hit + b.Read, b.Read}, ok
		},
		Missing: "blocks per query: not collected",
	}},
	Notes: func(r *results.Results, groups []results.Group) []string {
		window := ""
		if len(groups) > 0 {
			if s, ok := workload.SummaryOf[RangeQuerySummary](r.Last(&groups[0])); ok {
				window = " (" + s.Window + " of the history)"
			}
		}
		return []string{"range-query: each query reads the rows of a recent window of time" + window + ", drawn within the newest rows; path: how it finds them; " +
			"blocks / query: shared blocks of the table and its indexes per query (read: from outside the cache; pg_statio, warm-up included) — the rows' heap pages and the index leaves that hold their keys; " +
			"plan: EXPLAIN ANALYZE of one query after the window, and the partitions it scanned;"}
	},
}
