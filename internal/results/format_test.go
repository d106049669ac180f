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

// TestDigits: two significant digits as a sentence writes a ratio or a
// time, where %.2g wrote 8.9e-05 and 1.5e+02.
func TestDigits(t *testing.T) {
	for v, want := range map[float64]string{0.0000894: "0.000089", 152: "152", 0.16: "0.16", 3.14159: "3.1", 1234.5: "1235"} {
		if got := Digits(v, 2); got != want {
			t.Errorf("Digits(%g, 2) = %q, want %q", v, got, want)
		}
	}
}

// TestShareText: whole percents from 1%, a smaller share in one
// significant digit (a key index holding 0.3% of the cache printed 0%).
func TestShareText(t *testing.T) {
	for v, want := range map[float64]string{0: "0%", 0.003: "0.3%", 0.00042: "0.04%", 0.012: "1%", 0.5: "50%", 0.996: "99.6%", 0.99999: "100%", 0.00996: "1%"} {
		if got := ShareText(v); got != want {
			t.Errorf("ShareText(%g) = %q, want %q", v, got, want)
		}
	}
}
