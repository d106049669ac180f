package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
)

// The first screen: what a run prints when it ends, unless --verbose asks
// for every table. A DBA reads it in half a minute: the answer per shape
// (each key's rate and work per transaction, each against the
// cheapest key with the comparison's interval or "~"), what makes the
// costliest key cost more, and where the rest is. It fits BriefLines lines
// at 80 columns for the presets' headline shapes; a run of more shapes
// shows its last (the largest table) and counts the others.

// BriefLines is the most lines the first screen takes: a 24-line
// terminal's, less the prompt.
const BriefLines = 23

// BriefWidth is the terminal width the first screen is laid out for.
const BriefWidth = 80

// Brief is the run's first screen.
func Brief(res *results.Results) *Doc { return brief(res, false) }

// brief is the first screen; on the page (the verdict's first card) it
// leaves out the busy line, which the page says beside it, and where the
// rest is.
func brief(res *results.Results, page bool) *Doc {
	d := &Doc{}
	a := analysisOf(res)
	groups := a.Groups
	if res.Status != results.StatusOK {
		d.Printf("the run %s", results.StatusText(res.Status, res.Error))
	}
	if len(groups) == 0 {
		d.Println("no cell finished: there is nothing to summarise")
		return d
	}
	if res.Plan.Ask != "" && !page {
		d.Println(res.Plan.Ask)
	}
	for _, l := range answerLines(res, a) {
		d.Println(l)
	}
	for _, w := range res.Warnings {
		d.Printf("Note: %s.", w)
	}
	if b := busyLine(a); b != "" && !page {
		d.Println(b)
	}
	for _, l := range unreadWorkers(res) {
		d.Println(l)
	}
	shapes := shapesOf(a)
	shown := shapes
	if len(shapes) > 1 && (briefLength(shapes) > BriefLines-4 || oneTaskAtSizes(shapes)) {
		shown = shapes[len(shapes)-1:]
	}
	for _, sh := range shown {
		briefShape(d, res, a, sh)
	}
	across := briefAcross(d, res, shapes)
	if n := len(shapes) - len(shown); n > 0 && !across {
		d.Printf("%d other shapes (%s): --verbose or the report.", n, shapeList(shapes[:n]))
	}
	if l := keyLegend(res, shown); l != "" {
		d.Println(l)
	}
	least := " least: a column's least (rate: the slowest);"
	for _, sh := range shown {
		if sh.Against {
			least = " vs " + sh.Least + ": each key's over " + sh.Least + "'s, the question's reference;"
		}
	}
	legend := workLegend(res, a) + least + " " + marks + familyOf(res, shown) + "."
	if !page {
		legend += " All: --verbose, report.html."
	}
	d.Println(legend)
	return d
}

// briefLength is the lines the shapes' tables take.
func briefLength(shapes []shape) int {
	n := 0
	for _, sh := range shapes {
		n += len(sh.Groups) + 5 // title, three rules, header
	}
	return n
}

func shapeList(shapes []shape) string {
	var out []string
	for _, sh := range shapes {
		out = append(out, sh.Title)
	}
	return strings.Join(out, "; ")
}

// briefShape is one shape's table — each key's rate and work per
// transaction against the least working key's — and what makes the
// costliest key work more, each count with its ratio and interval.
func briefShape(d *Doc, res *results.Results, a *results.Analysis, sh shape) {
	if res.Last(sh.Groups[0]).Pace != nil {
		briefPace(d, res, sh)
		return
	}
	least := sh.group(sh.Least)
	level := sharedLevel(sh.Groups, func(*results.Group) *results.Group { return least }, sh.Against)
	d.Println(withLevel(sh.Title, level) + ":")
	base, baseName, self := sh.rateBase()
	t := NewTable("key", present.Rate.Header, present.Work.Header, "work vs "+sh.anchor(), "rate vs "+baseName).AlignRight(1, 2)
	for _, g := range sh.Groups {
		t.AppendRow(g.Key, present.Rate.Text(res, g), present.Work.Text(res, g), briefWork(g, least, sh.Against, level), rateVersus(g, base, self, false))
	}
	d.Add(t)
	switch costliest := sh.group(sh.Costliest); {
	case least == nil && len(sh.Groups) > 1 && sh.NoCost != "":
		d.Printf("Not compared on work: %s; --verbose compares the rates.", sh.NoCost)
	case least == nil && len(sh.Groups) > 1:
		d.Printf("Not compared: %s (%s compares the keys).", unitWords(sh.Groups[0]), moreSamples(sh.Groups[0]))
	case costliest != nil && (a.Answer == nil || a.Answer.Costliest != costliest.Key):
		d.Println(costliestLine(costliest, least))
	case costliest != nil: // the answer said its work and WAL
	case len(sh.Groups) > 1:
		d.Println("No key was found to do more work per transaction than " + least.Key + "'s.")
	}
	for _, line := range countsApart(sh, least, a.Device) {
		d.Println(line)
	}
	for _, l := range healthLines(res, sh) {
		d.Println(l)
	}
}

// costliestLine says how much more work the costliest key does than the
// least's, with its interval, and the three counts that most set it apart.
func costliestLine(costliest, least *results.Group) string {
	v := costliest.Cost.Versus(least.Key)
	if v == nil { // an analysis that names a costliest key it holds no comparison of (a damaged file's)
		return costliest.Key + " is named the costliest, but the analysis holds no comparison of its work with " + least.Key + "'s."
	}
	line := fmt.Sprintf("%s does %s %s's work %s", costliest.Key, stats.RatioText(v.Effect), least.Key, interval(v))
	var parts []string
	for i, r := range costliest.Cost.Why {
		if i == 3 {
			break
		}
		parts = append(parts, r.Text())
	}
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	return line + "."
}

// countsApart says, for each key whose work was not found different from
// the least's, the counts that differ all the same (its Cost.Why) and what
// they come to on the run's disk against its whole work: a key may write
// several times the full-page images and still do the same work where
// the CPU is most of it.
func countsApart(sh shape, least *results.Group, dev results.Device) []string {
	if least == nil {
		return nil
	}
	var out []string
	for _, g := range sh.Groups {
		v := g.Cost.Versus(least.Key)
		if g == least || v == nil || v.Significant || v.TooFew {
			continue
		}
		var parts []string
		for _, r := range g.Cost.Why {
			// Only a figure its own interval sets apart: a median a tenth
			// off whose paired interval holds 1 differs by noise.
			if len(parts) < 3 && r.Hi > 0 && (r.Lo > 1 || r.Hi < 1) {
				parts = append(parts, r.Text())
			}
		}
		if len(parts) == 0 {
			continue
		}
		p := g.Cost.Shares
		rest := "the CPU " + results.ShareText(p.CPU)
		if slices.Contains(g.Cost.Missing, verdict.MissingCPU) {
			rest = "the CPU not measured"
		}
		if p.Flushes > 0 {
			rest += ", the commits' flushes " + results.ShareText(p.Flushes)
		}
		found := "is not found different from"
		if v.Equivalent() { // shown the same: said so, not only "no difference found"
			found = fmt.Sprintf("is the same within %.0f%% as", 100*v.Margin)
		}
		out = append(out, fmt.Sprintf("%s's work %s %s's (%s %s), though its counts differ: %s; on %s its blocks and WAL are %s of its %s ms a transaction (%s).",
			g.Key, found, least.Key, stats.RatioText(v.Effect), interval(v), strings.Join(parts, ", "), deviceShort(dev), results.ShareText(p.Reads+p.Writes+p.WAL), results.Significant(g.Cost.Mean), rest))
	}
	return out
}

// briefWork is a key's work against the least's, short, with its
// interval and the interval's level — unless it is shared, the level
// every interval of the cell's column has, which the column's header
// says once (sharedLevel).
func briefWork(g, least *results.Group, against bool, shared string) string {
	v, text := costVersus(g, least, against)
	switch {
	case v == nil && text == "-":
		return "?" // not compared: the legend's "? untested"
	case v == nil:
		return text
	case shared != "" && !v.TooFew && v.Level > 0:
		return versusCell(&v.Comparison, v.Effect, v.EndsText(stats.BoundText))
	}
	return versusShort(v, true)
}

// sharedLevel is the level (stats.LevelText) every work interval of a
// column (each group against its least) has, "" where they differ or
// there is none; withLevel is a title or header with it: "insert, 8
// clients, 0 rows before (work intervals at 99.9%)".
func sharedLevel(gs []*results.Group, least func(*results.Group) *results.Group, against bool) string {
	levels := map[string]bool{}
	for _, g := range gs {
		if v, _ := costVersus(g, least(g), against); v != nil && !v.TooFew && v.Level > 0 {
			levels[stats.LevelText(v.Level)] = true
		}
	}
	if len(levels) != 1 {
		return ""
	}
	for l := range levels {
		return l
	}
	return ""
}

func withLevel(header, level string) string {
	if level == "" {
		return header
	}
	return header + " (work intervals at " + level + ")"
}

// briefPace is a shape run at a fixed rate (--rate): every key ran the same
// rate, so the keys are told apart by their latency from the schedule and
// by what the rate costs the server, per transaction and per second.
func briefPace(d *Doc, res *results.Results, sh shape) {
	cheapest := sh.group(sh.Least)
	level := sharedLevel(sh.Groups, func(*results.Group) *results.Group { return cheapest }, sh.Against)
	d.Println(withLevel(fmt.Sprintf("%s, at a fixed %s tps", sh.Title, results.Kilo(res.Last(sh.Groups[0]).Pace.RateTPS)), level) + ":")
	t := NewTable("key", present.Rate.Header, "late / skipped", present.P99Column.Header, "p99 vs least", "work vs "+sh.anchor()).AlignRight(1, 2, 3)
	var lag, cpu, wal []string
	for _, g := range sh.Groups {
		c := res.Last(g)
		vs := sh.p99Versus(g, false)
		ran := present.Rate.Text(res, g) // the rate every output shows: the rounds' geometric mean
		if !c.Held() {                   // against its schedule, not the rate times the window: a Poisson count misses that by its noise
			ran += fmt.Sprintf(" (%.0f%% of its schedule)", 100*c.ScheduleShare())
		}
		t.AppendRow(g.Key, ran, lateText(c.Pace), results.Millis(sh.paceOf(g.Key).P99MS), vs, briefWork(g, cheapest, sh.Against, level))
		cpuS, walS, _ := perSecond(res, g, g.Rate)
		lag, cpu, wal = append(lag, results.Millis(c.Pace.LagMS.P99)), append(cpu, cpuS), append(wal, walS)
	}
	d.Add(t)
	d.Printf("Per second at that rate (%s): WAL %s; the server's CPU %s of a core; schedule lag p99 %s.",
		keyList(sh.Groups), strings.Join(wal, ", "), strings.Join(cpu, ", "), strings.Join(lag, ", "))
	for _, g := range sh.Groups {
		if c := res.Last(g); !c.Held() {
			d.Printf("%s did not keep up: it ran %s of %s tps, %d of the %d transactions its schedule started (%.0f%%)%s; its latency is its queue's.",
				g.Key, results.Kilo(g.Rate), results.Kilo(c.Pace.RateTPS), c.Txns, c.Pace.Scheduled, 100*c.ScheduleShare(), limitOf(res, g, c))
		}
	}
	for _, l := range healthLines(res, sh) {
		d.Println(l)
	}
	if costliest := sh.group(sh.Costliest); costliest != nil && cheapest != nil {
		d.Println(costliestLine(costliest, cheapest))
	}
	if line := walLine(sh, true); line != "" {
		d.Println(line)
	}
	for _, line := range countsApart(sh, cheapest, res.Analysis.Device) {
		d.Println(line)
	}
}

// keyList names the groups' keys in order.
func keyList(gs []*results.Group) string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Key)
	}
	return strings.Join(out, ", ")
}

// briefAcross is, for a run whose shapes are one task at several table
// sizes (growth, scale), each key's work against the least's at every
// size, a line a key: the answer to "does it cost more as the table
// grows" on the first screen. It says whether it printed one.
func briefAcross(d *Doc, res *results.Results, shapes []shape) bool {
	if !oneTaskAtSizes(shapes) {
		return false
	}
	first := shapes[0].Groups[0]
	header := []string{"work vs " + shapes[0].anchor() + ", at"}
	var all []*results.Group
	leastOf := map[*results.Group]*results.Group{}
	for _, sh := range shapes {
		header = append(header, results.Thousands(sh.Groups[0].Rows)+" rows")
		for _, g := range sh.Groups {
			all, leastOf[g] = append(all, g), sh.group(sh.Least)
		}
	}
	level := sharedLevel(all, func(g *results.Group) *results.Group { return leastOf[g] }, shapes[0].Against)
	t := NewTable(header...)
	for _, key := range res.Plan.Keys {
		row := []any{key}
		for _, sh := range shapes {
			g, least := sh.group(key), sh.group(sh.Least)
			switch {
			case g == nil:
				row = append(row, "-")
			case least == nil: // untested (one window a key): the means' ratio, marked
				row = append(row, untestedWork(g, sh))
			default:
				row = append(row, briefWork(g, least, sh.Against, level))
			}
		}
		t.AppendRow(row...)
	}
	d.Println(withLevel(fmt.Sprintf("%s, %s, at each table size", first.Task(), results.Clients(first.Clients)), level) + ":")
	d.Add(t)
	return true
}

// oneTaskAtSizes says whether the shapes are one task and client count at
// several table sizes.
func oneTaskAtSizes(shapes []shape) bool {
	if len(shapes) < 2 {
		return false
	}
	first := shapes[0].Groups[0]
	for _, sh := range shapes[1:] {
		if g := sh.Groups[0]; g.Task() != first.Task() || g.Clients != first.Clients {
			return false
		}
	}
	return true
}

// untestedWork is a key's work over the least of its shape's, "?" marked:
// measured, not tested (one window a key).
func untestedWork(g *results.Group, sh shape) string {
	var least float64
	for _, o := range sh.Groups {
		if o.Cost != nil && o.Cost.Mean > 0 && (least == 0 || o.Cost.Mean < least) {
			least = o.Cost.Mean
		}
	}
	if g.Cost == nil || g.Cost.Mean <= 0 || least <= 0 {
		return "-"
	}
	return "? " + stats.RatioText(g.Cost.Mean/least)
}

// keyLegend says, in a line, what the shapes' keys with a storage or
// parameters of their own are (uuidv4:as=text: a uuid stored as text).
func keyLegend(res *results.Results, shapes []shape) string {
	facts := map[string]results.KeyFacts{}
	for _, f := range res.Keys {
		facts[f.Key] = f
	}
	var parts, timed []string
	seen := map[string]bool{}
	for _, sh := range shapes {
		for _, g := range sh.Groups {
			f, ok := facts[g.Key]
			if ok && f.RevealsTime && !slices.Contains(timed, g.Key) {
				timed = append(timed, g.Key)
			}
			if !ok || seen[g.Key] || !strings.ContainsAny(g.Key, ":-") {
				continue
			}
			seen[g.Key] = true
			order := "random"
			if f.Sortable != keys.SortableNo {
				order = strings.TrimPrefix("ordered "+f.Sortable, "ordered yes")
			}
			if order = strings.TrimSpace(order); order != "" {
				order = ", " + order
			}
			parts = append(parts, g.Key+" "+f.Column+order)
		}
	}
	switch len(timed) {
	case 0:
	case 1:
		parts = append(parts, timed[0]+" reveals its creation time")
	default:
		parts = append(parts, strings.Join(timed[:len(timed)-1], ", ")+" and "+timed[len(timed)-1]+" reveal their creation time")
	}
	if len(parts) == 0 {
		return ""
	}
	return "keys: " + strings.Join(parts, "; ") + "."
}

// limitOf says what held a cell below its schedule: the server, where its
// CPU took most of the machine's cores, else the clients, each waiting on
// its own transaction ("" where the server's CPU was not measured).
func limitOf(res *results.Results, g *results.Group, c *results.Cell) string {
	cpu, ok := res.RoundMean(g, results.RoundFigureOf(func(rc *results.RoundCost) *results.M[float64] { return &rc.ServerAllCPUMS }))
	cores := res.Environment.Host.CPUs
	if !ok || cores <= 0 {
		return ""
	}
	used := cpu * g.Rate / 1000 / float64(cores) // the share of the machine's cores the server's processes took
	if used >= 0.8 {
		return fmt.Sprintf(": the server was the limit, its CPU %.0f%% of the machine's %d cores", 100*used, cores)
	}
	return fmt.Sprintf(": its %d clients were the limit, each waiting on its own transaction while the server's CPU took %.0f%% of the machine's %d cores (more clients, -c, ask more of it)", c.Clients, 100*used, cores)
}

// healthLines are what the first screen says of how the shape's cells ran:
// transactions that failed, and a machine that moved between the first
// and the last rounds.
func healthLines(res *results.Results, sh shape) []string {
	var out []string
	for _, g := range sh.Groups {
		var n int64
		sample := ""
		for _, i := range g.Cells {
			c := &res.Cells[i]
			n += c.Errors
			if sample == "" && len(c.ErrorSamples) > 0 {
				sample = c.ErrorSamples[0]
			}
		}
		if n > 0 {
			line := fmt.Sprintf("%s: %d transactions failed", g.Key, n)
			if sample != "" {
				line += " (" + sample + ")"
			}
			out = append(out, line+".")
		}
	}
	if ref, ok := res.RoundShift(sh.Groups[0]); ok && math.Abs(ref-1) >= machineShift && machineDrift(res, sh.Groups) != "" {
		out = append(out, fmt.Sprintf("Drift: %s ran its last round at %.2f× its first, every key alike: the machine or the tables changed during the run (the rounds interleave the keys, so the comparison holds).", sh.Groups[0].Key, ref))
	}
	return out
}

// familyOf says which comparisons decided the work where a sequential
// design did ("; tested: each key against the least, …"), "" otherwise.
func familyOf(res *results.Results, shapes []shape) string {
	if slices.ContainsFunc(shapes, func(sh shape) bool { return sh.Against }) {
		return "; tested: " + stats.FamilyWords(stats.FamilyReference, res.Plan.Against)
	}
	d := res.Plan.CostSequential
	sequential := slices.ContainsFunc(shapes, func(sh shape) bool {
		return slices.ContainsFunc(sh.Groups, func(g *results.Group) bool { return g.Sequential })
	})
	if d == nil || !sequential {
		return ""
	}
	return "; tested: " + stats.FamilyWords(d.Family, d.Reference)
}
