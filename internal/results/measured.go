package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// M is a figure that was measured, or the reason it could not be: keybench
// never prints a zero for a figure it did not collect. In results.json a
// measured figure is its plain JSON value and an unmeasured one reads
// {"unavailable": "reason"}; a figure that does not apply to the cell (never
// set) is left out (tag the field omitzero).
type M[T any] struct {
	v      T
	reason string
	set    bool
}

// Of is a measured figure.
func Of[T any](v T) M[T] { return M[T]{v: v, set: true} }

// Unavailable is a figure that could not be measured, with the reason.
func Unavailable[T any](reason string) M[T] {
	if reason == "" {
		reason = "not measured"
	}
	return M[T]{reason: reason, set: true}
}

// Get returns the figure and whether it was measured.
func (m M[T]) Get() (T, bool) { return m.v, m.set && m.reason == "" }

// Value is the figure, or T's zero value when it was not measured.
func (m M[T]) Value() T { return m.v }

// Reason is why the figure was not measured ("" when it was, or when it was never set).
func (m M[T]) Reason() string { return m.reason }

// IsZero reports a figure that was never set (neither measured nor marked unavailable).
func (m M[T]) IsZero() bool { return !m.set }

// Text renders a measured figure with format, or "unavailable" / "n/a"
// (never set) for one that was not.
func (m M[T]) Text(format func(T) string) string {
	switch {
	case !m.set:
		return "n/a"
	case m.reason != "":
		return "unavailable"
	}
	return format(m.v)
}

// MarshalJSON writes the value, or {"unavailable": reason}. A value JSON
// cannot hold (a NaN from the server, an infinity) is written as unavailable
// with the reason, so that one odd figure never costs a run its results file.
func (m M[T]) MarshalJSON() ([]byte, error) {
	if m.reason != "" || !m.set {
		return json.Marshal(unavailableJSON{m.reason})
	}
	b, err := json.Marshal(m.v)
	if err != nil {
		return json.Marshal(unavailableJSON{"not recorded: " + err.Error()})
	}
	return b, nil
}

// UnmarshalJSON reads either form.
func (m *M[T]) UnmarshalJSON(b []byte) error {
	if r, ok := unavailableIn(b); ok {
		*m = Unavailable[T](r)
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = Of(v)
	return nil
}

type unavailableJSON struct {
	Unavailable string `json:"unavailable"`
}

// unavailableIn reports whether b is {"unavailable": "reason"}.
func unavailableIn(b []byte) (string, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return "", false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) != nil || len(probe) != 1 {
		return "", false
	}
	raw, ok := probe["unavailable"]
	if !ok {
		return "", false
	}
	var r string
	if json.Unmarshal(raw, &r) != nil {
		return "", false
	}
	return r, true
}

// PerRow divides a count by the rows it is spread over, or says why it cannot.
func PerRow(v float64, rows int64) M[float64] {
	if rows <= 0 {
		return Unavailable[float64]("no rows inserted")
	}
	return Finite(v / float64(rows))
}

// Finite is a measured float, or unavailable when it is not a number JSON can hold.
func Finite(v float64) M[float64] {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Unavailable[float64](fmt.Sprintf("not recorded: %v", v))
	}
	return Of(v)
}

// Zero is a measured figure of T's zero value: what a test that fills every
// figure of a struct by reflection sets (it cannot name T).
func (m M[T]) Zero() M[T] { var v T; return Of(v) }
