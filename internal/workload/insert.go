package workload

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/keys"
)

func init() {
	Register(Meta{
		Name:        "insert",
		Description: "each client inserts one row (or --batch rows) per transaction",
		New: func(o Options) (Workload, error) {
			if err := checkInsertBatch(o.Batch); err != nil {
				return nil, err
			}
			return &insertLoad{o: o}, nil
		},
	})
}

type insertLoad struct{ o Options }

// maxParams is PostgreSQL's limit on the parameters of one statement; a
// multi-row INSERT sends up to paramsPerRow per row (key, data, payload).
const (
	maxParams    = 65535
	paramsPerRow = 3
)

// checkInsertBatch bounds --batch for the workloads that insert it as one
// multi-row INSERT.
func checkInsertBatch(batch int) error {
	if batch < 1 {
		return fmt.Errorf("--batch must be at least 1, not %d", batch)
	}
	if batch*paramsPerRow > maxParams {
		return fmt.Errorf("--batch %d is too large for one multi-row INSERT: PostgreSQL takes at most %d parameters per statement "+
			"and keybench sends up to %d per row, so at most %d rows", batch, maxParams, paramsPerRow, maxParams/paramsPerRow)
	}
	return nil
}

func (l *insertLoad) Tables(at Place, key *keys.Resolved) []*Table {
	return []*Table{KeyedTable(at, key, l.o)}
}

func (l *insertLoad) NewWorker(ctx context.Context, conn *pgx.Conn, tables []*Table, gen keys.Generator, id int) (Worker, error) {
	return newInserter(ctx, conn.PgConn(), tables[0], gen, l.o, id)
}

// inserter runs the prepared multi-row INSERT of the insert and insert-read workloads.
type inserter struct {
	conn    *pgconn.PgConn
	key     *keys.Resolved
	stream  keys.Stream
	rng     *rand.Rand
	rows    int64
	batch   int
	raw     []byte
	params  [][]byte
	formats []int16
	payload []byte
	msgs    *msgs
	// The transaction as protocol messages, for the driver's event loop.
	sent bool
	res  execResult
}

const insertStmt = "kb_insert"

func newInserter(ctx context.Context, conn *pgconn.PgConn, t *Table, gen keys.Generator, o Options, id int) (*inserter, error) {
	clientKeys := t.Key.Gen == keys.GenClient
	cols := []string{"data", "payload"}
	if clientKeys {
		cols = append([]string{"id"}, cols...)
	}
	var values []string
	n := 0
	for r := 0; r < o.Batch; r++ {
		ph := make([]string, len(cols))
		for c := range cols {
			n++
			ph[c] = fmt.Sprintf("$%d", n)
		}
		values = append(values, "("+strings.Join(ph, ", ")+")")
	}
	sql := fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", t.Qualified(), strings.Join(cols, ", "), strings.Join(values, ", "))
	if _, err := conn.Prepare(ctx, insertStmt, sql, nil); err != nil {
		return nil, fmt.Errorf("prepare insert: %w", err)
	}
	in := &inserter{
		conn: conn, key: t.Key, rng: rand.New(rand.NewPCG(uint64(o.Seed), uint64(id)+1)),
		rows: max(o.Rows, 1), batch: o.Batch, params: make([][]byte, n), formats: make([]int16, n),
	}
	if clientKeys {
		in.stream = gen.Stream()
		in.raw = make([]byte, t.Key.Strategy.Width)
	}
	if t.Payload > 0 {
		in.payload = []byte(payloadValue(int64(id)+1, t.Payload).(string))
	}
	// Parameter buffers are allocated once; each transaction rewrites them in place.
	for r, p := 0, 0; r < o.Batch; r++ {
		if clientKeys {
			in.params[p] = make([]byte, 0, 40)
			in.formats[p] = t.Key.WireFormat()
			p++
		}
		in.params[p] = make([]byte, 8)
		in.formats[p] = 1
		in.params[p+1] = in.payload
		in.formats[p+1] = 0
		p += 2
	}
	in.msgs = newMsgs(insertStmt, in.params, in.formats)
	return in, nil
}

func (in *inserter) fill() {
	for p := 0; p < len(in.params); {
		if in.stream != nil {
			in.stream.Next(in.raw)
			in.params[p] = in.key.Encode(in.params[p][:0], in.raw)
			p++
		}
		binary.BigEndian.PutUint64(in.params[p], uint64(in.rng.Int64N(in.rows)+1))
		p += 2
	}
}

func (in *inserter) Txn() (int, error) {
	in.fill()
	if _, err := execNoResult(in.conn, in.msgs); err != nil {
		return 0, err
	}
	return in.batch, nil
}

// Next, Message and Done run the transaction on the driver's event loop
// (driver.Machine): the same statement and parameters as Txn.
func (in *inserter) Next(dst []byte) []byte {
	if in.sent {
		return dst
	}
	in.sent = true
	in.fill()
	return in.msgs.appendTo(dst)
}

func (in *inserter) Message(typ byte, body []byte) { in.res.message(typ, body) }

func (in *inserter) Done() (int, error) {
	in.sent = false
	if _, err := in.res.take(); err != nil {
		return 0, err
	}
	return in.batch, nil
}
