package workload

import "testing"

// TestSplitQualified: --like's name is read as SQL reads a qualified
// name: quoted parts as written, unquoted ones folded.
func TestSplitQualified(t *testing.T) {
	for in, want := range map[string][2]string{
		"App.Orders":                  {"app", "orders"},
		`"My ""Shop"""."Order; DROP"`: {`My "Shop"`, "Order; DROP"},
		`"a.b".c`:                     {"a.b", "c"},
	} {
		s, tb, ok := SplitQualified(in)
		if !ok || s != want[0] || tb != want[1] {
			t.Errorf("%s: %q %q %v, want %q %q", in, s, tb, ok, want[0], want[1])
		}
	}
	for _, bad := range []string{"orders", "a.b.c", `"a.b`, "a.", ".b", `"a"x.b`} {
		if _, _, ok := SplitQualified(bad); ok {
			t.Errorf("%s accepted", bad)
		}
	}
}
