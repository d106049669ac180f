package results

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
)

// Nested returns a metric that is an object as plain JSON values, whether
// the cell was just measured (Go values) or read back from results.json.
func (c *Cell) Nested(name string) map[string]any {
	v, ok := c.Metrics[name]
	if !ok {
		return nil
	}
	if m, ok := v.(map[string]any); ok && isPlain(m) {
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

func isPlain(m map[string]any) bool {
	for _, v := range m {
		switch v.(type) {
		case nil, bool, float64, string, []any:
		case map[string]any:
			if !isPlain(v.(map[string]any)) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// Float reads a number at a path of a nested metric ("backlog", "max").
func Float(m map[string]any, path ...string) (float64, bool) {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		v = mm[p]
	}
	f, ok := v.(float64)
	return f, ok
}

// kilo renders a rate compactly: 1234567 → "1.23M", 81234 → "81.2k".
func kilo(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func allWorkloads(groups []Group, prefix string) bool {
	for _, g := range groups {
		if !strings.HasPrefix(g.Workload, prefix) {
			return false
		}
	}
	return len(groups) > 0
}

// queueTable prints a queue run (004): both rates measured at once, the
// backlog, batch latencies and per-core rates beside 004's.
func (r *Results) queueTable(w io.Writer, groups []Group) {
	t := newTable(w)
	t.AppendHeader(table.Row{"key", "workload", "clients (in+out)", "in rows/s", "out rows/s (95% CI)", "rows per delete", "backlog end / max",
		"p99 batch in / out", "per core in / out", "compared with the row above"})
	cores := 0.0
	for gi := range groups {
		g := &groups[gi]
		c := &r.Cells[g.Cells[len(g.Cells)-1]]
		q := c.Nested("queue")
		f := func(path ...string) float64 { v, _ := Float(q, path...); return v }
		backlog := fmt.Sprintf("%s / %s", kilo(f("backlog", "final")), kilo(f("backlog", "max")))
		if b, ok := q["backlog"].(map[string]any); ok && b["bounded"] == false {
			backlog += " growing"
		}
		perCore := "unavailable"
		if n, ok := Float(q, "per_core", "cores"); ok {
			cores = n
			perCore = kilo(f("per_core", "rows_in_per_s")) + " / " + kilo(f("per_core", "rows_out_per_s"))
		}
		out := g.TPS
		t.AppendRow(table.Row{g.Key, g.Workload, fmt.Sprintf("%.0f+%.0f", f("producers"), f("consumers")), kilo(f("rows_in_per_s")),
			fmt.Sprintf("%s [%s-%s]", kilo(out.Median), kilo(out.Lo), kilo(out.Hi)), fmt.Sprintf("%.0f of %.0f", f("rows_per_delete"), f("batch")),
			backlog, fmt.Sprintf("%.1f / %.1f ms", f("latency_in_ms", "p99"), f("latency_out_ms", "p99")), perCore, r.versus(groups, g, g.VsPrevious)})
	}
	t.SetColumnConfigs(rightAligned(3, 4, 5, 6, 7, 8, 9))
	t.Render()
	fmt.Fprintln(w, "in/out: rows inserted/deleted per second, both measured at once; out is the rate compared (a row is done when it has left the queue);")
	fmt.Fprintln(w, "backlog: rows in the queue (exact: prefill + every row in - every row out), \"growing\" when it grew by more than 5% of the in rate;")
	if cores > 0 {
		fmt.Fprintf(w, "per core: rows/s over the %.0f cores the server and keybench shared; 004: %s in / %s out per core (56 cores; its out counts 1000 rows per delete call, found or not).\n",
			cores, kilo(Ref004InPerS/Ref004Cores), kilo(Ref004OutPerS/Ref004Cores))
	}
	for _, g := range groups {
		if g.Workload == "queue-fifo" {
			fmt.Fprintln(w, "queue-fifo: each partition's rows leave in key order, which is arrival order only for time-ordered keys (bigint, uuidv7); with uuidv4 it is random.")
			break
		}
	}
	fmt.Fprintln(w, "\"~\": the difference is within run-to-run noise (Mann-Whitney U, p >= 0.05); "+unitNote(groups)+".")
}

// 004's figures: 28 producers and 28 consumers on 56 cores, batches of
// 1000 rows, 2048 partitions, no index.
const (
	Ref004Cores   = 56
	Ref004InPerS  = 1_937_999 // 1938 insert batches/s × 1000 rows
	Ref004OutPerS = 4_181_104 // 4181 delete calls/s × 1000: calls, not rows found
)

// bulkTable prints a load run (000, 003): per key and variant, the load's
// time, the rate of its first and last chunk, and the index build timed
// apart when the index came afterwards.
func (r *Results) bulkTable(w io.Writer, groups []Group) {
	t := newTable(w)
	t.AppendHeader(table.Row{"key", "workload", "method", "rows", "load", "index build", "total", "first → last chunk (rows/s)", "last / first", "size", "leaf density", "compared with the row above"})
	for gi := range groups {
		g := &groups[gi]
		c := &r.Cells[g.Cells[len(g.Cells)-1]]
		load, _ := c.Metrics["load_s"].(float64)
		total, _ := c.Metrics["total_s"].(float64)
		build := "with the load"
		if v, ok := c.Metrics["index_build_s"].(float64); ok {
			build = fmt.Sprintf("%.1f s", v)
		}
		first, _ := c.Metrics["first_chunk_rows_per_s"].(float64)
		last, _ := c.Metrics["last_chunk_rows_per_s"].(float64)
		ratio, _ := c.Metrics["last_to_first_chunk"].(float64)
		method, _ := c.Metrics["load_method"].(string)
		method, _, _ = strings.Cut(method, " (")
		size := "-"
		if b, ok := r.MedianInt(g, "total_bytes"); ok {
			size = Bytes(b)
		}
		t.AppendRow(table.Row{g.Key, g.Workload, method, r.Cells[g.Cells[0]].RowsInserted, fmt.Sprintf("%.1f s", load), build, fmt.Sprintf("%.1f s", total),
			fmt.Sprintf("%s → %s", kilo(first), kilo(last)), fmt.Sprintf("%.2f", ratio), size, metricf(c, "leaf_density", "%.0f%%", 100),
			r.versus(groups, g, g.VsPrevious)})
	}
	t.SetColumnConfigs(rightAligned(4, 5, 6, 7, 8, 9, 10, 11))
	t.Render()
	fmt.Fprintln(w, "load: the rows loaded in timed chunks; total: load plus the index build when the index came afterwards; last / first: the last chunk's rate over the first's;")
	fmt.Fprintln(w, "\"~\": the difference is within run-to-run noise (Mann-Whitney U, p >= 0.05); "+unitNote(groups)+".")
	if line := r.IndexAfterVsDuring(groups); line != "" {
		fmt.Fprintln(w, line)
	}
}

// IndexAfterVsDuring compares, per key, the total time of a load that
// built the index afterwards (build included) with one that had it in
// place: "" when the run did not measure both.
func (r *Results) IndexAfterVsDuring(groups []Group) string {
	type totals struct{ during, after float64 }
	byKey := map[string]*totals{}
	var order []string
	for gi := range groups {
		g := &groups[gi]
		total, _ := r.Cells[g.Cells[len(g.Cells)-1]].Metrics["total_s"].(float64)
		if byKey[g.Key] == nil {
			byKey[g.Key] = &totals{}
			order = append(order, g.Key)
		}
		switch g.Workload {
		case "bulk-index-after":
			byKey[g.Key].after = total
		case "bulk":
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
