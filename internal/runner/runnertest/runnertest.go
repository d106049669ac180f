// Package runnertest builds the runner's configurations for the tests of
// package runner and of the packages its long integration tests are split
// into (each a test binary of its own beside a server of its own,
// servertest.Server, so that no package of them needs more than half of
// go test's time on a busy 2-core machine).
package runnertest

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server/servertest"
)

// Config is a small run of workload (a scenario's name) over keyList on
// the package's server: 2,000 rows, 3 clients, one round of a second after
// 200 ms of warm-up, unless p changes them; results in a directory of the
// test's, keybench's schema kbtest.
func Config(t *testing.T, workload string, keyList string, p func(*scenario.Params)) runner.Config {
	t.Helper()
	sc, err := scenario.Lookup(workload)
	if err != nil {
		t.Fatal(err)
	}
	params := sc.Defaults
	params.Rows, params.Warmup, params.Duration, params.Clients, params.Rounds = []int64{2000}, 200*time.Millisecond, time.Second, []int{3}, 1
	if p != nil {
		p(&params)
	}
	params.RoundsGiven = true // the test's rounds, not the scenario's
	specs, err := keys.ParseList(keyList)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := pgx.ParseConfig(servertest.Server.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := scenario.Build(sc, params, specs)
	if err != nil {
		t.Fatal(err)
	}
	return runner.Config{Plan: plan, ConnConfig: cc, Schema: "kbtest",
		Out: t.TempDir(), Seed: 1, UI: runner.NewUI(io.Discard), Version: "test", Sampling: true}
}

// SchemaExists says whether the package's server has the schema name.
func SchemaExists(t *testing.T, name string) bool {
	t.Helper()
	var n int
	if err := servertest.Connect(t).QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}
