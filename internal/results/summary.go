package results

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

// Int returns an integer metric of the cell, and whether it was collected.
func (c *Cell) Int(name string) (int64, bool) {
	switch v := c.Metrics[name].(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case float64: // as read back from JSON
		return int64(v), true
	}
	return 0, false
}

// WriteSummary prints the console summary in the shape of the scenario's
// source: growth as "key × table size → tps" (000), sequence-cache as
// "key × clients → tps and bloat" (002), everything else like the table of
// "UUID Benchmark War" (001).
func (r *Results) WriteSummary(w io.Writer) {
	groups := r.BuildGroups()
	switch r.Scenario {
	case "growth":
		r.pivot(w, groups, "rows before", func(g *Group) int64 { return g.Rows }, func(g *Group) string {
			return fmt.Sprintf("%.0f tps", g.TPS.Median)
		})
	case "sequence-cache":
		r.pivot(w, groups, "clients", func(g *Group) int64 { return int64(g.Clients) }, func(g *Group) string {
			out := fmt.Sprintf("%.0f tps", g.TPS.Median)
			if b, ok := r.MedianFloat(g, "bloat_ratio"); ok {
				out += fmt.Sprintf(", bloat %.2f", b)
			}
			return out
		})
	default:
		switch {
		case allWorkloads(groups, "queue"):
			r.queueTable(w, groups)
		case allWorkloads(groups, "bulk"):
			r.bulkTable(w, groups)
		default:
			r.warTable(w, groups)
		}
	}
	r.evidence(w, groups)
	r.failures(w)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s.\n", n)
	}
	seen := map[string]bool{}
	for _, c := range r.Cells {
		if c.KeyNote != "" && !seen[c.Key+c.KeyNote] {
			seen[c.Key+c.KeyNote] = true
			fmt.Fprintf(w, "note: %s: %s.\n", c.Key, c.KeyNote)
		}
	}
}

func (r *Results) warTable(w io.Writer, groups []Group) {
	t := newTable(w)
	t.AppendHeader(table.Row{"key", "workload", "clients", "rows before", "time", "txns", "rate (95% CI)", "p99", "size at finish", "compared with the row above"})
	for gi := range groups {
		g := &groups[gi]
		var dur, txns, p99 []float64
		for _, i := range g.Cells {
			c := &r.Cells[i]
			dur, txns, p99 = append(dur, c.DurationS), append(txns, float64(c.Txns)), append(p99, c.LatencyMS.P99)
		}
		size := "-"
		if b, ok := r.MedianInt(g, "total_bytes"); ok {
			size = Bytes(b)
		}
		t.AppendRow(table.Row{g.Key, g.Workload, g.Clients, g.Rows, fmt.Sprintf("%.1f s", med(dur)), fmt.Sprintf("%.0f", med(txns)),
			rate(g), fmt.Sprintf("%.2f ms", med(p99)), size, r.versus(groups, g, g.VsPrevious)})
	}
	t.SetColumnConfigs(rightAligned(2, 3, 4, 5, 6, 7, 8, 9))
	t.Render()
	fmt.Fprintln(w, "rate: median transactions (bulk: rows) per second with its 95% confidence interval (bulk: over the load's chunks); size: table + indexes at the end of the cell;")
	fmt.Fprintln(w, "\"~\": the difference is within run-to-run noise (Mann-Whitney U, p >= 0.05); "+unitNote(groups)+".")
}

// pivot prints keys down and one column per value of by (table size or clients).
func (r *Results) pivot(w io.Writer, groups []Group, byName string, by func(*Group) int64, cell func(*Group) string) {
	var cols []int64
	seenCol := map[int64]bool{}
	var keysOrder []string
	seenKey := map[string]bool{}
	at := map[string]*Group{}
	for gi := range groups {
		g := &groups[gi]
		v := by(g)
		if !seenCol[v] {
			seenCol[v] = true
			cols = append(cols, v)
		}
		if !seenKey[g.Key] {
			seenKey[g.Key] = true
			keysOrder = append(keysOrder, g.Key)
		}
		at[fmt.Sprintf("%s\x00%d", g.Key, v)] = g
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i] < cols[j] })
	t := newTable(w)
	header := table.Row{"key \\ " + byName}
	for _, c := range cols {
		header = append(header, c)
	}
	t.AppendHeader(header)
	for _, k := range keysOrder {
		row := table.Row{k}
		for _, c := range cols {
			g := at[fmt.Sprintf("%s\x00%d", k, c)]
			if g == nil {
				row = append(row, "-")
				continue
			}
			s := cell(g)
			if g.VsFirst != nil {
				s += " " + shortVersus(g.VsFirst)
			}
			row = append(row, s)
		}
		t.AppendRow(row)
	}
	var right []int
	for i := range cols {
		right = append(right, i+2)
	}
	t.SetColumnConfigs(rightAligned(right...))
	t.Render()
	first := ""
	if len(keysOrder) > 0 {
		first = keysOrder[0]
	}
	fmt.Fprintf(w, "median tps per cell; (+N%%/-N%%) against %s in the same column, \"~\" where within run-to-run noise (Mann-Whitney U, p >= 0.05); %s.\n", first, unitNote(groups))
}

func shortVersus(v *Versus) string {
	if !v.Significant {
		return "(~)"
	}
	return fmt.Sprintf("(%+.0f%%)", (v.Ratio-1)*100)
}

// versus says how g compares with another group: "12% faster and 30% smaller than uuidv4", "~" within noise.
func (r *Results) versus(groups []Group, g *Group, v *Versus) string {
	if v == nil {
		return ""
	}
	speed := "~ same speed"
	if v.Significant {
		speed = relative(v.Ratio, "faster", "slower", "same speed")
	}
	var other *Group
	for i := range groups {
		if o := &groups[i]; o.Key == v.Key && o.Workload == g.Workload && o.Clients == g.Clients && o.Rows == g.Rows {
			other = o
		}
	}
	size := ""
	if other != nil {
		if a, ok := r.MedianInt(g, "total_bytes"); ok {
			if b, ok := r.MedianInt(other, "total_bytes"); ok && b > 0 {
				size = relative(float64(a)/float64(b), "larger", "smaller", "same size")
			}
		}
	}
	if size == "" {
		return speed + " than " + v.Key
	}
	return speed + ", " + size + " than " + v.Key
}

func rate(g *Group) string {
	s := g.TPS
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f %s [%.0f-%.0f]", s.Median, RateUnit(g.Workload), s.Lo, s.Hi)
}

// RateUnit is what a workload's rate counts: rows per second for loads, transactions otherwise.
func RateUnit(workload string) string {
	switch {
	case strings.HasPrefix(workload, "bulk"):
		return "rows/s"
	case strings.HasPrefix(workload, "queue"):
		return "rows/s out"
	}
	return "tps"
}

func unitNote(groups []Group) string {
	for _, g := range groups {
		if g.Unit == "seconds" {
			return "samples are per-second rates (use --repeat 5 or more to compare whole runs)"
		}
	}
	return "samples are whole runs"
}

func (r *Results) failures(w io.Writer) {
	for _, c := range r.Cells {
		if c.Status != StatusOK {
			fmt.Fprintf(w, "cell %s (%s, %d clients, %d rows, run %d): %s: %s\n", c.Key, c.Workload, c.Clients, c.RowsBefore, c.Repeat, c.Status, c.Error)
		}
	}
}

func newTable(w io.Writer) table.Writer {
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.SetStyle(table.StyleLight)
	return t
}

func rightAligned(cols ...int) []table.ColumnConfig {
	var out []table.ColumnConfig
	for _, c := range cols {
		out = append(out, table.ColumnConfig{Number: c, Align: text.AlignRight})
	}
	return out
}

func med(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// relative renders ratio = new/old as "N% up" (new = old*(1+N%)) or "N% down" (new = old*(1-N%)).
func relative(ratio float64, up, down, same string) string {
	pct := (ratio - 1) * 100
	switch {
	case math.Abs(pct) < 0.5:
		return same
	case pct > 0:
		return fmt.Sprintf("%.0f%% %s", pct, up)
	default:
		return fmt.Sprintf("%.0f%% %s", -pct, down)
	}
}

// Bytes renders a size with a binary unit.
func Bytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTP"[exp])
}

// Label names a group's key, with its workload when the run measured several.
func Label(groups []Group, g *Group) string {
	for _, o := range groups {
		if o.Workload != g.Workload {
			return g.Key + " (" + g.Workload + ")"
		}
	}
	return g.Key
}

// evidence prints what explains the rates, per key at its largest table and
// client count: the key index's share of the buffer cache, WAL and full-page
// images per inserted row, bloat and leaf density of the key index, and the
// clients' most frequent wait events.
func (r *Results) evidence(w io.Writer, groups []Group) {
	last := map[string]*Group{}
	var order []string
	for gi := range groups {
		g := &groups[gi]
		k := Label(groups, g)
		if prev, ok := last[k]; !ok {
			order = append(order, k)
			last[k] = g
		} else if g.Rows > prev.Rows || g.Rows == prev.Rows && g.Clients >= prev.Clients {
			last[k] = g
		}
	}
	if len(order) == 0 {
		return
	}
	t := newTable(w)
	t.AppendHeader(table.Row{"why: key", "rows before", "clients", "key index in cache", "WAL / row", "FPI / row (key index)", "key index", "bloat", "leaf density", "top waits (share of samples)"})
	for _, k := range order {
		g := last[k]
		c := &r.Cells[g.Cells[len(g.Cells)-1]]
		t.AppendRow(table.Row{k, g.Rows, g.Clients, cacheShare(c), metricf(c, "wal_bytes_per_row", "%.0f B"), metricf(c, "wal_fpi_per_row", "%.3f") + " (" + metricf(c, "key_index_fpi_per_row", "%.3f") + ")",
			metricBytes(c, "key_index_bytes"), metricf(c, "bloat_ratio", "%.2f"), metricf(c, "leaf_density", "%.0f%%", 100), topWaits(c, 3)})
	}
	t.SetColumnConfigs(rightAligned(2, 3, 4, 5, 6, 7, 8, 9))
	t.Render()
	fmt.Fprintln(w, "key index in cache: mean share of shared_buffers over the window (pg_buffercache); FPI: WAL full-page images; bloat: key index size / size after REINDEX.")
}

func unavailableText(v any) (string, bool) {
	if m, ok := v.(map[string]any); ok {
		if s, ok := m["unavailable"].(string); ok {
			return s, true
		}
	}
	if u, ok := v.(Unavailable); ok {
		return u.Unavailable, true
	}
	return "", false
}

func metricf(c *Cell, name, format string, scale ...float64) string {
	v, ok := c.Metrics[name]
	if !ok {
		return "n/a"
	}
	if _, un := unavailableText(v); un {
		return "unavailable"
	}
	f, ok := v.(float64)
	if !ok {
		if i, ok2 := c.Int(name); ok2 {
			f, ok = float64(i), true
		}
	}
	if !ok {
		return "n/a"
	}
	for _, s := range scale {
		f *= s
	}
	return fmt.Sprintf(format, f)
}

func metricBytes(c *Cell, name string) string {
	if b, ok := c.Int(name); ok {
		return Bytes(b)
	}
	if _, un := unavailableText(c.Metrics[name]); un {
		return "unavailable"
	}
	return "n/a"
}

func cacheShare(c *Cell) string {
	bc := c.Metrics["buffercache"]
	if _, un := unavailableText(bc); un {
		return "unavailable"
	}
	switch m := bc.(type) {
	case map[string]any:
		if ms, ok := m["mean_share"].(map[string]any); ok {
			if v, ok := ms["key_index"].(float64); ok {
				return fmt.Sprintf("%.0f%%", v*100)
			}
			return "0%"
		}
		if ms, ok := m["mean_share"].(map[string]float64); ok {
			return fmt.Sprintf("%.0f%%", ms["key_index"]*100)
		}
	}
	return "n/a"
}

func topWaits(c *Cell, n int) string {
	we := c.Metrics["wait_events"]
	if _, un := unavailableText(we); un {
		return "unavailable"
	}
	m, ok := we.(map[string]any)
	if !ok {
		return "n/a"
	}
	counts := map[string]float64{}
	total := 0.0
	switch cm := m["counts"].(type) {
	case map[string]any:
		for k, v := range cm {
			if f, ok := v.(float64); ok {
				counts[k] = f
				total += f
			}
		}
	case map[string]int64:
		for k, v := range cm {
			counts[k] = float64(v)
			total += float64(v)
		}
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		return counts[names[i]] > counts[names[j]] || counts[names[i]] == counts[names[j]] && names[i] < names[j]
	})
	var parts []string
	for i, k := range names {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", k, counts[k]*100/total))
	}
	return strings.Join(parts, ", ")
}
