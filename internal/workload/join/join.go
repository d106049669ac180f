// Package join is the join workload: each transaction reads a parent with
// its children by key; after the window an analytic join of the whole
// tables is timed with the join method its plan chose (001's readers).
package join

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

func init() {
	workload.Register(workload.Meta{
		Name: "join",
		Description: "each transaction reads one parent with its children by key (a parent drawn over insertion order, --read-dist); " +
			"after the window, an analytic join of the whole parent and child tables is timed with its plan's join method (001's readers: int4 vs int8 vs uuid)",
		Accepts: workload.AcceptsForeignKey,
		Kind:    results.SummaryKind[JoinSummary](),
		View:    joinView,
		New:     func() workload.Workload { return &join{} },
		Bare:    workload.Bare{Rows: 100_000},
	})
}

// join reads parents with their children.
type join struct {
	s        workload.Setup
	children int
	dist     workload.ReadDist
	pool     *workload.KeyPool
	analytic results.M[AnalyticJoin]
}

func (j *join) Options() []workload.Option {
	return append([]workload.Option{workload.ChildrenOption(&j.children, 1, 4)}, workload.ReadDistOptions(&j.dist)...)
}

func (j *join) Configure(s workload.Setup) error {
	j.s = s
	return workload.DrawnRows("join", "reads the parents", s)
}

func (j *join) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, j.s), workload.ChildTable(at, key)}
}

// analyticRuns is how many times the analytic join is timed after the window.
const analyticRuns = 3

func (j *join) Hooks() workload.Hooks {
	return workload.Hooks{
		PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			if err := workload.FillChildren(ctx, conn, tables[0], tables[1], j.children); err != nil {
				return err
			}
			return workload.LoadKeyPool(ctx, conn, tables[0], j.s, &j.pool)
		},
		PostRun: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			j.analytic = analyticJoin(ctx, conn, tables[0], tables[1])
			return nil
		},
	}
}

// analyticJoin times the join of the whole tables (EXPLAIN ANALYZE without
// per-node timing, analyticRuns times) and records the plan's join method.
func analyticJoin(ctx context.Context, conn *pgx.Conn, parent, child *workload.Table) results.M[AnalyticJoin] {
	sql := fmt.Sprintf("SELECT count(*), sum(c.data) FROM %s p JOIN %s c ON c.parent_id = p.id", parent.Qualified(), child.Qualified())
	var out AnalyticJoin
	for i := 0; i < analyticRuns; i++ {
		var raw []byte
		if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON) "+sql).Scan(&raw); err != nil {
			return results.Unavailable[AnalyticJoin](err.Error())
		}
		var doc []struct {
			Plan          workload.PlanNode `json:"Plan"`
			ExecutionTime float64           `json:"Execution Time"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil || len(doc) == 0 {
			return results.Unavailable[AnalyticJoin](fmt.Sprintf("reading the plan: %v", err))
		}
		out.RunsMS = append(out.RunsMS, doc[0].ExecutionTime)
		out.Method = joinMethod(&doc[0].Plan)
		out.Blocks = doc[0].Plan.SharedHit + doc[0].Plan.SharedRead
	}
	s := append([]float64(nil), out.RunsMS...)
	sort.Float64s(s)
	out.MedianMS = s[len(s)/2]
	return results.Of(out)
}

// joinMethod is the first join node of a plan (Hash Join, Merge Join, Nested Loop).
func joinMethod(n *workload.PlanNode) string {
	switch n.Type {
	case "Hash Join", "Merge Join", "Nested Loop":
		return n.Type
	}
	for i := range n.Plans {
		if m := joinMethod(&n.Plans[i]); m != "" {
			return m
		}
	}
	return ""
}

// AnalyticJoin is the join of the whole tables, timed after the window.
type AnalyticJoin struct {
	Method   string    `json:"method"`
	MedianMS float64   `json:"median_ms"`
	RunsMS   []float64 `json:"runs_ms"`
	Blocks   int64     `json:"shared_blocks"`
}

const joinStmt = "kb_join"

func (j *join) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, _ keys.Generator, id int) (workload.Worker, error) {
	conn := c.PgConn()
	sql := fmt.Sprintf("SELECT p.id, p.data, c.id, c.data FROM %s p JOIN %s c ON c.parent_id = p.id WHERE p.id = $1", tables[0].Qualified(), tables[1].Qualified())
	pick := j.dist.NewPicker(j.pool.Rows, rand.New(rand.NewPCG(uint64(j.s.Seed), uint64(id)+1)))
	return workload.PrepareStmtWorker(ctx, conn, "join", joinStmt, sql, [][]byte{nil}, []int16{tables[0].Key.WireFormat()}, workload.DrawKeys(j.pool, pick), workload.MustFind)
}

// JoinSummary is a join cell's own figures.
type JoinSummary struct {
	results.IsSummary
	ReadDist string                  `json:"read_dist_drawn"`
	Children int                     `json:"children_per_parent"`
	Analytic results.M[AnalyticJoin] `json:"analytic_join,omitzero"`
}

func (j *join) Summarize(o *workload.Outcome) error {
	o.Cell.Metrics.Summary = &JoinSummary{ReadDist: j.dist.Describe(j.pool.Rows), Children: j.children, Analytic: j.analytic}
	return nil
}

// joinView is how join cells are shown.
var joinView = present.View{
	Columns: []present.Column{
		present.Rate, present.RateColumn, present.P99Column,
		present.BlocksColumn("blocks / join (read)", results.BlocksAndReads),
		workload.SummaryColumn("analytic join", false, func(r *results.Results, g *results.Group, s *JoinSummary) string {
			return s.Analytic.Text(func(a AnalyticJoin) string { return fmt.Sprintf("%.0f ms, %s", a.MedianMS, a.Method) })
		}),
		{Figure: results.Figure{Header: "size at finish"}, Text: func(r *results.Results, g *results.Group) string { return r.SizeText(g) }},
	},
	Notes: present.Always("rate: one parent with its children per transaction; analytic join: the whole tables joined after the window (median of 3, EXPLAIN ANALYZE without per-node timing) and the plan's join method;"),
}
