package workload

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
)

// maxParams is PostgreSQL's limit on the parameters of one statement; a
// multi-row INSERT sends up to paramsPerRow per row (key, data, payload).
const (
	maxParams    = 65535
	paramsPerRow = 3
)

// BatchOption is the rows per multi-row INSERT: at most what PostgreSQL's
// 65,535 parameters per statement hold at 3 per row.
func BatchOption(p *int, def int) Option {
	return Int("batch", p, def, 1, maxParams/paramsPerRow, "rows per insert transaction (one multi-row INSERT)")
}

// MaxBatchBytes bounds the payload one statement of a batch sends.
const MaxBatchBytes = 64 << 20

// CheckBatchBytes: a batch of rows of payload bytes each in one statement.
func CheckBatchBytes(batch, payload int) error {
	if int64(batch)*int64(payload) > MaxBatchBytes {
		return fmt.Errorf("batch %d x --payload %d sends %d MiB per statement; at most %d MiB", batch, payload, int64(batch)*int64(payload)>>20, MaxBatchBytes>>20)
	}
	return nil
}

// Inserter runs the prepared multi-row INSERT of the insert and insert-read workloads.
type Inserter struct {
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
	msgs    *Msgs
	// The transaction as protocol messages, for the driver's event loop.
	sent bool
	res  ExecResult
}

const insertStmt = "kb_insert"

func NewInserter(ctx context.Context, conn *pgconn.PgConn, t *Table, gen keys.Generator, s Setup, batch, id int) (*Inserter, error) {
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
	in := &Inserter{
		conn: conn, key: t.Key, rng: rand.New(rand.NewPCG(uint64(s.Seed), uint64(id)+1)),
		rows: max(s.Rows, 1), batch: batch, params: make([][]byte, n), formats: make([]int16, n),
	}
	if clientKeys {
		in.stream = gen.Stream()
		in.raw = make([]byte, t.Key.Strategy.Width)
	}
	if t.Payload > 0 {
		in.payload = []byte(PayloadValue(int64(id)+1, t.Payload).(string))
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
	in.msgs = NewMsgs(insertStmt, in.params, in.formats)
	return in, nil
}

func (in *Inserter) Fill() {
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

func (in *Inserter) Txn() (driver.Work, error) {
	in.Fill()
	if _, err := ExecNoResult(in.conn, in.msgs); err != nil {
		return driver.Work{}, err
	}
	return driver.Work{Inserted: int64(in.batch)}, nil
}

// Next, Message and Done run the transaction on the driver's event loop
// (driver.Machine): the same statement and parameters as Txn.
func (in *Inserter) Next(dst []byte) []byte {
	if in.sent {
		return dst
	}
	in.sent = true
	in.Fill()
	return in.msgs.AppendTo(dst)
}

func (in *Inserter) Message(typ byte, body []byte) { in.res.Message(typ, body) }

func (in *Inserter) Done() (driver.Work, error) {
	in.sent = false
	if _, err := in.res.Take(); err != nil {
		return driver.Work{}, err
	}
	return driver.Work{Inserted: int64(in.batch)}, nil
}

// Messages are the insert's protocol messages, for a workload that runs it
// on the driver's event loop within a transaction of its own.
func (in *Inserter) Messages() *Msgs { return in.msgs }

// Rand is the client's random source (seeded from the plan's seed and the client).
func (in *Inserter) Rand() *rand.Rand { return in.rng }

// Rows is the table's prefill, the range of its data values.
func (in *Inserter) Rows() int64 { return in.rows }

// Batch is the rows each insert carries.
func (in *Inserter) Batch() int { return in.batch }

// Conn is the client's connection.
func (in *Inserter) Conn() *pgconn.PgConn { return in.conn }
