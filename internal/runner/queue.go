package runner

import (
	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

const ref004Reference = "004: 1.94M rows/s in and 4.18M rows/s out at once on 56 cores (28 + 28 clients, 2048 partitions, no index); " +
	"its out figure counts 1000 rows per delete call whether or not the partition held them"

// queueMetrics summarises a queue cell: both rates at once, the backlog
// over time (exact, from the rows every client handled, warm-up included),
// batch latencies per role and per-core rates beside 004's. cores is the
// cores server and clients shared (0 when the server is elsewhere).
func queueMetrics(d *driver.Result, prefill int64, batch, partitions, cores int) map[string]any {
	in, out := d.Roles[workload.RoleIn], d.Roles[workload.RoleOut]
	secs := d.Elapsed.Seconds()
	q := map[string]any{
		"producers": in.Clients, "consumers": out.Clients, "batch": batch, "partitions": partitions,
		"rows_in": in.Rows, "rows_out": out.Rows, "batches_in": in.Txns, "batches_out": out.Txns,
		"reference_004": ref004Reference,
	}
	if secs <= 0 {
		return q
	}
	inPS, outPS := float64(in.Rows)/secs, float64(out.Rows)/secs
	q["rows_in_per_s"], q["rows_out_per_s"] = inPS, outPS
	// 004's way of counting consumption: delete calls × batch size.
	q["delete_calls_rows_per_s"] = float64(out.Txns) * float64(batch) / secs
	if out.Txns > 0 {
		q["rows_per_delete"] = float64(out.Rows) / float64(out.Txns)
	}
	q["latency_in_ms"], q["latency_out_ms"] = histLatency(in.Latency), histLatency(out.Latency)

	var series []map[string]any
	var ts, bs []float64
	maxB := int64(0)
	for _, s := range d.Timeline {
		ri, ro := s.Roles[workload.RoleIn], s.Roles[workload.RoleOut]
		b := prefill + ri.Total - ro.Total
		maxB = max(maxB, b)
		series = append(series, map[string]any{"t": s.T, "backlog": b, "in_rows_per_s": ri.RowsPS, "out_rows_per_s": ro.RowsPS})
		ts, bs = append(ts, float64(s.T)), append(bs, float64(b))
	}
	final := prefill + in.TotalRows - out.TotalRows
	maxB = max(maxB, final)
	slope := slopeOf(ts, bs)
	q["backlog"] = map[string]any{"final": final, "max": maxB, "growth_rows_per_s": slope,
		// Bounded: over the window the backlog grew by less than 5% of what came in.
		"bounded": slope <= 0.05*inPS}
	q["timeline"] = series
	if cores > 0 {
		q["per_core"] = map[string]any{"cores": cores, "rows_in_per_s": inPS / float64(cores), "rows_out_per_s": outPS / float64(cores),
			"ref_004_rows_in_per_s": float64(results.Ref004InPerS) / results.Ref004Cores, "ref_004_rows_out_per_s": float64(results.Ref004OutPerS) / results.Ref004Cores}
	} else {
		q["per_core"] = results.Unavailable{Unavailable: "the server runs on another machine: its cores are unknown"}
	}
	return q
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
