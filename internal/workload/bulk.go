package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
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
		Register(Meta{Name: name, Description: desc, Kind: loadKind, New: func(o Options) (Workload, error) {
			if o.LoadMethod == "" {
				o.LoadMethod = LoadCopy
			}
			if o.LoadMethod != LoadCopy && o.LoadMethod != LoadInsert {
				return nil, fmt.Errorf("--load-method must be copy or insert, not %q", o.LoadMethod)
			}
			if o.Rows < 1 {
				return nil, fmt.Errorf("%s loads --rows rows and needs at least 1, not %d", name, o.Rows)
			}
			if o.Chunk <= 0 {
				o.Chunk = max(o.Rows/10, 1)
			}
			return &bulkLoad{o: o, after: after}, nil
		}})
	}
}

// Loader is a workload whose measurement is a load rather than clients'
// transactions; the runner times its chunks.
type Loader interface {
	// IndexAfter says the indexes are built after the load instead of before it.
	IndexAfter() bool
	// Chunk is the rows per timed chunk; Method the load method for client-made keys.
	Chunk() int64
	Method() string
}

type bulkLoad struct {
	o     Options
	after bool
}

func (b *bulkLoad) NeedsDataIndex() bool                             { return false }
func (b *bulkLoad) Prepare(context.Context, *pgx.Conn, *Table) error { return nil }
func (b *bulkLoad) IndexAfter() bool                                 { return b.after }
func (b *bulkLoad) Chunk() int64                                     { return b.o.Chunk }
func (b *bulkLoad) Method() string                                   { return b.o.LoadMethod }

func (b *bulkLoad) NewWorker(context.Context, *pgconn.PgConn, *Table, keys.Generator, int) (Worker, error) {
	return nil, errors.New("a bulk load has no clients")
}

// LoadSummary is a load's own figures (000, 003), flat in its cell's
// metrics: the chunks' rates as the table grew, the load's time, the index
// build timed apart when it came afterwards, and the first and last chunk.
type LoadSummary struct {
	LatencyUnit        string             `json:"latency_unit"`
	Chunks             []results.Chunk    `json:"load_rate_per_chunk"`
	LoadS              float64            `json:"load_s"`
	TotalS             float64            `json:"total_s"`
	LoadMethod         string             `json:"load_method"`
	IndexBuildS        results.M[float64] `json:"index_build_s,omitzero"`
	FirstChunkRowsPerS float64            `json:"first_chunk_rows_per_s,omitempty"`
	LastChunkRowsPerS  float64            `json:"last_chunk_rows_per_s,omitempty"`
	LastToFirstChunk   float64            `json:"last_to_first_chunk,omitempty"`
}

// Rate: a load's tps is already its rows per second.
func (s *LoadSummary) Rate() (float64, bool) { return 0, false }

func loadOf(c *results.Cell) *LoadSummary {
	if s, ok := c.Metrics.Summary.(*LoadSummary); ok {
		return s
	}
	return &LoadSummary{}
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
		total := loadOf(r.Last(g)).TotalS
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

// loadKind is how a load's cells read: 000's and 003's table, 003's curve.
var loadKind = results.Kind{
	RateUnit: "rows/s", NewSummary: func() results.Summary { return &LoadSummary{} },
	Columns: []results.Column{
		{Header: "method", Left: true, Text: func(r *results.Results, g *results.Group) string {
			m, _, _ := strings.Cut(loadOf(r.Last(g)).LoadMethod, " (")
			return m
		}},
		{Header: "rows", Text: func(r *results.Results, g *results.Group) string { return fmt.Sprint(r.First(g).RowsInserted) }},
		{Header: "load", Text: func(r *results.Results, g *results.Group) string {
			return fmt.Sprintf("%.1f s", loadOf(r.Last(g)).LoadS)
		}},
		{Header: "index build", Text: func(r *results.Results, g *results.Group) string {
			if v, ok := loadOf(r.Last(g)).IndexBuildS.Get(); ok {
				return fmt.Sprintf("%.1f s", v)
			}
			return "with the load"
		}},
		{Header: "total", Text: func(r *results.Results, g *results.Group) string {
			return fmt.Sprintf("%.1f s", loadOf(r.Last(g)).TotalS)
		}},
		{Header: "first → last chunk (rows/s)", Text: func(r *results.Results, g *results.Group) string {
			s := loadOf(r.Last(g))
			return fmt.Sprintf("%s → %s", results.Kilo(s.FirstChunkRowsPerS), results.Kilo(s.LastChunkRowsPerS))
		}},
		{Header: "last / first", Text: func(r *results.Results, g *results.Group) string {
			return fmt.Sprintf("%.2f", loadOf(r.Last(g)).LastToFirstChunk)
		}},
		{Header: "size", Text: func(r *results.Results, g *results.Group) string { return r.SizeText(g) }},
		{Header: "leaf density", Text: func(r *results.Results, g *results.Group) string {
			return r.Last(g).Metrics.LeafDensity.Text(func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) })
		}},
	},
	Notes: func(*results.Results, []results.Group) []string {
		return []string{"load: the rows loaded in timed chunks; total: load plus the index build when the index came afterwards; last / first: the last chunk's rate over the first's;"}
	},
	Remarks: func(r *results.Results, groups []results.Group) []string {
		if line := indexAfterVsDuring(r, groups); line != "" {
			return []string{line}
		}
		return nil
	},
	Headline: func(r *results.Results, groups []results.Group) string {
		head := "Loads ranked by the median rate of their chunks; a load that builds the index afterwards is ranked by its load alone."
		if line := indexAfterVsDuring(r, groups); line != "" {
			head += " " + strings.ToUpper(line[:1]) + line[1:]
		}
		return head
	},
	Charts: []results.ChartSpec{{
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
			for _, ch := range loadOf(c).Chunks {
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
