// Package update is the update workload: each transaction updates one row
// by key, a column without an index (HOT where the page has room) or an
// indexed one, which adds entries to every index, the key's too.
package update

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

func init() {
	workload.Register(workload.Meta{
		Name: "update",
		Description: "each transaction updates one existing row by key, drawn over insertion order (read-dist): a column without an index " +
			"(HOT updates where the page has room), or an indexed one (update-indexed: every update adds entries to every index, the key's too); " +
			"VACUUM, ANALYZE, REINDEX and COPY TO timed after the window",
		Kind: results.SummaryKind[UpdateSummary](), View: updateView,
		New:  func() workload.Workload { return &update{} },
		Bare: workload.Bare{Rows: 100_000},
	})
}

// update updates the data column of rows drawn by key. With --update-indexed
// data has an index, so no update is HOT: each writes a new row version
// with new entries in every index, the key index included, which the key's
// order then places (at the right edge, or anywhere).
type update struct {
	s       workload.Setup
	indexed bool
	dist    workload.ReadDist
	pool    *workload.KeyPool
	sum     *UpdateSummary // made by Summarize; Maintain adds its times
}

func (u *update) Options() []workload.Option {
	return append([]workload.Option{workload.Bool("update-indexed", &u.indexed, false,
		"change an indexed column, so that no update is HOT and every index, the key's too, gets new entries")}, workload.ReadDistOptions(&u.dist)...)
}

func (u *update) Configure(s workload.Setup) error {
	u.s = s
	return workload.DrawnRows("update", "changes rows", s)
}

func (u *update) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	t := workload.KeyedTable(at, key, u.s)
	t.DataIndex = u.indexed
	return []*workload.Table{t}
}

func (u *update) Hooks() workload.Hooks {
	return workload.Hooks{
		PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			return workload.LoadKeyPool(ctx, conn, tables[0], u.s, &u.pool)
		},
		MaintainSays: workload.TimedMaintenance,
		Maintain: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			if u.sum != nil {
				u.sum.Maintenance = results.Of(workload.TimeMaintenance(ctx, conn, tables[0]))
			}
			return nil
		},
	}
}

const updateStmt = "kb_update"

func (u *update) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, _ keys.Generator, id int) (workload.Worker, error) {
	t, conn := tables[0], c.PgConn()
	pick := u.dist.NewPicker(u.pool.Rows, rand.New(rand.NewPCG(uint64(u.s.Seed), uint64(id)+1)))
	return workload.PrepareStmtWorker(ctx, conn, "update", updateStmt, fmt.Sprintf("UPDATE %s SET data = data + 1 WHERE id = $1", t.Qualified()),
		[][]byte{nil}, []int16{t.Key.WireFormat()}, workload.DrawKeys(u.pool, pick), updated)
}

// updated checks that an update found its row.
func updated(n int64, err error) (driver.Work, error) {
	if err == nil && n != 1 {
		return driver.Work{}, fmt.Errorf("an update changed %d rows, not 1 (keys are drawn from the table's own)", n)
	}
	return driver.Work{Updated: n}, err
}

// UpdateSummary is an update cell's own figures: how its rows were
// drawn, the share of HOT updates, and the maintenance timed afterwards.
type UpdateSummary struct {
	results.IsSummary
	ReadDist string `json:"read_dist_drawn"`
	Indexed  bool   `json:"update_indexed"`
	// Maintenance is VACUUM, ANALYZE, REINDEX and COPY TO timed after the window.
	Maintenance results.M[results.Maintenance] `json:"maintenance_s,omitzero"`
}

func (u *update) Summarize(o *workload.Outcome) error {
	s := &UpdateSummary{Indexed: u.indexed, Maintenance: results.Unavailable[results.Maintenance]("not timed: the cell ended before")}
	if u.pool != nil {
		s.ReadDist = u.dist.Describe(u.pool.Rows)
	}
	o.Cell.Metrics.Summary = s
	u.sum = s
	return nil
}

// updateView is how update cells are shown.
var updateView = present.View{
	Columns: []present.Column{
		present.Rate, present.RateColumn, present.P99Column,
		{Figure: results.Figure{Header: "HOT"}, Text: func(r *results.Results, g *results.Group) string {
			return r.Last(g).Metrics.Tuples.Text(func(t results.Tuples) string {
				if t.Updated == 0 {
					return "no update"
				}
				return fmt.Sprintf("%.0f%%", float64(t.HOTUpdated)*100/float64(t.Updated))
			})
		}},
		present.BlocksColumn("blocks / update (read)", results.BlocksAndReads),
		workload.FigureColumn(func(m *results.Metrics) any { return &m.KeyIndexBytes }),
		workload.FigureColumn(func(m *results.Metrics) any { return &m.BloatRatio }),
		workload.FigureColumn(func(m *results.Metrics) any { return &m.LeafDensity }),
		workload.SummaryColumn("vacuum / analyze / reindex / copy to", false, func(r *results.Results, g *results.Group, s *UpdateSummary) string {
			return s.Maintenance.Text(workload.MaintenanceColumn)
		}),
	},
	Notes: present.Always("HOT: updates that added no index entry (pg_stat_user_tables); vacuum / analyze / reindex / copy to: seconds each took after the window, alone (003);"),
}
