package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/driver"
)

// TestAnEmptyWindowSaysWhy: a window in which no transaction completed
// fails, and says whether keybench stalled or the server did not answer
// (CI saw a bare "no transaction completed" on a busy machine).
func TestAnEmptyWindowSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		d    driver.Result
		want string
	}{
		{driver.Result{Txns: 5}, ""},
		{driver.Result{Elapsed: time.Second}, "no transaction completed in the window (1.0 s)"},
		{driver.Result{Elapsed: time.Second, Unfinished: 2, LongestUnfinished: 1300 * time.Millisecond}, "2 clients were still in a transaction at its end, the longest for 1.3 s"},
		{driver.Result{Elapsed: time.Second, StalledS: 0.9, Stalls: []driver.Stall{{AtS: 0.1, Seconds: 0.9}}, Unfinished: 2}, "keybench did not run for at least 0.9 s"},
	} {
		err := windowFailure(&tc.d)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v, want no failure", tc.d, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want %q", tc.d, err, tc.want)
		}
	}
}
