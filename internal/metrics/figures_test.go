package metrics

import (
	"reflect"
	"testing"

	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/results"
)

// TestEveryMetricHasItsFigure walks every field of results.Metrics: each
// must be declared by exactly one collector's figure, which says how its
// rounds merge and whether it stands on a distributed engine. A field
// added to results.Metrics without one fails here, instead of vanishing
// from every cell with rounds (issue 25: MergeRounds listed the fields by
// hand, and a field it forgot was dropped).
func TestEveryMetricHasItsFigure(t *testing.T) {
	declared := map[string]int{}
	for _, f := range figures() {
		declared[f.name]++
		if f.merge == nil {
			t.Errorf("figure %s has no merge", f.name)
		}
	}
	mt := reflect.TypeOf(results.Metrics{})
	for i := 0; i < mt.NumField(); i++ {
		name := mt.Field(i).Name
		if name == "Summary" { // the workload's own, outside the collectors
			continue
		}
		switch declared[name] {
		case 0:
			t.Errorf("results.Metrics.%s has no figure: say how its rounds merge and whether it stands on a distributed engine (figures.go)", name)
		case 1:
		default:
			t.Errorf("results.Metrics.%s has %d figures", name, declared[name])
		}
	}
}

// TestEveryRoundFigureSurvivesTheMerge: a figure measured in every round
// (set, by reflection, in both) is still set after MergeRounds, and on a
// distributed engine a figure read from the coordinator's own pages reads
// unavailable with the engine's reason while the others stand.
func TestEveryRoundFigureSurvivesTheMerge(t *testing.T) {
	var round results.Metrics
	rv := reflect.ValueOf(&round).Elem()
	for _, f := range figures() {
		field := rv.FieldByName(f.name)
		field.Set(field.MethodByName("Zero").Call(nil)[0])
	}
	m := MergeRounds([]results.Metrics{round, round}, 10, 10)
	mv := reflect.ValueOf(m)
	for _, f := range figures() {
		if f.once {
			continue // measured after the rounds, set by the evidence
		}
		if mv.FieldByName(f.name).MethodByName("IsZero").Call(nil)[0].Bool() {
			t.Errorf("%s is set in every round and lost by the merge", f.name)
		}
	}
	m = round
	Elsewhere(t.Context(), nil, engine.Engine{Kind: engine.CockroachDB}, "t", &m)
	mv = reflect.ValueOf(m)
	for _, f := range figures() {
		reason := mv.FieldByName(f.name).MethodByName("Reason").Call(nil)[0].String()
		if f.blind != nil && reason == "" {
			t.Errorf("%s stands on a distributed engine, though its collector reads the coordinator's own", f.name)
		}
		if f.blind == nil && reason != "" {
			t.Errorf("%s was marked unavailable on a distributed engine: %s", f.name, reason)
		}
	}
}

// TestEveryShownFigureIsWhole: every figure a table shows has a header no
// other has, a text made with a format of its own type (a wrong one panics
// here) and a reason; a table's column resolves from its header.
func TestEveryShownFigureIsWhole(t *testing.T) {
	seen := map[string]bool{}
	var m results.Metrics
	for _, s := range Figures() {
		if s.Header == "" || seen[s.Header] {
			t.Errorf("%s: header %q empty or shown twice", s.Field, s.Header)
		}
		seen[s.Header] = true
		if got := s.Text(&m); got != "n/a" {
			t.Errorf("%s: an unrecorded figure reads %q", s.Header, got)
		}
		if got, ok := Figure(s.Header); !ok || got.Field != s.Field {
			t.Errorf("%s: not found by its header", s.Header)
		}
	}
	m.WALBytesPerRow = results.Of(712.4)
	m.LeafDensity = results.Unavailable[float64]("pgstattuple is not installed")
	for header, want := range map[string]string{"WAL / row": "712 B", "leaf density": "unavailable"} {
		s, _ := Figure(header)
		if got := s.Text(&m); got != want {
			t.Errorf("%s: %q, want %q", header, got, want)
		}
	}
	if s, _ := Figure("leaf density"); s.Reason(&m) != "pgstattuple is not installed" {
		t.Errorf("leaf density: reason %q", s.Reason(&m))
	}
	if _, ok := Figure("no such figure"); ok {
		t.Error("a figure that does not exist was found")
	}
}

// TestEvidenceColumnsAreShown: every field the evidence table names has a
// shown figure (a header, a format, a reason).
func TestEvidenceColumnsAreShown(t *testing.T) {
	for i, col := range EvidenceColumns() {
		for _, s := range col {
			if s.Header == "" || s.Text == nil || s.Reason == nil {
				t.Errorf("evidence column %d names a figure that is not shown: %+v", i, s)
			}
		}
	}
}
