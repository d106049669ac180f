package queue

import (
	"fmt"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
)

// reference is a source write-up's throughput, for the figures a workload
// reproduces: rows per second in and out, on the cores it had.
type reference struct {
	// Source names the write-up ("004"); Text says what was measured and how.
	Source, Text    string
	Cores           int
	InPerS, OutPerS float64
}

// reference004 is 004's queue: 28 producers and 28 consumers on 56 cores,
// batches of 1000 rows, 2048 partitions, no index.
var reference004 = &reference{Source: "004", Cores: 56,
	InPerS:  1_937_999, // 1938 insert batches/s × 1000 rows
	OutPerS: 4_181_104, // 4181 delete calls/s × 1000: calls, not rows found
	Text: "004: 1.94M rows/s in and 4.18M rows/s out at once on 56 cores (28 + 28 clients, 2048 partitions, no index); " +
		"its out figure counts 1000 rows per delete call whether or not the partition held them"}

// QueueSummary is a queue cell's own figures, under "queue" in its metrics:
// both rates measured at once, the backlog over time (exact, from the rows
// every client handled, warm-up included), batch latencies per role and
// per-core rates beside 004's.
type QueueSummary struct {
	results.IsSummary
	Queue QueueFigures `json:"queue"`
}

// QueueFigures are the figures of QueueSummary.
type QueueFigures struct {
	Producers    int     `json:"producers"`
	Consumers    int     `json:"consumers"`
	Batch        int     `json:"batch"`
	Partitions   int     `json:"partitions"`
	RowsIn       int64   `json:"rows_in"`
	RowsOut      int64   `json:"rows_out"`
	BatchesIn    int64   `json:"batches_in"`
	BatchesOut   int64   `json:"batches_out"`
	Reference004 string  `json:"reference_004"`
	RowsInPerS   float64 `json:"rows_in_per_s"`
	RowsOutPerS  float64 `json:"rows_out_per_s"`
	// DeleteCallsRowsPerS is 004's way of counting consumption: delete calls × batch size.
	DeleteCallsRowsPerS float64            `json:"delete_calls_rows_per_s"`
	RowsPerDelete       results.M[float64] `json:"rows_per_delete,omitzero"`
	LatencyInMS         results.Latency    `json:"latency_in_ms"`
	LatencyOutMS        results.Latency    `json:"latency_out_ms"`
	Backlog             QueueBacklog       `json:"backlog"`
	Timeline            []QueueSecond      `json:"timeline"`
	PerCore             results.M[PerCore] `json:"per_core"`
}

// QueueBacklog is the rows waiting in the queue: at the end, at most, and
// its growth; bounded when over the window it grew by less than 5% of what came in.
type QueueBacklog struct {
	Final          int64   `json:"final"`
	Max            int64   `json:"max"`
	GrowthRowsPerS float64 `json:"growth_rows_per_s"`
	Bounded        bool    `json:"bounded"`
}

// QueueSecond is one second of a queue's window.
type QueueSecond struct {
	T           int     `json:"t"`
	Backlog     int64   `json:"backlog"`
	InRowsPerS  float64 `json:"in_rows_per_s"`
	OutRowsPerS float64 `json:"out_rows_per_s"`
}

// PerCore are a queue's rates over the cores the server and keybench
// shared, beside the reference's (004's) over its cores.
type PerCore struct {
	Cores             int     `json:"cores"`
	RowsInPerS        float64 `json:"rows_in_per_s"`
	RowsOutPerS       float64 `json:"rows_out_per_s"`
	Ref004RowsInPerS  float64 `json:"ref_004_rows_in_per_s,omitempty"`
	Ref004RowsOutPerS float64 `json:"ref_004_rows_out_per_s,omitempty"`
	Ref004Cores       int     `json:"ref_004_cores,omitempty"`
}

// summarizeQueue summarises a queue window; prefill is the rows queued
// before it, cores those server and clients shared (0 when the server is
// elsewhere), ref the write-up's figures (nil: none).
func summarizeQueue(d *driver.Result, prefill int64, batch, partitions, cores int, ref *reference) *QueueSummary {
	in, out := d.Roles[RoleIn], d.Roles[RoleOut]
	secs := d.Elapsed.Seconds()
	q := QueueFigures{Producers: in.Clients, Consumers: out.Clients, Batch: batch, Partitions: partitions,
		RowsIn: in.Rows, RowsOut: out.Rows, BatchesIn: in.Txns, BatchesOut: out.Txns}
	if ref != nil {
		q.Reference004 = ref.Text
	}
	if secs > 0 {
		q.RowsInPerS, q.RowsOutPerS = float64(in.Rows)/secs, float64(out.Rows)/secs
		q.DeleteCallsRowsPerS = float64(out.Txns) * float64(batch) / secs
	}
	if out.Txns > 0 {
		q.RowsPerDelete = results.Of(float64(out.Rows) / float64(out.Txns))
	} else {
		q.RowsPerDelete = results.Unavailable[float64]("no delete completed")
	}
	q.LatencyInMS, q.LatencyOutMS = driver.LatencyMS(in.Latency), driver.LatencyMS(out.Latency)
	var ts, bs []float64
	for _, s := range d.Timeline {
		ri, ro := s.Roles[RoleIn], s.Roles[RoleOut]
		b := prefill + ri.Total - ro.Total
		q.Backlog.Max = max(q.Backlog.Max, b)
		q.Timeline = append(q.Timeline, QueueSecond{T: s.T, Backlog: b, InRowsPerS: ri.RowsPS, OutRowsPerS: ro.RowsPS})
		ts, bs = append(ts, float64(s.T)), append(bs, float64(b))
	}
	q.Backlog.Final = prefill + in.TotalWork.Inserted - out.TotalWork.Deleted
	q.Backlog.Max = max(q.Backlog.Max, q.Backlog.Final)
	q.Backlog.GrowthRowsPerS = slopeOf(ts, bs)
	q.Backlog.Bounded = q.Backlog.GrowthRowsPerS <= 0.05*q.RowsInPerS
	if cores > 0 {
		pc := PerCore{Cores: cores, RowsInPerS: q.RowsInPerS / float64(cores), RowsOutPerS: q.RowsOutPerS / float64(cores)}
		if ref != nil {
			pc.Ref004RowsInPerS, pc.Ref004RowsOutPerS, pc.Ref004Cores = ref.InPerS/float64(ref.Cores), ref.OutPerS/float64(ref.Cores), ref.Cores
		}
		q.PerCore = results.Of(pc)
	} else {
		q.PerCore = results.Unavailable[PerCore]("the server runs on another machine: its cores are unknown")
	}
	return &QueueSummary{Queue: q}
}

// slopeOf is the least-squares slope of y over x (0 for fewer than two points).
func slopeOf(x, y []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx, sy, sxx, sxy = sx+x[i], sy+y[i], sxx+x[i]*x[i], sxy+x[i]*y[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

// queueKind is what a queue's cells hold: rows out per second.
func queueKind() results.Kind {
	k := results.Kind{
		RateUnit: "rows/s out", RateLabel: "rows out of the queue per second", RateRole: RoleOut,
		NewSummary: func() results.Summary { return &QueueSummary{} },
		// Files of schema 2 kept the rows in and out in the summary only.
		Upgrade: func(c *results.Cell) {
			if s, ok := c.Metrics.Summary.(*QueueSummary); ok && c.RoleRows == nil {
				c.RoleRows = map[string]int64{RoleIn: s.Queue.RowsIn, RoleOut: s.Queue.RowsOut}
			}
		},
	}
	return k
}

// queueView is how a queue's cells are shown (004's table and charts).
func queueView(fifo bool) present.View {
	return present.View{Columns: queueColumns(), Notes: queueNotes(fifo), Charts: queueCharts()}
}

// queueFigures are a group's queue figures (empty where its last cell has none).
func queueFigures(r *results.Results, g *results.Group) *QueueFigures {
	if s, ok := r.Last(g).Metrics.Summary.(*QueueSummary); ok {
		return &s.Queue
	}
	return &QueueFigures{}
}

// queueColumns are the summary table's columns of a queue.
func queueColumns() []present.Column {
	q := queueFigures
	return []present.Column{
		{Figure: results.Figure{Header: "clients (in+out)"}, Text: func(r *results.Results, g *results.Group) string {
			f := q(r, g)
			return fmt.Sprintf("%d+%d", f.Producers, f.Consumers)
		}},
		{Figure: results.Figure{Header: "in rows/s"}, Text: func(r *results.Results, g *results.Group) string { return results.Kilo(q(r, g).RowsInPerS) }},
		present.Rate,
		{Figure: results.Figure{Header: "out rows/s, median [interval, level]"}, Text: func(_ *results.Results, g *results.Group) string {
			if !g.TPS.HasInterval() {
				return results.Kilo(g.TPS.Median)
			}
			return results.Kilo(g.TPS.Median) + " " + g.TPS.Text(results.Kilo)
		}},
		{Figure: results.Figure{Header: "rows per delete"}, Text: func(r *results.Results, g *results.Group) string {
			f := q(r, g)
			return fmt.Sprintf("%.0f of %d", f.RowsPerDelete.Value(), f.Batch)
		}},
		{Figure: results.Figure{Header: "backlog end / max"}, Text: func(r *results.Results, g *results.Group) string {
			b := q(r, g).Backlog
			s := fmt.Sprintf("%s / %s", results.Kilo(float64(b.Final)), results.Kilo(float64(b.Max)))
			if !b.Bounded {
				s += " growing"
			}
			return s
		}},
		{Figure: results.Figure{Header: "p99 batch in / out"}, Text: func(r *results.Results, g *results.Group) string {
			f := q(r, g)
			return fmt.Sprintf("%.1f / %.1f ms", f.LatencyInMS.P99, f.LatencyOutMS.P99)
		}},
		{Figure: results.Figure{Header: "per core in / out"}, Text: func(r *results.Results, g *results.Group) string {
			return q(r, g).PerCore.Text(func(p PerCore) string { return results.Kilo(p.RowsInPerS) + " / " + results.Kilo(p.RowsOutPerS) })
		}},
	}
}

// queueNotes explain the columns, with the per-core reference of 004.
func queueNotes(fifo bool) func(r *results.Results, groups []results.Group) []string {
	q := queueFigures
	return func(r *results.Results, groups []results.Group) []string {
		notes := []string{
			"in/out: rows inserted/deleted per second, both measured at once; out is the rate compared (a row is done when it has left the queue);",
			"backlog: rows in the queue (exact: prefill + every row in - every row out), \"growing\" when it grew by more than 5% of the in rate;",
		}
		var pc PerCore
		for gi := range groups {
			if p, ok := q(r, &groups[gi]).PerCore.Get(); ok {
				pc = p
			}
		}
		switch {
		case pc.Cores > 0 && pc.Ref004RowsInPerS > 0:
			refCores := "" // a schema-1 file did not record the write-up's cores
			if pc.Ref004Cores > 0 {
				refCores = fmt.Sprintf("%d cores; ", pc.Ref004Cores)
			}
			notes = append(notes, fmt.Sprintf("per core: rows/s over the %d cores the server and keybench shared; 004: %s in / %s out per core (%sits out counts 1000 rows per delete call, found or not).",
				pc.Cores, results.Kilo(pc.Ref004RowsInPerS), results.Kilo(pc.Ref004RowsOutPerS), refCores))
		case pc.Cores > 0:
			notes = append(notes, fmt.Sprintf("per core: rows/s over the %d cores the server and keybench shared.", pc.Cores))
		}
		if fifo {
			notes = append(notes, "queue-fifo: each partition's rows leave in key order, which is arrival order only for time-ordered keys (bigint, uuidv7); with uuidv4 it is random.")
		}
		return notes
	}
}

// queueCharts are a queue's own charts: rates per core beside 004, the backlog.
func queueCharts() []present.Chart {
	return []present.Chart{{
		Heading: "Queue rates per core", Title: "Rows in and out per second per core, beside 004", YLabel: "thousand rows per second per core",
		Categories: []string{"in (inserted)", "out (deleted)"},
		Values: func(c *results.Cell) ([]float64, bool) {
			s, ok := c.Metrics.Summary.(*QueueSummary)
			if !ok {
				return nil, false
			}
			p, ok := s.Queue.PerCore.Get()
			return []float64{p.RowsInPerS / 1000, p.RowsOutPerS / 1000}, ok
		},
		Reference: func(c *results.Cell) (string, []float64) {
			s, ok := c.Metrics.Summary.(*QueueSummary)
			if !ok {
				return "", nil
			}
			p, _ := s.Queue.PerCore.Get()
			if p.Ref004RowsInPerS == 0 {
				return "", nil
			}
			name := "004"
			if p.Ref004Cores > 0 {
				name = fmt.Sprintf("004 (%d cores)", p.Ref004Cores)
			}
			return name, []float64{p.Ref004RowsInPerS / 1000, p.Ref004RowsOutPerS / 1000}
		},
		Caption: "Rows inserted and deleted per second, measured at once, divided by the cores the server and keybench shared; 004's figures divided by its 56 cores. " +
			"004 counted 1000 rows per delete call whether or not the partition held them; keybench counts the rows deleted.",
		Missing: "queue rates per core: the server's cores are unknown (--dsn)",
	}, {
		Heading: "Queue backlog", Title: "Backlog over time", XLabel: "seconds into the measured window", YLabel: "thousand rows in the queue",
		Points: func(c *results.Cell) (xs, ys []float64) {
			if s, ok := c.Metrics.Summary.(*QueueSummary); ok {
				for _, p := range s.Queue.Timeline {
					xs, ys = append(xs, float64(p.T)), append(ys, float64(p.Backlog)/1000)
				}
			}
			return xs, ys
		},
		Caption: "Rows in the queue at the end of each second: every row the producers inserted minus every row the consumers deleted. A flat line is a queue whose consumers keep up.",
		Missing: "queue backlog: no window lasted two seconds",
	}}
}
