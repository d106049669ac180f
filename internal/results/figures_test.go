package results

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestEveryRoundFigureIsDeclaredOnce: every measured field of a round's
// cost (RoundCost) has exactly one declaration (RoundFigures) with
// a header, words and a format, and the headers are unique: the exports and the console build their columns from
// these, so a figure added to RoundCost without one fails here.
func TestEveryRoundFigureIsDeclaredOnce(t *testing.T) {
	declared, headers := map[string]int{}, map[string]bool{}
	for _, f := range RoundFigures() {
		declared[f.Name]++
		if f.Header == "" || f.Words == "" || f.Format == nil || f.Get == nil {
			t.Errorf("%s: declared without a header, words, format or getter", f.Name)
		}
		if headers[f.Header] {
			t.Errorf("%s: header %q taken twice", f.Name, f.Header)
		}
		headers[f.Header] = true
		c := &RoundCost{}
		if v := f.Get(c); !v.IsZero() {
			t.Errorf("%s: its getter reads another field", f.Name)
		}
	}
	rt := reflect.TypeOf(RoundCost{})
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if sf.Type.Name() != "M[float64]" {
			continue // Txns: what the figures are per; the CPU by process, a breakdown
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if declared[name] != 1 {
			t.Errorf("RoundCost.%s (%s) is declared %d times, want once", sf.Name, name, declared[name])
		}
	}
}

// A figure's statistic is its declaration's, whatever its rounds hold: a
// geometric mean with a round of none is 0 (it was switched to the
// arithmetic mean by the data, so that one figure was two statistics), an
// arithmetic mean counts the round of none.
func TestAFiguresStatisticIsDeclaredNotSwitched(t *testing.T) {
	for _, f := range RoundFigures() {
		var rounds []Round
		for _, v := range []float64{4, 0, 8} {
			c := &RoundCost{}
			reflect.ValueOf(c).Elem().FieldByIndex(fieldIndex(t, f.Name)).Set(reflect.ValueOf(Of(v)))
			rounds = append(rounds, Round{Cost: c})
		}
		got, ok := CostMean(rounds, f)
		want := map[Statistic]float64{Geometric: 0, Arithmetic: 4}[f.Statistic]
		if !ok || got != want {
			t.Errorf("%s (%s): rounds 4, 0, 8 make %g, want %g", f.Name, f.Statistic, got, want)
		}
		rounds = rounds[:1]
		rounds = append(rounds, rounds[0])
		rounds[1].Cost = &RoundCost{}
		reflect.ValueOf(rounds[1].Cost).Elem().FieldByIndex(fieldIndex(t, f.Name)).Set(reflect.ValueOf(Of(16.0)))
		want = map[Statistic]float64{Geometric: 8, Arithmetic: 10}[f.Statistic]
		if got, _ := CostMean(rounds, f); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s (%s): rounds 4, 16 make %g, want %g", f.Name, f.Statistic, got, want)
		}
	}
	note := StatisticNote(RoundFigures())
	for _, f := range RoundFigures() {
		if !strings.Contains(note, f.Header) {
			t.Errorf("the legend %q does not say how %s is made", note, f.Header)
		}
	}
}

// fieldIndex is the index of RoundCost's field of a JSON name.
func fieldIndex(t *testing.T, name string) []int {
	rt := reflect.TypeOf(RoundCost{})
	for i := range rt.NumField() {
		if JSONName(rt.Field(i)) == name {
			return rt.Field(i).Index
		}
	}
	t.Fatalf("RoundCost has no field %s", name)
	return nil
}
