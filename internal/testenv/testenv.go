// Package testenv says what a test may do on the machine it runs on.
package testenv

import (
	"os"
	"testing"
)

// Skip skips a test that cannot run on this machine (no root, no
// Chromium, no pseudo-terminals) — unless CI=true: there every test guards
// a promise of the README, and one that cannot run is a failure, not a
// silent loss of the coverage.
func Skip(t testing.TB, format string, a ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("cannot run under CI=true, where every test must: "+format, a...)
	}
	t.Skipf(format, a...)
}
