package workload

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/keys"
)

func init() {
	for _, after := range []bool{false, true} {
		name, desc := "bulk", "load --rows rows in chunks with the key's index in place, timing each chunk as the table grows (000, 003)"
		if after {
			name, desc = "bulk-index-after", "load --rows rows in chunks into a table without indexes, then build them (timed separately), as 000 added its primary key afterwards"
		}
		after := after
		Register(Meta{Name: name, Description: desc, New: func(o Options) (Workload, error) {
			if o.LoadMethod == "" {
				o.LoadMethod = LoadCopy
			}
			if o.LoadMethod != LoadCopy && o.LoadMethod != LoadInsert {
				return nil, fmt.Errorf("--load-method must be copy or insert, not %q", o.LoadMethod)
			}
			if o.Rows < 1 {
				return nil, fmt.Errorf("%s loads --rows rows and needs at least 1, not %d", name, o.Rows)
			}
			if o.Chunk <= 0 {
				o.Chunk = max(o.Rows/10, 1)
			}
			return &bulkLoad{o: o, after: after}, nil
		}})
	}
}

// Loader is a workload whose measurement is a load rather than clients'
// transactions; the runner times its chunks.
type Loader interface {
	// IndexAfter says the indexes are built after the load instead of before it.
	IndexAfter() bool
	// Chunk is the rows per timed chunk; Method the load method for client-made keys.
	Chunk() int64
	Method() string
}

type bulkLoad struct {
	o     Options
	after bool
}

func (b *bulkLoad) NeedsDataIndex() bool                             { return false }
func (b *bulkLoad) Prepare(context.Context, *pgx.Conn, *Table) error { return nil }
func (b *bulkLoad) IndexAfter() bool                                 { return b.after }
func (b *bulkLoad) Chunk() int64                                     { return b.o.Chunk }
func (b *bulkLoad) Method() string                                   { return b.o.LoadMethod }

func (b *bulkLoad) NewWorker(context.Context, *pgconn.PgConn, *Table, keys.Generator, int) (Worker, error) {
	return nil, errors.New("a bulk load has no clients")
}
