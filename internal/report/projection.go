package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// ProjectionDoc is a run's keys carried to the user's scale, each with its
// interval and the error checked at its own distance, and what the
// projection assumes, as the console, the page and --export show it.
func ProjectionDoc(rep projection.Report, s projection.Scale) *Doc {
	ps, ref := rep.Keys, rep.Reference
	d := &Doc{}
	assumed := ""
	if s.CacheAssumed {
		assumed = " (a quarter of --ram, assumed: --shared-buffers sets it)"
	}
	d.Printf("At %s rows, a cache (shared_buffers) of %s%s%s; rates relative to %s at the same scale, read off this run's curve of that ratio against the key index's size over the cache (of its first task).",
		results.Thousands(s.Rows), results.Bytes(s.CacheBytes), assumed, insertRate(s), ref)
	sizesAt(d, rep.Sizes, s)
	projectedWork(d, rep.Work, s)
	workAgainstEachOther(d, rep.WorkPairs)
	projectedCounts(d, rep.Counts)
	if len(ps) == 0 { // no key's rate has a curve: the table and its notes would be empty
		for _, n := range rep.NotProjected {
			d.Printf("%s's rate is not projected: %s.", n.Key, n.Why)
		}
		return d
	}
	header := []string{"key", "table", "key index (leaf density)", "index / cache", "rate vs " + ref + " [interval]", "checked error at its distance", "measured at (index / cache)", "WAL / day (FPI share)"}
	if s.Hardware != nil {
		header = append(header, "cost model on your machine (vs "+ref+")")
	}
	t := NewTable(header...).AlignRight(1, 2, 3, 4, 5)
	for _, p := range ps {
		var at []string
		for _, pt := range p.Curve.Points {
			at = append(at, fmt.Sprintf("%s×: %.2f", results.Digits(pt.Ratio, 2), pt.Relative))
		}
		walText := p.WALPerDay.Text(func(v float64) string { return results.Bytes(int64(v)) })
		if r := p.WALPerDay.Reason(); r != "" {
			walText = r
		} else {
			walText += " (" + p.FPIShare.Text(func(v float64) string { return fmt.Sprintf("≤ %.0f%%", v*100) }) + ")"
		}
		index := results.Bytes(p.KeyIndexBytes)
		if p.KeyIndexDensity > 0 {
			index += fmt.Sprintf(" (%.0f%%)", p.KeyIndexDensity*100)
		}
		row := []any{p.Key, results.Bytes(p.TableBytes), index, results.Digits(p.Ratio, 2) + "×", relativeText(p, ref), validationText(p, ref), strings.Join(at, ", "), walText}
		if s.Hardware != nil {
			row = append(row, modelText(p))
		}
		t.AppendRow(row...)
	}
	d.Add(t)
	for _, p := range ps {
		if len(p.Checks) == 0 {
			continue
		}
		var cs []string
		for _, c := range p.Checks {
			cs = append(cs, fmt.Sprintf("%.1f: %+.0f%%", c.Distance, c.Error*100))
		}
		d.Printf("%s's checks by distance (doublings past the last size used: error): %s.", p.Key, strings.Join(cs, ", "))
	}
	if m := s.Hardware; m != nil {
		d.Printf("The cost model prices each key's parts measured on this run (server CPU, blocks read from outside shared_buffers, pages written back, WAL, the commit's flush, per transaction, read at the key's projected index / cache) "+
			"on your machine: %d cores, a random access of %s ms, %.0f MB/s of sequential writes, a flush of %s ms, shared_buffers %s, %s of OS page cache for the key index (an assumption unless --os-cache), %s ms for a read it serves (assumed). "+
			"The rate is the least of the disk's time per transaction, the clients' wait and the cores; the part that sets it is named.",
			m.Cores, results.Significant(m.Disk.ReadMS), m.Disk.WriteMBps, results.Significant(m.Disk.FlushMS), results.Bytes(m.SharedBuffers), results.Bytes(m.OSCache), results.Digits(m.OSReadMS, 2))
	}
	if len(rep.OtherClients) > 0 {
		d.Printf("The curves are the run's at %d clients; it also measured %v clients, not pooled with them (a key's rate at another client count is another curve: --clients N projects those).", rep.Clients, rep.OtherClients)
	}
	for _, n := range rep.NotProjected {
		d.Printf("%s is not projected: %s.", n.Key, n.Why)
	}
	projectionNotes(d, ps, ref)
	return d
}

// projectionNotes say how the rate table's columns were read and what
// the projection assumes.
func projectionNotes(d *Doc, ps []projection.Projection, ref string) {
	d.Println("key index: its bytes per row at the run's largest table, at the leaf density an index grown by inserts alone had in the run (the cell that began empty), where the run had one; " +
		"a key whose inserts scatter leaves its pages about 70% full, not the 90% CREATE INDEX packs.")
	d.Println("checked error: every measured size of the key projected from the sizes below it (from all of them, and from fewer: one, two, three steps back) and from its neighbours, " +
		"each check an error at a distance in doublings of the index over the cache past the last size it used; a projection carries the check at its own distance (the nearest at least as far, the worst of equals), " +
		"or says it is beyond anything checked. interval: the rounds' paired interval of each measured point's rate relative to " + ref + ", read through the curve, every point erring the same way at once (its level the lowest of the points'). " +
		"FPI share: full-page images counted as 8 kB each, an upper bound (an index page's image leaves its free space out). " +
		"WAL per day: the steady state of a server with PostgreSQL's default checkpoint spacing at the insert rate, derived from the pages each round of the key's cell touched first " +
		"(a random key's index, its hot set the whole index, grown to the projected size: nearly every insert then touches a page not imaged since the checkpoint), " +
		"or, where a key's cell has none, its rounds' own, each starting at a checkpoint.")
	for _, p := range ps {
		if p.WALFrom != "" && !p.WALSteady {
			d.Printf("%s's WAL per day: %s.", p.Key, p.WALFrom)
		}
	}
	d.Println("The projection assumes the same class of hardware as the run, the same workload shape (clients, statements, row width unless --row-bytes), " +
		"and that the key index's size over the cache drives the difference between keys; it ignores the OS page cache beyond shared_buffers, " +
		"autovacuum and checkpoints at a scale the run never reached, replication, and whatever else runs on the server.")
}

func insertRate(s projection.Scale) string {
	if s.InsertRate <= 0 {
		return ""
	}
	return fmt.Sprintf(", %.0f inserted rows per second", s.InsertRate)
}

// relativeText is a projection's rate relative to the reference, with its
// interval and whether it was extrapolated, or why there is none.
func relativeText(p projection.Projection, ref string) string {
	if p.NotSupported != "" {
		return p.NotSupported
	}
	if p.Key == ref {
		return "1 (the reference)"
	}
	s := fmt.Sprintf("%.2f", p.Relative)
	if p.Level > 0 {
		s += " " + p.Text(func(v float64) string {
			if v < projection.LeastSupported {
				return fmt.Sprintf("<%.2f", projection.LeastSupported) // the curve supports no lower rate
			}
			return fmt.Sprintf("%.2f", v)
		})
	}
	if p.Outside {
		s += " (outside the measured range: extrapolated)"
	}
	return s
}

// validationText is the checked error at a projection's distance.
func validationText(p projection.Projection, ref string) string {
	v := p.Validation
	switch {
	case p.Key == ref || v == nil:
		return "-"
	case v.Error.Reason() != "":
		return v.Error.Reason()
	case p.BeyondScale != "":
		return fmt.Sprintf("not checked at this scale (%+.0f%% at %.1f doublings of index over cache): %s", v.Check.Error*100, v.Check.Distance, p.BeyondScale)
	}
	where := "between measured sizes"
	if v.Distance > 0 {
		where = fmt.Sprintf("%.1f doublings out", v.Distance)
	}
	return fmt.Sprintf("%+.0f%% (%s; checked at %.1f)", v.Check.Error*100, where, v.Check.Distance)
}

// modelText is a projection's rate on the user's machine by the cost model.
func modelText(p projection.Projection) string {
	if p.Model == nil {
		return "none: " + p.ModelWhy
	}
	s := fmt.Sprintf("%.0f tps", p.Model.TPS)
	if p.ModelRelative > 0 {
		s += fmt.Sprintf(" (%.2f)", p.ModelRelative)
	}
	return s + ", limited by " + p.Model.Limit
}

// Against000Doc is the cost model's prediction of 000's table beside it.
func Against000Doc(rows []projection.Row000) *Doc {
	d := &Doc{}
	m := projection.Machine000
	d.Printf("000's table (PostgreSQL 10.4, 8 CPUs, 32 GB, one HDD; pgbench -c 8, one INSERT per transaction into a table of the key alone) beside the cost model's prediction from this run's measured parts, "+
		"priced on 000's machine: %d cores, a flush of %.1f ms (000's await at its empty bigint table), a random access of %.0f ms, %.0f MB/s of sequential writes, shared_buffers %s (PostgreSQL 10's default: 000 does not give it), "+
		"%s of OS page cache for the key index, %.2f ms for a read it serves — the last five assumed.",
		m.Cores, m.Disk.FlushMS, m.Disk.ReadMS, m.Disk.WriteMBps, results.Bytes(m.SharedBuffers), results.Bytes(m.OSCache), m.OSReadMS)
	t := NewTable("000's key", "rows", "index / cache", "000 tps", "model tps", "error", "limited by", "per txn: reads, writes back, WAL").AlignRight(1, 2, 3, 4, 5)
	misses := 0
	for _, r := range rows {
		ratio := results.Digits(r.Ratio, 2) + "×"
		if r.Extrapolated {
			ratio += " (beyond the run)"
		}
		if math.Abs(r.Error) > 0.25 {
			misses++
		}
		pt := r.Prediction.Parts
		t.AppendRow(r.RunKey, results.Thousands(r.Rows), ratio, fmt.Sprintf("%.0f", r.Published), fmt.Sprintf("%.0f", r.Prediction.TPS), fmt.Sprintf("%+.0f%%", r.Error*100),
			r.Prediction.Limit, fmt.Sprintf("%.2f, %.2f, %s", pt.Reads, pt.Writes, results.Bytes(int64(pt.WALBytes))))
	}
	d.Add(t)
	d.Printf("%d of %d cells miss by more than 25%%.", misses, len(rows))
	for _, line := range missesExplained(rows) {
		d.Println(line)
	}
	return d
}

// missesExplained says where the model misses 000's table by more than a
// quarter and what bound each miss, from the rows' own figures: the cells
// it predicts too many and too few for, grouped by the part that limited
// the prediction, each with that part's time per transaction on 000's
// machine — the part that was cheaper (too many) or dearer (too few) in
// the model than on 000's machine.
func missesExplained(rows []projection.Row000) []string {
	type group struct {
		cells []string
		ms    []float64
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range rows {
		if math.Abs(r.Error) <= 0.25 {
			continue
		}
		dir := "too few"
		if r.Error > 0 {
			dir = "too many"
		}
		id := dir + "\x00" + r.Prediction.Limit
		g, ok := groups[id]
		if !ok {
			g = &group{}
			groups[id] = g
			order = append(order, id)
		}
		g.cells = append(g.cells, fmt.Sprintf("%s at %s rows (%+.0f%%)", r.RunKey, results.Thousands(r.Rows), r.Error*100))
		g.ms = append(g.ms, limitMS(r.Prediction))
	}
	var out []string
	for _, id := range order {
		dir, limit, _ := strings.Cut(id, "\x00")
		g := groups[id]
		lo, hi := slices.Min(g.ms), slices.Max(g.ms)
		span := results.Digits(lo, 2) + " ms"
		if hi > lo*1.05 {
			span = results.Digits(lo, 2) + "–" + results.Digits(hi, 2) + " ms"
		}
		cheaper := "cheaper in the model than it was on 000's machine"
		if dir == "too few" {
			cheaper = "dearer in the model than it was on 000's machine"
		}
		out = append(out, fmt.Sprintf("The model predicts %s for %s: each bound by %s (%s a transaction by this run's parts on 000's machine), a part %s.",
			dir, strings.Join(g.cells, ", "), limit, span, cheaper))
	}
	return out
}

// limitMS is the time per transaction of the part that bound a prediction:
// the disk's parts together, the clients' wait, or the CPU.
func limitMS(p projection.Prediction) float64 {
	switch p.Limit {
	case projection.LimitCPU:
		return p.CPUMS
	case projection.LimitWait:
		return p.WaitMS
	}
	return p.DiskMS
}

// projectedWork leads the projection with each key's work per transaction over
// the reference key's at the scale: the figure, its interval with the
// level it holds at least, how far it lies from the measured sizes, and
// the direction in words, or what run would decide it.
func projectedWork(d *Doc, ws []projection.WorkProjection, s projection.Scale) {
	if len(ws) == 0 {
		return
	}
	t := NewTable("key", "work vs reference [interval]", "index / cache", "from the measured sizes", "direction").AlignRight(1, 2)
	for _, w := range ws {
		if w.Unavailable != "" {
			t.AppendRow(w.Key, "-", results.Digits(w.Ratio, 2)+"×", "-", w.Unavailable)
			continue
		}
		figure := stats.RatioText(w.Relative) + " " + w.RatioText()
		where := "between them"
		switch {
		case w.At != w.Ratio && !w.Outside:
			where = "measured at " + results.Digits(w.At, 2) + "×, within half a doubling"
		case w.At != w.Ratio:
			where = "read at " + results.Digits(w.At, 2) + "× (the one measured), not carried"
		case w.Outside && w.Beyond > 1:
			where = fmt.Sprintf("%.1f× beyond the largest", w.Beyond)
		case w.Outside:
			where = fmt.Sprintf("%.1f× below the smallest", 1/w.Beyond)
		}
		dir := "not known at this scale: " + w.Decide
		switch {
		case w.Direction != "" && w.At != w.Ratio && w.Outside:
			dir = fmt.Sprintf("%s work than %s where measured; at yours: %s", w.Direction, w.Against, w.Decide)
		case w.Direction != "":
			dir = fmt.Sprintf("%s work than %s", w.Direction, w.Against)
		}
		t.AppendRow(w.Key, figure, results.Digits(w.Ratio, 2)+"×", where, dir)
	}
	d.Printf("The work each key makes the server do per transaction at %s rows and a cache of %s, over %s's: the CPU of every server process and the blocks, WAL and flushes it counted, priced on the run's device, read off each key's curve of that ratio against its key index over the cache (the rounds' paired intervals carried through the curve, every point erring the same way: the level is a floor).",
		results.Thousands(s.Rows), results.Bytes(s.CacheBytes), ws[0].Against)
	d.Add(t)
}

// workAgainstEachOther says, per projected key, the keys it does more
// work than, less, and those the projection cannot order it against,
// each with the ratio and its interval.
func workAgainstEachOther(d *Doc, pairs []projection.WorkPair) {
	var order []string
	by := map[string][3][]string{}
	for _, p := range pairs {
		if _, ok := by[p.Key]; !ok {
			order = append(order, p.Key)
		}
		g := by[p.Key]
		text := p.Against + " " + stats.RatioText(p.Relative) + " " + p.RatioText()
		switch p.Direction {
		case "more":
			g[0] = append(g[0], text)
		case "less":
			g[1] = append(g[1], text)
		default:
			g[2] = append(g[2], text)
		}
		by[p.Key] = g
	}
	if len(order) == 0 {
		return
	}
	d.Println("Against each other at your scale (each pair's ratio of their projections, its interval their two errors added: 95% where both were read off a measured level, else at least the lower level; each pair on its own, not corrected for the others; " +
		"where a pair is not known, the run's own comparison of the two within its rounds, or more rounds (--rounds) at a table of your index over cache, would decide it):")
	for _, k := range order {
		g := by[k]
		var parts []string
		for i, words := range []string{"more work than", "less work than", "not known against"} {
			if len(g[i]) > 0 {
				parts = append(parts, words+" "+strings.Join(g[i], ", "))
			}
		}
		d.Printf("  %s: %s.", k, strings.Join(parts, "; "))
	}
}

// projectedCounts lays out each key's counts at the user's scale: a row a
// key, a column a figure, each with its interval and how far its model's
// variable lies from what the run measured.
func projectedCounts(d *Doc, cs []projection.CountProjection) {
	if len(cs) == 0 {
		return
	}
	d.Println("What makes the work, per key at your scale: each count through its model (docs/project.md) from the run's sizes, with its 95% interval from the rounds' noise " +
		"(none where one size measured a figure once) and, after \"·\", how many times your value of what sets it lies from the nearest the run measured " +
		"(WAL and images: the rows between checkpoints over the key index's pages; blocks read and CPU: the key index over the cache; bytes per row and leaf density are levels the key's order sets):")
	var figures []string // headers, in the projection's order
	rows := map[string][]string{}
	var keys, reasons []string
	noted := map[string][2][]string{} // a reason: its figures and keys
	note := func(c projection.CountProjection, label string) {
		if _, ok := noted[c.Unavailable]; !ok {
			reasons = append(reasons, c.Unavailable)
		}
		n := noted[c.Unavailable]
		if !slices.Contains(n[0], label) {
			n[0] = append(n[0], label)
		}
		if !slices.Contains(n[1], c.Key) {
			n[1] = append(n[1], c.Key)
		}
		noted[c.Unavailable] = n
	}
	for _, c := range cs {
		if !slices.Contains(figures, c.Header) {
			figures = append(figures, c.Header)
		}
		if _, ok := rows[c.Key]; !ok {
			keys = append(keys, c.Key)
		}
		label := c.Header
		var cell string
		switch {
		case c.Beyond > projection.WorkBeyond:
			cell = "beyond the run (below)"
			note(c, label)
		case c.Unavailable != "":
			cell = "- (below)"
			note(c, label)
		case c.Lo > 0:
			num := countNumber(c.Share)
			cell = num(c.Value) + " " + c.Text(num)
		default:
			cell = countNumber(c.Share)(c.Value) + " (once)"
		}
		if c.Unavailable == "" && c.Beyond > 0 {
			cell += " · " + results.Digits(c.Beyond, 2) + "×"
		}
		rows[c.Key] = append(rows[c.Key], cell)
	}
	t := NewTable(append([]string{"key"}, figures...)...)
	for _, k := range keys {
		row := []any{k}
		for _, c := range rows[k] {
			row = append(row, c)
		}
		t.AppendRow(row...)
	}
	d.Add(t)
	for _, r := range reasons {
		d.Printf("%s of %s: %s.", strings.Join(noted[r][0], " and "), strings.Join(noted[r][1], ", "), r)
	}
}

// countNumber is how a count prints: a share in percent, as the run
// prints it ("70%"), any other by checkNumber.
func countNumber(share bool) func(float64) string {
	if share {
		return func(v float64) string { return strconv.FormatFloat(v*100, 'f', 0, 64) + "%" }
	}
	return checkNumber
}

// checkNumber is a checked figure with three significant digits (WAL
// bytes in thousands, images in thousandths).
func checkNumber(v float64) string {
	if math.Abs(v) >= 1000 {
		return results.Thousands(int64(math.Round(v)))
	}
	return results.Significant(v)
}

// CheckDoc lays out project --check: each scale of a multi-scale run
// projected from its smaller scales alone, per key and figure the
// projection with its interval and level beside the measurement, and how
// many of them held it.
func CheckDoc(rows []projection.CheckRow) *Doc {
	d := &Doc{}
	if len(rows) == 0 {
		d.Println("Nothing to check.")
		return d
	}
	over := "no key's work or rate over another's: the run has no reference key"
	for _, r := range rows {
		if r.Against != "" {
			over = "work and rate over " + r.Against + "'s"
			break
		}
	}
	d.Printf("Each scale projected from the smaller scales alone (%s; each key's own counts per transaction, its key index's bytes per row and leaf density, "+
		"each through its model: docs/project.md), each with its interval for the figure itself, beside what the scale measured; "+
		"a measurement carries its own rounds' noise, so it is checked against where a measurement there should fall (95%%: the projection's error and the measurement's added):", over)
	t := NewTable("scale", "key", "figure", "projected", "a measurement there", "from rows", "measured", "inside").AlignRight(3, 6)
	inside, counted := 0, 0
	for _, r := range rows {
		scale := results.Thousands(r.Rows) + " rows, " + results.Bytes(r.CacheBytes)
		var from []string
		for _, f := range r.From {
			from = append(from, results.Thousands(f))
		}
		num, unit := countNumber(r.Share), ""
		if r.Against != "" { // a ratio
			num, unit = func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }, "×"
		}
		projected, in := "-", r.Unavailable
		if r.Unavailable == "" {
			projected = num(r.Predicted) + unit + " " + r.Text(num)
			counted++
			in = "no"
			if r.Inside {
				inside++
				in = "yes"
			}
		}
		measured := "-"
		if r.Measured > 0 {
			measured = num(r.Measured) + unit
		}
		if r.Beyond > 1 {
			projected += " (" + results.Digits(r.Beyond, 2) + "× beyond)"
		}
		there := "-"
		if r.Expect.Lo > 0 {
			there = r.Expect.Text(num)
		}
		t.AppendRow(scale, r.Key, cmp.Or(r.Header, r.Figure), projected, there, strings.Join(from, ", "), measured, in)
	}
	d.Add(t)
	if counted > 0 {
		d.Printf("%d of %d checked figures held their measurement (%.0f%%).", inside, counted, 100*float64(inside)/float64(counted))
	}
	return d
}

// sizesAt is each key's table and indexes at the user's rows.
func sizesAt(d *Doc, sizes []projection.SizeAt, s projection.Scale) {
	if len(sizes) == 0 {
		return
	}
	t := NewTable("key", "table", "key index", "other indexes", "from its table of").AlignRight(1, 2, 3, 4)
	for _, z := range sizes {
		size := func(b int64) string {
			if b <= 0 {
				return "-"
			}
			return results.Bytes(b)
		}
		t.AppendRow(z.Key, size(z.TableBytes), size(z.KeyIndexBytes), size(z.OtherIndexBytes), results.Thousands(z.FromRows)+" rows")
	}
	d.Printf("Sizes at %s rows: each key's bytes per row at its largest table of the run, times your rows (the key index at the leaf density it had there):", results.Thousands(s.Rows))
	d.Add(t)
}
