package report

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// shape is the groups measured under the same conditions (workload,
// clients, table size), as the analysis laid them out: the keys every
// comparison of groups[].compared sets against each other.
type shape struct {
	*results.Shape
	Groups []*results.Group
}

// anchor names what a shape's ratios are against: "least" (the least
// work), or the key the question compares every other with.
func (sh shape) anchor() string {
	if sh.Against {
		return sh.Least
	}
	return "least"
}

// rateBase is what a shape's rate ratios are against, picked by the rate
// itself: the slowest key (its least rate: every ratio 1.00× or more),
// or the key the question compares every other with; its name in a
// header and its own row: "least" (the least of the column's own figure,
// as the work's "least" is), or the key and "reference".
func (sh shape) rateBase() (base *results.Group, header, self string) {
	if sh.Against {
		return sh.group(sh.Least), sh.Least, "reference"
	}
	if !sh.Tested { // no rate compared: no ratio to show
		return nil, "least", ""
	}
	var slowest *results.Group
	for _, g := range sh.Groups {
		if g.Rate > 0 && (slowest == nil || g.Rate < slowest.Rate) {
			slowest = g
		}
	}
	return slowest, "least", "least"
}

// shapesOf lists the run's shapes in plan order.
func shapesOf(a *results.Analysis) []shape {
	var out []shape
	for i := range a.Shapes {
		out = append(out, shape{Shape: &a.Shapes[i], Groups: a.ShapeGroups(&a.Shapes[i])})
	}
	return out
}

// marginOf is the equivalence margin of the shape's comparisons (0: none shown).
func (s shape) marginOf() float64 {
	for _, g := range s.Groups {
		if g.Cost != nil {
			for _, v := range g.Cost.Compared {
				if v.Equivalent() {
					return v.Margin
				}
			}
		}
	}
	return 0
}

// group is the shape's group of key (nil: none).
func (s shape) group(key string) *results.Group {
	for _, g := range s.Groups {
		if g.Key == key {
			return g
		}
	}
	return nil
}

// pairCell is one comparison in a matrix: the row's rate over the
// column's, "*" when significant after the correction, "~" within noise,
// "?" with too few samples; long adds the effect's interval.
func pairCell(row, col *results.Group, long bool) string {
	if row == col {
		return ""
	}
	v := versusOf(row, col.Key)
	if long && !v.TooFew {
		return versusShort(&v, true) + " " + v.PText()
	}
	return versusShort(&v, long)
}

// pairsNote explains the matrices.
func pairsNote(groups []results.Group) string {
	_, effect := stats.Describe(testOf(groups))
	note := "the row's rate over the column's (" + effect + "); * significant after Holm's correction within the table, ~ within noise"
	if m := marginOf(groups); m > 0 || sequentialGroups(groups) {
		note = "the row's rate over the column's (" + effect + "); * significant (a group-sequential design, Holm's step-down within the table), "
		if m > 0 {
			note += "= the same within " + stats.Percent(m) + " (the interval lies inside it), "
		}
		note += "~ within noise"
	}
	return note
}

// intervalNote says what the report's [lo–hi] intervals are: repeated
// confidence intervals where the rounds were a group-sequential design.
func intervalNote(groups []results.Group) string {
	if sequentialGroups(groups) {
		return "[lo–hi]: the effect's repeated confidence interval (it covers at every look at once)"
	}
	return "[lo–hi]: the effect's interval at the level its adjusted p-value is decided at (95% before the correction)"
}

// sequentialGroups says whether any group was decided by a group-sequential design.
func sequentialGroups(groups []results.Group) bool {
	for _, g := range groups {
		if g.Sequential {
			return true
		}
	}
	return false
}

// marginOf is the equivalence margin of the groups' comparisons, 0 when none was shown equivalent.
func marginOf(groups []results.Group) float64 {
	for _, g := range groups {
		for _, v := range g.Compared {
			if v.Equivalent() {
				return v.Margin
			}
		}
	}
	return 0
}

// pairs prints, for every shape with three keys or more and a tested pair,
// every key against every other (results.json groups[].compared): the
// summary table shows only each key against the row above or the first.
func pairs(d *Doc, a *results.Analysis) {
	groups := a.Groups
	for _, s := range shapesOf(a) {
		if len(s.Groups) < 3 || !s.Tested {
			continue
		}
		header := []string{"every pair: " + s.Title}
		for i := range s.Groups {
			header = append(header, fmt.Sprint(i+1))
		}
		t := NewTable(header...)
		for i, row := range s.Groups {
			r := []any{fmt.Sprintf("%d %s", i+1, row.Key)}
			for _, col := range s.Groups {
				r = append(r, pairCell(row, col, false))
			}
			t.AppendRow(r...)
			t.AlignRight(i + 1)
		}
		d.Add(t)
		note := pairsNote(groups)
		d.Println(strings.ToUpper(note[:1]) + note[1:] + "; intervals in the report and in results.json.")
	}
}

// PairTable is one shape's matrix of comparisons on the page.
type PairTable struct {
	Title string
	Keys  []string
	Rows  []PairRow
}

// PairRow is one key against every key of its shape.
type PairRow struct {
	Key   string
	Cells []PairText
}

// PairText is one comparison's text, and whether it is significant.
type PairText struct {
	Text        string
	Significant bool
}

// pairTables are the page's matrices: every shape with two keys or more
// and a tested pair.
func pairTables(a *results.Analysis) []PairTable {
	var out []PairTable
	for _, s := range shapesOf(a) {
		if len(s.Groups) < 2 || !s.Tested {
			continue
		}
		pt := PairTable{Title: s.Title}
		for _, g := range s.Groups {
			pt.Keys = append(pt.Keys, g.Key)
		}
		for _, row := range s.Groups {
			pr := PairRow{Key: row.Key}
			for _, col := range s.Groups {
				pr.Cells = append(pr.Cells, PairText{Text: pairCell(row, col, true), Significant: row != col && versusOf(row, col.Key).Significant})
			}
			pt.Rows = append(pt.Rows, pr)
		}
		out = append(out, pt)
	}
	return out
}
