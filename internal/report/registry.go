package report

import (
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload/all"
)

// Figures are every figure keybench declares, at every level, each a
// results.Figure: a round's (results.RoundFigures), a cell's shown ones
// (metrics.Figures) and a key's columns (present's, the transactional
// table's and each workload's view's). It is the one registry of them, in
// which a JSON name means one figure and a header one figure: the
// package's tests hold every declaration to it, so that a second figure
// cannot take a name or a header that every output already shows for
// another (the MD's "server CPU ms / txn" was every server process's, the
// CSV's column of that name the client backends' alone).
func Figures() []results.Figure {
	var out []results.Figure
	for _, f := range results.RoundFigures() {
		out = append(out, f.Figure)
	}
	for _, s := range metrics.Figures() {
		out = append(out, s.Figure)
	}
	cols := append([]present.Column{present.Rate, present.RateColumn, present.P99Column, present.Work}, transactional...)
	for _, v := range all.Views() {
		cols = append(cols, v.Columns...)
	}
	for _, c := range cols {
		out = append(out, c.Figure)
	}
	return out
}
