// Package queue is the queue and queue-fifo workloads (004's job queue):
// producers insert rows and consumers take them out in batches, the
// rate counted in rows done, with the backlog and the rows per core.
package queue

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/workload"
)

// Queue roles: producers insert batches, consumers delete them.
const (
	RoleIn  = "in"
	RoleOut = "out"
)

func init() {
	for _, fifo := range []bool{false, true} {
		name, desc := "queue", "produce/consume (004): half the clients insert batches of --batch rows into random partitions "+
			"of a table partitioned --partitions ways, the other half delete batches at the same time by ctid, in no order"
		if fifo {
			name, desc = "queue-fifo", "produce/consume in key order: as queue, but consumers take each partition's oldest rows by key "+
				"(ORDER BY id ... FOR UPDATE SKIP LOCKED), which needs the key's btree index"
		}
		fifo := fifo
		workload.Register(workload.Meta{Name: name, Description: desc, Kind: queueKind(), View: queueView(fifo), New: func() workload.Workload { return &queue{name: name, fifo: fifo} },
			// The queue preset's rounds (7 cells x 5 of 3 s) took 228 s here,
			// some 2.5 s a round beyond the window: the CHECKPOINT after
			// 100k rows/s in and out, the WAL read back.
			Bare: workload.Bare{Clients: 4}, RoundOverhead: 2500 * time.Millisecond, Accepts: func(s *keys.Spec) string {
				if fifo && s.Index != keys.IndexPK && s.Index != keys.IndexUnique && s.Index != keys.IndexBtree {
					return "taking rows in key order needs a btree index on the key"
				}
				return ""
			}})
	}
}

type queue struct {
	name       string
	s          workload.Setup
	batch      int
	partitions int
	fifo       bool
}

func (q *queue) Options() []workload.Option {
	return []workload.Option{
		workload.Int("batch", &q.batch, 1000, 1, 100_000, "rows per producer's insert and per consumer's delete (004: 1,000)"),
		workload.Int("partitions", &q.partitions, 64, 1, 10_000, "partitions of the queue table, each a heap of its own (004: 2,048)"),
	}
}

func (q *queue) Configure(s workload.Setup) error {
	q.s = s
	if s.Clients < 2 {
		return fmt.Errorf("the %s workload needs at least 2 clients (producers and consumers), not %d", q.name, s.Clients)
	}
	return workload.CheckBatchBytes(q.batch, s.Payload)
}

func (q *queue) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	t := workload.KeyedTable(at, key, q.s)
	t.Partitions = q.partitions
	return []*workload.Table{t}
}

// Progress shows both rates and the backlog (rows queued before the window, plus in, minus out).
func (q *queue) Progress(s results.Second) string {
	in, out := s.Roles[RoleIn], s.Roles[RoleOut]
	return fmt.Sprintf("in %.0f rows/s, out %.0f rows/s, backlog %d", in.RowsPS, out.RowsPS, q.s.Rows+in.Total-out.Total)
}

// Summarize replaces the driver's figures by the queue's: the rows inserted
// are the producers'; the server holds the prefill plus every row in, minus every row out.
func (q *queue) Summarize(o *workload.Outcome) error {
	d := o.Result
	in, out := d.Roles[RoleIn], d.Roles[RoleOut]
	if in == nil || out == nil {
		return fmt.Errorf("the queue's window has no producers or no consumers")
	}
	o.Cell.RowsInserted, o.Cell.RowsPerS = in.Rows, float64(in.Rows)/max(o.Cell.DurationS, 1e-9)
	o.Expected = q.s.Rows + in.TotalWork.Inserted - out.TotalWork.Deleted
	o.Cell.Metrics.Summary = summarizeQueue(d, q.s.Rows, q.batch, o.Tables[0].Partitions, o.Cores, reference004)
	return nil
}

// producers is how many of the cell's clients produce; the rest consume.
func producers(clients int) int { return clients - clients/2 }

func (q *queue) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, gen keys.Generator, id int) (workload.Worker, error) {
	t, conn := tables[0], c.PgConn()
	w := &queueWorker{conn: conn, rng: rand.New(rand.NewPCG(uint64(q.s.Seed), uint64(id)+1)), batch: q.batch,
		msgs: make([]*workload.Msgs, t.Partitions), role: RoleOut}
	if id < producers(q.s.Clients) {
		w.role = RoleIn
	}
	var params [][]byte
	var formats []int16
	if w.role == RoleIn && t.Key.Gen == keys.GenClient {
		elem, ok := arrayElemOID[t.Key.ColumnType()]
		if !ok {
			return nil, fmt.Errorf("no array type for key column %s", t.Key.ColumnType())
		}
		w.stream, w.key, w.raw = gen.Stream(), t.Key, make([]byte, t.Key.Strategy.Width)
		w.keys = arrayHeader(elem, q.batch)
		w.hdr = len(w.keys)
		params, formats = [][]byte{w.keys, nil}, []int16{1, 0}
	} else if w.role == RoleIn {
		params, formats = [][]byte{nil}, []int16{0}
	}
	if t.Payload > 0 && w.role == RoleIn {
		params[len(params)-1] = []byte(workload.PayloadValue(int64(id)+1, t.Payload).(string))
	}
	for i := 0; i < t.Partitions; i++ {
		name, sql := fmt.Sprintf("kb_q%d", i), q.statement(t, i, w.role, w.stream != nil)
		if _, err := conn.Prepare(ctx, name, sql, nil); err != nil {
			return nil, fmt.Errorf("prepare %s: %w", sqltree.FirstLine(sql), err)
		}
		w.msgs[i] = workload.NewMsgs(name, params, formats)
	}
	return w, nil
}

// statement is the SQL of one role on partition i: 004's batch insert and
// ctid delete, or the delete of the partition's oldest rows by key.
func (q *queue) statement(t *workload.Table, i int, role string, clientKeys bool) string {
	p := t.Partition(i)
	switch {
	case role == RoleIn && clientKeys:
		return fmt.Sprintf("INSERT INTO %s (id, data, payload) SELECT k, %d, $2 FROM unnest($1::%s[]) k", p, i, t.Key.ColumnType())
	case role == RoleIn:
		return fmt.Sprintf("INSERT INTO %s (data, payload) SELECT %d, $1 FROM generate_series(1, %d)", p, i, q.batch)
	case q.fifo:
		return fmt.Sprintf("DELETE FROM %s WHERE ctid = ANY(ARRAY(SELECT ctid FROM %s ORDER BY id LIMIT %d FOR UPDATE SKIP LOCKED))", p, p, q.batch)
	default:
		return fmt.Sprintf("DELETE FROM %s WHERE ctid = ANY(ARRAY(SELECT ctid FROM %s LIMIT %d))", p, p, q.batch)
	}
}

// arrayElemOID is the element type of the binary array of client-made keys
// a producer sends, by key column type.
var arrayElemOID = map[string]uint32{
	"uuid": pgtype.UUIDOID, "text": pgtype.TextOID, "char(32)": pgtype.BPCharOID, "bytea": pgtype.ByteaOID,
	"bigint": pgtype.Int8OID, "integer": pgtype.Int4OID,
}

// arrayHeader is the binary header of a one-dimensional array of n elements without NULLs.
func arrayHeader(elem uint32, n int) []byte {
	b := make([]byte, 0, 20)
	b = binary.BigEndian.AppendUint32(b, 1) // dimensions
	b = binary.BigEndian.AppendUint32(b, 0) // no NULLs
	b = binary.BigEndian.AppendUint32(b, elem)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	return binary.BigEndian.AppendUint32(b, 1) // lower bound
}

type queueWorker struct {
	conn   *pgconn.PgConn
	rng    *rand.Rand
	role   string
	batch  int
	msgs   []*workload.Msgs
	stream keys.Stream
	key    *keys.Resolved
	raw    []byte
	keys   []byte // the array parameter, rewritten in place
	hdr    int
	sent   bool
	res    workload.ExecResult
}

func (w *queueWorker) Role() string { return w.role }

// batchMsgs chooses a partition and, for client-made keys, the batch's keys.
func (w *queueWorker) batchMsgs() *workload.Msgs {
	m := w.msgs[w.rng.IntN(len(w.msgs))]
	if w.stream != nil {
		w.keys = w.keys[:w.hdr]
		for i := 0; i < w.batch; i++ {
			w.stream.Next(w.raw)
			at := len(w.keys)
			w.keys = binary.BigEndian.AppendUint32(w.keys, 0)
			w.keys = w.key.Encode(w.keys, w.raw)
			binary.BigEndian.PutUint32(w.keys[at:], uint32(len(w.keys)-at-4))
		}
		m.Param(0, w.keys)
	}
	return m
}

// Next, Message and Done run Txn's batch on the driver's event loop (driver.Machine).
func (w *queueWorker) Next(dst []byte) []byte {
	if w.sent {
		return dst
	}
	w.sent = true
	return w.batchMsgs().AppendTo(dst)
}

func (w *queueWorker) Message(typ byte, body []byte) { w.res.Message(typ, body) }

func (w *queueWorker) Done() (driver.Work, error) {
	w.sent = false
	return w.work(w.res.Take())
}

// Txn inserts or deletes one batch in a random partition and returns the
// rows it inserted or deleted (a consumer of an empty partition deletes none).
func (w *queueWorker) Txn() (driver.Work, error) {
	return w.work(workload.ExecNoResult(w.conn, w.batchMsgs()))
}

// work is a batch's rows: inserted by a producer, deleted by a consumer.
func (w *queueWorker) work(n int64, err error) (driver.Work, error) {
	if w.role == RoleIn {
		return driver.Work{Inserted: n}, err
	}
	return driver.Work{Deleted: n}, err
}
