package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/runner/runnertest"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workload/all"
	"github.com/keybench/keybench/internal/workload/bulk"
	"github.com/keybench/keybench/internal/workload/queue"
)

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		os.Exit(m.Run()) // the fuzz targets need no server
	}
	os.Exit(servertest.Main(m, server.Options{ColdCache: true}))
}

var allMetrics = []string{"table_bytes", "toast_bytes", "index_bytes", "total_bytes", "index_bytes_after_reindex",
	"key_index_bytes", "key_index_bytes_after_reindex", "bloat_ratio", "leaf_density", "leaf_fragmentation",
	"wal_bytes", "wal_records", "wal_fpi", "wal_bytes_per_row", "wal_fpi_per_row", "wal_records_per_row",
	"wal_fpi_by_relation", "key_index_fpi_per_row", "btree_splits", "btree_splits_per_row", "blocks_per_txn", "tuples", "key_index_growth_per_row", "cache_bytes", "key_index_cache_ratio", "table_cache_ratio", "replication", "sizes_over_time", "buffercache", "wait_events", "sampling", "io", "blocks", "disk", "checkpoints", "cpu"}

// asJSON is the cell's metrics as a tool reading results.json sees them.
func asJSON(t *testing.T, c *results.Cell) map[string]any {
	t.Helper()
	b, err := json.Marshal(c.Metrics)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// unavailableIn reads {"unavailable": "reason"}.
func unavailableIn(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	r, ok := m["unavailable"].(string)
	return r, ok
}

// TestRunMeasuresEveryCell runs both workloads with server- and client-made
// keys and checks every stable field, the row check and the written files.
func TestRunMeasuresEveryCell(t *testing.T) {
	for _, tc := range []struct{ workload, keys, readBy string }{
		{"insert", "bigint,uuidv4:gen=client,seq-uuid-seq:gen=server", ""},
		{"insert-read", "uuidv4:as=text,uuidv7:gen=client", "data"},
		{"insert-read", "bigint,ulid", "key"},
	} {
		cfg := runnertest.Config(t, tc.workload, tc.keys, func(p *scenario.Params) {
			if tc.readBy != "" {
				p.Options = map[string]string{"read-by": tc.readBy}
			}
		})
		res, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.workload, tc.keys, err)
		}
		if res.Status != results.StatusOK || res.Environment.ServerVersion == "" || len(res.Environment.Settings) == 0 {
			t.Fatalf("run: %+v", res)
		}
		if len(res.Cells) != len(cfg.Plan.Specs) {
			t.Fatalf("%d cells, want %d", len(res.Cells), len(cfg.Plan.Specs))
		}
		for _, c := range res.Cells {
			m := asJSON(t, &c)
			if c.Status != results.StatusOK || c.Txns == 0 || c.TPS <= 0 || c.RowsInserted == 0 || c.DurationS < 0.9 ||
				c.LatencyMS.P99 <= 0 || c.LatencyMS.Max < c.LatencyMS.P99 || len(c.Timeline) == 0 || c.RowsBefore != 2000 {
				t.Errorf("%s %s: cell %+v", tc.workload, c.Key, c)
			}
			if c.RowCheck == nil || !c.RowCheck.OK || c.RowCheck.Server < 2000+c.RowsInserted {
				t.Errorf("%s: row check %+v", c.Key, c.RowCheck)
			}
			for _, name := range []string{"table_bytes", "index_bytes", "total_bytes", "index_bytes_after_reindex", "key_index_bytes", "wal_bytes", "wal_records"} {
				if v, ok := m[name].(float64); !ok || v <= 0 {
					t.Errorf("%s: metric %s = %v", c.Key, name, m[name])
				}
			}
			// Every metric is there under its name, measured or with the reason it is not.
			for _, name := range allMetrics {
				v, ok := m[name]
				if !ok || v == nil {
					t.Errorf("%s: metric %s missing", c.Key, name)
				}
				if r, isUn := unavailableIn(v); isUn && r == "" {
					t.Errorf("%s: metric %s unavailable without a reason", c.Key, name)
				}
			}
			// This test server is reached like someone else's (--dsn): its disk and
			// processes are not keybench's to watch, and the results say so.
			if _, isUn := unavailableIn(m["disk"]); !isUn {
				t.Errorf("%s: disk measured on a --dsn server: %v", c.Key, m["disk"])
			}
			if cpu, ok := c.Metrics.CPU.Get(); !ok || cpu.ClientS <= 0 {
				t.Errorf("%s: cpu %+v", c.Key, c.Metrics.CPU)
			} else if _, measured := cpu.ServerS.Get(); measured {
				t.Errorf("%s: server CPU measured on a --dsn server", c.Key)
			}
			// Inserts split the key index's pages, and every transaction touches blocks.
			if sp, ok := c.Metrics.BtreeSplits.Get(); !ok || sp.Splits() == 0 {
				t.Errorf("%s: %d rows inserted without a page split of its key index: %+v", c.Key, c.RowsInserted, c.Metrics.BtreeSplits)
			}
			if b, ok := c.Metrics.BlocksPerTxn.Get(); !ok || b.Hit+b.Read < 1 {
				t.Errorf("%s: blocks per transaction %+v", c.Key, c.Metrics.BlocksPerTxn)
			}
			for _, name := range []string{"buffercache", "wait_events", "io", "leaf_density", "bloat_ratio", "wal_fpi_by_relation", "btree_splits", "blocks_per_txn", "sizes_over_time"} {
				if _, isUn := unavailableIn(m[name]); isUn {
					t.Errorf("%s: %s unavailable on a PostgreSQL 18 superuser connection: %v", c.Key, name, m[name])
				}
			}
		}
		if _, err := results.Read(filepath.Join(cfg.Out, "results.json"), all.Kinds()); err != nil {
			t.Error(err)
		}
		if runnertest.SchemaExists(t, "kbtest") {
			t.Error("keybench left its schema behind")
		}
	}
}

// TestRefusesForeignSchema never touches a schema keybench did not create.
func TestRefusesForeignSchema(t *testing.T) {
	c, err := pgx.Connect(context.Background(), servertest.Server.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "CREATE SCHEMA theirs; CREATE TABLE theirs.precious (x int)"); err != nil {
		t.Fatal(err)
	}
	cfg := runnertest.Config(t, "insert", "bigint", nil)
	cfg.Schema = "theirs"
	_, err = runner.Run(context.Background(), cfg)
	var ue *usage.Error
	if err == nil || !errors.As(err, &ue) {
		t.Fatalf("run in a foreign schema: %v", err)
	}
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'theirs'").Scan(&n); err != nil || n != 1 {
		t.Errorf("foreign schema changed: %d tables, %v", n, err)
	}
}

func TestInterruptKeepsFinishedCells(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "bigint,uuidv4,uuidv7", func(p *scenario.Params) { p.Rows = []int64{0} })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2500*time.Millisecond, cancel)
	res, err := runner.Run(ctx, cfg)
	if err != runner.ErrInterrupted || res.Status != results.StatusInterrupted {
		t.Fatalf("err %v, status %s", err, res.Status)
	}
	saved, err := results.Read(filepath.Join(cfg.Out, "results.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if saved.Status != results.StatusInterrupted || len(saved.Cells) == 0 || saved.Cells[0].Status != results.StatusOK {
		t.Errorf("saved: status %s, cells %+v", saved.Status, saved.Cells)
	}
}

// TestBulkLoadTimesChunksAndIndexBuild loads with the index in place and
// added afterwards, by COPY and by multi-row INSERT, and checks the chunk
// series, the separately timed index build and the row count.
func TestBulkLoadTimesChunksAndIndexBuild(t *testing.T) {
	for _, method := range []string{"copy", "insert"} {
		cfg := runnertest.Config(t, "bulk", "bigint,uuidv7:gen=client", func(p *scenario.Params) {
			p.Workload, p.Rows, p.Clients = "bulk,bulk-index-after", []int64{20000}, []int{1}
			p.Options = map[string]string{"chunk": "5000", "load-method": method}
		})
		res, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if len(res.Cells) != 4 {
			t.Fatalf("%d cells", len(res.Cells))
		}
		// results.json records how the load was run (issue 11: the plan dropped these).
		if res.Cells[0].Options["chunk"] != "5000" || res.Cells[0].Options["load-method"] != method || !res.Plan.Sampling {
			t.Errorf("plan %+v", res.Plan)
		}
		for _, c := range res.Cells {
			load, ok := c.Metrics.Summary.(*bulk.LoadSummary)
			var chunks []workload.Chunk
			if ok {
				chunks = load.Chunks
			}
			if c.Status != results.StatusOK || !ok || len(chunks) != 4 || c.RowsInserted != 20000 || c.RowCheck == nil || !c.RowCheck.OK || len(c.Timeline) != 4 {
				t.Fatalf("%s %s %s: %+v", method, c.Workload, c.Key, c)
			}
			for i, ch := range chunks {
				if ch.RowsBefore != int64(i)*5000 || ch.Rows != 5000 || ch.RowsPerS <= 0 {
					t.Errorf("%s %s: chunk %d = %+v", c.Workload, c.Key, i, ch)
				}
			}
			_, built := load.IndexBuildS.Get()
			if (c.Workload == "bulk-index-after") != built || load.IndexBuildS.IsZero() {
				t.Errorf("%s %s: index_build_s = %+v", c.Workload, c.Key, load.IndexBuildS)
			}
			for _, name := range []string{"load_rate_per_chunk", "load_s", "total_s", "load_method", "index_build_s", "last_to_first_chunk", "latency_unit"} {
				if _, ok := asJSON(t, &c)[name]; !ok {
					t.Errorf("%s %s: results.json has no metrics.%s", c.Workload, c.Key, name)
				}
			}
			if v, ok := c.Metrics.KeyIndexBytes.Get(); !ok || v <= 0 {
				t.Errorf("%s %s: no key index after the load", c.Workload, c.Key)
			}
		}
	}
}

// TestQueueMeasuresInAndOutAtOnce runs the queue preset's two workloads with
// a server-made and a client-made key (uuid[] arrays), and checks the roles'
// rates, the exact backlog against the server's row count and the skipped
// FIFO cell without an index.
func TestQueueMeasuresInAndOutAtOnce(t *testing.T) {
	cfg := runnertest.Config(t, "queue", "bigint:index=none,uuidv4,uuidv7:as=text", func(p *scenario.Params) {
		p.Rows, p.Clients, p.Options = []int64{500}, []int{4}, map[string]string{"partitions": "8", "batch": "100"}
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 5 || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "queue-fifo skips bigint:index=none") {
		t.Fatalf("%d cells, notes %q", len(res.Cells), res.Notes)
	}
	if res.Plan.Options["partitions"] != "8" || res.Cells[0].Options["batch"] != "100" {
		t.Errorf("plan %+v", res.Plan)
	}
	for _, c := range res.Cells {
		s, ok := c.Metrics.Summary.(*queue.QueueSummary)
		if c.Status != results.StatusOK || !ok || c.RowCheck == nil || !c.RowCheck.OK {
			t.Fatalf("%s %s: %s %s %+v", c.Workload, c.Key, c.Status, c.Error, c.RowCheck)
		}
		q := s.Queue
		if q.RowsIn <= 0 || q.RowsOut <= 0 || q.Producers != 2 || q.Consumers != 2 || c.RowsInserted != q.RowsIn {
			t.Errorf("%s %s: in %d out %d, roles %v+%v, rows inserted %d", c.Workload, c.Key, q.RowsIn, q.RowsOut, q.Producers, q.Consumers, c.RowsInserted)
		}
		if q.Backlog.Final != c.RowCheck.Server {
			t.Errorf("%s %s: final backlog %v, the server holds %d", c.Workload, c.Key, q.Backlog.Final, c.RowCheck.Server)
		}
		if _, ok := q.PerCore.Get(); ok || q.PerCore.Reason() == "" { // a --dsn run: the server's cores are unknown
			t.Errorf("per_core on a --dsn server: %+v", q.PerCore)
		}
		if len(q.Timeline) == 0 {
			t.Errorf("%s %s: no backlog timeline", c.Workload, c.Key)
		}
		if jq, ok := asJSON(t, &c)["queue"].(map[string]any); !ok || jq["rows_in_per_s"] == nil || jq["backlog"] == nil {
			t.Errorf("%s %s: results.json's metrics.queue is %v", c.Workload, c.Key, jq)
		}
		if v, ok := c.Metrics.KeyIndexBytes.Get(); (c.Key == "bigint:index=none") == ok || ok && v <= 0 {
			t.Errorf("%s %s: key_index_bytes %+v", c.Workload, c.Key, c.Metrics.KeyIndexBytes)
		}
		if v, ok := c.Metrics.TableBytes.Get(); !ok || v <= 0 {
			t.Errorf("%s %s: table_bytes of the partitions %+v", c.Workload, c.Key, c.Metrics.TableBytes)
		}
	}
	var sum strings.Builder
	report.WriteSummary(&sum, res, 0)
	for _, want := range []string{"IN ROWS/S", "OUT ROWS/S", "BACKLOG END / MAX", "uuidv4 (queue-fifo)"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

// failing is a workload whose every transaction fails, as every insert of
// --batch 32768 once did ("too many parameter format codes").
type failing struct{}

func (failing) Options() []workload.Option       { return nil }
func (failing) Configure(s workload.Setup) error { return nil }
func (failing) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, workload.Setup{})}
}
func (failing) NewWorker(context.Context, *pgx.Conn, []*workload.Table, keys.Generator, int) (workload.Worker, error) {
	return failing{}, nil
}
func (failing) Txn() (driver.Work, error) {
	return driver.Work{}, errors.New("every transaction fails")
}

func init() {
	workload.Register(workload.Meta{Name: "kbtest-failing", Description: "test: every transaction fails",
		New: func() workload.Workload { return failing{} }})
}

// TestCellsWithoutMeasurementFail is failure 5 of issue 10: a cell in which
// nothing succeeded was recorded "ok" with 0 tps.
func TestCellsWithoutMeasurementFail(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "bigint", func(p *scenario.Params) { p.Workload, p.Rows = "kbtest-failing", []int64{0} })
	res, err := runner.Run(context.Background(), cfg)
	if err == nil || res.Status != results.StatusFailed || len(res.Cells) != 1 || res.Cells[0].Status != results.StatusFailed ||
		!strings.Contains(res.Cells[0].Error, "every transaction fails") {
		t.Fatalf("err %v; results %+v", err, res.Cells)
	}
}

// TestLockedTable is failure 6 of issue 10: another session's ACCESS
// EXCLUSIVE lock blocked the clients, yet p99 read 0.18 ms; held longer,
// keybench waited silently in the evidence. Now the wait is in the
// latencies with a warning, and a lock that outlasts the evidence's lock
// timeout fails the cell with the reason.
func TestLockedTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		hold time.Duration
	}{{"released after the window", 7 * time.Second}, {"held past the evidence's lock timeout", 18 * time.Second}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := runnertest.Config(t, "insert", "bigint", func(p *scenario.Params) { p.Rows, p.Duration, p.Warmup = []int64{0}, 6*time.Second, 0 })
			cfg.Schema = "kbtest_lock"
			var progress syncBuffer
			cfg.UI = runner.NewUI(&progress)
			locker, err := pgx.Connect(context.Background(), servertest.Server.ConnString())
			if err != nil {
				t.Fatal(err)
			}
			defer locker.Close(context.Background())
			locked := make(chan error, 1)
			go func() {
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					var n int
					_ = locker.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'keybench client%' AND state = 'active'").Scan(&n)
					if n == 0 {
						continue
					}
					time.Sleep(500 * time.Millisecond)
					tx, err := locker.Begin(context.Background())
					if err == nil {
						_, err = tx.Exec(context.Background(), "LOCK TABLE kbtest_lock.kb_cell IN ACCESS EXCLUSIVE MODE")
					}
					locked <- err
					time.Sleep(tc.hold)
					tx.Rollback(context.Background())
					return
				}
				locked <- errors.New("no client became active")
			}()
			res, _ := runner.Run(context.Background(), cfg)
			if err := <-locked; err != nil {
				t.Fatal(err)
			}
			c := res.Cells[0]
			t.Logf("%s: status %s, p99 %.1f ms, max %.1f ms, warnings %q, error %q", tc.name, c.Status, c.LatencyMS.P99, c.LatencyMS.Max, c.Warnings, c.Error)
			if c.LatencyMS.Max < 1500 || len(c.Warnings) == 0 || !strings.Contains(c.Warnings[0], "still in a transaction") {
				t.Errorf("the clients' wait is not in the figures: max %.1f ms, warnings %q", c.LatencyMS.Max, c.Warnings)
			}
			if tc.hold > 10*time.Second && (c.Status != results.StatusFailed || !strings.Contains(c.Error, "another session holds a lock")) {
				t.Errorf("a lock held past the evidence's timeout: status %s, error %q", c.Status, c.Error)
			}
			// While the clients wait, the progress output says on what and who holds them up.
			if out := progress.String(); !strings.Contains(out, "no transaction completed since") || !strings.Contains(out, "waiting on Lock:relation") || !strings.Contains(out, "blocked by pid") {
				t.Errorf("the progress output does not explain the wait:\n%s", out)
			}
			if tc.hold < 10*time.Second && c.Status != results.StatusOK {
				t.Errorf("status %s: %s", c.Status, c.Error)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the progress output's writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A warm-up longer than the stall report's delay is no stall: the
// progress output stays quiet while the clients make progress.
func TestWarmupIsNoStall(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "bigint", func(p *scenario.Params) { p.Rows, p.Duration, p.Warmup = []int64{0}, time.Second, 4*time.Second })
	var progress syncBuffer
	cfg.UI = runner.NewUI(&progress)
	if _, err := runner.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(progress.String(), "no transaction completed") {
		t.Errorf("a stall reported in a healthy run:\n%s", progress.String())
	}
}

// TestRoundsInterleaveTheCells runs an A/A test in rounds (issue 13): the
// same key twice, labelled apart, each cell's window split into rounds
// that alternate between the cells on tables kept between their rounds.
func TestRoundsInterleaveTheCells(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "bigint,bigint", func(p *scenario.Params) {
		p.Rounds, p.Duration, p.Warmup, p.Rows = 4, 4*time.Second, 200*time.Millisecond, []int64{1000}
		p.AllRounds = true // every round, to see them interleave
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 || res.Cells[1].Key != "bigint#2" || res.Plan.Rounds != 4 {
		t.Fatalf("cells %d, second %q, plan %+v", len(res.Cells), res.Cells[1].Key, res.Plan)
	}
	a, b := res.Cells[0], res.Cells[1]
	for _, c := range []results.Cell{a, b} {
		if c.Status != results.StatusOK || len(c.Rounds) != 4 || c.RowCheck == nil || !c.RowCheck.OK || c.RowsBefore != 1000 {
			t.Fatalf("%s: %s %s, %d rounds, row check %+v", c.Key, c.Status, c.Error, len(c.Rounds), c.RowCheck)
		}
		var txns int64
		for _, rd := range c.Rounds {
			txns += rd.Txns
			if rd.Rate <= 0 || rd.DurationS < 0.9 {
				t.Errorf("%s round %d: %+v", c.Key, rd.Round, rd)
			}
		}
		if txns != c.Txns {
			t.Errorf("%s: rounds hold %d transactions, the cell %d", c.Key, txns, c.Txns)
		}
		if v, ok := c.Metrics.WALBytesPerRow.Get(); !ok || v <= 0 {
			t.Errorf("%s: WAL per row %+v", c.Key, c.Metrics.WALBytesPerRow)
		}
	}
	// Interleaved: both keys' round i start before either's round i+1, in
	// an order drawn for each round (balanced: each first in two of the four).
	firsts := map[string]int{}
	for i := 0; i < 4; i++ {
		if i > 0 && max(a.Rounds[i-1].StartS, b.Rounds[i-1].StartS) > min(a.Rounds[i].StartS, b.Rounds[i].StartS) {
			t.Errorf("round %d not interleaved: a %.1f s, b %.1f s, next a %.1f s, b %.1f s", i, a.Rounds[i-1].StartS, b.Rounds[i-1].StartS, a.Rounds[i].StartS, b.Rounds[i].StartS)
		}
		if a.Rounds[i].StartS < b.Rounds[i].StartS {
			firsts[a.Key]++
		} else {
			firsts[b.Key]++
		}
	}
	if firsts[a.Key] != 2 || firsts[b.Key] != 2 {
		t.Errorf("who ran first in a round: %v, want each first twice", firsts)
	}
	g := res.Analysis.Groups
	if len(g) != 2 || g[0].Unit != results.UnitRounds || len(g[1].Compared) != 1 || g[1].Compared[0].N != 4 || g[1].Compared[0].TooFew || g[1].Compared[0].Test != stats.TestBlocked {
		t.Errorf("groups %+v", g)
	}
	t.Logf("A/A: %s over %s %.3f [%.3f, %.3f], p %.3f, significant %v", b.Key, a.Key, g[1].Compared[0].Effect,
		g[1].Compared[0].Lo, g[1].Compared[0].Hi, g[1].Compared[0].P, g[1].Compared[0].Significant)
}

// TestSequentialRounds: with a sequential design the rounds stop once
// every comparison is decided, all keys after the same round; the results
// file's comparisons replay the same decisions (none open when the rounds
// stopped early), and record the design.
func TestSequentialRounds(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "bigint,uuidv4:index=none,bigint", func(p *scenario.Params) {
		p.Rounds, p.Duration, p.Warmup, p.Rows = 6, 6*time.Second, 200*time.Millisecond, []int64{0}
	})
	if cfg.Plan.Sequential == nil {
		t.Fatal("no sequential design in the plan")
	}
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Sequential == nil || *res.Plan.Sequential != *cfg.Plan.Sequential {
		t.Fatalf("the results record the design %+v", res.Plan.Sequential)
	}
	// At most the costs' design's last look: the rounds go on past 6 only
	// while a cost comparison is undecided.
	most := 6
	if d := cfg.Plan.CostSequential; d != nil {
		most = d.MaxRounds
		if res.Plan.CostSequential == nil || *res.Plan.CostSequential != *d {
			t.Fatalf("the results record the costs' design %+v", res.Plan.CostSequential)
		}
	}
	ran := len(res.Cells[0].Rounds)
	for _, c := range res.Cells {
		if len(c.Rounds) != ran || ran < stats.MinBlocks || ran > most {
			t.Fatalf("%s ran %d rounds, %s %d", c.Key, len(c.Rounds), res.Cells[0].Key, ran)
		}
	}
	// The verdict decides on the work (issue 48): rounds that stopped
	// early stopped with every work comparison the question asks about
	// decided — every pair, or, for "which key is least" (issue 64), each
	// key against the least and each key shown costlier than it against
	// every key not shown so, the pairs of two contenders (or of two
	// costlier keys) free to stay open;
	// the rates are read at that look, decided or not (their repeated
	// intervals cover at every look).
	best := res.Plan.CostSequential != nil && res.Plan.CostSequential.Family == stats.FamilyBest
	least := map[string]bool{}
	for _, sh := range res.Analysis.Shapes {
		least[sh.Least] = true
	}
	costlier := map[string]bool{}
	for _, g := range res.Analysis.Groups {
		if g.Cost == nil {
			continue
		}
		for _, v := range g.Cost.Compared {
			if least[v.Key] && v.State == stats.PairDifferent {
				costlier[g.Key] = true
			}
		}
	}
	openRates, openWork, work := 0, 0, false
	for _, g := range res.Analysis.Groups {
		for _, v := range g.Compared {
			if v.State == "" {
				t.Errorf("%s against %s: no sequential decision: %+v", g.Key, v.Key, v.Comparison)
			}
			if v.State == stats.PairOpen {
				openRates++
			}
		}
		if g.Cost == nil {
			continue
		}
		for _, v := range g.Cost.Compared {
			work = true
			if v.State == stats.PairOpen && (!best || least[g.Key] || least[v.Key] || costlier[g.Key] != costlier[v.Key]) {
				openWork++
			}
		}
	}
	if ran < 6 && (openWork > 0 || !work && openRates > 0) {
		t.Errorf("the rounds stopped after %d of 6 with %d work and %d rate comparisons open", ran, openWork/2, openRates/2)
	}
	t.Logf("%d of 6 rounds; %d work and %d rate comparisons open", ran, openWork/2, openRates/2)
}

// An interrupted group of rounds keeps what its finished rounds measured.
func TestInterruptedRoundsKeepTheirFigures(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "bigint,uuidv4", func(p *scenario.Params) {
		p.Rounds, p.Duration, p.Warmup, p.Rows = 4, 8*time.Second, 200*time.Millisecond, []int64{0}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupted once the first round of both cells is done: when the
	// second begins, whatever the machine's pace.
	cfg.UI = runner.NewUI(&onLine{want: "round 2/", do: cancel})
	res, err := runner.Run(ctx, cfg)
	if !errors.Is(err, runner.ErrInterrupted) || res.Status != results.StatusInterrupted || len(res.Cells) != 2 {
		t.Fatalf("err %v, status %s, %d cells", err, res.Status, len(res.Cells))
	}
	c := res.Cells[0]
	if c.Status != results.StatusInterrupted || len(c.Rounds) == 0 || c.Txns == 0 || c.TPS <= 0 {
		t.Errorf("first cell: %s, %d rounds, %d txns, %.0f tps", c.Status, len(c.Rounds), c.Txns, c.TPS)
	}
	if runnertest.SchemaExists(t, "kbtest") {
		t.Error("keybench left its schema behind")
	}
}

// The rounds' orders: every round a permutation of the cells, and in every
// batch of n rounds every cell once in every position; the same seed, the
// same orders.
func TestRoundOrderIsBalanced(t *testing.T) {
	for _, n := range []int{1, 2, 3, 6} {
		for batch := 0; batch < 3; batch++ {
			at := make([]map[int]bool, n) // at[position]: the cells seen there
			for i := range at {
				at[i] = map[int]bool{}
			}
			for r := 1; r <= n; r++ {
				round := batch*n + r
				o := runner.RoundOrder(7, n, round)
				seen := map[int]bool{}
				for pos, c := range o {
					if c < 0 || c >= n || seen[c] {
						t.Fatalf("n %d round %d: %v is no permutation", n, round, o)
					}
					seen[c] = true
					at[pos][c] = true
				}
				if again := runner.RoundOrder(7, n, round); fmt.Sprint(again) != fmt.Sprint(o) {
					t.Errorf("n %d round %d: %v, then %v", n, round, o, again)
				}
			}
			for pos := range at {
				if len(at[pos]) != n {
					t.Errorf("n %d batch %d: position %d held %d cells, want all %d", n, batch, pos, len(at[pos]), n)
				}
			}
		}
	}
	if fmt.Sprint(runner.RoundOrder(1, 6, 1)) == fmt.Sprint(runner.RoundOrder(1, 6, 7)) && fmt.Sprint(runner.RoundOrder(1, 6, 2)) == fmt.Sprint(runner.RoundOrder(1, 6, 8)) {
		t.Error("the second batch repeats the first")
	}
}

// TestALostConnectionStopsTheRun (issue 60): keybench's control connection
// terminated by the server (pg_terminate_backend) once the rounds run
// stops the run with an error naming the lost connection, the cells kept
// with the rounds they measured, the schema dropped on a new connection.
func TestALostConnectionStopsTheRun(t *testing.T) {
	cfg := runnertest.Config(t, "insert", "bigint,uuidv4", func(p *scenario.Params) {
		p.Rounds, p.Duration, p.Warmup, p.Rows = 6, 12*time.Second, 200*time.Millisecond, []int64{0}
	})
	ctx := context.Background()
	roundDone := make(chan struct{})
	cfg.UI = runner.NewUI(&signalWriter{on: "rounds 2/6 done", c: roundDone})
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-roundDone // two rounds of each cell measured: end keybench's own session
		watch, err := pgx.Connect(ctx, servertest.Server.ConnString())
		if err != nil {
			t.Error(err)
			return
		}
		defer watch.Close(ctx)
		if _, err := watch.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name ~ '^keybench [0-9a-f]+$'`); err != nil {
			t.Error(err)
		}
	}()
	res, err := runner.Run(ctx, cfg)
	<-done
	if err == nil || !strings.Contains(err.Error(), "lost keybench's connection to the server") {
		t.Fatalf("the run ended with %v, not naming the lost connection", err)
	}
	if res.Status != results.StatusFailed || len(res.Cells) != 2 {
		t.Fatalf("status %s, %d cells: %v", res.Status, len(res.Cells), err)
	}
	measured := 0
	for _, c := range res.Cells {
		measured += len(c.Rounds)
		if !strings.Contains(c.Error, "lost keybench's connection") {
			t.Errorf("%s: %s, %q", c.Key, c.Status, c.Error)
		}
	}
	if measured < 4 {
		t.Errorf("%d measured rounds kept, of at least 4", measured)
	}
	if runnertest.SchemaExists(t, "kbtest") {
		t.Error("keybench left its schema behind")
	}
}

// signalWriter closes c once what is written holds on.
type signalWriter struct {
	on   string
	c    chan struct{}
	mu   sync.Mutex
	seen bytes.Buffer
	once sync.Once
}

func (w *signalWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen.Write(b)
	if strings.Contains(w.seen.String(), w.on) {
		w.once.Do(func() { close(w.c) })
	}
	return len(b), nil
}

// onLine calls do once, the first time a line written to it holds want.
type onLine struct {
	want string
	do   func()
	once sync.Once
}

func (o *onLine) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(o.want)) {
		o.once.Do(o.do)
	}
	return len(b), nil
}
