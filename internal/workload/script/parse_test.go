package script

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestParseScript: statements end at a line's ';', :table is written in,
// :key and the \\set variables become parameters (one per name), quoted
// text and :: casts are left alone, and only statements on :table count.
func TestParseScript(t *testing.T) {
	src := `-- a comment
\set d random(1, :rows)
\set c 7
INSERT INTO :table (id, data, payload)
  VALUES (:key, :d, 'a :quoted; text');
SELECT id, data::text, ':d' FROM :table WHERE id = :key AND data > :d;
SELECT :c::int;
BEGIN;
COMMIT`
	s, err := parse(strings.NewReader(src), "kb.t1")
	if err != nil {
		t.Fatal(err)
	}
	var stmts []*statement
	for _, st := range s.steps {
		if st.stmt != nil {
			stmts = append(stmts, st.stmt)
		}
	}
	if len(s.steps) != 7 || len(stmts) != 5 || !s.usesKey {
		t.Fatalf("%d steps, %d statements, usesKey %v", len(s.steps), len(stmts), s.usesKey)
	}
	want := []struct {
		sql     string
		params  []string
		onTable bool
	}{
		{"INSERT INTO kb.t1 (id, data, payload)\n  VALUES ($1, $2, 'a :quoted; text')", []string{"key", "d"}, true},
		{"SELECT id, data::text, ':d' FROM kb.t1 WHERE id = $1 AND data > $2", []string{"key", "d"}, true},
		{"SELECT $1::int", []string{"c"}, false},
		{"BEGIN", nil, false},
		{"COMMIT", nil, false},
	}
	for i, w := range want {
		st := stmts[i]
		if st.sql != w.sql || !reflect.DeepEqual(st.params, w.params) || st.onTable != w.onTable {
			t.Errorf("statement %d: %q %v %v, want %q %v %v", i, st.sql, st.params, st.onTable, w.sql, w.params, w.onTable)
		}
	}
	if a := s.steps[0].set; a == nil || a.name != "d" || !a.expr.random || a.expr.lo.value != 1 || a.expr.hi.name != "rows" {
		t.Errorf("\\set d: %+v", s.steps[0].set)
	}
}

// TestParseRefuses: what a script may not hold says its line.
func TestParseRefuses(t *testing.T) {
	for src, want := range map[string]string{
		"":                                      "no SQL command",
		"SELECT 1;":                             "never names :table",
		"\\sleep 10ms\nSELECT * FROM :table;":   `line 1: \sleep is not supported`,
		"SELECT :x FROM :table;":                "line 1: :x is not a variable",
		"\\set key 1\nSELECT 1 FROM :table;":    "keybench's own variable",
		"\\set n random(1, :m)\nSELECT :table;": `":m" is neither an integer nor a variable`,
		"\\set 9n 1\nSELECT 1 FROM :table;":     "not a variable name",
		"SELECT 1;\n\nSELECT :y FROM :table;":   "line 3: :y",
		"\\set n :rows\nSELECT :n FROM :table;": "",
		"\\set n random(5, 1)\nSELECT :table;":  "line 1: random(5, 1): the upper bound is below the lower",
		// What pgbench runs, keybench reads alike: a comment after the
		// semicolon, a byte-order mark, a long line, a ; inside a quote
		// or a dollar-quoted body that does not end the statement.
		"SELECT 1 FROM :table; -- the first\nSELECT 2 FROM :table;": "",
		"\uFEFFSELECT 1 FROM :table;":                               "",
		"SELECT '" + strings.Repeat("x", 2<<20) + "' FROM :table;":  "",
		"SELECT ';\n' FROM :table;\nSELECT $$;\n$$ FROM :table;":    "",
		"SELECT :key::int FROM :table;":                             "",
	} {
		_, err := parse(strings.NewReader(src), "kb.t")
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", src, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

// TestStatementEnds: a statement ends at a semicolon PostgreSQL's scanner
// reads as one, its trailing comment not part of what is sent.
func TestStatementEnds(t *testing.T) {
	s, err := parse(strings.NewReader("SELECT 1 FROM :table; -- the first\nSELECT ';' FROM :table /* c */ ;\n"), "kb.t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range s.steps {
		got = append(got, st.stmt.sql)
	}
	if want := []string{"SELECT 1 FROM kb.t", "SELECT ';' FROM kb.t /* c */"}; !reflect.DeepEqual(got, want) {
		t.Errorf("statements %q, want %q", got, want)
	}
}

// TestRandomSpansEveryInt64: random over the whole int64 range draws, never panics.
func TestRandomSpansEveryInt64(t *testing.T) {
	w := &worker{rng: rand.New(rand.NewPCG(1, 2))}
	for _, r := range [][2]int64{{math.MinInt64, math.MaxInt64}, {-1, math.MaxInt64}, {math.MinInt64, 0}, {3, 3}} {
		v, err := w.eval(expr{random: true, lo: operand{value: r[0]}, hi: operand{value: r[1]}})
		if err != nil || v < r[0] || v > r[1] {
			t.Errorf("random(%d, %d) = %d, %v", r[0], r[1], v, err)
		}
	}
}
