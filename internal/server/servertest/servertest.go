// Package servertest gives a test package one embedded server for all its
// tests, started in TestMain.
package servertest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/keybench/keybench/internal/server"
)

// Server is the package's server, set by Main before the tests run.
var Server *server.Embedded

// Main starts an embedded server (PostgreSQL 18 unless KEYBENCH_TEST_PG_VERSION
// says otherwise), runs the tests, stops the server and returns the exit code.
func Main(m *testing.M, o server.Options) int {
	if o.Version == "" {
		o.Version = os.Getenv("KEYBENCH_TEST_PG_VERSION")
	}
	o.Logf = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	s, err := server.Start(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "servertest: starting the embedded server:", err)
		return 1
	}
	Server = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "servertest: stopping:", err)
	}
	return code
}
