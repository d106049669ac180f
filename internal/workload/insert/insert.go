// Package insert is the insert workload: each client inserts one row (or a
// batch of rows in one multi-row INSERT) per transaction into the keyed
// table, the write path every key comparison starts from (000, 001, 002).
package insert

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/workload"
)

func init() {
	workload.Register(workload.Meta{
		Name:        "insert",
		Description: "each client inserts one row (or batch rows) per transaction",
		New:         func() workload.Workload { return &insertLoad{} },
	})
}

type insertLoad struct {
	s     workload.Setup
	batch int
}

func (l *insertLoad) Options() []workload.Option {
	return []workload.Option{workload.BatchOption(&l.batch, 1)}
}

func (l *insertLoad) Configure(s workload.Setup) error {
	l.s = s
	return workload.CheckBatchBytes(l.batch, s.Payload)
}

func (l *insertLoad) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, l.s)}
}

func (l *insertLoad) NewWorker(ctx context.Context, conn *pgx.Conn, tables []*workload.Table, gen keys.Generator, id int) (workload.Worker, error) {
	return workload.NewInserter(ctx, conn.PgConn(), tables[0], gen, l.s, l.batch, id)
}
