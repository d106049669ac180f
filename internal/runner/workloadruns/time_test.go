package workloadruns_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/runner/runnertest"

	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
	"github.com/keybench/keybench/internal/workload/rangequery"
	"github.com/keybench/keybench/internal/workload/retention"
)

// TestTimeInTheKey (issue 29): the time preset's workloads through the
// runner on tables partitioned by day and not, checked by the directions
// the physics makes certain. A recent range query reads about as many
// blocks through a uuidv7 key as through a created_at index, and far
// fewer than a scan of a uuidv4 table without one; the partitioned table
// scans one partition. A partition drop writes orders of magnitude fewer
// WAL records than a DELETE of the same rows and expires the same rows;
// every row check holds with the rows the expiries took; the dropped
// partitions leave keybench's ledger with their tables.
func TestTimeInTheKey(t *testing.T) {
	keys := "uuidv7:created-at=column,uuidv7:created-at=indexed,uuidv4:created-at=column,uuidv7:partition=1d,uuidv4:created-at=indexed:partition=1d"
	cfg := runnertest.Config(t, "range-query", keys, func(p *scenario.Params) {
		p.Workload, p.Rows, p.History, p.Clients, p.Rounds, p.Duration = "range-query,retention", []int64{60_000}, 6*24*time.Hour, []int{2}, 3, 3*time.Second
		p.Options = map[string]string{"window": "1h", "recent-rows": "0.1", "expire": "1d"}
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]float64{}
	var dropped, deleted []retention.Expiry
	for _, c := range res.Cells {
		if c.Status != results.StatusOK || c.RowCheck == nil || !c.RowCheck.OK {
			t.Fatalf("%s %s: %s %s %+v", c.Workload, c.Key, c.Status, c.Error, c.RowCheck)
		}
		switch s := c.Metrics.Summary.(type) {
		case *rangequery.RangeQuerySummary:
			b, ok := c.Metrics.BlocksPerTxn.Get()
			if !ok || s.RowsPerRead < 380 || s.RowsPerRead > 450 { // an hour of 10,000 rows a day: 417
				t.Fatalf("%s: blocks %v, %.0f rows a query", c.Key, c.Metrics.BlocksPerTxn, s.RowsPerRead)
			}
			blocks[c.Key] = b.Hit + b.Read
			plan, _ := s.Plan.Get()
			// An hour's window scans one daily partition, or two where it
			// spans a midnight (the window EXPLAIN reads is placed by the
			// history, which ends at the test's time of day).
			if strings.Contains(c.Key, "partition") && (plan.Scanned < 1 || plan.Scanned > 2 || s.Partitions < 7) {
				t.Errorf("%s: the plan scanned %d of %d partitions", c.Key, plan.Scanned, s.Partitions)
			}
		case *retention.RetentionSummary:
			if len(s.Expiries) != 3 || s.FirstSlice == nil {
				t.Fatalf("%s: %d expiries, first slice %v", c.Key, len(s.Expiries), s.FirstSlice)
			}
			for _, e := range s.Expiries {
				if e.Rows != 10_000 {
					t.Errorf("%s round %d expired %d rows, want a day's 10,000", c.Key, e.Round, e.Rows)
				}
				if e.Partition != "" {
					dropped = append(dropped, e)
				} else {
					deleted = append(deleted, e)
				}
			}
			if parts, ok := c.Metrics.Partitions.Get(); strings.Contains(c.Key, "partition") && (!ok || len(parts) < 5) {
				t.Errorf("%s: partitions at the end %v", c.Key, c.Metrics.Partitions)
			}
		}
	}
	if v7, idx, scan := blocks["uuidv7:created-at=column"], blocks["uuidv7:created-at=indexed"], blocks["uuidv4:created-at=column"]; v7 > 1.5*idx || idx > 1.5*v7 || scan < 10*v7 {
		t.Errorf("blocks per query: through the uuidv7 key %.1f, the created_at index %.1f, a scan %.1f", v7, idx, scan)
	}
	if len(dropped) != 6 || len(deleted) != 9 {
		t.Fatalf("%d drops, %d deletes", len(dropped), len(deleted))
	}
	if w, ok := dropped[0].WAL.Get(); ok {
		if ew, ok := deleted[0].WAL.Get(); ok {
			t.Logf("a drop: %d records, %d B (%d B of images); a DELETE of %d rows: %d records, %d B (%d B of images)",
				w.Records, w.Bytes, w.FPIBytes, deleted[0].Rows, ew.Records, ew.Bytes, ew.FPIBytes)
		}
	}
	for _, d := range dropped {
		w, ok := d.WAL.Get()
		if !ok || !strings.HasPrefix(d.Locks, "AccessExclusiveLock") {
			t.Fatalf("drop %+v", d)
		}
		for _, e := range deleted {
			// A record per row against a catalog change: two orders of
			// magnitude in records and in the bytes beside the images (the
			// images after the round's checkpoint, a drop's of catalog
			// pages, are as many as the pages first touched).
			if ew, ok := e.WAL.Get(); !ok || ew.Records < 100*w.Records || ew.Bytes-ew.FPIBytes < 30*(w.Bytes-w.FPIBytes) || ew.Bytes < 3*w.Bytes ||
				!strings.HasPrefix(e.Locks, "RowExclusiveLock") {
				t.Errorf("a drop wrote %d records (%d B, %d B of images), a DELETE of as many rows %d (%d B, %d B of images), locks %q",
					w.Records, w.Bytes, w.FPIBytes, ew.Records, ew.Bytes, ew.FPIBytes, e.Locks)
			}
		}
	}
	// The file reads back and renders (a summary's name once took a figure's).
	back, err := verdict.Read(filepath.Join(cfg.Out, "results.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.Render(back, nil); err != nil {
		t.Fatal(err)
	}
	var sum strings.Builder
	report.WriteSummary(&sum, back, 0)
	for _, want := range []string{"EXPIRY TIME", "WAL / EXPIRY", "BLOCKS / QUERY"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	if !regexp.MustCompile(`[12] of \d+ partitions`).MatchString(sum.String()) {
		t.Errorf("summary lacks the partitions a plan scanned:\n%s", sum.String())
	}
	// The workspace is gone with its tables and their partitions.
	if runnertest.SchemaExists(t, "kbtest") {
		c := servertest.Connect(t)
		var n int
		if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'kbtest' AND c.relname LIKE 'kb_cell%'").Scan(&n); err != nil || n != 0 {
			t.Errorf("%d of keybench's relations left (%v)", n, err)
		}
	}
}

// TestTimePresetQuestions: the time preset's questions name keys it
// measures, tasks it runs and figures their kinds show.
func TestTimePresetQuestions(t *testing.T) {
	sc, err := scenario.Lookup("time")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Questions) != 3 {
		t.Fatalf("%d questions", len(sc.Questions))
	}
	for _, q := range sc.Questions {
		for _, k := range q.Keys {
			if !strings.Contains(","+strings.Join(sc.Defaults.Keys, ",")+",", ","+k+",") {
				t.Errorf("%q: key %s is not the preset's", q.Ask, k)
			}
		}
		for _, p := range q.Parts {
			if !strings.Contains(","+sc.Defaults.Workload+",", ","+p.Task+",") {
				t.Errorf("%q: task %s is not the preset's", q.Ask, p.Task)
			}
			for _, f := range p.Figures {
				if _, ok := report.FigureColumn(p.Task, f); !ok {
					t.Errorf("%q: %s shows no figure %q", q.Ask, p.Task, f)
				}
			}
		}
	}
}
