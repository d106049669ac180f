// Package lookup is the lookup workload: read-only transactions on the
// filled table by key (a point read, a keyset page, the latest rows, an
// index-only count), with the plan the server used for each.
package lookup

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

// lookup's query kinds.
const (
	QueryPoint  = "point"  // WHERE id = $1
	QueryRange  = "range"  // a keyset page: WHERE id > $1 ORDER BY id LIMIT 100
	QueryLatest = "latest" // ORDER BY id DESC LIMIT 20
	QueryCount  = "count"  // an index-only count of 1,000 keys from $1
)

// Sizes of lookup's queries.
const (
	rangePage  = 100
	latestRows = 20
	countKeys  = 1000
)

func init() {
	workload.Register(workload.Meta{
		Name: "lookup",
		Description: "read-only: each transaction reads the filled table by key: a point read, a keyset page (range), the latest rows, " +
			"or an index-only count (query), of rows drawn over insertion order (read-dist)",
		Kind: results.SummaryKind[LookupSummary](), View: lookupView,
		New:  func() workload.Workload { return &lookup{} },
		Bare: workload.Bare{Rows: 100_000},
	})
}

// lookup reads the prefilled table by key; it writes nothing.
type lookup struct {
	s     workload.Setup
	query string
	dist  workload.ReadDist
	pool  *workload.KeyPool
	// After the window (PostRun): how the query ran, and for latest which rows it returns.
	plan   results.M[workload.QueryPlan]
	newest results.M[float64]
}

func (l *lookup) Options() []workload.Option {
	opts := []workload.Option{workload.Choice("query", &l.query, QueryPoint, []string{QueryPoint, QueryRange, QueryLatest, QueryCount},
		"point (by key), range (a keyset page of 100), latest (the 20 newest by key) or count (an index-only count of 1,000 keys)").Variants().Naming()}
	for _, o := range workload.ReadDistOptions(&l.dist) {
		applies := o.Applies
		if o.Variant {
			o = o.Naming() // a lookup's task says how it draws its rows
		}
		opts = append(opts, o.Only(func() bool { return l.query != QueryLatest && (applies == nil || applies()) })) // latest draws no row
	}
	return opts
}

func (l *lookup) Configure(s workload.Setup) error {
	l.s = s
	return workload.DrawnRows("lookup", "reads rows", s)
}

func (l *lookup) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, l.s)}
}

func (l *lookup) Hooks() workload.Hooks {
	return workload.Hooks{
		PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			if l.query == QueryLatest {
				return nil // no parameter to draw
			}
			return workload.LoadKeyPool(ctx, conn, tables[0], l.s, &l.pool)
		},
		PostRun: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			var params [][]byte
			var formats []int16
			if p := l.param(); p != nil {
				params, formats = [][]byte{p}, []int16{tables[0].Key.WireFormat()}
			}
			l.plan = workload.ExplainQuery(ctx, conn, l.sql(tables[0]), params, formats)
			if l.query == QueryLatest {
				l.newest = latestNewest(ctx, conn, tables[0])
			}
			return nil
		},
	}
}

// sql is the cell's query.
func (l *lookup) sql(t *workload.Table) string {
	q := t.Qualified()
	switch l.query {
	case QueryRange:
		return fmt.Sprintf("SELECT id, data, payload FROM %s WHERE id > $1 ORDER BY id LIMIT %d", q, rangePage)
	case QueryLatest:
		return fmt.Sprintf("SELECT id, data, payload FROM %s ORDER BY id DESC LIMIT %d", q, latestRows)
	case QueryCount:
		return fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s WHERE id >= $1 ORDER BY id LIMIT %d) s", q, countKeys)
	}
	return fmt.Sprintf("SELECT id, data, payload FROM %s WHERE id = $1", q)
}

// param is a parameter of the query for EXPLAIN: the key in the middle of the insertion order.
func (l *lookup) param() []byte {
	if l.pool == nil {
		return nil
	}
	return l.pool.Key(l.pool.Rows / 2)
}

const lookupStmt = "kb_lookup"

func (l *lookup) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, _ keys.Generator, id int) (workload.Worker, error) {
	t, conn := tables[0], c.PgConn()
	var params [][]byte
	var formats []int16
	var set func([][]byte)
	if l.pool != nil {
		params, formats = [][]byte{nil}, []int16{t.Key.WireFormat()}
		set = workload.DrawKeys(l.pool, l.dist.NewPicker(l.pool.Rows, rand.New(rand.NewPCG(uint64(l.s.Seed), uint64(id)+1))))
	}
	done := workload.AnyRows
	if l.query == QueryPoint {
		done = workload.MustFind
	}
	return workload.PrepareStmtWorker(ctx, conn, l.query, lookupStmt, l.sql(t), params, formats, set, done)
}

// LookupSummary is a lookup cell's own figures: what it read, and how the
// server ran its query after the window.
type LookupSummary struct {
	results.IsSummary
	Query    string `json:"lookup_query"`
	ReadDist string `json:"read_dist_drawn,omitempty"`
	// Plan is EXPLAIN (ANALYZE, BUFFERS) of the query after the window.
	Plan results.M[workload.QueryPlan] `json:"lookup_plan,omitzero"`
	// LatestNewest is, for latest, the share of the rows it returned that
	// were among the newest inserted: it reads the newest rows only for a
	// time-ordered key.
	LatestNewest results.M[float64] `json:"latest_newest_share,omitzero"`
}

func (l *lookup) Summarize(o *workload.Outcome) error {
	s := &LookupSummary{Query: l.query}
	if l.pool != nil {
		s.ReadDist = l.dist.Describe(l.pool.Rows)
	}
	s.Plan = l.plan
	s.LatestNewest = l.newest
	o.Cell.Metrics.Summary = s
	return nil
}

// latestNewest measures which rows "latest" returns: of the latestRows
// rows with the highest keys, the share that are among the latestRows
// rows inserted last (the last in the heap, which a prefill writes in
// insertion order).
func latestNewest(ctx context.Context, conn *pgx.Conn, table *workload.Table) results.M[float64] {
	t := table.Qualified()
	var n int64
	q := fmt.Sprintf(`SELECT count(*) FROM (SELECT ctid FROM %s ORDER BY id DESC LIMIT %d) a
		WHERE ctid IN (SELECT ctid FROM %s ORDER BY ctid DESC LIMIT %d)`, t, latestRows, t, latestRows)
	if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
		return results.Unavailable[float64](err.Error())
	}
	return results.Of(float64(n) / latestRows)
}

// lookupView is how lookup cells are shown.
var lookupView = present.View{
	Columns: []present.Column{
		present.Rate, present.RateColumn, present.P99Column,
		present.BlocksColumn("blocks / query", func(b results.BlocksPerTxn) string { return fmt.Sprintf("%.1f", b.Hit+b.Read) }),
		present.BlocksColumn("read / query", func(b results.BlocksPerTxn) string { return fmt.Sprintf("%.2f", b.Read) }),
		present.BlocksColumn("heap blocks / query", func(b results.BlocksPerTxn) string { return fmt.Sprintf("%.1f", b.Heap) }),
		workload.SummaryColumn("plan", true, func(r *results.Results, g *results.Group, s *LookupSummary) string {
			out := s.Plan.Text(func(p workload.QueryPlan) string {
				out := p.Scan
				if p.HeapFetches != nil {
					out += fmt.Sprintf(", %.0f heap fetches", *p.HeapFetches)
				}
				return out
			})
			if !s.LatestNewest.IsZero() {
				out += "; " + s.LatestNewest.Text(func(v float64) string { return fmt.Sprintf("%.0f%% of latest rows among the newest", v*100) })
			}
			return out
		}),
	},
	Notes: present.Always("blocks / query: shared blocks of the table and its indexes per query, read: from outside the cache, heap: the table's own (pg_statio, warm-up included); " +
		"plan: EXPLAIN ANALYZE of one query after the window; latest returns the newest rows only where the key is time-ordered;"),
}
