package usage

import "testing"

func TestSuggest(t *testing.T) {
	valid := []string{"bigint", "int", "uuidv4", "uuidv7", "seq-uuid-time", "ulid"}
	for _, tc := range []struct{ in, want string }{
		{"uuid7", ` (did you mean "uuidv7"?)`},
		{"bigitn", ` (did you mean "bigint"?)`},
		{"uuidv4", ""},
		{"postgres", ""},
		{"seq-uuid-tim", ` (did you mean "seq-uuid-time"?)`},
	} {
		if got := Suggest(tc.in, valid); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
