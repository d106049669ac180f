package cli

import (
	"strings"
	"testing"
	"time"
)

// TestPgbenchDurations: -T and --warmup take seconds as pgbench does, or a duration.
func TestPgbenchDurations(t *testing.T) {
	for in, want := range map[string]time.Duration{"10": 10 * time.Second, "2.5": 2500 * time.Millisecond, "1m30s": 90 * time.Second, "500ms": 500 * time.Millisecond} {
		var d pgDuration
		if err := d.UnmarshalText([]byte(in)); err != nil || time.Duration(d) != want {
			t.Errorf("%s: %v %v, want %v", in, time.Duration(d), err, want)
		}
	}
	if got := negativeValues([]string{"run", "-c", "-4", "--rows", "-1", "-T", "10"}); strings.Join(got, " ") != "run -c-4 --rows=-1 -T 10" {
		t.Errorf("negativeValues: %q", got)
	}
}
