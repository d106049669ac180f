// Package bulk is the bulk and bulk-index-after workloads: the cell's rows
// loaded in chunks (COPY or INSERT, load-method) with the key's index in
// place, or into a table without indexes that are built after it (as 000
// added its primary key afterwards); each chunk timed, then the table's
// maintenance (VACUUM, ANALYZE, REINDEX, COPY TO).
package bulk

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

// The bulk workloads' names.
const (
	bulkDuring     = "bulk"
	bulkIndexAfter = "bulk-index-after"
)

func init() {
	for _, after := range []bool{false, true} {
		name, desc := bulkDuring, "load --rows rows in chunks with the key's index in place, timing each chunk as the table grows (000, 003)"
		if after {
			name, desc = bulkIndexAfter, "load --rows rows in chunks into a table without indexes, then build them (timed separately), as 000 added its primary key afterwards"
		}
		after := after
		workload.Register(workload.Meta{Name: name, Description: desc, Kind: loadKind, View: loadView, New: func() workload.Workload { return &bulkLoad{name: name, after: after} },
			// The bulk preset's loads of 1M rows took 82 s for its ten cells
			// here, 120k rows/s (bigint 199k, uuidv4 31k with its index in
			// place); the timed maintenance after each load 3-4 s.
			Bare: workload.Bare{Rows: 200_000, Clients: 1}, LoadRowsPerS: 120_000, RoundOverhead: 4 * time.Second})
	}
}

func (b *bulkLoad) Options() []workload.Option {
	return []workload.Option{
		workload.Int("chunk", &b.chunk, 0, 0, 1_000_000_000, "rows per timed chunk (0: a tenth of the rows)"),
		workload.Choice("load-method", &b.method, workload.LoadCopy, []string{workload.LoadCopy, workload.LoadInsert},
			"how keybench-made keys are loaded: copy (binary COPY) or insert (multi-row INSERT); server-made keys by INSERT ... SELECT"),
	}
}

func (b *bulkLoad) Configure(s workload.Setup) error {
	b.s = s
	if s.Rows < 1 {
		return fmt.Errorf("%s loads --rows rows and needs at least 1, not %d", b.name, s.Rows)
	}
	if b.chunk <= 0 {
		b.chunk = max(s.Rows/10, 1)
	}
	if s.Clients != 1 {
		return fmt.Errorf("%s loads on one connection (-c 1), not %d", b.name, s.Clients)
	}
	return nil
}

// bulkLoad is a load measured as the window: one client loads the cell's
// rows in timed chunks, each chunk one transaction, into the table with its
// indexes in place or without them (built afterwards, timed apart, in
// PostRun).
type bulkLoad struct {
	name   string
	s      workload.Setup
	chunk  int64
	method string
	after  bool

	chunks []workload.Chunk // written by the one loading client, read after the window
	buildS float64
	sum    *LoadSummary // made by Summarize; Maintain adds its times
}

func (b *bulkLoad) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	t := workload.KeyedTable(at, key, b.s)
	t.Rows, t.DeferIndexes = 0, b.after // the rows are the window's load
	return []*workload.Table{t}
}

// Window: the chunks are the transactions, without warm-up.
func (b *bulkLoad) Window(w *workload.Window) {
	w.Warmup, w.Duration, w.Txns, w.Unit, w.Rounds = 0, 0, (b.s.Rows+b.chunk-1)/b.chunk, "chunks", 1
	w.Rate, w.LatencyLimit = 0, 0
}

func (b *bulkLoad) Progress(s results.Second) string { return fmt.Sprintf("%.0f rows/s", s.RowsPS) }

func (b *bulkLoad) Hooks() workload.Hooks {
	h := workload.Hooks{MaintainSays: workload.TimedMaintenance, Maintain: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
		if b.sum != nil {
			b.sum.Maintenance = results.Of(workload.TimeMaintenance(ctx, conn, tables[0]))
		}
		return nil
	}}
	if b.after {
		h.PostRunStep = "building the indexes after the load"
		h.PostRun = func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			t0 := time.Now()
			if err := workload.BuildIndexes(ctx, conn, tables[0]); err != nil {
				return err
			}
			b.buildS = time.Since(t0).Seconds()
			return nil
		}
	}
	return h
}

func (b *bulkLoad) NewWorker(_ context.Context, conn *pgx.Conn, tables []*workload.Table, gen keys.Generator, _ int) (workload.Worker, error) {
	w := &loader{b: b, conn: conn, t: tables[0], next: 1}
	if tables[0].Key.Gen != keys.GenServer {
		w.stream = gen.Stream()
	}
	return w, nil
}

// loader loads the next chunk per transaction.
type loader struct {
	b      *bulkLoad
	conn   *pgx.Conn
	t      *workload.Table
	stream keys.Stream
	next   int64
}

func (l *loader) Txn() (driver.Work, error) {
	rows := l.b.s.Rows
	if l.next > rows {
		return driver.Work{}, fmt.Errorf("the load is complete (%d rows)", rows)
	}
	lo, hi := l.next, min(l.next+l.b.chunk-1, rows)
	t0 := time.Now()
	if err := workload.LoadChunk(context.Background(), l.conn, l.t, l.stream, lo, hi, rows, l.b.method); err != nil {
		return driver.Work{}, err
	}
	secs := time.Since(t0).Seconds()
	l.b.chunks = append(l.b.chunks, workload.Chunk{RowsBefore: lo - 1, Rows: hi - lo + 1, Seconds: secs, RowsPerS: float64(hi-lo+1) / secs})
	l.next = hi + 1
	return driver.Work{Inserted: hi - lo + 1}, nil
}

// Summarize makes the cell a load's: its rate is the rows over the load
// and the index build, its timeline and latencies are its chunks'.
func (b *bulkLoad) Summarize(o *workload.Outcome) error {
	c, t := o.Cell, o.Tables[0]
	sum := &LoadSummary{LatencyUnit: "one chunk of the load", Chunks: b.chunks, LoadS: o.Result.Elapsed.Seconds(),
		LoadMethod: map[bool]string{true: "insert-select (keys made by the server)", false: b.method}[t.Key.Gen == keys.GenServer]}
	if b.after {
		sum.IndexBuildS = results.Of(b.buildS)
	} else {
		sum.IndexBuildS = results.Unavailable[float64]("the indexes were in place during the load")
	}
	sum.TotalS = sum.LoadS + b.buildS
	sum.Maintenance = results.Unavailable[results.Maintenance]("not timed: the cell ended before")
	b.sum = sum
	var rows int64
	var ms []float64
	c.Timeline = c.Timeline[:0]
	for i, ch := range b.chunks {
		rows += ch.Rows
		c.Timeline = append(c.Timeline, results.Second{T: i + 1, Txns: ch.Rows, TPS: ch.RowsPerS, RowsPS: ch.RowsPerS})
		ms = append(ms, ch.Seconds*1000)
	}
	if n := len(b.chunks); n > 0 {
		sum.FirstChunkRowsPerS, sum.LastChunkRowsPerS = b.chunks[0].RowsPerS, b.chunks[n-1].RowsPerS
		sum.LastToFirstChunk = b.chunks[n-1].RowsPerS / b.chunks[0].RowsPerS
	}
	c.DurationS, c.Txns, c.RowsInserted = sum.TotalS, rows, rows
	c.TPS, c.RowsPerS = float64(rows)/sum.TotalS, float64(rows)/sum.TotalS
	c.LatencyMS = chunkLatency(ms)
	c.Metrics.Summary = sum
	return nil
}

// chunkLatency summarises the chunks' durations in the latency fields.
func chunkLatency(ms []float64) results.Latency {
	if len(ms) == 0 {
		return results.Latency{}
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	q := func(p float64) float64 { return s[min(len(s)-1, int(p*float64(len(s))))] }
	mean, sq := 0.0, 0.0
	for _, v := range s {
		mean += v / float64(len(s))
	}
	for _, v := range s {
		sq += (v - mean) * (v - mean) / float64(len(s))
	}
	return results.Latency{Mean: mean, StdDev: math.Sqrt(sq), P50: q(0.5), P95: q(0.95), P99: q(0.99), P999: q(0.999), Max: s[len(s)-1]}
}

// LoadSummary is a load's own figures (000, 003), flat in its cell's
// metrics: the chunks' rates as the table grew, the load's time, the index
// build timed apart when it came afterwards, and the first and last chunk.
type LoadSummary struct {
	results.IsSummary
	LatencyUnit        string             `json:"latency_unit"`
	Chunks             []results.Chunk    `json:"load_rate_per_chunk"`
	LoadS              float64            `json:"load_s"`
	TotalS             float64            `json:"total_s"`
	LoadMethod         string             `json:"load_method"`
	IndexBuildS        results.M[float64] `json:"index_build_s,omitzero"`
	FirstChunkRowsPerS float64            `json:"first_chunk_rows_per_s,omitempty"`
	LastChunkRowsPerS  float64            `json:"last_chunk_rows_per_s,omitempty"`
	LastToFirstChunk   float64            `json:"last_to_first_chunk,omitempty"`
	// Maintenance is VACUUM, ANALYZE, REINDEX and COPY TO timed after the load (003).
	Maintenance results.M[results.Maintenance] `json:"maintenance_s,omitzero"`
}

// indexAfterVsDuring compares, per key, the total time of a load that
// built the index afterwards (build included) with one that had it in
// place: "" when the run did not measure both.
func indexAfterVsDuring(r *results.Results, groups []results.Group) string {
	type totals struct{ during, after float64 }
	byKey := map[string]*totals{}
	var order []string
	for gi := range groups {
		g := &groups[gi]
		sum, ok := workload.SummaryOf[LoadSummary](r.Last(g))
		if !ok {
			continue // a cell of another keybench: no load summary
		}
		total := sum.TotalS
		if byKey[g.Key] == nil {
			byKey[g.Key] = &totals{}
			order = append(order, g.Key)
		}
		switch g.Workload {
		case bulkIndexAfter:
			byKey[g.Key].after = total
		case bulkDuring:
			byKey[g.Key].during = total
		}
	}
	var lines []string
	for _, k := range order {
		if tt := byKey[k]; tt.during > 0 && tt.after > 0 {
			lines = append(lines, fmt.Sprintf("%s %.1fx (%.1f s vs %.1f s)", k, tt.during/tt.after, tt.after, tt.during))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "index after the load vs during it, total time (index build included): " + strings.Join(lines, ", ") + "."
}

// slowestLoad names the load that took longest against the quickest, in
// total time: "" with fewer than two loads.
func slowestLoad(r *results.Results, groups []results.Group) string {
	var fast, slow *results.Group
	total := func(g *results.Group) float64 {
		if s, ok := workload.SummaryOf[LoadSummary](r.Last(g)); ok {
			return s.TotalS
		}
		return 0 // no load summary: not ranked
	}
	for gi := range groups {
		g := &groups[gi]
		if total(g) <= 0 {
			continue
		}
		if fast == nil || total(g) < total(fast) {
			fast = g
		}
		if slow == nil || total(g) > total(slow) {
			slow = g
		}
	}
	if fast == nil || fast == slow {
		return ""
	}
	return fmt.Sprintf("The slowest, %s, took %.1f× as long as the quickest, %s (%.1f s vs %.1f s).",
		results.Label(groups, slow), total(slow)/total(fast), results.Label(groups, fast), total(slow), total(fast))
}

// loadKind is how a load's cells read: 000's and 003's table, 003's curve.
var loadKind = results.Kind{
	RateUnit: "rows/s", StepsTimeline: true, NewSummary: func() results.Summary { return &LoadSummary{} },
}

// loadView is how load cells are shown.
var loadView = present.View{
	Columns: []present.Column{
		workload.SummaryColumn("method", true, func(r *results.Results, g *results.Group, s *LoadSummary) string {
			m, _, _ := strings.Cut(s.LoadMethod, " (")
			return m
		}),
		{Figure: results.Figure{Header: "rows"}, Text: func(r *results.Results, g *results.Group) string { return fmt.Sprint(r.First(g).RowsInserted) }},
		present.Rate,
		workload.SummaryColumn("load", false, func(r *results.Results, g *results.Group, s *LoadSummary) string {
			return fmt.Sprintf("%.1f s", s.LoadS)
		}),
		workload.SummaryColumn("index build", false, func(r *results.Results, g *results.Group, s *LoadSummary) string {
			if v, ok := s.IndexBuildS.Get(); ok {
				return fmt.Sprintf("%.1f s", v)
			}
			return "with the load"
		}),
		workload.SummaryColumn("total", false, func(r *results.Results, g *results.Group, s *LoadSummary) string {
			return fmt.Sprintf("%.1f s", s.TotalS)
		}),
		workload.SummaryColumn("first → last chunk (rows/s)", false, func(r *results.Results, g *results.Group, s *LoadSummary) string {
			return fmt.Sprintf("%s → %s", results.Kilo(s.FirstChunkRowsPerS), results.Kilo(s.LastChunkRowsPerS))
		}),
		workload.SummaryColumn("last / first", false, func(r *results.Results, g *results.Group, s *LoadSummary) string {
			return fmt.Sprintf("%.2f", s.LastToFirstChunk)
		}),
		{Figure: results.Figure{Header: "size"}, Text: func(r *results.Results, g *results.Group) string { return r.SizeText(g) }},
		workload.FigureColumn(func(m *results.Metrics) any { return &m.LeafDensity }),
		workload.SummaryColumn("vacuum / analyze / reindex / copy to", false, func(r *results.Results, g *results.Group, s *LoadSummary) string {
			return s.Maintenance.Text(workload.MaintenanceColumn)
		}),
	},
	Notes: present.Always("load: the rows loaded in timed chunks; total: load plus the index build when the index came afterwards; last / first: the last chunk's rate over the first's; " +
		"vacuum / analyze / reindex / copy to: seconds each took after the load, alone (003);"),
	Remarks: func(r *results.Results, groups []results.Group) []string {
		if line := indexAfterVsDuring(r, groups); line != "" {
			return []string{line}
		}
		return nil
	},
	Headline: func(r *results.Results, groups []results.Group) string {
		head := "Loads ranked by their rows per second over the whole load, the index build included when the index came afterwards (000, 003: the time until the table is usable)."
		if line := slowestLoad(r, groups); line != "" {
			head += " " + line
		}
		if line := indexAfterVsDuring(r, groups); line != "" {
			head += " " + strings.ToUpper(line[:1]) + line[1:]
		}
		return head
	},
	Charts: []present.Chart{{
		Heading: "Load rate per chunk", Title: "Load rate as the table grows",
		XLabel: "rows in the table at the end of the chunk (millions)", YLabel: "thousand rows per second",
		// The curve is the loads with the index in place (003); loads that
		// build it afterwards run at the heap's pace and would crowd the chart.
		Keep: func(headline []*results.Group, g *results.Group) bool {
			for _, h := range headline {
				if h.Workload == bulkDuring {
					return g.Workload == bulkDuring
				}
			}
			return true
		},
		Points: func(c *results.Cell) (xs, ys []float64) {
			s, _ := workload.SummaryOf[LoadSummary](c) // none: no chunks to draw
			for _, ch := range s.Chunks {
				xs, ys = append(xs, float64(ch.RowsBefore+ch.Rows)/1e6), append(ys, ch.RowsPerS/1000)
			}
			return xs, ys
		},
		Caption: "Each chunk's rate against the table's size, as 003 plotted it, for the loads with the key's index in place: a key whose index inserts stay on the right edge keeps its rate; " +
			"one whose inserts scatter over an index larger than the cache falls as the table grows. " +
			"uuidv1 with spacing: raw version 1 uuids lead with time_low, the low 32 bits of the 100 ns timestamp, which wraps every 2^32 × 100 ns ≈ 7.2 minutes; " +
			"once the keys' timestamps span more than that, each wrap starts again at the low end of the index and sweeps through it, " +
			"while uuidv6 carries the same timestamp most significant bits first and stays in order.",
		Missing: "load rate per chunk: no load had two chunks",
	}},
}
