package workload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/keybench/keybench/internal/driver"
)

// ExecNoResult runs a prepared statement that returns no rows with exactly
// the messages pgbench -M prepared sends: Bind, Execute, Sync.
// pgconn's ExecPrepared adds a Describe to learn the result columns, one more
// message for the server to answer on every transaction.
// The messages are built once per statement (msgs) so a transaction allocates nothing.
// It returns the rows the statement affected, from its command tag.
func ExecNoResult(pg *pgconn.PgConn, m *Msgs) (int64, error) {
	fe := pg.Frontend()
	fe.SendBind(&m.bind)
	fe.SendExecute(&m.execute)
	fe.SendSync(&m.sync)
	flushErr := fe.Flush()
	var queryErr error
	var affected int64
	for {
		// A failed flush leaves the connection broken: the receive below fails too and closes it.
		msg, err := pg.ReceiveMessage(context.Background())
		if err != nil {
			if flushErr != nil {
				return 0, flushErr
			}
			return 0, err
		}
		switch m := msg.(type) {
		case *pgproto3.CommandComplete:
			affected = rowsAffected(m.CommandTag)
		case *pgproto3.ErrorResponse:
			queryErr = pgconn.ErrorResponseToPgError(m)
		case *pgproto3.ReadyForQuery:
			return affected, queryErr
		}
	}
}

// Msgs are the protocol messages of one prepared statement without results.
type Msgs struct {
	bind    pgproto3.Bind
	execute pgproto3.Execute
	sync    pgproto3.Sync
}

func NewMsgs(stmt string, params [][]byte, formats []int16) *Msgs {
	return &Msgs{bind: pgproto3.Bind{PreparedStatement: stmt, ParameterFormatCodes: formats, Parameters: params}}
}

// AppendTo appends the statement's messages (Bind, Execute, Sync) to dst,
// as the event loop sends them.
func (m *Msgs) AppendTo(dst []byte) []byte {
	// Encode fails only for more parameters than the protocol takes, which
	// the workloads' options rule out (checkInsertBatch).
	dst, _ = m.bind.Encode(dst)
	dst, _ = m.execute.Encode(dst)
	dst, _ = m.sync.Encode(dst)
	return dst
}

// ExecResult gathers what the server answers to statements without result
// rows: the rows the last one affected and the first error.
type ExecResult struct {
	affected int64
	err      error
}

// Message reads one backend message (CommandComplete, ErrorResponse; others are ignored).
func (r *ExecResult) Message(typ byte, body []byte) {
	switch typ {
	case 'C':
		tag := body
		if n := len(tag); n > 0 && tag[n-1] == 0 {
			tag = tag[:n-1]
		}
		r.affected = rowsAffected(tag)
	case 'E':
		if r.err == nil {
			var e pgproto3.ErrorResponse
			if err := e.Decode(body); err != nil {
				r.err = err
			} else {
				r.err = pgconn.ErrorResponseToPgError(&e)
			}
		}
	}
}

// Take returns the result and resets it for the next transaction.
func (r *ExecResult) Take() (int64, error) {
	a, err := r.affected, r.err
	*r = ExecResult{}
	return a, err
}

// rowsAffected is the count at the end of a command tag ("DELETE 1000",
// "INSERT 0 1"), read without allocating.
func rowsAffected(tag []byte) int64 {
	var n, mul int64 = 0, 1
	for i := len(tag) - 1; i >= 0 && tag[i] >= '0' && tag[i] <= '9'; i-- {
		n += int64(tag[i]-'0') * mul
		mul *= 10
	}
	return n
}

// StmtWorker runs one prepared statement per transaction, one round trip,
// on the driver's event loops (driver.Machine) or on its own (Txn). set,
// when not nil, fills the statement's parameters before each run; done
// turns the rows the statement affected or returned, and its error, into
// the transaction's rows written and error (a read that must find a row
// says so there). The read and update workloads are configurations of it.
type StmtWorker struct {
	conn   *pgconn.PgConn
	msgs   *Msgs
	params [][]byte
	set    func(params [][]byte)
	done   func(n int64, err error) (driver.Work, error)
	sent   bool
	res    ExecResult
}

// PrepareStmtWorker prepares sql as stmt on conn (what names the statement
// in an error) and makes its worker.
func PrepareStmtWorker(ctx context.Context, conn *pgconn.PgConn, what, stmt, sql string, params [][]byte, formats []int16,
	set func([][]byte), done func(int64, error) (driver.Work, error)) (Worker, error) {
	if _, err := conn.Prepare(ctx, stmt, sql, nil); err != nil {
		return nil, fmt.Errorf("prepare %s: %w", what, err)
	}
	return &StmtWorker{conn: conn, msgs: NewMsgs(stmt, params, formats), params: params, set: set, done: done}, nil
}

func (w *StmtWorker) prepare() {
	if w.set != nil {
		w.set(w.params)
		w.msgs.bind.Parameters = w.params
	}
}

func (w *StmtWorker) Next(dst []byte) []byte {
	if w.sent {
		return dst
	}
	w.sent = true
	w.prepare()
	return w.msgs.AppendTo(dst)
}

func (w *StmtWorker) Message(typ byte, body []byte) { w.res.Message(typ, body) }

func (w *StmtWorker) Done() (driver.Work, error) {
	w.sent = false
	return w.done(w.res.Take())
}

func (w *StmtWorker) Txn() (driver.Work, error) {
	w.prepare()
	return w.done(ExecNoResult(w.conn, w.msgs))
}

// MustFind fails a read by key that returned no row: its keys are drawn
// from the table's own, so a miss means the table lost rows.
func MustFind(n int64, err error) (driver.Work, error) {
	if err == nil && n == 0 {
		return driver.Work{}, fmt.Errorf("a read by key found no row (keys are drawn from the table's own)")
	}
	return driver.Work{Read: n}, err
}

// AnyRows accepts whatever a read returned.
func AnyRows(n int64, err error) (driver.Work, error) { return driver.Work{Read: n}, err }

// SetParams points the statement's Bind at params (the slice the next
// messages send).
func (m *Msgs) SetParams(params [][]byte) { m.bind.Parameters = params }

// Failed says the server has answered with an error since the last Take.
func (r *ExecResult) Failed() bool { return r.err != nil }

// Param sets the statement's i-th parameter for the next messages.
func (m *Msgs) Param(i int, v []byte) { m.bind.Parameters[i] = v }
