// Package script is the script workload (pgbench -f FILE): each transaction
// runs the user's own SQL, in order, on the keyed table keybench makes for
// each key (:table), with a fresh key of the cell's strategy (:key) and
// pgbench's \set random variables, so that a user measures their own
// statement against each key. See parse.go for what a script may hold.
package script

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

// Name is the workload's name (keybench run script --script FILE).
const Name = "script"

func init() {
	workload.Register(workload.Meta{
		Name: Name,
		Description: "each transaction runs your own SQL (--script FILE, pgbench -f's format: SQL commands ending in ';', \\set NAME random(lo, hi)) " +
			"on the keyed table keybench makes for each key (:table), with a fresh key of the strategy (:key)",
		New:  func() workload.Workload { return &scriptLoad{} },
		Bare: workload.Bare{Rows: 100_000},
		Kind: results.SummaryKind[Summary](),
		// Vetted before it runs (check.go), then run behind a second wall.
		UserSQL: true,
	})
}

type scriptLoad struct {
	file    string
	text    string
	usesKey bool
	s       workload.Setup
}

func (l *scriptLoad) Options() []workload.Option {
	return []workload.Option{workload.Path("file", &l.file, "the script each transaction runs (run's --script FILE, -f)")}
}

// maxScriptBytes bounds a script file's size.
const maxScriptBytes = 10 << 20

// placeholder stands for the keyed table while the script is checked,
// before a cell names its table.
const placeholder = "keybench.table"

func (l *scriptLoad) Configure(s workload.Setup) error {
	l.s = s
	if l.file == "" {
		return fmt.Errorf("script: no script to run: give its file (--script FILE)")
	}
	// Read to a bound: a script is a few statements, and a file of
	// gigabytes read whole would take as much memory.
	b, err := results.ReadFile(l.file, maxScriptBytes, "a script of SQL commands")
	if err != nil {
		return fmt.Errorf("script: %v", err)
	}
	l.text = string(b)
	sc, err := parse(bytes.NewReader(b), placeholder)
	if err != nil {
		return fmt.Errorf("script %s: %v", l.file, err)
	}
	l.usesKey = sc.usesKey
	return nil
}

// MakesKeys says the script names :key: keybench makes the keys.
func (l *scriptLoad) MakesKeys() bool { return l.usesKey }

func (l *scriptLoad) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, l.s)}
}

func (l *scriptLoad) NewWorker(ctx context.Context, conn *pgx.Conn, tables []*workload.Table, gen keys.Generator, id int) (workload.Worker, error) {
	t := tables[0]
	sc, err := parse(strings.NewReader(l.text), t.Qualified())
	if err != nil {
		return nil, err
	}
	if id == 0 {
		if err := checkStatements(ctx, conn, sc, t.Schema, t.Key.TypeOID()); err != nil {
			return nil, err
		}
	}
	w := &worker{conn: conn.PgConn(), sc: sc, key: t.Key, rng: rand.New(rand.NewPCG(uint64(l.s.Seed), uint64(id)+1)),
		vals: map[string]int64{varRows: l.s.Rows, varClient: int64(id)}}
	if sc.usesKey {
		if gen == nil {
			client := *t.Key.Spec
			client.Gen, client.Random = keys.GenClient, false
			return nil, fmt.Errorf("the script names :key, but %s's keys are made by the server: run it as %s, or insert without the key column", t.Key.Raw, client.String())
		}
		w.stream, w.raw = gen.Stream(), make([]byte, t.Key.Strategy.Width)
	}
	for i, st := range sc.steps {
		if st.stmt == nil {
			continue
		}
		name := "kb_script_" + strconv.Itoa(i)
		sd, err := w.conn.Prepare(ctx, name, st.stmt.sql, nil)
		if err != nil && slices.Contains(st.stmt.params, varKey) {
			// As the check read it: with :key declared of the key's type.
			sd, err = w.conn.Prepare(ctx, name, st.stmt.sql, st.stmt.paramOIDs(t.Key.TypeOID()))
		}
		if err != nil {
			return nil, fmt.Errorf("script line %d: %w", st.stmt.line, err)
		}
		// :key where the server typed it otherwise (:key::int, a text
		// column's comparison) goes in the key's printed form, which any
		// type's input function reads as the user wrote it.
		for i, p := range st.stmt.params {
			if p == varKey && i < len(sd.ParamOIDs) && sd.ParamOIDs[i] != t.Key.TypeOID() {
				st.stmt.keyText, w.anyText = true, true
			}
		}
		w.names = append(w.names, name)
	}
	return w, nil
}

// Summary is a script cell's own record: the script as it ran.
type Summary struct {
	results.IsSummary
	File string `json:"script_file"`
	Text string `json:"script_text"`
}

func (l *scriptLoad) Summarize(o *workload.Outcome) error {
	o.Cell.Metrics.Summary = &Summary{File: l.file, Text: l.text}
	return nil
}

// worker runs the script once per transaction on its connection.
type worker struct {
	conn   *pgconn.PgConn
	sc     *script
	names  []string // the prepared statements, in the script's order
	key    *keys.Resolved
	stream keys.Stream
	raw    []byte
	keyBuf []byte
	// keyTxt is the key's printed form, for statements whose :key the
	// server typed otherwise (anyText: some do).
	keyTxt  []byte
	anyText bool
	rng     *rand.Rand
	vals    map[string]int64
	params  [][]byte
	fmts    []int16
	ints    [][]byte
}

func (w *worker) Txn() (driver.Work, error) {
	var work driver.Work
	if w.stream != nil {
		w.stream.Next(w.raw)
		w.keyBuf = w.key.Encode(w.keyBuf[:0], w.raw)
		if w.anyText {
			w.keyTxt = append(w.keyTxt[:0], w.key.Format(w.raw)...)
		}
	}
	n := 0
	for _, st := range w.sc.steps {
		if st.set != nil {
			v, err := w.eval(st.set.expr)
			if err != nil {
				return work, err
			}
			w.vals[st.set.name] = v
			continue
		}
		w.bind(st.stmt)
		tag, err := w.conn.ExecPrepared(context.Background(), w.names[n], w.params, w.fmts, nil).Close()
		n++
		if err != nil {
			// A script's BEGIN would leave the session in a failed transaction.
			_, _ = w.conn.Exec(context.Background(), "ROLLBACK").ReadAll()
			return work, fmt.Errorf("script line %d: %w", st.stmt.line, err)
		}
		if st.stmt.onTable {
			count(&work, tag)
		}
	}
	return work, nil
}

// bind sets the statement's parameters: the transaction's key in its wire
// format, the integers as text (the server infers their type).
func (w *worker) bind(st *statement) {
	w.params, w.fmts = w.params[:0], w.fmts[:0]
	for len(w.ints) < len(st.params) {
		w.ints = append(w.ints, make([]byte, 0, 20))
	}
	for i, p := range st.params {
		if p == varKey && st.keyText {
			w.params, w.fmts = append(w.params, w.keyTxt), append(w.fmts, 0)
			continue
		}
		if p == varKey {
			w.params, w.fmts = append(w.params, w.keyBuf), append(w.fmts, w.key.WireFormat())
			continue
		}
		w.ints[i] = strconv.AppendInt(w.ints[i][:0], w.vals[p], 10)
		w.params, w.fmts = append(w.params, w.ints[i]), append(w.fmts, 0)
	}
}

func (w *worker) eval(e expr) (int64, error) {
	if !e.random {
		return w.operand(e.operand), nil
	}
	lo, hi := w.operand(e.lo), w.operand(e.hi)
	if hi < lo {
		return 0, fmt.Errorf("script: random(%d, %d): the upper bound is below the lower", lo, hi)
	}
	// The span in unsigned arithmetic: random(-9223372036854775808,
	// 9223372036854775807) spans every int64, past Int64N's reach.
	span := uint64(hi) - uint64(lo)
	if span == math.MaxUint64 {
		return int64(w.rng.Uint64()), nil
	}
	return lo + int64(w.rng.Uint64N(span+1)), nil
}

func (w *worker) operand(o operand) int64 {
	if o.name != "" {
		return w.vals[o.name]
	}
	return o.value
}

// count adds what a statement on the keyed table did to rows, from its
// command tag, as the server counts them.
func count(w *driver.Work, tag pgconn.CommandTag) {
	n := tag.RowsAffected()
	switch {
	case tag.Insert():
		w.Inserted += n
	case tag.Update():
		w.Updated += n
	case tag.Delete():
		w.Deleted += n
	case tag.Select():
		w.Read += n
	}
}
