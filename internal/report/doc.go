package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/keybench/keybench/internal/sources"
)

// Doc is a run's summary as the console and the page both show it: tables
// and paragraphs of text, in order. The console fits it to the terminal's
// width (Doc.Write); the page draws its tables as HTML tables.
type Doc struct {
	Blocks []Block
}

// Block is one table or one paragraph.
type Block struct {
	Table *Table
	Text  string
}

// Table is a table of text: a header, rows, and which columns are figures
// (aligned right). Its first column names the row (the key) and is repeated
// when the console has to split the table.
type Table struct {
	Header []string
	Rows   [][]string
	Right  []bool // by column
}

// NewTable starts a table with the given header.
func NewTable(header ...string) *Table {
	return &Table{Header: header, Right: make([]bool, len(header))}
}

// AppendRow adds a row; values are formatted with fmt.Sprint.
func (t *Table) AppendRow(values ...any) {
	row := make([]string, len(values))
	for i, v := range values {
		row[i] = fmt.Sprint(v)
	}
	t.Rows = append(t.Rows, row)
}

// AlignRight aligns the given columns (0-based) right.
func (t *Table) AlignRight(cols ...int) *Table {
	for _, c := range cols {
		if c < len(t.Right) {
			t.Right[c] = true
		}
	}
	return t
}

// Add appends a table.
func (d *Doc) Add(t *Table) { d.Blocks = append(d.Blocks, Block{Table: t}) }

// Println appends a line of text.
func (d *Doc) Println(s string) { d.Blocks = append(d.Blocks, Block{Text: s}) }

// Printf appends a line of text formatted with fmt.Sprintf (a trailing newline is dropped).
func (d *Doc) Printf(format string, a ...any) {
	d.Println(strings.TrimSuffix(fmt.Sprintf(format, a...), "\n"))
}

// Write prints the doc to a console width columns wide (0: every table
// whole, however wide). A doc that cites a write-up ("001") ends with the
// line that says what it is.
func (d *Doc) Write(w io.Writer, width int) {
	for _, b := range d.withLegend() {
		if b.Table != nil {
			b.Table.Write(w, width)
			continue
		}
		if width > 0 {
			fmt.Fprintln(w, wrap(b.Text, width))
		} else {
			fmt.Fprintln(w, b.Text)
		}
	}
}

// withLegend is the doc's blocks and, when it cites a write-up ("001"),
// the line that says what it is.
func (d *Doc) withLegend() []Block {
	blocks := d.Blocks
	if l := sources.Legend(d.text()); l != "" {
		blocks = append(blocks[:len(blocks):len(blocks)], Block{Text: l})
	}
	return blocks
}

// text is every word the doc shows: its paragraphs, headers and cells.
func (d *Doc) text() string {
	var sb strings.Builder
	for _, b := range d.Blocks {
		sb.WriteString(b.Text + "\n")
		if t := b.Table; t != nil {
			sb.WriteString(strings.Join(t.Header, "\n") + "\n")
			for _, row := range t.Rows {
				sb.WriteString(strings.Join(row, "\n") + "\n")
			}
		}
	}
	return sb.String()
}

// wrap breaks s into lines of width columns at most, between words where it can.
func wrap(s string, width int) string {
	lines := strings.Split(text.WrapSoft(s, width), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// minColumn is the narrowest a column is wrapped to before the table is
// split instead: narrower, figures and names break into unreadable pieces.
// A column is not wrapped narrower than its longest word either (a key, a
// figure with its unit), and the first column, which names the row, not at all.
const minColumn = 10

// Write prints the table fitted to width columns (0: whole). Nothing is
// cut: a table too wide first shows the columns whose value is the same in
// every row as a line above it, then wraps its widest columns' text, and,
// when every column is down to its narrowest (floor) and it is still too
// wide, goes on in further tables, each repeating the first column.
func (t *Table) Write(w io.Writer, width int) {
	if width <= 0 || t.naturalWidth(allColumns(len(t.Header))) <= width {
		t.render(w, allColumns(len(t.Header)), nil)
		return
	}
	cols := allColumns(len(t.Header))
	if len(t.Rows) >= 2 {
		var same []string
		var kept []int
		for _, c := range cols {
			if c > 0 && t.constant(c) {
				same = append(same, t.Header[c]+": "+t.Rows[0][c])
			} else {
				kept = append(kept, c)
			}
		}
		if len(same) > 0 && len(kept) > 1 {
			fmt.Fprintln(w, wrap("every row: "+strings.Join(same, "; "), width))
			cols = kept
		}
	}
	for _, part := range t.parts(cols, width) {
		t.render(w, part, t.caps(part, width))
	}
}

func allColumns(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// constant says whether column c holds the same value in every row.
func (t *Table) constant(c int) bool {
	for _, r := range t.Rows {
		if r[c] != t.Rows[0][c] {
			return false
		}
	}
	return true
}

// natural is column c's width unwrapped: its widest value or header line.
func (t *Table) natural(c int) int {
	n := 0
	for _, l := range strings.Split(t.Header[c], "\n") {
		n = max(n, text.RuneWidthWithoutEscSequences(l))
	}
	for _, r := range t.Rows {
		if c < len(r) {
			n = max(n, text.RuneWidthWithoutEscSequences(r[c]))
		}
	}
	return n
}

// frame is what a table of n columns adds to its columns' widths: a
// border and a blank either side of every column, and the outer border.
func frame(n int) int { return 3*n + 1 }

func (t *Table) naturalWidth(cols []int) int {
	w := frame(len(cols))
	for _, c := range cols {
		w += t.natural(c)
	}
	return w
}

// floor is the narrowest column c is wrapped to: its natural width for
// the first column, else minColumn or its longest word, whichever is wider.
func (t *Table) floor(c int) int {
	n := t.natural(c)
	if c == 0 {
		return n
	}
	word := 0
	for _, v := range append([]string{t.Header[c]}, t.column(c)...) {
		for _, f := range strings.Fields(v) {
			word = max(word, text.RuneWidthWithoutEscSequences(f))
		}
	}
	return min(n, max(minColumn, word))
}

func (t *Table) column(c int) []string {
	var out []string
	for _, r := range t.Rows {
		if c < len(r) {
			out = append(out, r[c])
		}
	}
	return out
}

// fits says whether cols fit in width with every column at its floor.
func (t *Table) fits(cols []int, width int) bool {
	w := frame(len(cols))
	for _, c := range cols {
		w += t.floor(c)
	}
	return w <= width
}

// parts splits cols into tables that fit width, each starting with the
// first column (greedily: as many columns as fit in each).
func (t *Table) parts(cols []int, width int) [][]int {
	if t.fits(cols, width) || len(cols) <= 2 {
		return [][]int{cols}
	}
	var out [][]int
	cur := []int{cols[0]}
	for _, c := range cols[1:] {
		if next := append(append([]int(nil), cur...), c); len(cur) == 1 || t.fits(next, width) {
			cur = next
			continue
		}
		out = append(out, cur)
		cur = []int{cols[0], c}
	}
	return append(out, cur)
}

// caps are the widths the columns are wrapped to so that the table fits:
// the widest columns are narrowed first, to a common cap (water-filling),
// none below its floor.
func (t *Table) caps(cols []int, width int) map[int]int {
	if t.naturalWidth(cols) <= width {
		return nil
	}
	budget := width - frame(len(cols))
	size := func(c, cap int) int { return min(t.natural(c), max(cap, t.floor(c))) }
	hi := 0
	for _, c := range cols {
		hi = max(hi, t.natural(c))
	}
	used := func(cap int) int {
		s := 0
		for _, c := range cols {
			s += size(c, cap)
		}
		return s
	}
	// the largest cap (1 at least) whose columns fit the budget
	lo := max(1, sort.Search(hi, func(i int) bool { return used(i+1) > budget }))
	out := map[int]int{}
	for _, c := range cols {
		if w := size(c, lo); w < t.natural(c) {
			out[c] = w
		}
	}
	return out
}

// render prints the columns cols of the table, wrapping those in caps.
func (t *Table) render(w io.Writer, cols []int, caps map[int]int) {
	tw := table.NewWriter()
	tw.SetOutputMirror(w)
	tw.SetStyle(table.StyleLight)
	row := func(values []string) table.Row {
		r := make(table.Row, len(cols))
		for i, c := range cols {
			if c < len(values) {
				r[i] = values[c]
			}
		}
		return r
	}
	tw.AppendHeader(row(t.Header))
	for _, r := range t.Rows {
		tw.AppendRow(row(r))
	}
	var configs []table.ColumnConfig
	for i, c := range cols {
		cc := table.ColumnConfig{Number: i + 1}
		if t.Right[c] {
			cc.Align = text.AlignRight
		}
		if cap, ok := caps[c]; ok {
			cc.WidthMax, cc.WidthMaxEnforcer = cap, text.WrapSoft
		}
		configs = append(configs, cc)
	}
	tw.SetColumnConfigs(configs)
	tw.Render()
}
