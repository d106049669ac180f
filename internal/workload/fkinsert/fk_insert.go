// Package fkinsert is the fk-insert workload: each transaction inserts a
// child row referencing a parent, so the foreign-key check reads the
// parent's key index and the child's parent_id index takes the key's order.
package fkinsert

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/workload"
)

func init() {
	workload.Register(workload.Meta{
		Name: "fk-insert",
		Description: "each transaction inserts one child row referencing a parent drawn over insertion order (--read-dist): " +
			"the foreign-key check reads the parent's key index, and the child's parent_id index takes the key's order (children per parent prefilled)",
		Accepts: workload.AcceptsForeignKey,
		New:     func() workload.Workload { return &fkInsert{} },
		Bare:    workload.Bare{Rows: 100_000},
	})
}

// fkInsert inserts children of existing parents.
type fkInsert struct {
	s        workload.Setup
	children int
	dist     workload.ReadDist
	pool     *workload.KeyPool
}

func (f *fkInsert) Options() []workload.Option {
	return append([]workload.Option{workload.ChildrenOption(&f.children, 0, 4)}, workload.ReadDistOptions(&f.dist)...)
}

func (f *fkInsert) Configure(s workload.Setup) error {
	f.s = s
	return workload.DrawnRows("fk-insert", "references the parents", s)
}

func (f *fkInsert) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, f.s), workload.ChildTable(at, key)}
}

func (f *fkInsert) Hooks() workload.Hooks {
	return workload.Hooks{PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
		if err := workload.FillChildren(ctx, conn, tables[0], tables[1], f.children); err != nil {
			return err
		}
		return workload.LoadKeyPool(ctx, conn, tables[0], f.s, &f.pool)
	}}
}

const fkInsertStmt = "kb_fk_insert"

func (f *fkInsert) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, _ keys.Generator, id int) (workload.Worker, error) {
	conn := c.PgConn()
	pick := f.dist.NewPicker(f.pool.Rows, rand.New(rand.NewPCG(uint64(f.s.Seed), uint64(id)+1)))
	parent, n := workload.DrawKeys(f.pool, pick), int64(0)
	set := func(p [][]byte) {
		parent(p)
		n++
		p[1] = strconv.AppendInt(p[1][:0], n, 10)
	}
	inserted := func(rows int64, err error) (driver.Work, error) { return driver.Work{Inserted: rows}, err }
	return workload.PrepareStmtWorker(ctx, conn, "child insert", fkInsertStmt, fmt.Sprintf("INSERT INTO %s (parent_id, data) VALUES ($1, $2)", tables[1].Qualified()),
		[][]byte{nil, nil}, []int16{tables[0].Key.WireFormat(), 0}, set, inserted)
}

// Summarize: the rows inserted are children; the parent table keeps its rows.
func (f *fkInsert) Summarize(o *workload.Outcome) error {
	o.Expected = o.Tables[0].Rows
	return nil
}
