package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// WriteSummary prints the summary of a run fitted to a console width
// columns wide (0: every table whole).
func WriteSummary(w io.Writer, res *results.Results, width int) { Summary(res).Write(w, width) }

// Summary is the summary of a run: one table of its groups laid out as the
// run's plan says (a pivot of keys against table sizes or clients, as 000
// and 002 showed theirs, or one row per group as "UUID Benchmark War" (001)
// did, with the workload's own columns when its view has them), then the
// evidence that explains the rates, failures and notes. The console and
// the report show the same doc.
func Summary(res *results.Results) *Doc { return summary(res, true) }

// summary is the run's summary, its verdict first when asked — the
// machine's load, the cost verdict and the preset's questions — (the page
// shows them in its own verdict instead: Questions, page.Cost).
func summary(res *results.Results, withQuestions bool) *Doc {
	d := &Doc{}
	a := analysisOf(res)
	groups := a.Groups
	if res.Status != results.StatusOK {
		d.Printf("the run %s", results.StatusText(res.Status, res.Error))
	}
	if withQuestions { // the page says these in its verdict
		for _, l := range answerLines(res, a) {
			d.Println(l)
		}
		if b := busyLine(a); b != "" {
			d.Println(b)
		}
		for _, l := range costVerdict(res, a) {
			d.Println(l)
		}
		questions(d, res, groups)
	}
	switch p := res.Plan.Pivot; {
	case len(groups) == 0:
		d.Println("no cell finished: there is nothing to summarise")
	case p != nil && p.By != "":
		pivot(d, res, groups, p)
	default:
		rowsTable(d, res, groups)
	}
	pairs(d, a)
	scaleTable(d, res, groups)
	paceTables(d, res, a)
	evidence(d, res, groups)
	keysTable(d, res)
	failures(d, res)
	for _, n := range append(slices.Clone(res.Warnings), res.Notes...) {
		d.Printf("note: %s.", n)
	}
	seen := map[string]bool{}
	for _, c := range res.Cells {
		if c.KeyNote != "" && !seen[c.Key+c.KeyNote] {
			seen[c.Key+c.KeyNote] = true
			d.Printf("note: %s: %s.", c.Key, c.KeyNote)
		}
	}
	return d
}

// transactional are the columns of a workload whose view has none of its own.
var transactional = []present.Column{
	{Figure: results.Figure{Header: "clients"}, Text: func(_ *results.Results, g *results.Group) string { return fmt.Sprint(g.Clients) }},
	{Figure: results.Figure{Header: "rows before"}, Text: func(_ *results.Results, g *results.Group) string { return fmt.Sprint(g.Rows) }},
	{Figure: results.Figure{Header: "time"}, Text: func(r *results.Results, g *results.Group) string {
		return fmt.Sprintf("%.1f s", medianOf(r, g, func(c *results.Cell) float64 { return c.DurationS }))
	}},
	{Figure: results.Figure{Header: "txns"}, Text: func(r *results.Results, g *results.Group) string {
		return fmt.Sprintf("%.0f", medianOf(r, g, func(c *results.Cell) float64 { return float64(c.Txns) }))
	}},
	present.Rate, present.RateColumn,
	present.P99Column,
	{Figure: results.Figure{Header: "size at finish", Note: "table + indexes at the end of the cell"}, Text: func(r *results.Results, g *results.Group) string { return r.SizeText(g) }},
	{Figure: results.Figure{Header: "key index growth / row", Note: "the key index's growth over the cell per inserted row"}, Text: func(r *results.Results, g *results.Group) string {
		return r.Last(g).Metrics.KeyIndexGrowthPerRow.Text(func(v float64) string { return fmt.Sprintf("%.1f B", v) })
	}},
}

// columnsOf are the columns of the run's table: the workloads' own when
// every group's view has the same ones, the transactional ones otherwise.
func columnsOf(groups []results.Group) ([]present.Column, []present.View) {
	var cols []present.Column
	var shown []present.View
	for i, g := range groups {
		k := viewOf(g.Workload)
		shown = append(shown, k)
		if i == 0 {
			cols = k.Columns
		} else if !sameHeaders(cols, k.Columns) {
			cols = nil
		}
	}
	if cols == nil {
		return transactional, shown
	}
	return cols, shown
}

func sameHeaders(a, b []present.Column) bool {
	return slices.EqualFunc(a, b, func(x, y present.Column) bool { return x.Header == y.Header })
}

// rowsTable prints one row per group: one table per set of columns when
// the run's workloads read differently (a read's blocks per query, a
// load's chunks), each with its own notes, then the noise line.
func rowsTable(d *Doc, res *results.Results, groups []results.Group) {
	var order []string
	parts := map[string][]results.Group{}
	for _, g := range groups {
		var hs []string
		for _, c := range viewOf(g.Workload).Columns {
			hs = append(hs, c.Header)
		}
		id := strings.Join(hs, "\x00")
		if _, ok := parts[id]; !ok {
			order = append(order, id)
		}
		parts[id] = append(parts[id], g)
	}
	for _, id := range order {
		viewTable(d, res, parts[id])
	}
	d.Println(noiseNote(groups))
	for _, n := range viewLines(res, groups, viewsOf(groups), func(k present.View) func(*results.Results, []results.Group) []string { return k.Remarks }) {
		d.Println(n)
	}
}

func viewsOf(groups []results.Group) []present.View {
	var out []present.View
	for _, g := range groups {
		out = append(out, viewOf(g.Workload))
	}
	return out
}

// viewTable prints the groups of one view's columns.
func viewTable(d *Doc, res *results.Results, groups []results.Group) {
	cols, shown := columnsOf(groups)
	header := []string{"key", "workload"}
	var right []int
	for i, c := range cols {
		header = append(header, c.Header)
		if !c.Left {
			right = append(right, i+2)
		}
	}
	t := NewTable(append(header, "compared with the row above")...).AlignRight(right...)
	for gi := range groups {
		g := &groups[gi]
		row := []any{g.Key, g.Task()}
		for _, c := range cols {
			row = append(row, c.Text(res, g))
		}
		t.AppendRow(append(row, versus(res, groups, g, g.VsPrevious))...)
	}
	d.Add(t)
	var notes []string
	if n := present.NotesOf(groups, cols...); n != "" {
		notes = append(notes, n)
	}
	notes = append(notes, viewLines(res, groups, shown, func(k present.View) func(*results.Results, []results.Group) []string { return k.Notes })...)
	for _, n := range notes {
		d.Println(n)
	}
}

// viewLines are the lines the groups' views write, each once.
func viewLines(res *results.Results, groups []results.Group, shown []present.View, lines func(present.View) func(*results.Results, []results.Group) []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range shown {
		f := lines(k)
		if f == nil {
			continue
		}
		for _, n := range f(res, groups) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func noiseNote(groups []results.Group) string {
	bare := ""
	for _, g := range groups {
		if g.TPS.N > 0 && !g.TPS.HasInterval() && showsRate(viewOf(g.Workload)) {
			bare = fmt.Sprintf(" A rate of fewer than %d samples is shown without an interval: fewer cannot cover its median with %.0f%% confidence.",
				stats.MinIntervalSamples(), 100*stats.MinIntervalConfidence)
			break
		}
	}
	if how := noiseTest(groups); how != "" {
		return "\"~\": the difference is within run-to-run noise (" + how + "); " + unitNote(groups) + "." + bare
	}
	note := unitNote(groups) // nothing tested: no "~" to explain
	return strings.ToUpper(note[:1]) + note[1:] + "." + bare
}

// showsRate says whether a view's table has the median rate column.
func showsRate(k present.View) bool {
	if k.Columns == nil {
		return true // the transactional columns
	}
	for _, c := range k.Columns {
		if c.Header == present.RateColumn.Header {
			return true
		}
	}
	return false
}

// noiseTest names the test behind the groups' "~" and its level, or ""
// when none of their comparisons was tested.
func noiseTest(groups []results.Group) string {
	test := testOf(groups)
	if test == "" {
		return ""
	}
	how, _ := stats.Describe(test)
	return how + ", p >= 0.05"
}

// testOf is the test that compared the groups' keys (the first tested
// comparison's: a run compares all its shapes alike, within rounds when
// they ran in them), or "" when none was tested.
func testOf(groups []results.Group) string {
	for _, g := range groups {
		for _, v := range g.Compared {
			if !v.TooFew && v.Test != "" {
				return v.Test
			}
		}
	}
	return ""
}

// pivot prints keys down and one column per value of the plan's pivot (table size or clients).
func pivot(d *Doc, res *results.Results, groups []results.Group, p *results.Pivot) {
	by := func(g *results.Group) int64 { return g.Rows }
	byName := "rows before"
	if p.By == results.PivotClients {
		by, byName = func(g *results.Group) int64 { return int64(g.Clients) }, "clients"
	}
	var cols []int64
	seenCol := map[int64]bool{}
	var keysOrder []string
	seenKey := map[string]bool{}
	at := map[string]*results.Group{}
	for gi := range groups {
		g := &groups[gi]
		v := by(g)
		if !seenCol[v] {
			seenCol[v] = true
			cols = append(cols, v)
		}
		// A key under several tasks (or caches) has a row for each.
		label := results.Label(groups, g)
		if !seenKey[label] {
			seenKey[label] = true
			keysOrder = append(keysOrder, label)
		}
		at[fmt.Sprintf("%s\x00%d", label, v)] = g
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i] < cols[j] })
	header := []string{"key \\ " + byName}
	for _, c := range cols {
		header = append(header, fmt.Sprint(c))
	}
	t := NewTable(header...)
	for _, k := range keysOrder {
		row := []any{k}
		for _, c := range cols {
			g := at[fmt.Sprintf("%s\x00%d", k, c)]
			if g == nil {
				row = append(row, "-")
				continue
			}
			s := present.Rate.Text(res, g)
			if p.Bloat {
				if b, ok := res.Median(g, func(c *results.Cell) (float64, bool) { return results.Float(c.Metrics.BloatRatio) }); ok {
					s += fmt.Sprintf(", bloat %.2f", b)
				}
			}
			if g.VsFirst != nil {
				s += " " + versusShort(g.VsFirst, false)
			}
			row = append(row, s)
		}
		t.AppendRow(row...)
	}
	for i := range cols {
		t.AlignRight(i + 1)
	}
	d.Add(t)
	first := groups[0].Key
	if results.Label(groups, &groups[0]) != first {
		first += " of the same task"
	}
	if how := noiseTest(groups); how != "" {
		d.Printf("%s the ratio against %s in the same column (%s); %s.", present.NotesOf(groups, present.Rate), first, how, unitNote(groups))
	} else {
		d.Printf("%s %s.", present.NotesOf(groups, present.Rate), unitNote(groups))
	}
}

// speedText says how a comparison came out: "12% faster [8%–15%, 95%]", "= same
// speed, within 5%" (an equivalence shown), "~ no difference found" (not
// decided: not "the same"), or that the samples were too few to tell.
func speedText(v *results.Versus) string {
	switch {
	case v.TooFew:
		return "? too few samples"
	case v.Equivalent():
		return "= same speed, within " + stats.Percent(v.Margin)
	case !v.Significant:
		return "~ no difference found"
	}
	pct := func(r float64) float64 { return math.Abs(r-1) * 100 }
	change := stats.Interval{Lo: math.Min(pct(v.Lo), pct(v.Hi)), Hi: math.Max(pct(v.Lo), pct(v.Hi)), Level: v.Level}
	return results.Relative(v.Effect, "faster", "slower", "same speed") + " " + change.Text(results.Formatted("%.0f%%"))
}

// versus says how g compares with another group: "12% faster and 30% smaller than uuidv4", "~" within noise.
func versus(res *results.Results, groups []results.Group, g *results.Group, v *results.Versus) string {
	if v == nil {
		return ""
	}
	speed := speedText(v)
	// The word before the other key follows the last phrase's outcome.
	word := " than "
	switch {
	case v.TooFew:
		word = " to compare with "
	case v.Equivalent():
		word = " as "
	case !v.Significant:
		word = " from "
	case math.Abs(v.Effect-1) < 0.005:
		word = " as "
	}
	var other *results.Group
	for i := range groups {
		if o := &groups[i]; o.Key == v.Key && o.SameShape(g) {
			other = o
		}
	}
	size := ""
	total := func(c *results.Cell) (float64, bool) { return results.Float(c.Metrics.TotalBytes) }
	if other != nil {
		if a, ok := res.Median(g, total); ok {
			if b, ok := res.Median(other, total); ok && int64(b) > 0 {
				r := float64(int64(a)) / float64(int64(b))
				size, word = results.Relative(r, "larger", "smaller", "the same size"), " than "
				if math.Abs(r-1) < 0.005 {
					word = " as "
				}
			}
		}
	}
	if size != "" {
		return speed + ", " + size + word + v.Key
	}
	return speed + word + v.Key
}

func unitNote(groups []results.Group) string {
	need := stats.MinBlocks // the most samples an untested pair needs
	for _, g := range groups {
		for _, v := range g.Compared {
			if v.TooFew {
				need = max(need, v.Needed)
			}
		}
	}
	for _, g := range groups {
		if !g.Independent() {
			return fmt.Sprintf("one window per key: per-second rates are not independent samples, so nothing is tested (--rounds %d or more compares keys)", need)
		}
	}
	for _, g := range groups {
		if g.Unit == results.UnitRuns && g.TPS.N < 2 {
			return fmt.Sprintf("one run per key: one sample each, so nothing is tested (--repeat %d or more compares keys)", need)
		}
	}
	for _, g := range groups {
		if g.Sequential {
			_, effect := stats.Describe(testOf(groups))
			return "samples are " + g.Unit + "; decided by " + g.Correction + "; [lo-hi]: the effect's repeated confidence interval (" + effect + ")"
		}
		if g.Correction != "" {
			_, effect := stats.Describe(testOf(groups))
			return "samples are " + g.Unit + "; p-values adjusted by " + strings.Replace(g.Correction, "holm", "Holm's method", 1) + "; [lo-hi]: the effect's interval at the level its adjusted p-value is decided at (95% before the correction; " + effect + ")"
		}
	}
	if len(groups) == 0 {
		return "no samples"
	}
	return "samples are " + groups[0].Unit
}

func failures(d *Doc, res *results.Results) {
	for _, c := range res.Cells {
		if c.Status != results.StatusOK {
			d.Printf("cell %s (%s, %s, %d rows, run %d): %s\n", c.Key, c.Task(), results.Clients(c.Clients), c.RowsBefore, c.Repeat, results.StatusText(c.Status, c.Error))
		}
	}
}

// medianOf is the median of a figure every cell of the group has.
func medianOf(r *results.Results, g *results.Group, f func(c *results.Cell) float64) float64 {
	v, _ := r.Median(g, func(c *results.Cell) (float64, bool) { return f(c), true })
	return v
}

// evidence prints what explains the rates, per key at its largest table and
// client count: the key index's share of the buffer cache, WAL and full-page
// images per inserted row, bloat and leaf density of the key index, and the
// clients' most frequent wait events.
func evidence(d *Doc, res *results.Results, groups []results.Group) {
	last := map[string]*results.Group{}
	var order []string
	for gi := range groups {
		g := &groups[gi]
		k := results.Label(groups, g)
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
	if e := res.Environment.Engine; e.Distributed() {
		distributedEvidence(d, res, order, last, e)
		clusterTables(d, res, order, last)
		return
	}
	localEvidence(d, res, order, last)
}

// distributedEvidence is the evidence on an engine whose rows live on other
// servers: only what the clients' sessions waited on is the cell's.
func distributedEvidence(d *Doc, res *results.Results, order []string, last map[string]*results.Group, e engine.Engine) {
	waits, _ := metrics.ShownOf(func(m *results.Metrics) any { return &m.WaitEvents })
	t := NewTable("why: key", "rows before", "clients", waits.Header).AlignRight(1, 2)
	for _, k := range order {
		g := last[k]
		t.AppendRow(k, g.Rows, g.Clients, waits.Text(&res.Last(g).Metrics))
	}
	d.Add(t)
	read := false
	for _, k := range order {
		read = read || res.Last(last[k]).Cluster != nil
	}
	if read {
		d.Printf("On %s the coordinator holds none of the rows: the key index, its splits, WAL and full-page images per row and the CPU are each worker's, read there (below).", e)
	} else {
		d.Printf("Not measured on %s: the key index's size, bloat and share of the cache, WAL and full-page images per row, page splits, blocks per transaction (%s).", e, e.Blind())
	}
	if e.Kind == engine.Citus {
		// adaptive_executor.c waits on its worker connections with WAIT_EVENT_CLIENT_READ.
		d.Println("On Citus, Client:ClientRead in the coordinator's sessions is mostly its executor waiting for the workers' answers: Citus reports that wait as ClientRead.")
	}
}

// steadyField is the steady-state WAL's figure, which a run before it was
// derived lacks: its column is left out of such a run's table.
const steadyField = "SteadyWAL"

// localEvidence is the evidence table of a server that holds the rows.
func localEvidence(d *Doc, res *results.Results, order []string, last map[string]*results.Group) {
	anySteady := false // a run before the steady state was derived has no such column
	var spacing string
	for _, k := range order {
		m := &res.Last(last[k]).Metrics
		anySteady = anySteady || !m.SteadyWAL.IsZero()
		if s, ok := m.SteadyWAL.Get(); ok {
			spacing = s.Whose() // each key at its own rate
		}
	}
	header := []string{"why: key", "rows before", "clients"}
	var shown []metrics.Shown // every figure of the table, in order: for its legend and its reasons
	var cols [][]metrics.Shown
	for _, fs := range metrics.EvidenceColumns() {
		if fs[0].Field == steadyField && !anySteady {
			continue
		}
		// A column of two is headed by the figure in parentheses, whose
		// header names both ("FPI / row (key index)").
		header, cols, shown = append(header, fs[len(fs)-1].Header), append(cols, fs), append(shown, fs...)
	}
	t := NewTable(header...)
	for i := 1; i < len(header)-1; i++ {
		t.AlignRight(i)
	}
	for _, k := range order {
		g := last[k]
		m := &res.Last(g).Metrics
		row := []any{k, g.Rows, g.Clients}
		for _, fs := range cols {
			text, _ := evidenceText(fs, m)
			row = append(row, text)
		}
		t.AppendRow(row...)
	}
	d.Add(t)
	if why := unavailableReasons(res, order, last, shown); why != "" {
		d.Println(why)
	}
	var notes []string
	for _, f := range shown {
		if f.Note != "" {
			notes = append(notes, f.Note)
		}
	}
	d.Println(strings.Join(notes, "; ") + ".")
	if anySteady {
		if spacing == "" {
			spacing = "PostgreSQL's default checkpoint spacing"
		}
		d.Printf("WAL / row and FPI / row are all the rounds' WAL and images over all their rows (pooled: not the rounds' mean per transaction the verdict's WAL compares), each round starting at a CHECKPOINT (a page's first change after one writes its whole image); "+
			"steady: what a server writes between checkpoints at %s, each key at its own rate, derived from the pages each round first touched (pg_walinspect).", spacing)
	}
	replicationTable(d, res, order, last)
}

// evidenceText is an evidence column's text for m: its figure, then those
// shown beside it in parentheses; ok says its figure was measured.
func evidenceText(fs []metrics.Shown, m *results.Metrics) (text string, ok bool) {
	text = fs[0].Text(m)
	ok = fs[0].Reason(m) == "" && text != "n/a"
	for _, f := range fs[1:] {
		text += " (" + f.Text(m) + ")"
	}
	return text, ok
}

// replicationTable prints what each key's WAL cost the standbys, when the
// run had any: one row per key and standby, or the reason it has none
// when the run asked for standbys.
func replicationTable(d *Doc, res *results.Results, order []string, last map[string]*results.Group) {
	t := NewTable("replicas: key", "standby", "WAL shipped / row", "replay lag p50 / p99 / max", "replay behind (max)", "replayed / written per s", "catch-up after the cell", "kept up").AlignRight(2, 3, 4, 5, 6)
	var why string
	for _, k := range order {
		m := &res.Last(last[k]).Metrics
		ss, ok := m.Replication.Get()
		if !ok {
			why = m.Replication.Reason()
			continue
		}
		for _, s := range ss {
			bytesPerS := func(v float64) string { return results.Bytes(int64(v)) }
			behind := s.ReplayLagBytes.Text(func(l results.Spread) string { return results.Bytes(int64(l.Max)) })
			if s.BehindAtStartBytes > 0 {
				behind += fmt.Sprintf(" (%s at the start)", results.Bytes(s.BehindAtStartBytes))
			}
			t.AppendRow(k, s.Name, s.ShippedBytesPerRow.Text(func(v float64) string { return fmt.Sprintf("%.0f B", v) }),
				s.ReplayLagMS.Text(func(l results.Spread) string {
					return fmt.Sprintf("%s / %s / %s", results.Millis(l.P50), results.Millis(l.P99), results.Millis(l.Max))
				}), behind,
				fmt.Sprintf("%s / %s", s.ReplayBytesPerS.Text(bytesPerS), s.PrimaryBytesPerS.Text(bytesPerS)),
				s.CatchUpS.Text(func(v float64) string { return fmt.Sprintf("%.2f s", v) }), map[bool]string{true: "yes", false: "no"}[s.KeptUp])
		}
	}
	switch {
	case len(t.Rows) > 0:
		d.Add(t)
		d.Println("replicas: from the primary's pg_stat_replication; WAL shipped: the WAL sent to the standby over the cell per inserted row; replay lag: from a record's flush on the primary to its replay " +
			"on the standby, sampled every 0.5 s of the window; replay behind: bytes between the primary's WAL position and the standby's replay; kept up: the standby replayed all of the cell's WAL within 1 s of its end.")
	case len(res.Environment.Standbys) > 0:
		d.Printf("replicas: %s.", why)
	}
}

// unavailableReasons says why each "unavailable" of the evidence table is
// so: a column and reason once, with the keys it stands for ("" when the
// table has none). A bare "unavailable" on screen sent the user to
// results.json for its reason.
func unavailableReasons(res *results.Results, order []string, last map[string]*results.Group, figures []metrics.Shown) string {
	type entry struct {
		column, reason string
		keys           []string
	}
	var entries []*entry
	at := map[string]*entry{}
	for _, k := range order {
		m := &res.Last(last[k]).Metrics
		for _, f := range figures {
			why := f.Reason(m)
			if why == "" {
				continue
			}
			id := f.Called() + "\x00" + why
			if at[id] == nil {
				at[id] = &entry{column: f.Called(), reason: why}
				entries = append(entries, at[id])
			}
			at[id].keys = append(at[id].keys, k)
		}
	}
	if len(entries) == 0 {
		return ""
	}
	// The columns one reason makes unavailable for the same keys go together.
	type part struct{ columns, who, reason string }
	var parts []*part
	said := map[string]*part{}
	for _, e := range entries {
		who := strings.Join(e.keys, ", ")
		switch {
		case len(e.keys) == len(order) && len(order) > 1:
			who = "every row"
		case len(e.keys) > 3:
			who = fmt.Sprintf("%d of the %d rows", len(e.keys), len(order))
		}
		id := who + "\x00" + e.reason
		if p := said[id]; p != nil {
			p.columns += ", " + e.column
			continue
		}
		said[id] = &part{e.column, who, e.reason}
		parts = append(parts, said[id])
	}
	var out []string
	for i, p := range parts {
		if i == maxReasons {
			out = append(out, fmt.Sprintf("%d more in results.json", len(parts)-i))
			break
		}
		out = append(out, fmt.Sprintf("%s (%s): %s", p.columns, p.who, text.Snip(p.reason, 120, "…"))) // a reason cut to a line's worth, its end marked
	}
	return "unavailable: " + strings.Join(out, "; ") + "."
}

// maxReasons is the most reasons said under the evidence table.
const maxReasons = 4
