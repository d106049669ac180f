package workload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/keybench/keybench/internal/driver"
)

// execNoResult runs a prepared statement that returns no rows with exactly
// the messages pgbench -M prepared sends: Bind, Execute, Sync.
// pgconn's ExecPrepared adds a Describe to learn the result columns, one more
// message for the server to answer on every transaction.
// The messages are built once per statement (msgs) so a transaction allocates nothing.
// It returns the rows the statement affected, from its command tag.
func execNoResult(pg *pgconn.PgConn, m *msgs) (int64, error) {
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

// msgs are the protocol messages of one prepared statement without results.
type msgs struct {
	bind    pgproto3.Bind
	execute pgproto3.Execute
	sync    pgproto3.Sync
}

func newMsgs(stmt string, params [][]byte, formats []int16) *msgs {
	return &msgs{bind: pgproto3.Bind{PreparedStatement: stmt, ParameterFormatCodes: formats, Parameters: params}}
}

// appendTo appends the statement's messages (Bind, Execute, Sync) to dst,
// as the event loop sends them.
func (m *msgs) appendTo(dst []byte) []byte {
	// Encode fails only for more parameters than the protocol takes, which
	// the workloads' options rule out (checkInsertBatch).
	dst, _ = m.bind.Encode(dst)
	dst, _ = m.execute.Encode(dst)
	dst, _ = m.sync.Encode(dst)
	return dst
}

// execResult gathers what the server answers to statements without result
// rows: the rows the last one affected and the first error.
type execResult struct {
	affected int64
	err      error
}

// message reads one backend message (CommandComplete, ErrorResponse; others are ignored).
func (r *execResult) message(typ byte, body []byte) {
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

// take returns the result and resets it for the next transaction.
func (r *execResult) take() (int64, error) {
	a, err := r.affected, r.err
	*r = execResult{}
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

// stmtWorker runs one prepared statement per transaction, one round trip,
// on the driver's event loops (driver.Machine) or on its own (Txn). set,
// when not nil, fills the statement's parameters before each run; done
// turns the rows the statement affected or returned, and its error, into
// the transaction's rows written and error (a read that must find a row
// says so there). The read and update workloads are configurations of it.
type stmtWorker struct {
	conn   *pgconn.PgConn
	msgs   *msgs
	params [][]byte
	set    func(params [][]byte)
	done   func(n int64, err error) (driver.Work, error)
	sent   bool
	res    execResult
}

func newStmtWorker(conn *pgconn.PgConn, stmt string, params [][]byte, formats []int16, set func([][]byte), done func(int64, error) (driver.Work, error)) *stmtWorker {
	return &stmtWorker{conn: conn, msgs: newMsgs(stmt, params, formats), params: params, set: set, done: done}
}

func (w *stmtWorker) prepare() {
	if w.set != nil {
		w.set(w.params)
		w.msgs.bind.Parameters = w.params
	}
}

func (w *stmtWorker) Next(dst []byte) []byte {
	if w.sent {
		return dst
	}
	w.sent = true
	w.prepare()
	return w.msgs.appendTo(dst)
}

func (w *stmtWorker) Message(typ byte, body []byte) { w.res.message(typ, body) }

func (w *stmtWorker) Done() (driver.Work, error) {
	w.sent = false
	return w.done(w.res.take())
}

func (w *stmtWorker) Txn() (driver.Work, error) {
	w.prepare()
	return w.done(execNoResult(w.conn, w.msgs))
}

// mustFind fails a read by key that returned no row: its keys are drawn
// from the table's own, so a miss means the table lost rows.
func mustFind(n int64, err error) (driver.Work, error) {
	if err == nil && n == 0 {
		return driver.Work{}, fmt.Errorf("a read by key found no row (keys are drawn from the table's own)")
	}
	return driver.Work{Read: n}, err
}

// anyRows accepts whatever a read returned.
func anyRows(n int64, err error) (driver.Work, error) { return driver.Work{Read: n}, err }
