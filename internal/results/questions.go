package results

import "fmt"

// Question is one of the questions a preset asks and answers from its own
// cells: the keys it compares, and in which tasks, each with the figures
// shown beside the rates (the directions the physics makes certain: WAL
// per row, blocks per query, an expiry's time). Its verdict reads the
// comparisons the rounds made between those keys in each task; a preset
// with questions is read through them first.
type Question struct {
	Ask   string         `json:"ask"`
	Keys  []string       `json:"keys"`
	Parts []QuestionPart `json:"parts"`
}

// QuestionPart is a task a question reads, with the figures shown beside
// its rates: headers of the task's own columns (its Kind's) or of the
// evidence columns every cell has (EvidenceColumns).
type QuestionPart struct {
	Task    string   `json:"task"`
	Figures []string `json:"figures,omitempty"`
}

// EvidenceColumns are figures every cell records, by the header a
// question names them with.
var EvidenceColumns = []Column{
	{Header: "WAL / row", Text: func(r *Results, g *Group) string {
		return r.Last(g).Metrics.WALBytesPerRow.Text(func(v float64) string { return fmt.Sprintf("%.0f B", v) })
	}},
	{Header: "FPI / row", Text: func(r *Results, g *Group) string {
		return r.Last(g).Metrics.WALFPIPerRow.Text(func(v float64) string { return fmt.Sprintf("%.3f", v) })
	}},
	{Header: "indexes", Text: func(r *Results, g *Group) string { return r.Last(g).Metrics.IndexBytes.Text(Bytes) }},
	{Header: "key index", Text: func(r *Results, g *Group) string { return r.Last(g).Metrics.KeyIndexBytes.Text(Bytes) }},
	{Header: "leaf density", Text: func(r *Results, g *Group) string {
		return r.Last(g).Metrics.LeafDensity.Text(func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) })
	}},
	{Header: "key bytes", Text: func(r *Results, g *Group) string {
		return r.Last(g).Metrics.KeyBytes.Text(func(v float64) string { return fmt.Sprintf("%.0f B", v) })
	}},
	{Header: "table", Text: func(r *Results, g *Group) string { return r.Last(g).Metrics.TableBytes.Text(Bytes) }},
	{Header: "blocks / txn (read)", Text: func(r *Results, g *Group) string { return r.Last(g).Metrics.BlocksPerTxn.Text(BlocksAndReads) }},
}

// FigureColumn is the column a question's part names: the task's kind's
// own, else an evidence column.
func FigureColumn(workload, header string) (Column, bool) {
	for _, c := range KindOf(workload).Columns {
		if c.Header == header {
			return c, true
		}
	}
	for _, c := range EvidenceColumns {
		if c.Header == header {
			return c, true
		}
	}
	return Column{}, false
}
