package report

import (
	"fmt"
	"html/template"
	"sort"

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
		ss = append(ss, series{name: g.Key, color: keyColor(r.colors[g.Key]), ys: v})
	}
	return ss
}

func (r *renderer) tpsOverTime() (Chart, string) {
	var ss []series
	for _, g := range r.headline {
		c := r.cell(g)
		s := series{name: g.Key, color: keyColor(r.colors[g.Key])}
		for _, sec := range c.Timeline {
			s.xs, s.ys = append(s.xs, float64(sec.T)), append(s.ys, sec.TPS)
		}
		if len(s.xs) > 1 {
			ss = append(ss, s)
		}
	}
	if len(ss) == 0 {
		return Chart{}, "throughput over time: no window lasted two seconds"
	}
	svg, err := lines("Throughput over time", "seconds into the measured window", "transactions per second", ss)
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
		s, ok := perKey[g.Key]
		if !ok {
			s = &series{name: g.Key, color: keyColor(r.colors[g.Key])}
			perKey[g.Key] = s
			order = append(order, g.Key)
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
	var ss []series
	for _, g := range r.headline {
		m, ok := r.cell(g).Metrics["buffercache"].(map[string]any)
		if !ok {
			continue
		}
		samples, _ := m["samples"].([]any)
		s := series{name: g.Key, color: keyColor(r.colors[g.Key])}
		for _, x := range samples {
			smp, _ := x.(map[string]any)
			t, _ := num(smp["t"])
			shares, _ := smp["shares"].(map[string]any)
			v, _ := num(shares["key_index"])
			s.xs, s.ys = append(s.xs, t), append(s.ys, v*100)
		}
		if len(s.xs) > 1 {
			ss = append(ss, s)
		}
	}
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
