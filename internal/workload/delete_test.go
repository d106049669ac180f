package workload_test

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workload/deleterows"
)

// TestMain gives the package's tests that run a workload on a server one
// embedded server (the fuzz-free unit tests need none, but share it).
func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(servertest.Main(m, server.Options{ColdCache: true}))
}

// TestDeleteOptions: delete declares its options (batch, read-dist with
// oldest, recent-rows) and needs a filled table and a key index.
func TestDeleteOptions(t *testing.T) {
	b, err := workload.Build("delete", workload.Setup{Rows: 100}, map[string]string{"read-dist": "oldest", "batch": "10"})
	if err != nil || b.Options["read-dist"] != "oldest" || b.Options["batch"] != "10" || strings.Join(b.Variant, " ") != "oldest" {
		t.Errorf("delete read-dist=oldest batch=10: %v %+v", err, b.Options)
	}
	for _, bad := range []map[string]string{{"batch": "0"}, {"read-dist": "newest"}, {"read-dist": "recent", "recent-rows": "NaN"}} {
		if _, err := workload.Build("delete", workload.Setup{Rows: 100}, bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := workload.Build("delete", workload.Setup{}, nil); err == nil {
		t.Error("an empty table accepted")
	}
	m, _ := workload.Lookup("delete")
	if s, _ := keys.Parse("uuidv4:index=none"); m.Accepts(s) == "" {
		t.Error("a key without an index accepted")
	}
}

// TestDeleteEndToEnd deletes the oldest rows (retention) and random rows
// of a bigint and a uuidv4 table: every cell deletes rows, the server
// counted the deletes the clients said (the row check), VACUUM after the
// window removed the key index's dead entries, and deleting the oldest
// rows empties whole leaf pages of the time-ordered key's index, which
// VACUUM frees, where the random key's oldest rows are spread over all.
func TestDeleteEndToEnd(t *testing.T) {
	sc, err := scenario.Workload("delete")
	if err != nil {
		t.Fatal(err)
	}
	p := sc.Params(false)
	p.Rows, p.Clients, p.Warmup, p.Duration, p.Rounds, p.RoundsGiven = []int64{100_000}, []int{2}, 200*time.Millisecond, time.Second, 1, true
	p.Options = map[string]string{"read-dist": "oldest,uniform", "batch": "5"}
	specs, err := keys.ParseList("bigint,uuidv4")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := scenario.Build(sc, p, specs)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := pgx.ParseConfig(servertest.Server.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), runner.Config{Plan: plan, ConnConfig: cc, Schema: "kbdelete", Out: t.TempDir(), Seed: 1,
		UI: runner.NewUI(io.Discard), Version: "test", Sampling: true})
	if err != nil {
		t.Fatal(err)
	}
	freed := map[string]int64{}
	for _, c := range res.Cells {
		s, ok := c.Metrics.Summary.(*deleterows.DeleteSummary)
		if c.Status != results.StatusOK || !ok {
			t.Fatalf("%s %s: %s %s (summary %T)", c.Key, c.Task(), c.Status, c.Error, c.Metrics.Summary)
		}
		if c.RowsDeleted == 0 || c.RowCheck == nil || c.RowCheck.Written == nil || !c.RowCheck.Written.OK || c.RowCheck.Written.Server.Deleted == 0 {
			t.Errorf("%s %s: deleted %d, row check %+v", c.Key, c.Task(), c.RowsDeleted, c.RowCheck)
		}
		if c.Options["read-dist"] == "" || c.Options["batch"] != "5" {
			t.Errorf("%s %s: options %v", c.Key, c.Task(), c.Options)
		}
		v, ok := s.Vacuum.Get()
		if !ok {
			t.Fatalf("%s %s: vacuum %s", c.Key, c.Task(), s.Vacuum.Reason())
		}
		removed, ok := v.KeyIndexRemoved.Get()
		if !ok || removed <= 0 || removed > s.Deleted+c.RowCheck.Written.Server.Deleted {
			t.Errorf("%s %s: VACUUM removed %v key index entries after %d deletes", c.Key, c.Task(), v.KeyIndexRemoved, s.Deleted)
		}
		if c.Options["read-dist"] == "oldest" {
			freed[c.Key], _ = v.KeyIndexFreed.Get()
		}
		t.Logf("%s %s: %.0f deletes/s, %d rows deleted, VACUUM %.2f s removed %v entries, freed %v pages", c.Key, c.Task(), c.Rate(), s.Deleted, v.Seconds, removed, v.KeyIndexFreed)
	}
	if freed["bigint"] <= freed["uuidv4"] {
		t.Errorf("deleting the oldest rows: VACUUM freed %d key index pages of bigint, %d of uuidv4", freed["bigint"], freed["uuidv4"])
	}
}
