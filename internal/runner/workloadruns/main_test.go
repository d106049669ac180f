// Package workloadruns_test runs the runner's longest integration tests —
// the time preset's workloads on tables partitioned by day and not, every
// lookup query kind over a filled table — in a test binary of their own
// beside a server of their own, so that neither this package nor package
// runner needs more than half of go test's time on a busy 2-core machine.
package workloadruns_test

import (
	"os"
	"testing"

	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
)

func TestMain(m *testing.M) {
	os.Exit(servertest.Main(m, server.Options{ColdCache: true}))
}
