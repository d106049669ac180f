package results

import (
	"fmt"
	"io"
	"math"

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

// WriteSummary prints the console summary, shaped like the table of
// "UUID Benchmark War": per key the window's time, rate, size at finish, and
// how it compares with the row above it.
func (r *Results) WriteSummary(w io.Writer) {
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.SetStyle(table.StyleLight)
	t.AppendHeader(table.Row{"key", "workload", "clients", "rows before", "time", "txns", "rate", "p50", "p99", "size at finish", "compared with the row above"})
	var prev *Cell
	for i := range r.Cells {
		c := &r.Cells[i]
		size := "-"
		if b, ok := c.Int("total_bytes"); ok {
			size = Bytes(b)
		}
		if c.Status != StatusOK {
			t.AppendRow(table.Row{c.Key, c.Workload, c.Clients, c.RowsBefore, "-", c.Txns, c.Status, "-", "-", size, c.Error})
			continue
		}
		t.AppendRow(table.Row{c.Key, c.Workload, c.Clients, c.RowsBefore,
			fmt.Sprintf("%.1f s", c.DurationS), c.Txns, fmt.Sprintf("%.0f tps", c.TPS),
			fmt.Sprintf("%.2f ms", c.LatencyMS.P50), fmt.Sprintf("%.2f ms", c.LatencyMS.P99), size, compare(c, prev)})
		if prev == nil || prev.Workload != c.Workload || prev.Clients != c.Clients {
			prev = nil
		}
		prev = c
	}
	t.SetColumnConfigs([]table.ColumnConfig{
		{Number: 3, Align: text.AlignRight}, {Number: 4, Align: text.AlignRight}, {Number: 5, Align: text.AlignRight},
		{Number: 6, Align: text.AlignRight}, {Number: 7, Align: text.AlignRight}, {Number: 8, Align: text.AlignRight},
		{Number: 9, Align: text.AlignRight}, {Number: 10, Align: text.AlignRight},
	})
	t.Render()
	seen := map[string]bool{}
	for _, c := range r.Cells {
		if c.KeyNote != "" && !seen[c.Key+c.KeyNote] {
			seen[c.Key+c.KeyNote] = true
			fmt.Fprintf(w, "note: %s: %s.\n", c.Key, c.KeyNote)
		}
	}
	fmt.Fprintln(w, "rate: transactions per second in the measured window; size: table + indexes at the end of the cell.")
	fmt.Fprintln(w, "comparisons are between single runs; --repeat N adds intervals and marks differences within noise.")
}

// compare says how c compares with prev: "12% faster and 30% smaller than uuidv4".
func compare(c, prev *Cell) string {
	if prev == nil || prev.Workload != c.Workload || prev.Clients != c.Clients || prev.Status != StatusOK || prev.TPS == 0 {
		return ""
	}
	speed := relative(c.TPS/prev.TPS, "faster", "slower", "")
	size := ""
	if a, ok := c.Int("total_bytes"); ok {
		if b, ok := prev.Int("total_bytes"); ok && b > 0 {
			size = relative(float64(a)/float64(b), "larger", "smaller", "")
		}
	}
	switch {
	case speed == "" && size == "":
		return "same speed and size as " + prev.Key
	case speed == "":
		return size + " than " + prev.Key + ", same speed"
	case size == "":
		return speed + " than " + prev.Key + ", same size"
	}
	return speed + " and " + size + " than " + prev.Key
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
