package workload

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
)

func init() {
	Register(Meta{
		Name:        "insert",
		Description: "each client inserts one row (or batch rows) per transaction",
		New:         func() Workload { return &insertLoad{} },
	})
}

type insertLoad struct {
	s     Setup
	batch int
}

// maxParams is PostgreSQL's limit on the parameters of one statement; a
// multi-row INSERT sends up to paramsPerRow per row (key, data, payload).
const (
	maxParams    = 65535
	paramsPerRow = 3
)

// batchOption is the rows per multi-row INSERT: at most what PostgreSQL's
// 65,535 parameters per statement hold at 3 per row.
func batchOption(p *int, def int) Option {
	return Int("batch", p, def, 1, maxParams/paramsPerRow, "rows per insert transaction (one multi-row INSERT)")
}

func (l *insertLoad) Options() []Option { return []Option{batchOption(&l.batch, 1)} }

func (l *insertLoad) Configure(s Setup) error { l.s = s; return checkBatchBytes(l.batch, s.Payload) }

// MaxBatchBytes bounds the payload one statement of a batch sends.
const MaxBatchBytes = 64 << 20

// checkBatchBytes: a batch of rows of payload bytes each in one statement.
func checkBatchBytes(batch, payload int) error {
	if int64(batch)*int64(payload) > MaxBatchBytes {
		return fmt.Errorf("batch %d x --payload %d sends %d MiB per statement; at most %d MiB", batch, payload, int64(batch)*int64(payload)>>20, MaxBatchBytes>>20)
	}
	return nil
}

func (l *insertLoad) Tables(at Place, key *keys.Resolved) []*Table {
	return []*Table{KeyedTable(at, key, l.s)}
}

func (l *insertLoad) NewWorker(ctx context.Context, conn *pgx.Conn, tables []*Table, gen keys.Generator, id int) (Worker, error) {
	return newInserter(ctx, conn.PgConn(), tables[0], gen, l.s, l.batch, id)
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

func newInserter(ctx context.Context, conn *pgconn.PgConn, t *Table, gen keys.Generator, s Setup, batch, id int) (*inserter, error) {
	clientKeys := t.Key.Gen == keys.GenClient
	cols := []string{"data", "payload"}
	if clientKeys {
		cols = append([]string{"id"}, cols...)
	}
	var values []string
	n := 0
	for r := 0; r < batch; r++ {
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
		conn: conn, key: t.Key, rng: rand.New(rand.NewPCG(uint64(s.Seed), uint64(id)+1)),
		rows: max(s.Rows, 1), batch: batch, params: make([][]byte, n), formats: make([]int16, n),
	}
	if clientKeys {
		in.stream = gen.Stream()
		in.raw = make([]byte, t.Key.Strategy.Width)
	}
	if t.Payload > 0 {
		in.payload = []byte(payloadValue(int64(id)+1, t.Payload).(string))
	}
	// Parameter buffers are allocated once; each transaction rewrites them in place.
	for r, p := 0, 0; r < batch; r++ {
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

func (in *inserter) Txn() (driver.Work, error) {
	in.fill()
	if _, err := execNoResult(in.conn, in.msgs); err != nil {
		return driver.Work{}, err
	}
	return driver.Work{Inserted: int64(in.batch)}, nil
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

func (in *inserter) Done() (driver.Work, error) {
	in.sent = false
	if _, err := in.res.take(); err != nil {
		return driver.Work{}, err
	}
	return driver.Work{Inserted: int64(in.batch)}, nil
}
