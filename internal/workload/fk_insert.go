package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/keys"
)

func init() {
	Register(Meta{
		Name: "fk-insert",
		Description: "each transaction inserts one child row referencing a parent drawn over insertion order (--read-dist): " +
			"the foreign-key check reads the parent's key index, and the child's parent_id index takes the key's order (--children per parent prefilled)",
		Variants: &Variants{},
		Accepts:  acceptsForeignKey,
		New: func(o Options) (Workload, error) {
			dist, err := ParseReadDist(o.ReadDist, o.RecentRows)
			if err != nil {
				return nil, err
			}
			if o.Query != "" {
				return nil, fmt.Errorf("fk-insert has no --query (lookup has)")
			}
			if o.Rows < 1 {
				return nil, fmt.Errorf("fk-insert references parents: --rows must be at least 1, not %d", o.Rows)
			}
			if o.Children < 0 {
				return nil, fmt.Errorf("--children must be 0 or more, not %d", o.Children)
			}
			return &fkInsert{o: o, dist: dist}, nil
		},
	})
}

// fkInsert inserts children of existing parents.
type fkInsert struct {
	o    Options
	dist ReadDist
	pool *KeyPool
}

func (f *fkInsert) Tables(at Place, key *keys.Resolved) []*Table {
	return []*Table{KeyedTable(at, key, f.o), childTable(at, key)}
}

func (f *fkInsert) Hooks() Hooks {
	return Hooks{PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*Table) error {
		if err := fillChildren(ctx, conn, tables[0], tables[1], f.o.Children); err != nil {
			return err
		}
		var err error
		f.pool, err = LoadKeyPool(ctx, conn, tables[0], f.o.Rows, f.o.Seed, tables[0].Key.WireFormat())
		return err
	}}
}

const fkInsertStmt = "kb_fk_insert"

func (f *fkInsert) NewWorker(ctx context.Context, c *pgx.Conn, tables []*Table, _ keys.Generator, id int) (Worker, error) {
	conn := c.PgConn()
	if _, err := conn.Prepare(ctx, fkInsertStmt, fmt.Sprintf("INSERT INTO %s (parent_id, data) VALUES ($1, $2)", tables[1].Qualified()), nil); err != nil {
		return nil, fmt.Errorf("prepare child insert: %w", err)
	}
	w := &fkWorker{f: f, conn: conn, params: [][]byte{nil, nil}, formats: []int16{tables[0].Key.WireFormat(), 0},
		pick: f.dist.NewPicker(f.pool.Rows, rand.New(rand.NewPCG(uint64(f.o.Seed), uint64(id)+1)))}
	w.msgs = newMsgs(fkInsertStmt, w.params, w.formats)
	return w, nil
}

// fkWorker inserts one child per transaction, one round trip.
type fkWorker struct {
	f       *fkInsert
	conn    *pgconn.PgConn
	pick    *Picker
	params  [][]byte
	formats []int16
	msgs    *msgs
	n       int64
	sent    bool
	res     execResult
}

func (w *fkWorker) choose() {
	w.n++
	w.params[0] = w.f.pool.Key(w.pick.Position())
	w.params[1] = strconv.AppendInt(w.params[1][:0], w.n, 10)
	w.msgs.bind.Parameters = w.params
}

func (w *fkWorker) Next(dst []byte) []byte {
	if w.sent {
		return dst
	}
	w.sent = true
	w.choose()
	return w.msgs.appendTo(dst)
}

func (w *fkWorker) Message(typ byte, body []byte) { w.res.message(typ, body) }

func (w *fkWorker) Done() (int, error) {
	w.sent = false
	n, err := w.res.take()
	return int(n), err
}

func (w *fkWorker) Txn() (int, error) {
	w.choose()
	n, err := execNoResult(w.conn, w.msgs)
	return int(n), err
}

// Summarize: the rows inserted are children; the parent table keeps its rows.
func (f *fkInsert) Summarize(o *Outcome) error {
	o.Expected = o.Tables[0].Rows
	return nil
}
