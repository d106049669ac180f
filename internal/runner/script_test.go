package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/runner/runnertest"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workload/script"
)

// TestScriptRunsTheUsersSQL: a script of an INSERT with :key and a SELECT
// by :key runs on the keyed table keybench makes in its own schema for each
// key, the keys made by keybench (the script names :key, so even a key the
// server could make), its rows counted from the statements' command tags
// as the server counts them (the row check), each read finding its row.
func TestScriptRunsTheUsersSQL(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mine.sql")
	src := "\\set d random(1, :rows)\nINSERT INTO :table (id, data, payload)\n  VALUES (:key, :d, 'x');\nSELECT id FROM :table WHERE id = :key;\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := runnertest.Config(t, script.Name, "uuidv4,bigint", func(p *scenario.Params) {
		p.Options = map[string]string{"file": file}
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Status != results.StatusOK || c.Txns == 0 {
			t.Fatalf("%s: %s %s", c.Key, c.Status, c.Error)
		}
		if c.RowCheck == nil || !c.RowCheck.OK || c.RowCheck.Written == nil || !c.RowCheck.Written.OK {
			t.Errorf("%s: row check %+v", c.Key, c.RowCheck)
		}
		if c.RowsRead != c.RowsInserted || c.KeyGen != "client" {
			t.Errorf("%s: %d rows read for %d inserted, keys made by %s", c.Key, c.RowsRead, c.RowsInserted, c.KeyGen)
		}
		s, ok := c.Metrics.Summary.(*script.Summary)
		if !ok || s.Text != src {
			t.Errorf("%s: summary %+v", c.Key, c.Metrics.Summary)
		}
		for _, ddl := range c.DDL {
			if len(ddl) > 0 && !strings.Contains(ddl, "kbtest.") {
				t.Errorf("%s: DDL outside keybench's schema: %s", c.Key, ddl)
			}
		}
	}
}

// TestSecondaryIndexesRun: a table with a random and a time secondary
// index (--secondary) fills, takes inserts whose secondary values the
// server makes, and its rows check with the server's; its DDL holds both
// indexes and the indexes' size is more than the key index's.
func TestSecondaryIndexesRun(t *testing.T) {
	sec, err := workload.ParseSecondary("random:40,time")
	if err != nil {
		t.Fatal(err)
	}
	cfg := runnertest.Config(t, "insert", "uuidv4,bigint", func(p *scenario.Params) { p.Secondary = sec })
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Plan.Secondary, ",") != "random:40,time" {
		t.Errorf("plan records %v", res.Plan.Secondary)
	}
	for _, c := range res.Cells {
		if c.Status != results.StatusOK || c.RowCheck == nil || !c.RowCheck.OK {
			t.Fatalf("%s: %s %s, row check %+v", c.Key, c.Status, c.Error, c.RowCheck)
		}
		ddl := strings.Join(c.DDL, ";")
		if !strings.Contains(ddl, "CREATE UNIQUE INDEX kb_cell_sec1_idx") || !strings.Contains(ddl, "CREATE INDEX kb_cell_sec2_idx") {
			t.Errorf("%s: DDL %s", c.Key, ddl)
		}
		ix, okI := c.Metrics.IndexBytes.Get()
		key, okK := c.Metrics.KeyIndexBytes.Get()
		if !okI || !okK || ix < 2*key {
			t.Errorf("%s: indexes %d bytes, key index %d: the secondary indexes are missing", c.Key, ix, key)
		}
	}
}
