package results

import (
	"encoding/json"
	"math"
	"testing"
)

func TestPerRow(t *testing.T) {
	if v, ok := PerRow(300, 100).Get(); !ok || v != 3.0 {
		t.Errorf("PerRow = %v, %v", v, ok)
	}
	if m := PerRow(300, 0); m.Reason() == "" {
		t.Errorf("PerRow with no rows = %+v, want unavailable with a reason", m)
	}
}

// A figure reads back as it was written: measured, unavailable with its
// reason, or left out when it was never set; a NaN is written as unavailable.
func TestMeasuredJSON(t *testing.T) {
	type figs struct {
		A M[int64]    `json:"a,omitzero"`
		B M[float64]  `json:"b,omitzero"`
		C M[float64]  `json:"c,omitzero"`
		D M[Blocks]   `json:"d,omitzero"`
		E M[[]string] `json:"e,omitzero"`
		F M[float64]  `json:"f,omitzero"`
	}
	in := figs{A: Of[int64](7), B: Unavailable[float64]("no permission"), D: Of(Blocks{HeapRead: 3}), E: Of([]string{"x"}), F: Finite(math.NaN())}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":7,"b":{"unavailable":"no permission"},"d":{"heap_blks_read":3,"heap_blks_hit":0,"idx_blks_read":0,"idx_blks_hit":0,"toast_blks_read":0,"toast_blks_hit":0},"e":["x"],"f":{"unavailable":"not recorded: NaN"}}`
	if string(b) != want {
		t.Fatalf("marshal:\n got %s\nwant %s", b, want)
	}
	var out figs
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if v, ok := out.A.Get(); !ok || v != 7 {
		t.Errorf("a = %+v", out.A)
	}
	if _, ok := out.B.Get(); ok || out.B.Reason() != "no permission" || out.B.Text(func(float64) string { return "x" }) != "unavailable" {
		t.Errorf("b = %+v", out.B)
	}
	if !out.C.IsZero() || out.C.Text(func(float64) string { return "x" }) != "n/a" {
		t.Errorf("c = %+v, want never set", out.C)
	}
	if d, ok := out.D.Get(); !ok || d.HeapRead != 3 {
		t.Errorf("d = %+v", out.D)
	}
}
