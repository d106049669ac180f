package advise

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/workload/mix"
)

// A table's own workload, as its lab replays it. Where pg_stat_statements
// is installed and readable, the statements of the sample window (each
// one's calls between two reads of the view) are read for what they do
// to each table: inserts into it, reads of it by its key (a point: key =
// $n; a range: a comparison or an ORDER BY on the key), updates and
// deletes of it; their calls per second make the mix the lab replays
// (package mix's statements). A statement is matched to a table by its
// text, the one thing pg_stat_statements keeps of it (a CTE inserting into
// two tables counts for both). Without it, the table's counters give the
// mix: rows inserted, updated and deleted, and the scans of its key index
// less the updates and deletes that used it — every read by key, points
// and ranges alike (a foreign key's check of a referencing insert
// included).

// MixFrom says where a table's mix was read.
const (
	MixFromStatements = "pg_stat_statements"
	MixFromCounters   = "the table's counters"
)

// Mix is what a table's traffic did during the sample, per second, by
// the statement package mix replays for it (its Kinds), and what it does
// not replay.
type Mix struct {
	PerS map[string]float64 `json:"per_s"`
	// OtherPerS are statements on the table the lab does not replay (reads
	// by another column, a scan of the whole table), per second.
	OtherPerS float64 `json:"other_per_s,omitempty"`
	// UnparsedPerS are the calls of statements naming the table that
	// PostgreSQL's parser could not read (counted apart, and said).
	UnparsedPerS float64 `json:"unparsed_per_s,omitempty"`
	From         string  `json:"from"`
	// Statements are the statements read, with what each does to the table.
	Statements []MixStatement `json:"statements,omitempty"`
	Notes      []string       `json:"notes,omitempty"`
}

// MixStatement is one pg_stat_statements entry as it touched a table.
type MixStatement struct {
	Query     string   `json:"query"`
	Does      []string `json:"does"` // mix kinds, or "other"
	CallsPerS float64  `json:"calls_per_s"`
}

// Total is the statements per second the lab replays.
func (m *Mix) Total() float64 {
	var s float64
	for _, v := range m.PerS {
		s += v
	}
	return s
}

// Shares are each replayed kind's share of Total.
func (m *Mix) Shares() map[string]float64 {
	out := map[string]float64{}
	if t := m.Total(); t > 0 {
		for k, v := range m.PerS {
			if v > 0 {
				out[k] = v / t
			}
		}
	}
	return out
}

// InsertsOnly says the mix holds nothing but inserts (or nothing).
func (m *Mix) InsertsOnly() bool {
	if m == nil {
		return true
	}
	for k, v := range m.PerS {
		if k != mix.Kinds[mix.Insert] && v > 0 {
			return false
		}
	}
	return true
}

// Text is the mix as a person reads it, with where it was read.
func (m *Mix) Text() string {
	out := fmt.Sprintf("%s (%s", mix.Text(m.Shares()), m.From)
	if m.OtherPerS > 0 {
		out += "; not replayed: " + results.Digits(100*m.OtherPerS/(m.OtherPerS+m.Total()), 2) + "% of the table's statements, reads by another column or of the whole table"
	}
	if m.UnparsedPerS > 0 {
		out += "; " + results.Significant(m.UnparsedPerS) + " calls/s of statements naming it that the parser could not read, not counted"
	}
	return out + ")"
}

// stmtCount is one pg_stat_statements entry at one read.
type stmtCount struct {
	query       string
	calls, rows int64
}

// stmtSnapshot is pg_stat_statements at one read: its entries by user and
// query id, and the calls of the entries other roles' statements hide.
type stmtSnapshot struct {
	entries map[[2]int64]stmtCount
	hidden  int64
}

// statements reads pg_stat_statements of the current database, or says
// why it cannot.
func (r *reader) statements(ctx context.Context) (*stmtSnapshot, string) {
	schema, ok := r.ext["pg_stat_statements"]
	if !ok {
		return nil, "pg_stat_statements is not installed in this database"
	}
	snap := &stmtSnapshot{entries: map[[2]int64]stmtCount{}}
	err := r.readOnly(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, fmt.Sprintf(`SELECT userid::int8, queryid, coalesce(query, ''), calls, rows FROM %s.pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`, quoteIdent(schema)))
		var user int64
		var id *int64
		var c stmtCount
		_, err := pgx.ForEachRow(rows, []any{&user, &id, &c.query, &c.calls, &c.rows}, func() error {
			if id == nil || c.query == "<insufficient privilege>" {
				snap.hidden += c.calls
				return nil
			}
			k := [2]int64{user, *id}
			prev := snap.entries[k] // the same statement top-level and nested
			snap.entries[k] = stmtCount{query: c.query, calls: c.calls + prev.calls, rows: c.rows + prev.rows}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, "pg_stat_statements: " + why(err, "GRANT pg_read_all_stats TO "+quoteIdent(r.srv.Role))
	}
	return snap, ""
}

// StatementCalls is one statement's calls and rows over the sample window.
type StatementCalls struct {
	Query       string
	Calls, Rows float64
}

// delta is what each statement did between two reads, and the calls of
// hidden statements.
func (a *stmtSnapshot) delta(b *stmtSnapshot) (out []StatementCalls, hidden float64) {
	for k, c := range b.entries {
		p := a.entries[k] // absent: a statement first seen during the window
		if c.calls-p.calls <= 0 {
			continue
		}
		out = append(out, StatementCalls{Query: c.query, Calls: float64(c.calls - p.calls), Rows: float64(c.rows - p.rows)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Calls > out[j].Calls })
	return out, float64(b.hidden - a.hidden)
}

// MixOfStatements is the mix of a table (schema, name, its key column)
// from the statements of a window of secs seconds: what each statement
// that names the table does to it, per second.
func MixOfStatements(stmts []StatementCalls, schema, name, keyCol string, secs float64) *Mix {
	m := &Mix{PerS: map[string]float64{}, From: MixFromStatements}
	for _, s := range stmts {
		does, topInsert, parsed := StatementDoes(s.Query, schema, name, keyCol)
		if !parsed {
			m.UnparsedPerS += s.Calls / secs // counted apart, and said
			continue
		}
		if len(does) == 0 {
			continue
		}
		perS := s.Calls / secs
		for _, d := range does {
			n := perS
			if d == mix.Kinds[mix.Insert] && topInsert && s.Calls > 0 {
				n = s.Rows / secs // a multi-row INSERT: its rows; a CTE's insert: one a call
			}
			if d == "other" {
				m.OtherPerS += n
			} else {
				m.PerS[d] += n
			}
		}
		m.Statements = append(m.Statements, MixStatement{Query: clip(s.Query, 200), Does: does, CallsPerS: round3(perS)})
	}
	sort.SliceStable(m.Statements, func(i, j int) bool { return m.Statements[i].CallsPerS > m.Statements[j].CallsPerS })
	for k, v := range m.PerS {
		m.PerS[k] = round3(v)
	}
	m.OtherPerS = round3(m.OtherPerS)
	return m
}

// round3 keeps three significant digits.
func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-2)
	return math.Round(v/e) * e
}

// clip shortens a statement's text for the report.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// StatementDoes says what a statement does to the table, as PostgreSQL's
// own parser reads it (sqltree.Uses): the mix kinds (insert, lookup,
// range, update, delete) and "other" for a read the lab does not replay
// (by another column, or of the whole table); nothing when it does not
// name the table; topInsert says its INSERT of the table is the statement
// itself (its rows are the statement's rows), and parsed false that the
// parser could not read it.
func StatementDoes(query, schema, name, keyCol string) (does []string, topInsert, parsed bool) {
	if !strings.Contains(strings.ToLower(query), strings.ToLower(name)) {
		return nil, false, true // names no such table: nothing parsed (advise reads thousands of tables against every statement)
	}
	tree, err := sqltree.Parse(query)
	if err != nil {
		return nil, false, false
	}
	add := func(k string) {
		if !slices.Contains(does, k) {
			does = append(does, k)
		}
	}
	for _, u := range sqltree.Uses(tree, schema, name, keyCol) {
		switch {
		case u.Verb == sqltree.Insert:
			add(mix.Kinds[mix.Insert])
			topInsert = topInsert || u.TopLevel
		case u.Verb == sqltree.Update:
			add(mix.Kinds[mix.Update])
		case u.Verb == sqltree.Delete:
			add(mix.Kinds[mix.Delete])
		case u.By == sqltree.ByPoint:
			add(mix.Kinds[mix.Lookup])
		case u.By == sqltree.ByRange:
			add(mix.Kinds[mix.Range])
		default:
			add("other")
		}
	}
	return does, topInsert, true
}
