package results

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Formatting shared by every table that shows results: the console
// summary, the report, and the workloads' own columns.

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

// Kilo renders a rate compactly: 1234567 → "1.23M", 81234 → "81.2k".
func Kilo(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// Relative renders ratio = new/old as "N% up" (new = old*(1+N%)) or "N% down" (new = old*(1-N%)).
func Relative(ratio float64, up, down, same string) string {
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

// SizeText is the median total size of the group's tables at the end of their cells.
func (r *Results) SizeText(g *Group) string {
	if b, ok := r.Median(g, func(c *Cell) (float64, bool) { return Float(c.Metrics.TotalBytes) }); ok {
		return Bytes(int64(b))
	}
	return "-"
}

// Label names a group's key, with its workload when the run measured several.
func Label(groups []Group, g *Group) string {
	for _, o := range groups {
		if o.Task() != g.Task() {
			return g.Key + " (" + g.Task() + ")"
		}
	}
	return g.Key
}

// Clients is "1 client" or "n clients".
func Clients(n int) string {
	if n == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", n)
}

// StatusText is a cell's status with its error, once: "failed: the reason"
// ("interrupted" alone, not "interrupted: interrupted").
func StatusText(status, err string) string {
	if err == "" || err == status {
		return status
	}
	return status + ": " + err
}

// TaskOptions are a task of a run with the workload options its cells ran with.
type TaskOptions struct {
	Task    string
	Options map[string]string
}

// Text is the options as "name=value, …", by name.
func (t TaskOptions) Text() string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(t.Options)) {
		out = append(out, k+"="+t.Options[k])
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// TaskOptions lists the run's tasks with their options, as their first
// cells recorded them, in the order the tasks first ran.
func (r *Results) TaskOptions() []TaskOptions {
	var out []TaskOptions
	seen := map[string]bool{}
	for _, c := range r.Cells {
		if t := c.Task(); !seen[t] {
			seen[t] = true
			out = append(out, TaskOptions{Task: t, Options: c.Options})
		}
	}
	return out
}

// OptionDifferences says, for each task both runs ran, the options whose
// values differ ("lookup point recent: recent-rows 0.01 in A, 0.05 in B").
func OptionDifferences(a, b *Results) []string {
	inB := map[string]map[string]string{}
	for _, t := range b.TaskOptions() {
		inB[t.Task] = t.Options
	}
	var out []string
	for _, t := range a.TaskOptions() {
		ob, ok := inB[t.Task]
		if !ok {
			continue
		}
		names := map[string]bool{}
		for k := range t.Options {
			names[k] = true
		}
		for k := range ob {
			names[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(names)) {
			if va, vb := t.Options[k], ob[k]; va != vb {
				out = append(out, fmt.Sprintf("%s: %s %s in A, %s in B", t.Task, k, cmp.Or(va, "unset"), cmp.Or(vb, "unset")))
			}
		}
	}
	return out
}

// Thousands renders a count with thousands separators: 1234567 → "1,234,567".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Significant writes a figure to three significant digits without an
// exponent and with no digit beyond them: 0.00022, 0.375, 45.5, 12528 —
// a small count is never printed as 0.000, a large one never as 1.25e+04.
func Significant(v float64) string { return Digits(v, 3) }

// Millis writes a time in milliseconds as every table does: three
// significant digits (1.95 ms, not 2 ms: a ratio beside it reads from
// these), seconds from a second on.
func Millis(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return Significant(ms) + " ms"
}

// ShareText writes a fraction as a percentage: whole percents from 1%, a
// smaller share in one significant digit (0.3%, not 0%): a key index
// holding a few pages of the cache is not one holding none; a share just
// short of the whole in three (99.8%, not 100%, beside a part of 0.2%).
func ShareText(v float64) string {
	pct := 100 * v
	if pct > 99.5 && pct < 100 {
		return Digits(pct, 3) + "%"
	}
	if pct == 0 || math.Abs(pct) >= 0.995 {
		return fmt.Sprintf("%.0f%%", pct)
	}
	return Digits(pct, 1) + "%"
}

// Digits writes a figure to n significant digits without an exponent (as
// Significant): a ratio or a time in a sentence, where %.2g would write
// 8.9e-05 or 1.5e+02.
func Digits(v float64, n int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	digits := max(n-1-int(math.Floor(math.Log10(math.Abs(v)))), 0)
	p := math.Pow(10, float64(digits))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}

// Formatted writes a figure through format ("%.0f", "%.2f", "%.0f%%"):
// an interval's end writer (stats.Interval.Text).
func Formatted(format string) func(float64) string {
	return func(v float64) string { return fmt.Sprintf(format, v) }
}
