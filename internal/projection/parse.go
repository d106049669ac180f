package projection

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBytes reads a size as PostgreSQL writes one: a number and a unit of
// B, kB, MB, GB or TB (powers of 1024; "GiB", "G" and lower case accepted).
func ParseBytes(s string) (int64, error) {
	num, unit := splitUnit(s)
	units := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}
	mult, ok := units[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("%q: the unit must be B, kB, MB, GB or TB", s)
	}
	return scaled(s, num, mult)
}

// ParseCount reads a count: digits, a float ("1e9"), or a number with K, M
// or B (thousand, million, billion: "800M", "1B").
func ParseCount(s string) (int64, error) {
	num, unit := splitUnit(s)
	mult, ok := map[string]float64{"": 1, "k": 1e3, "m": 1e6, "b": 1e9}[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("%q: a count is a number, with K, M or B (thousand, million, billion) at most", s)
	}
	return scaled(s, num, mult)
}

func splitUnit(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := len(s)
	for i > 0 && (s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= 'A' && s[i-1] <= 'Z') {
		i--
	}
	if strings.HasSuffix(strings.ToLower(s[:i]), "e") { // "1e9": the e belongs to the number
		return s, ""
	}
	return strings.TrimSpace(s[:i]), s[i:]
}

func scaled(s, num string, mult float64) (int64, error) {
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a positive size", s)
	}
	return int64(math.Round(v * mult)), nil
}
