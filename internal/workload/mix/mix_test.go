package mix

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/workload"
)

// TestDrawKeepsTheShares: draws over the cumulative weights land on each
// kind in its share (within five standard errors of 100,000 draws), never
// on a kind of weight 0, and a draw at the very top lands on the last kind
// that has a weight.
func TestDrawKeepsTheShares(t *testing.T) {
	weight := []float64{10, 70, 0, 15, 5}
	cum := Cumulative(weight)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100_000
	var got [5]int
	for range n {
		got[Draw(cum, rng.Float64())]++
	}
	for k, w := range weight {
		p := w / 100
		se := math.Sqrt(p * (1 - p) / n)
		if share := float64(got[k]) / n; math.Abs(share-p) > 5*se+1e-12 {
			t.Errorf("%s: drawn %.4f of the time, its share is %.2f", Kinds[k], share, p)
		}
	}
	if got[Range] != 0 {
		t.Errorf("a kind of weight 0 was drawn %d times", got[Range])
	}
	if k := Draw(cum, math.Nextafter(1, 0)); k != Delete {
		t.Errorf("a draw at the top landed on %s, not delete", Kinds[k])
	}
	if k := Draw([]float64{0.5, 1 - 1e-17, 1 - 1e-17}, 1-1e-18); k != 1 {
		t.Errorf("a draw above a rounded total landed on %d, not the last kind with a weight", k)
	}
}

// TestMixIsChecked: a mix of no weight, or one that reads rows of an empty
// table, is refused with what to change.
func TestMixIsChecked(t *testing.T) {
	for _, tc := range []struct {
		values map[string]string
		rows   int64
		want   string
	}{
		{map[string]string{"mix-insert": "0", "mix-lookup": "0"}, 1000, "every weight is 0"},
		{map[string]string{"mix-insert": "1", "mix-lookup": "0", "mix-delete": "3"}, 0, "--rows must be at least 1"},
	} {
		_, err := workload.Build("mix", workload.Setup{Rows: tc.rows, Clients: 1}, tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v on %d rows: %v, want %q", tc.values, tc.rows, err, tc.want)
		}
	}
	if _, err := workload.Build("mix", workload.Setup{Rows: 0, Clients: 1}, map[string]string{"mix-lookup": "0"}); err != nil {
		t.Errorf("inserts alone on an empty table: %v", err)
	}
}

// TestTextSaysTheMix: the mix as a person reads it, in Kinds' order.
func TestTextSaysTheMix(t *testing.T) {
	got := Text(map[string]float64{"lookup": 0.9, "insert": 0.095, "delete": 0.005})
	if want := "9.5% inserts, 90% reads by key, 0.5% deletes by key"; got != want {
		t.Errorf("Text: %q, want %q", got, want)
	}
}
