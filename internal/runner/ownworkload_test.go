package runner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/runner/runnertest"
	"github.com/keybench/keybench/internal/workload/all"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload"
)

// childInsert exists only in this file: a parent table (the keyed table)
// and a child table of its own whose parent_id has the key's type, two
// children per parent made after the prefill, and clients that each insert
// one child of a random parent. It has a summary of its own (children
// before and after), a column and a chart. Registering it is all it takes
// for the runner, results and the report to run and show it (issue 11).
type childInsert struct {
	s       workload.Setup
	perRead int64 // an option of its own, which reaches results.json by itself
}

func (w *childInsert) Options() []workload.Option {
	return []workload.Option{workload.Int("children-per-txn", &w.perRead, 1, 1, 1, "children each transaction inserts")}
}

func (w *childInsert) Configure(s workload.Setup) error { w.s = s; return nil }

// childSummary is childInsert's own summary, under "children" in the cell's metrics.
type childSummary struct {
	Children struct {
		Before int64 `json:"before"`
		After  int64 `json:"after"`
	} `json:"children"`
}

func (*childSummary) WorkloadSummary() {}

const childrenPerParent = 2

func init() {
	workload.Register(workload.Meta{Name: "kbtest-children", Description: "test: insert children of random parents",
		New:  func() workload.Workload { return &childInsert{} },
		Kind: results.Kind{NewSummary: func() results.Summary { return &childSummary{} }},
		View: present.View{
			Columns: []present.Column{{Figure: results.Figure{Header: "children before → after"}, Text: func(r *results.Results, g *results.Group) string {
				s := r.Last(g).Metrics.Summary.(*childSummary)
				return fmt.Sprintf("%d → %d", s.Children.Before, s.Children.After)
			}}},
			Charts: []present.Chart{{Heading: "Children per parent", Title: "Children per parent", YLabel: "children",
				Categories: []string{"before", "after"}, Missing: "children: none",
				Values: func(c *results.Cell) ([]float64, bool) {
					s, ok := c.Metrics.Summary.(*childSummary)
					if !ok || c.RowsBefore == 0 {
						return nil, false
					}
					return []float64{float64(s.Children.Before) / float64(c.RowsBefore), float64(s.Children.After) / float64(c.RowsBefore)}, true
				}}}}})
}

func (w *childInsert) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	parent := workload.KeyedTable(at, key, w.s)
	parent.DataIndex = true // the clients find a parent by data
	child := workload.OwnTable(at, "child", "child", "parent_id "+key.ColumnType()+" NOT NULL, n bigint NOT NULL",
		workload.Index{Suffix: "parent_idx", Columns: "parent_id"})
	return []*workload.Table{parent, child}
}

func (w *childInsert) Hooks() workload.Hooks {
	return workload.Hooks{PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
		parent, child := tables[0].Qualified(), tables[1].Qualified()
		for _, sql := range []string{
			fmt.Sprintf("INSERT INTO %s (parent_id, n) SELECT id, g FROM %s, generate_series(1, %d) g", child, parent, childrenPerParent),
			fmt.Sprintf("ALTER TABLE %s ADD FOREIGN KEY (parent_id) REFERENCES %s (id)", child, parent),
		} {
			if _, err := conn.Exec(ctx, sql); err != nil {
				return err
			}
		}
		return nil
	}}
}

func (w *childInsert) NewWorker(ctx context.Context, conn *pgx.Conn, tables []*workload.Table, _ keys.Generator, id int) (workload.Worker, error) {
	sql := fmt.Sprintf("INSERT INTO %s (parent_id, n) SELECT id, 0 FROM %s WHERE data = $1", tables[1].Qualified(), tables[0].Qualified())
	return &childWorker{conn: conn, sql: sql, rows: w.s.Rows, next: int64(id)}, nil
}

func (w *childInsert) Summarize(o *workload.Outcome) error {
	s := &childSummary{}
	s.Children.Before = o.Tables[0].Rows * childrenPerParent
	s.Children.After = s.Children.Before + o.Work.Inserted
	o.Cell.Metrics.Summary = s
	o.Expected = o.Tables[0].Rows // the clients insert children only: the parents stay as prefilled
	return nil
}

type childWorker struct {
	conn       *pgx.Conn
	sql        string
	rows, next int64
}

func (c *childWorker) Txn() (driver.Work, error) {
	c.next = c.next*6364136223846793005 + 1442695040888963407
	tag, err := c.conn.Exec(context.Background(), c.sql, int64(uint64(c.next)%uint64(c.rows))+1)
	return driver.Work{Inserted: tag.RowsAffected()}, err
}

func TestAWorkloadOfItsOwnRunsEndToEnd(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "uuidv4,bigint", func(p *scenario.Params) { p.Workload, p.Clients = "kbtest-children", []int{2} })
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := verdict.Read(filepath.Join(cfg.Out, "results.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range back.Cells {
		s, ok := c.Metrics.Summary.(*childSummary)
		if c.Status != results.StatusOK || !ok || s.Children.Before != 4000 || s.Children.After < 4000+res.Cells[i].RowsInserted ||
			c.RowsInserted == 0 || c.RowCheck == nil || !c.RowCheck.OK || c.RowCheck.Server != 2000 {
			t.Fatalf("%s: %s %s, summary %+v, row check %+v", c.Key, c.Status, c.Error, c.Metrics.Summary, c.RowCheck)
		}
		// The collectors attribute the workload's own relations to its roles.
		if bc, ok := c.Metrics.BufferCache.Get(); !ok || bc.MeanShare["child"] <= 0 || bc.MeanShare["child_index"] <= 0 {
			t.Errorf("%s: buffer cache %+v", c.Key, c.Metrics.BufferCache)
		}
	}
	var sum strings.Builder
	report.WriteSummary(&sum, back, 0)
	if !strings.Contains(sum.String(), "CHILDREN BEFORE → AFTER") || !strings.Contains(sum.String(), "4000 → ") {
		t.Errorf("summary:\n%s", sum.String())
	}
	page, err := report.Render(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "Children per parent") {
		t.Error("the report lacks the workload's chart")
	}
	if runnertest.SchemaExists(t, "kbtest") {
		t.Error("keybench left its schema behind")
	}
}
