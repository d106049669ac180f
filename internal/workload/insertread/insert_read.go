// Package insertread is the insert-read workload: each transaction inserts a
// row and reads an existing one, by a random data value through its index
// (as 001's "UUID Benchmark War" does) or by key, drawn over insertion order.
package insertread

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/workload"
)

func init() {
	workload.Register(workload.Meta{
		Name: "insert-read",
		Description: "each transaction inserts one row and reads one existing row, by a random data value through its index (as in 001) " +
			"or by key (read-by=key), the key drawn over insertion order (read-dist)",
		New:  func() workload.Workload { return &insertRead{} },
		Bare: workload.Bare{Rows: 100_000},
	})
}

// The ways insert-read reads a row.
const (
	ReadByData = "data"
	ReadByKey  = "key"
)

type insertRead struct {
	s      workload.Setup
	readBy string
	dist   workload.ReadDist
	pool   *workload.KeyPool // existing keys in wire form, for read-by=key
	format int16
}

func (l *insertRead) Options() []workload.Option {
	return append([]workload.Option{workload.Choice("read-by", &l.readBy, ReadByData, []string{ReadByData, ReadByKey},
		"read a row by a random data value through its index (001), or by key")}, workload.ReadDistOptions(&l.dist)...)
}

func (l *insertRead) Configure(s workload.Setup) error {
	l.s = s
	if l.readBy == ReadByData && l.dist.Kind != workload.ReadUniform {
		return fmt.Errorf("insert-read: read-dist=%s needs read-by=key: data values are scattered over insertion order", l.dist.Kind)
	}
	return nil
}

func (l *insertRead) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	t := workload.KeyedTable(at, key, l.s)
	t.DataIndex = l.readBy == ReadByData
	return []*workload.Table{t}
}

func (l *insertRead) Hooks() workload.Hooks { return workload.Hooks{PostLoad: l.sampleKeys} }

// sampleKeys samples existing keys for reads by key: server-made keys are known only to the server.
func (l *insertRead) sampleKeys(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
	t := tables[0]
	if l.readBy != ReadByKey {
		return nil
	}
	if l.s.Rows <= 0 {
		return fmt.Errorf("read-by=key needs a prefilled table (--rows > 0)")
	}
	l.format = t.Key.WireFormat()
	return workload.LoadKeyPool(ctx, conn, t, l.s, &l.pool)
}

const readStmt = "kb_read"

func (l *insertRead) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, gen keys.Generator, id int) (workload.Worker, error) {
	t, conn := tables[0], c.PgConn()
	ins, err := workload.NewInserter(ctx, conn, t, gen, l.s, 1, id)
	if err != nil {
		return nil, err
	}
	col := "data"
	if l.readBy == ReadByKey {
		col = "id"
	}
	sd, err := conn.Prepare(ctx, readStmt, fmt.Sprintf("SELECT id, data, payload FROM %s WHERE %s = $1", t.Qualified(), col), nil)
	if err != nil {
		return nil, fmt.Errorf("prepare read: %w", err)
	}
	w := &insertReadWorker{ins: ins, l: l, read: sd, params: [][]byte{make([]byte, 8)}, formats: []int16{1}}
	if l.readBy == ReadByKey {
		w.formats[0] = l.format
		w.pick = l.dist.NewPicker(l.pool.Rows, ins.Rand())
	}
	w.readMsgs = workload.NewMsgs(readStmt, w.params, w.formats)
	return w, nil
}

type insertReadWorker struct {
	ins     *workload.Inserter
	l       *insertRead
	read    *pgconn.StatementDescription
	params  [][]byte
	formats []int16
	pick    *workload.Picker // reads by key: positions over the prefill's insertion order
	// The transaction as protocol messages (driver.Machine): step 0 the
	// insert, step 1 the read, each a round trip of its own as in Txn.
	readMsgs *workload.Msgs
	step     int
	inserted bool
	res      workload.ExecResult
}

// chooseRead sets the read's parameter: a sampled key, or a data value.
func (w *insertReadWorker) chooseRead() {
	if w.pick != nil {
		w.params[0] = w.l.pool.Key(w.pick.Position())
	} else {
		binary.BigEndian.PutUint64(w.params[0], uint64(w.ins.Rand().Int64N(w.ins.Rows())+1))
	}
	w.readMsgs.SetParams(w.params)
}

func (w *insertReadWorker) Next(dst []byte) []byte {
	switch w.step {
	case 0:
		w.step = 1
		w.ins.Fill()
		return w.ins.Messages().AppendTo(dst)
	case 1:
		if w.res.Failed() {
			return dst // the insert failed: no read
		}
		w.step, w.inserted = 2, true
		w.chooseRead()
		return w.readMsgs.AppendTo(dst)
	}
	return dst
}

func (w *insertReadWorker) Message(typ byte, body []byte) { w.res.Message(typ, body) }

func (w *insertReadWorker) Done() (driver.Work, error) {
	inserted := w.inserted
	w.step, w.inserted = 0, false
	read, err := w.res.Take()
	if !inserted {
		return driver.Work{}, err
	}
	return driver.Work{Inserted: int64(w.ins.Batch()), Read: read}, err
}

func (w *insertReadWorker) Txn() (driver.Work, error) {
	work, err := w.ins.Txn()
	if err != nil {
		return driver.Work{}, err
	}
	w.chooseRead()
	// ExecStatement knows the result columns from Prepare, so it sends no Describe.
	rr := w.ins.Conn().ExecStatement(context.Background(), w.read, w.params, w.formats, nil)
	for rr.NextRow() {
		work.Read++
	}
	_, err = rr.Close()
	return work, err
}
