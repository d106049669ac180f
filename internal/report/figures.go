package report

import (
	"fmt"
	"html/template"
	"image/color"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/results"
)

const mib = 1 << 20

func (r *renderer) chart(title, caption, svg string, err error) (Chart, string) {
	if err != nil {
		return Chart{}, fmt.Sprintf("%s: %v", title, err)
	}
	return Chart{Title: title, Caption: caption, SVG: template.HTML(svg)}, ""
}

// barsPerKey makes one series per headline key from a per-cell extractor (NaN-free; ok=false skips the key).
func (r *renderer) barsPerKey(values func(c *results.Cell) ([]float64, bool)) []series {
	var ss []series
	for _, g := range r.headline {
		v, ok := values(r.cell(g))
		if !ok {
			continue
		}
		ss = append(ss, series{name: r.label(g), color: r.keyColor(g), ys: v})
	}
	return ss
}

// linesPerKey makes one line per headline group from a per-cell extractor of
// points, keeping the groups keep accepts and the lines of two points or more.
func (r *renderer) linesPerKey(keep func(g *results.Group) bool, points func(c *results.Cell) (xs, ys []float64)) []series {
	var ss []series
	for _, g := range r.headline {
		if keep != nil && !keep(g) {
			continue
		}
		xs, ys := points(r.cell(g))
		if len(xs) > 1 {
			ss = append(ss, series{name: r.label(g), color: r.keyColor(g), xs: xs, ys: ys})
		}
	}
	return ss
}

func (r *renderer) tpsOverTime() (Chart, string) {
	if r.isLoad() {
		return Chart{}, "" // a load's timeline is its chunks: see the load-rate chart
	}
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		for _, sec := range c.Timeline {
			xs, ys = append(xs, float64(sec.T)), append(ys, results.SecondRate(sec))
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "throughput over time: no window lasted two seconds"
	}
	yl := "transactions per second"
	if r.isQueue() {
		yl = "rows out of the queue per second"
	}
	svg, err := lines("Throughput over time", "seconds into the measured window", yl, ss)
	return r.chart("Throughput over time", "Per-second throughput of each key's first run in the measured window (warm-up excluded).", svg, err)
}

// tpsVsScale plots median throughput against table size (growth) or clients (sequence-cache).
func (r *renderer) tpsVsScale() (Chart, string) {
	rowsSet, clientsSet := map[int64]bool{}, map[int]bool{}
	for _, g := range r.groups {
		rowsSet[g.Rows], clientsSet[g.Clients] = true, true
	}
	byRows := len(rowsSet) > 1
	if !byRows && len(clientsSet) < 2 {
		return Chart{}, "throughput vs table size: the run measured one table size and one client count"
	}
	perKey := map[string]*series{}
	var order []string
	for i := range r.groups {
		g := &r.groups[i]
		if byRows && g.Clients != r.headline[0].Clients || !byRows && g.Rows != r.headline[0].Rows {
			continue
		}
		s, ok := perKey[r.label(g)]
		if !ok {
			s = &series{name: r.label(g), color: r.keyColor(g)}
			perKey[r.label(g)] = s
			order = append(order, r.label(g))
		}
		x := float64(g.Clients)
		if byRows {
			x = float64(g.Rows) / 1e6
		}
		s.xs, s.ys = append(s.xs, x), append(s.ys, g.TPS.Median)
	}
	var ss []series
	for _, k := range order {
		s := perKey[k]
		idx := make([]int, len(s.xs))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return s.xs[idx[a]] < s.xs[idx[b]] })
		xs, ys := make([]float64, len(idx)), make([]float64, len(idx))
		for i, j := range idx {
			xs[i], ys[i] = s.xs[j], s.ys[j]
		}
		s.xs, s.ys = xs, ys
		ss = append(ss, *s)
	}
	title, xl := "Throughput vs table size", "rows in the table before the window (millions)"
	if !byRows {
		title, xl = "Throughput vs clients", "clients"
	}
	svg, err := lines(title, xl, "median transactions per second", ss)
	return r.chart(title, "Median throughput of each key at each scale.", svg, err)
}

func (r *renderer) sizes() (Chart, string) {
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		t, ok1 := num(c.Metrics["table_bytes"])
		k, ok2 := num(c.Metrics["key_index_bytes"])
		a, ok3 := num(c.Metrics["key_index_bytes_after_reindex"])
		tot, ok4 := num(c.Metrics["total_bytes"])
		if !ok1 || !ok4 {
			return nil, false
		}
		if !ok2 || !ok3 {
			k, a = 0, 0
		}
		return []float64{t / mib, k / mib, a / mib, tot / mib}, true
	})
	if len(ss) == 0 {
		return Chart{}, "sizes: not collected"
	}
	svg, err := groupedBars("Sizes at the end of the cell, and the key index after REINDEX", "MiB",
		[]string{"table (heap + TOAST)", "key index", "key index after REINDEX", "total"}, ss)
	return r.chart("Sizes and bloat", "Relation sizes at the end of each key's first run. The gap between the key index and its size after REINDEX is bloat (the bloat ratio is their quotient).", svg, err)
}

func (r *renderer) walPerRow() (Chart, string) {
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		b, ok := num(c.Metrics["wal_bytes_per_row"])
		return []float64{b}, ok
	})
	if len(ss) == 0 {
		return Chart{}, "WAL per row: not collected"
	}
	svg, err := groupedBars("WAL written per inserted row", "bytes per row", []string{"WAL bytes / row"}, ss)
	return r.chart("WAL bytes per row", "WAL the whole cluster wrote during the cell (pg_stat_wal), divided by the rows the clients inserted.", svg, err)
}

func (r *renderer) fpiPerRow() (Chart, string) {
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		total, ok := num(c.Metrics["wal_fpi_per_row"])
		if !ok {
			return nil, false
		}
		out := []float64{total, 0, 0, 0}
		fpi, _ := num(c.Metrics["wal_fpi"])
		if by, ok := c.Metrics["wal_fpi_by_relation"].(map[string]any); ok && fpi > 0 && total > 0 {
			rows := fpi / total
			for i, role := range []string{"key_index", "data_index", "table"} {
				v, _ := num(by[role])
				out[i+1] = v / rows
			}
		}
		return out, true
	})
	if len(ss) == 0 {
		return Chart{}, "full-page images per row: not collected"
	}
	svg, err := groupedBars("WAL full-page images per inserted row", "full-page images per row",
		[]string{"all relations", "key index", "data index", "table"}, ss)
	return r.chart("Full-page images per row", "Full-page images (pg_stat_wal), and where they were taken (pg_walinspect, PostgreSQL 16+; zero where not measured). Random keys touch many index pages after each checkpoint; each first touch writes a whole 8 kB page to the WAL.", svg, err)
}

func (r *renderer) cacheOverTime() (Chart, string) {
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		m, _ := c.Metrics["buffercache"].(map[string]any)
		samples, _ := m["samples"].([]any)
		for _, x := range samples {
			smp, _ := x.(map[string]any)
			t, _ := num(smp["t"])
			shares, _ := smp["shares"].(map[string]any)
			v, _ := num(shares["key_index"])
			xs, ys = append(xs, t), append(ys, v*100)
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "buffer-cache share: not sampled (pg_buffercache unavailable, sampling off, or windows shorter than two samples)"
	}
	svg, err := lines("Key index's share of the buffer cache", "seconds into the measured window", "% of shared_buffers", ss)
	return r.chart("Buffer-cache share over time", "Share of shared_buffers holding the key index (pg_buffercache, sampled every 2 s). Pages a random key needs crowd out everything else.", svg, err)
}

func (r *renderer) waits() (Chart, string) {
	total := map[string]float64{}
	for _, g := range r.headline {
		counts, n := waitCounts(r.cell(g))
		for k, v := range counts {
			total[k] += v / n
		}
	}
	events := sortedKeys(total)
	sort.SliceStable(events, func(i, j int) bool { return total[events[i]] > total[events[j]] })
	if len(events) == 0 {
		return Chart{}, "wait events: not sampled"
	}
	if len(events) > 6 {
		events = events[:6]
	}
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		counts, n := waitCounts(c)
		if n == 0 {
			return nil, false
		}
		out := make([]float64, len(events))
		for i, e := range events {
			out[i] = counts[e] / n * 100
		}
		return out, true
	})
	svg, err := groupedBars("What the clients' backends were doing", "% of samples", events, ss)
	return r.chart("Wait events", "Share of pg_stat_activity samples of the clients' backends per wait event (CPU: running, not waiting), most frequent overall first.", svg, err)
}

func (r *renderer) latency() (Chart, string) {
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		l := c.LatencyMS
		return []float64{l.P50, l.P95, l.P99, l.P999}, c.Txns > 0
	})
	if len(ss) == 0 {
		return Chart{}, "latency: no transactions"
	}
	svg, err := groupedBars("Transaction latency percentiles", "milliseconds", []string{"p50", "p95", "p99", "p99.9"}, ss)
	return r.chart("Latency percentiles", "Latency percentiles of the measured window (HDR histogram merged over the clients).", svg, err)
}

func (r *renderer) isLoad() bool {
	return len(r.headline) > 0 && strings.HasPrefix(r.headline[0].Workload, "bulk")
}
func (r *renderer) isQueue() bool {
	return len(r.headline) > 0 && strings.HasPrefix(r.headline[0].Workload, "queue")
}

// loadRate is 003's curve: each load chunk's rate against the rows the table held.
func (r *renderer) loadRate() (Chart, string) {
	if !r.isLoad() {
		return Chart{}, ""
	}
	// The curve is the loads with the index in place (003); loads that
	// build it afterwards run at the heap's pace and would crowd the chart.
	during := false
	for _, g := range r.headline {
		during = during || g.Workload == "bulk"
	}
	ss := r.linesPerKey(func(g *results.Group) bool { return !during || g.Workload == "bulk" }, func(c *results.Cell) (xs, ys []float64) {
		chunks, _ := c.Metrics["load_rate_per_chunk"].([]any)
		for _, x := range chunks {
			ch, _ := x.(map[string]any)
			before, _ := num(ch["rows_before"])
			rows, _ := num(ch["rows"])
			rate, _ := num(ch["rows_per_s"])
			xs, ys = append(xs, (before+rows)/1e6), append(ys, rate/1000)
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "load rate per chunk: no load had two chunks"
	}
	svg, err := lines("Load rate as the table grows", "rows in the table at the end of the chunk (millions)", "thousand rows per second", ss)
	return r.chart("Load rate per chunk", "Each chunk's rate against the table's size, as 003 plotted it, for the loads with the key's index in place: a key whose index inserts stay on the right edge keeps its rate; "+
		"one whose inserts scatter over an index larger than the cache falls as the table grows. "+
		"uuidv1 with spacing: raw version 1 uuids lead with time_low, the low 32 bits of the 100 ns timestamp, which wraps every 2^32 × 100 ns ≈ 7.2 minutes; "+
		"once the keys' timestamps span more than that, each wrap starts again at the low end of the index and sweeps through it, "+
		"while uuidv6 carries the same timestamp most significant bits first and stays in order.", svg, err)
}

// queueRates sets the queue's in and out rates, per core, beside 004's.
func (r *renderer) queueRates() (Chart, string) {
	if !r.isQueue() {
		return Chart{}, ""
	}
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		q := c.Nested("queue")
		in, ok1 := results.Float(q, "per_core", "rows_in_per_s")
		out, ok2 := results.Float(q, "per_core", "rows_out_per_s")
		return []float64{in / 1000, out / 1000}, ok1 && ok2
	})
	if len(ss) == 0 {
		return Chart{}, "queue rates per core: the server's cores are unknown (--dsn)"
	}
	ss = append(ss, series{name: "004 (56 cores)", color: color.Gray{Y: 150},
		ys: []float64{results.Ref004InPerS / results.Ref004Cores / 1000, results.Ref004OutPerS / results.Ref004Cores / 1000}})
	svg, err := groupedBars("Rows in and out per second per core, beside 004", "thousand rows per second per core", []string{"in (inserted)", "out (deleted)"}, ss)
	return r.chart("Queue rates per core", "Rows inserted and deleted per second, measured at once, divided by the cores the server and keybench shared; 004's figures divided by its 56 cores. "+
		"004 counted 1000 rows per delete call whether or not the partition held them; keybench counts the rows deleted.", svg, err)
}

// backlog plots the rows waiting in the queue over the window.
func (r *renderer) backlog() (Chart, string) {
	if !r.isQueue() {
		return Chart{}, ""
	}
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		tl, _ := c.Nested("queue")["timeline"].([]any)
		for _, x := range tl {
			p, _ := x.(map[string]any)
			t, _ := num(p["t"])
			b, _ := num(p["backlog"])
			xs, ys = append(xs, t), append(ys, b/1000)
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "queue backlog: no window lasted two seconds"
	}
	svg, err := lines("Backlog over time", "seconds into the measured window", "thousand rows in the queue", ss)
	return r.chart("Queue backlog", "Rows in the queue at the end of each second: every row the producers inserted minus every row the consumers deleted. A flat line is a queue whose consumers keep up.", svg, err)
}
