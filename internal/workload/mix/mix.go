// Package mix is the mix workload: each transaction is one statement on the
// keyed table, drawn by weight from a mix of inserts, point reads by key,
// keyset pages by key, updates by key and deletes by key — a table's own
// traffic replayed, as advise reads it from pg_stat_statements (or from
// the table's counters) and replays it in a table's lab. Which rows the
// reads, updates and deletes touch is drawn over insertion order
// (read-dist), from the prefilled rows.
package mix

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

func init() {
	workload.Register(workload.Meta{
		Name: "mix",
		Description: "each transaction is one statement drawn by weight: an insert, a read by key, a keyset page of 100 by key, an update " +
			"or a delete by key (mix-insert, mix-lookup, mix-range, mix-update, mix-delete, in any units), the rows drawn over insertion order (read-dist)",
		Kind: results.SummaryKind[MixSummary](), View: mixView,
		New:  func() workload.Workload { return &mix{} },
		Bare: workload.Bare{Rows: 100_000},
	})
}

// The statements of a mix, in the order of Kinds.
const (
	Insert = iota
	Lookup
	Range
	Update
	Delete
	nKinds
)

// Kinds name the statements of a mix; each is its option "mix-KIND".
var Kinds = [nKinds]string{"insert", "lookup", "range", "update", "delete"}

// kindDoc says what each statement does.
var kindDoc = [nKinds]string{
	"insert a row with a new key",
	"read a row by key (WHERE id = $1)",
	"read a keyset page of 100 rows by key (WHERE id > $1 ORDER BY id LIMIT 100)",
	"update a row by key (SET data = data + 1 WHERE id = $1)",
	"delete a row by key (WHERE id = $1; a key already deleted deletes nothing)",
}

// rangePage is a range statement's rows.
const rangePage = 100

type mix struct {
	s      workload.Setup
	weight [nKinds]float64
	dist   workload.ReadDist
	pool   *workload.KeyPool
	// done counts each kind's statements over every client (the summary's).
	done [nKinds]atomic.Int64
}

func (m *mix) Options() []workload.Option {
	var opts []workload.Option
	for k, name := range Kinds {
		def := 0.0
		if k == Insert || k == Lookup {
			def = 50
		}
		opts = append(opts, workload.Float("mix-"+name, &m.weight[k], def, 0, 1e12, false,
			"the weight of statements that "+kindDoc[k]+" (any unit: calls per second, a percent)"))
	}
	return append(opts, workload.ReadDistOptions(&m.dist)...)
}

func (m *mix) Configure(s workload.Setup) error {
	m.s = s
	var total float64
	for _, w := range m.weight {
		total += w
	}
	if total <= 0 {
		return fmt.Errorf("mix: every weight is 0 (mix-insert, mix-lookup, mix-range, mix-update, mix-delete): nothing to run")
	}
	if m.drawsRows() {
		return workload.DrawnRows("mix", "reads, updates or deletes rows by key", s)
	}
	return nil
}

// drawsRows says the mix touches existing rows.
func (m *mix) drawsRows() bool {
	return m.weight[Lookup]+m.weight[Range]+m.weight[Update]+m.weight[Delete] > 0
}

func (m *mix) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, m.s)}
}

func (m *mix) Hooks() workload.Hooks {
	return workload.Hooks{PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
		if !m.drawsRows() {
			return nil
		}
		return workload.LoadKeyPool(ctx, conn, tables[0], m.s, &m.pool)
	}}
}

// statements are the SQL of the kinds that draw a key, by kind.
func statements(q string) map[int]string {
	return map[int]string{
		Lookup: fmt.Sprintf("SELECT id, data, payload FROM %s WHERE id = $1", q),
		Range:  fmt.Sprintf("SELECT id, data, payload FROM %s WHERE id > $1 ORDER BY id LIMIT %d", q, rangePage),
		Update: fmt.Sprintf("UPDATE %s SET data = data + 1 WHERE id = $1", q),
		Delete: fmt.Sprintf("DELETE FROM %s WHERE id = $1", q),
	}
}

func (m *mix) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, gen keys.Generator, id int) (workload.Worker, error) {
	t, conn := tables[0], c.PgConn()
	w := &worker{m: m, rng: rand.New(rand.NewPCG(uint64(m.s.Seed), uint64(id)+101))}
	w.cum = Cumulative(m.weight[:])
	if m.weight[Insert] > 0 {
		ins, err := workload.NewInserter(ctx, conn, t, gen, m.s, 1, id)
		if err != nil {
			return nil, err
		}
		w.sub[Insert] = ins
	}
	for k, sql := range statements(t.Qualified()) {
		if m.weight[k] <= 0 {
			continue
		}
		pick := m.dist.NewPicker(m.pool.Rows, rand.New(rand.NewPCG(uint64(m.s.Seed)+uint64(k), uint64(id)+1)))
		sw, err := workload.PrepareStmtWorker(ctx, conn, Kinds[k], "kb_mix_"+Kinds[k], sql, [][]byte{nil}, []int16{t.Key.WireFormat()}, workload.DrawKeys(m.pool, pick), counted(k))
		if err != nil {
			return nil, err
		}
		w.sub[k] = sw.(machine)
	}
	return w, nil
}

// counted turns a statement's rows into what it did, by kind.
func counted(k int) func(int64, error) (driver.Work, error) {
	return func(n int64, err error) (driver.Work, error) {
		switch k {
		case Update:
			return driver.Work{Updated: n}, err
		case Delete:
			return driver.Work{Deleted: n}, err
		}
		return driver.Work{Read: n}, err
	}
}

// machine is a statement's worker on the driver's event loops.
type machine interface {
	workload.Worker
	driver.Machine
}

// worker runs one drawn statement per transaction, as a driver.Machine
// (delegating to the drawn kind's) or on its own (Txn).
type worker struct {
	m   *mix
	rng *rand.Rand
	cum []float64
	sub [nKinds]machine
	// at is the kind of the transaction under way (-1: none).
	at      int
	started bool
}

// draw picks the next transaction's kind.
func (w *worker) draw() int {
	k := Draw(w.cum, w.rng.Float64())
	w.m.done[k].Add(1)
	return k
}

func (w *worker) Next(dst []byte) []byte {
	if !w.started {
		w.started, w.at = true, w.draw()
	}
	return w.sub[w.at].Next(dst)
}

func (w *worker) Message(typ byte, body []byte) { w.sub[w.at].Message(typ, body) }

func (w *worker) Done() (driver.Work, error) {
	w.started = false
	return w.sub[w.at].Done()
}

func (w *worker) Txn() (driver.Work, error) { return w.sub[w.draw()].Txn() }

// Cumulative is the weights' running sums over their total: the bounds
// Draw reads a uniform draw against.
func Cumulative(weight []float64) []float64 {
	var total float64
	for _, v := range weight {
		total += v
	}
	out := make([]float64, len(weight))
	var sum float64
	for i, v := range weight {
		sum += v
		out[i] = sum / total
	}
	return out
}

// Draw is the kind a uniform u in [0, 1) falls on: the first whose
// cumulative share exceeds it (a kind of weight 0 never).
func Draw(cum []float64, u float64) int {
	for i, c := range cum {
		if u < c {
			return i
		}
	}
	for i := len(cum) - 1; i > 0; i-- { // u at the top of a rounded total
		if cum[i] > cum[i-1] {
			return i
		}
	}
	return 0
}

// MixSummary is a mix cell's own figures: the mix asked for, and the share
// of each statement its transactions ran (warm-up included).
type MixSummary struct {
	results.IsSummary
	// Asked is each kind's share of the weights given, Ran each kind's
	// share of the statements run, by the names of Kinds.
	Asked    map[string]float64 `json:"mix_asked"`
	Ran      map[string]float64 `json:"mix_ran"`
	ReadDist string             `json:"read_dist_drawn,omitempty"`
}

func (m *mix) Summarize(o *workload.Outcome) error {
	s := &MixSummary{Asked: map[string]float64{}, Ran: map[string]float64{}}
	cum := Cumulative(m.weight[:])
	var ran int64
	for k := range Kinds {
		ran += m.done[k].Load()
	}
	prev := 0.0
	for k, name := range Kinds {
		if m.weight[k] > 0 {
			s.Asked[name] = round6(cum[k] - prev)
			if ran > 0 {
				s.Ran[name] = round6(float64(m.done[k].Load()) / float64(ran))
			}
		}
		prev = cum[k]
	}
	if m.pool != nil {
		s.ReadDist = m.dist.Describe(m.pool.Rows)
	}
	o.Cell.Metrics.Summary = s
	return nil
}

// round6 drops a share's float noise (0.1 for 0.09999999999999998).
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// Text is the mix as a person reads it: "10% inserts, 90% reads by key".
func Text(shares map[string]float64) string {
	words := map[string]string{"insert": "inserts", "lookup": "reads by key", "range": "keyset pages by key", "update": "updates by key", "delete": "deletes by key"}
	var parts []string
	for _, name := range Kinds {
		if v, ok := shares[name]; ok && v > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", percent(v), words[name]))
		}
	}
	return strings.Join(parts, ", ")
}

// percent prints a share as a percent of two significant digits at most.
func percent(v float64) string {
	p := v * 100
	if p >= 9.95 || p == math.Trunc(p) {
		return fmt.Sprintf("%.0f%%", p)
	}
	return fmt.Sprintf("%.1f%%", p)
}

// mixView is how mix cells are shown.
var mixView = present.View{
	Columns: []present.Column{
		present.Rate, present.RateColumn, present.P99Column,
		present.BlocksColumn("table blocks / txn (read)", results.BlocksAndReads),
		workload.SummaryColumn("mix ran", true, func(r *results.Results, g *results.Group, s *MixSummary) string {
			return Text(s.Ran)
		}),
	},
	Notes: present.Always("mix ran: each statement's share of the transactions, one statement each;"),
}
