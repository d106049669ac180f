package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// longest is the widest line of s, in terminal columns.
func longest(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, text.RuneWidthWithoutEscSequences(l))
	}
	return n
}

// counts are the characters of s, lower-cased, without blanks and the tables' rules.
func counts(s string) map[rune]int {
	out := map[rune]int{}
	for _, r := range strings.ToLower(s) {
		if !unicode.IsSpace(r) && !strings.ContainsRune("─│┌┐└┘├┤┬┴┼", r) {
			out[r]++
		}
	}
	return out
}

// cut says which characters of want (at least as many of each) got lacks.
func cut(want, got map[rune]int) string {
	var missing []string
	for r, n := range want {
		if got[r] < n {
			missing = append(missing, fmt.Sprintf("%q %d of %d", r, got[r], n))
		}
	}
	sort.Strings(missing)
	return strings.Join(missing, ", ")
}

// tableCounts are the characters a fitted table must show at least: every
// header and cell, a column whose value is the same in every row once.
func tableCounts(t *Table) map[rune]int {
	var b strings.Builder
	for c, h := range t.Header {
		b.WriteString(h + " ")
		for i, r := range t.Rows {
			if i == 0 || !t.constant(c) {
				b.WriteString(r[c] + " ")
			}
		}
	}
	return counts(b.String())
}

// Every seed run's summary fits 80 and 120 columns, and nothing is cut:
// every block, fitted, shows every character of its table's headers and
// cells, or of its text.
func TestSummariesFitTheConsole(t *testing.T) {
	for _, name := range []string{"war", "queue", "bulk"} {
		r, err := verdict.Read(filepath.Join("../results/testdata", name+".json"), all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		var whole strings.Builder
		WriteSummary(&whole, r, 0)
		if longest(whole.String()) <= 120 {
			t.Fatalf("%s: the whole summary is only %d columns wide: nothing to fit", name, longest(whole.String()))
		}
		d := Summary(r)
		for _, width := range []int{80, 120} {
			var got strings.Builder
			d.Write(&got, width)
			if n := longest(got.String()); n > width {
				t.Errorf("%s at %d columns: a line of %d", name, width, n)
			}
			for i, b := range d.Blocks {
				var one strings.Builder
				(&Doc{Blocks: []Block{b}}).Write(&one, width)
				want := counts(b.Text)
				if b.Table != nil {
					want = tableCounts(b.Table)
				}
				if m := cut(want, counts(one.String())); m != "" {
					t.Errorf("%s at %d columns, block %d: cut: %s\n%s", name, width, i, m, one.String())
				}
			}
		}
	}
}

func TestTableHoistsAndSplits(t *testing.T) {
	tb := NewTable("key", "workload", "a long header one", "another long header", "third column of figures", "fourth").AlignRight(2, 3, 4, 5)
	tb.AppendRow("uuidv4", "insert-read", "1234567 tps", "98765 B", "0.123 (0.456)", "LWLock:WALWrite 80%, IO:WalSync 13%")
	tb.AppendRow("bigint", "insert-read", "2345678 tps", "87654 B", "0.234 (0.567)", "LWLock:WALWrite 70%, CPU 7%")
	var got strings.Builder
	tb.Write(&got, 40)
	out := got.String()
	if longest(out) > 40 {
		t.Errorf("a line of %d:\n%s", longest(out), out)
	}
	if !strings.HasPrefix(out, "every row: workload: insert-read") {
		t.Errorf("the constant column is not hoisted:\n%s", out)
	}
	if n := strings.Count(out, "uuidv4"); n < 2 {
		t.Errorf("split tables repeat the key: uuidv4 %d times:\n%s", n, out)
	}
	var whole strings.Builder
	tb.Write(&whole, 0)
	if strings.Contains(whole.String(), "every row") || strings.Count(whole.String(), "\n") != 6 {
		t.Errorf("whole:\n%s", whole.String())
	}
}
