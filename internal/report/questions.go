package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// Questions is the doc of a preset's questions answered (none: nil).
func Questions(res *results.Results) *Doc {
	if len(res.Plan.Questions) == 0 {
		return nil
	}
	d := &Doc{}
	questions(d, res, analysisOf(res).Groups)
	return d
}

// questions answers a preset's questions (results.Plan.Questions) first:
// for each, a table per task of the keys it compares — the median rate,
// how each compares with the question's first key within the rounds, and
// the figures the physics makes certain beside them — and a verdict line
// that says what was decided and what is only within noise.
func questions(d *Doc, res *results.Results, groups []results.Group) {
	for i, q := range res.Plan.Questions {
		d.Printf("(%c) %s", 'a'+i, q.Ask)
		for _, part := range q.Parts {
			gs := questionGroups(groups, q.Keys, part.Task)
			if len(gs) == 0 {
				d.Printf("%s: no cell of these keys finished.", part.Task)
				continue
			}
			header := []string{part.Task + ": key", present.Rate.Header, "against " + gs[0].Key}
			var cols []present.Column
			for _, f := range part.Figures {
				if c, ok := FigureColumn(gs[0].Workload, f); ok {
					cols = append(cols, c)
					header = append(header, c.Header)
				}
			}
			t := NewTable(header...)
			for _, g := range gs {
				row := []any{g.Key, present.Rate.Text(res, g), ""}
				if g != gs[0] {
					v := versusOf(g, gs[0].Key)
					row[2] = speedText(&v)
				}
				for _, c := range cols {
					row = append(row, c.Text(res, g))
				}
				t.AppendRow(row...)
			}
			t.AlignRight(allColumns(len(header))[1:]...)
			d.Add(t)
			d.Println(questionVerdict(part.Task, gs))
		}
	}
	if len(res.Plan.Questions) > 0 {
		d.Println(present.Notes(present.Rate) + " each question's keys are compared within the rounds of its task, as every pair of a task is (the tables below); the figures beside the rates are the cells' own.")
	}
}

// questionGroups are the groups of a task whose keys a question compares,
// in the question's order, at the task's largest table size and clients.
func questionGroups(groups []results.Group, keys []string, task string) []*results.Group {
	var rows int64 = -1
	clients := -1
	for i := range groups {
		if g := &groups[i]; g.Task() == task && slices.Contains(keys, g.Key) && (g.Rows > rows || g.Rows == rows && g.Clients > clients) {
			rows, clients = g.Rows, g.Clients
		}
	}
	var out []*results.Group
	for _, k := range keys {
		for i := range groups {
			if g := &groups[i]; g.Key == k && g.Task() == task && g.Rows == rows && g.Clients == clients {
				out = append(out, g)
			}
		}
	}
	return out
}

// questionVerdict says how the question's other keys came out against its
// first in one task: what the rounds decided, and what stays within noise.
func questionVerdict(task string, gs []*results.Group) string {
	first := gs[0]
	var decided, open, untested []string
	for _, g := range gs[1:] {
		v := versusOf(g, first.Key)
		switch {
		case v.TooFew:
			untested = append(untested, g.Key)
		case v.Equivalent():
			decided = append(decided, fmt.Sprintf("%s runs at the same speed (within %.0f%%)", g.Key, v.Margin*100))
		case v.Significant:
			decided = append(decided, fmt.Sprintf("%s is %s", g.Key, results.Relative(v.Effect, "faster", "slower", "as fast")))
		default:
			open = append(open, fmt.Sprintf("%s (%s %s)", g.Key, stats.RatioText(v.Effect), v.IntervalText()))
		}
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s, against %s: ", task, first.Key)
	if len(decided) > 0 {
		s.WriteString(strings.Join(decided, "; "))
	}
	if len(open) > 0 {
		if len(decided) > 0 {
			s.WriteString("; ")
		}
		s.WriteString("within run-to-run noise: " + strings.Join(open, ", "))
	}
	if len(untested) > 0 {
		if len(decided)+len(open) > 0 {
			s.WriteString("; ")
		}
		s.WriteString("not compared, too few rounds: " + strings.Join(untested, ", "))
	}
	s.WriteString(".")
	return s.String()
}

// FigureColumn is the column a question's part names by its header: the
// task's kind's own, else a figure every cell records, as its collector
// declared it (metrics.Figure).
func FigureColumn(workload, header string) (present.Column, bool) {
	for _, c := range viewOf(workload).Columns {
		if c.Header == header {
			return c, true
		}
	}
	f, ok := metrics.Figure(header)
	if !ok {
		return present.Column{}, false
	}
	return present.Column{Figure: results.Figure{Header: header}, Text: func(r *results.Results, g *results.Group) string { return f.Text(&r.Last(g).Metrics) }}, true
}
