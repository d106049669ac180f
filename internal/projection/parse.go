package projection

import (
	"errors"
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
	return scaled(s, num, mult, MaxBytes, "bytes")
}

// The largest sizes and counts a projection takes: an exbibyte, and a
// quadrillion rows (PostgreSQL's largest table, 32 TB, holds about 10^12).
const (
	MaxBytes = 1 << 60
	MaxCount = 1e15
)

// ParseCount reads a count: digits, a float ("1e9"), or a number with K, M
// or B (thousand, million, billion: "800M", "1B").
func ParseCount(s string) (int64, error) {
	num, unit := splitUnit(s)
	mult, ok := map[string]float64{"": 1, "k": 1e3, "m": 1e6, "b": 1e9}[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("%q: a count is a number, with K, M or B (thousand, million, billion) at most", s)
	}
	return scaled(s, num, mult, MaxCount, "")
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

func scaled(s, num string, mult, most float64, unit string) (int64, error) {
	v, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(v):
		return 0, fmt.Errorf("%q is not a number", s)
	case v <= 0:
		return 0, fmt.Errorf("%q must be positive", s)
	case v*mult > most || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is too large: at most %s", s, strings.TrimSpace(fmt.Sprintf("%g %s", most, unit)))
	}
	return int64(math.Round(v * mult)), nil
}
