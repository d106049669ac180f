package results

import (
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
