package report

import (
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// How figures and comparisons are written, the same in every table: a
// ratio as people write one (1.44×, 12×, 1,100×), a comparison's mark —
// "*" a difference found, "=" the same within the margin (an equivalence
// shown), "~" no difference found (undecided, not "the same"), "?" not
// tested — and an interval with its level where it is not 95%.

// marks says what a comparison's marks mean, on every output.
const marks = "* differs, ~ none found, = same, ? untested"

// mark is a comparison's mark.
func mark(v *stats.Comparison) string {
	switch {
	case v.TooFew:
		return "?"
	case v.Significant:
		return "*"
	case v.Equivalent():
		return "="
	}
	return "~"
}

// interval is a comparison's interval with its level, "[1.40–1.48, 95%]";
// "" without one.
func interval(v *results.Versus) string {
	if v.Level <= 0 {
		return ""
	}
	return v.IntervalText()
}

// versusShort is a comparison as a table cell: "* 1.44× [1.40–1.48, 95%]",
// "~ 0.99× [0.95–1.03, 95%]", "= 1.01× [0.98–1.04, 95%]", "?" — its
// ratio the comparison's effect.
func versusShort(v *results.Versus, withInterval bool) string {
	iv := ""
	if withInterval {
		iv = interval(v)
	}
	return versusCell(&v.Comparison, v.Effect, iv)
}

// versusCell is the one way a table writes a comparison: its mark, the
// ratio it shows (that of the two values beside it) and the interval text
// given ("" none); "?" where the samples were too few to test.
func versusCell(c *stats.Comparison, r float64, iv string) string {
	if c.TooFew {
		return "?"
	}
	s := mark(c) + " " + stats.RatioText(r)
	if iv != "" {
		s += " " + iv
	}
	return s
}

// deviceShort names the device in a line: "this machine's disk", "the
// nvme profile", the user's file.
func deviceShort(d results.Device) string {
	switch {
	case d.KindOf() == results.DeviceProbe:
		return "this machine's disk"
	case d.KindOf() == results.DeviceProfile:
		return "the " + d.Name + " profile"
	case d.Name != "":
		return d.Name
	}
	return "an unnamed disk"
}

// workLegend says, short, what the work figure is and what it is priced
// on, and the server's CPU as not measured where the run could not read
// it (a server whose processes are not this machine's): the work is then
// its IO counts alone, said so.
func workLegend(res *results.Results, a *results.Analysis) string {
	if why := cpuNotMeasured(res); why != "" {
		return "work: the server's IO counts priced on " + deviceShort(a.Device) + " (--device), not waits; its CPU not measured (" + why + ");"
	}
	return "work: all server CPU + IO counts priced on " + deviceShort(a.Device) + " (--device), not waits;"
}

// cpuNotMeasured is why the run's rounds have no server CPU ("" when
// some round measured it).
func cpuNotMeasured(res *results.Results) string {
	why := ""
	for _, c := range res.Cells {
		for _, rd := range c.Rounds {
			if rd.Cost == nil {
				continue
			}
			if _, ok := rd.Cost.ServerAllCPUMS.Get(); ok {
				return ""
			}
			if _, ok := rd.Cost.ServerCPUMS.Get(); ok {
				return ""
			}
			if why == "" {
				why = rd.Cost.ServerCPUMS.Reason()
			}
		}
	}
	return why
}
