package results

import "testing"

// TestSignificant: three significant digits, never an exponent, never a
// small count written as zero.
func TestSignificant(t *testing.T) {
	for v, want := range map[float64]string{0.00022: "0.00022", 0.000224: "0.000224", 0.375: "0.375", 45.54: "45.5", 12528: "12528", 1.5: "1.5", 0: "0"} {
		if got := Significant(v); got != want {
			t.Errorf("Significant(%g) = %q, want %q", v, got, want)
		}
	}
}
