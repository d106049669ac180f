// Package onyourserver_test runs keybench on someone else's server as a
// user does — a role with only CREATE on one database, its password in
// the DSN, the environment and ~/.pgpass — and checks that the database is
// as it was after every preset, that no secret is printed, and that the
// user's schemas and tables are never dropped. It is package cli's tests
// of that promise, in a test binary of their own so that neither package
// needs more than half of go test's time on a busy 2-core machine.
package onyourserver_test

import (
	"os"
	"testing"

	"github.com/keybench/keybench/internal/cli/clitest"
)

var bin string // the keybench binary TestMain built

// TestMain builds the keybench binary; a server of the package's own
// stands for someone else's.
func TestMain(m *testing.M) { os.Exit(clitest.Main(m, &bin)) }

// keybench runs the package's binary (clitest.Run).
func keybench(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return clitest.Run(t, bin, args...)
}
