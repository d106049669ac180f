package report

import (
	"fmt"
	"html/template"
	"image/color"
	"maps"
	"slices"
	"sort"

	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
)

const mib = 1 << 20

// chart is a drawn chart with its caption, which says at which table size
// and client count it draws the keys.
func (r *renderer) chart(title, caption, svg string, err error) (Chart, string) {
	return r.chartAs(title, caption+" "+r.scope(), svg, err)
}

func (r *renderer) chartAs(title, caption, svg string, err error) (Chart, string) {
	if err != nil {
		return Chart{}, fmt.Sprintf("%s: %v", title, err)
	}
	return Chart{Title: title, Caption: caption, SVG: template.HTML(svg)}, ""
}

// scope says what the headline's cells ran at: "At 1,000,000 rows before
// the window, 10 clients." (each key at its own when they differ).
func (r *renderer) scope() string {
	if len(r.headline) == 0 {
		return ""
	}
	g := r.headline[0]
	for _, o := range r.headline[1:] {
		if o.Rows != g.Rows || o.Clients != g.Clients {
			return "Each key at its largest table and client count."
		}
	}
	return fmt.Sprintf("At %s rows before the window, %s.", results.Thousands(g.Rows), results.Clients(g.Clients))
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
	k := r.kind()
	if k.StepsTimeline {
		return Chart{}, "" // the timeline holds the workload's own steps: see its charts
	}
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		for _, sec := range c.Timeline {
			xs, ys = append(xs, float64(sec.T)), append(ys, c.SecondRate(sec))
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "throughput over time: no window lasted two seconds"
	}
	yl := "transactions per second"
	if k.RateLabel != "" {
		yl = k.RateLabel
	}
	svg, err := lines("Throughput over time", "seconds into the measured window", yl, ss)
	return r.chart("Throughput over time", "Per-second throughput of each key's first run in the measured window (warm-up excluded).", svg, err)
}

// tpsVsScale plots median throughput against table size or clients (the plan's pivot).
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
		s.xs, s.ys = append(s.xs, x), append(s.ys, g.Rate)
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
	at := fmt.Sprintf("At %s.", results.Clients(r.headline[0].Clients))
	if !byRows {
		title, xl = "Throughput vs clients", "clients"
		at = fmt.Sprintf("At %s rows before the window.", results.Thousands(r.headline[0].Rows))
	}
	svg, err := lines(title, xl, "transactions per second", ss)
	return r.chartAs(title, "Each key's rate at each scale (the geometric mean of its rounds' rates, as every table gives it). "+at, svg, err)
}

// relativeVsCache draws each key's rate relative to the reference
// key against its key index's size over the cache (the curve `keybench
// project` reads), when the run measured a key at two sizes or more.
func (r *renderer) relativeVsCache() (Chart, string) {
	curves, ref := r.projected.Curves, r.projected.Reference
	// One line per key and cache (--shared-buffers): a key's lines of two
	// caches share its hue, and lying on one another they show that the
	// ratio, not the table size, sets the cost.
	caches := map[int64]int{}
	for _, c := range r.res.Plan.SharedBuffers {
		caches[c] = len(caches)
	}
	var ss []series
	for _, c := range curves {
		if c.Key == ref {
			continue
		}
		var order []int64
		byCache := map[int64]*series{}
		for _, p := range c.Points {
			s := byCache[p.SharedBuffers]
			if s == nil {
				s = &series{name: c.Key, color: lighter(keyColor(r.colors[c.Key]), caches[p.SharedBuffers])} // the key's colour in every chart
				if p.SharedBuffers > 0 {
					s.name += " at " + results.Bytes(p.SharedBuffers)
				}
				byCache[p.SharedBuffers] = s
				order = append(order, p.SharedBuffers)
			}
			s.xs, s.ys = append(s.xs, p.Ratio), append(s.ys, p.Relative)
		}
		sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
		for _, cache := range order {
			if s := byCache[cache]; len(s.xs) >= 2 && s.xs[0] != s.xs[len(s.xs)-1] {
				ss = append(ss, *s)
			}
		}
	}
	if len(ss) == 0 {
		return Chart{}, ""
	}
	title := "Rate relative to " + ref + " vs key index size / cache"
	caption := "Each key's median rate over " + ref + "'s at the same table size and clients (the run's first task), placed at its key index's mean size over the cache it ran with: " +
		"the curve `keybench project` reads to carry a key to another scale."
	if len(caches) > 1 {
		caption += " One line per key and shared_buffers (the lighter, the larger the cache): where a key's lines coincide, the ratio to the cache, not the table's size, sets its cost."
	}
	svg, err := logLines(title, "key index's mean size over the window / shared_buffers (log scale)", "rate / "+ref+"'s (same size, cache)", ss)
	return r.chartAs(title, caption, svg, err)
}

func (r *renderer) sizes() (Chart, string) {
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		m := &c.Metrics
		t, ok1 := results.Float(m.TableBytes)
		k, ok2 := results.Float(m.KeyIndexBytes)
		a, ok3 := results.Float(m.KeyIndexBytesAfterReindex)
		tot, ok4 := results.Float(m.TotalBytes)
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

// sizesOverTime draws each key's key index size over its window, as 001
// tracked its relations' sizes while it ran.
func (r *renderer) sizesOverTime() (Chart, string) {
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		samples, _ := c.Metrics.SizesOverTime.Get()
		for _, s := range samples {
			if b, ok := s.Bytes[results.RoleKeyIndex]; ok {
				xs, ys = append(xs, s.T), append(ys, float64(b)/mib)
			}
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "sizes over time: not sampled (sampling off, no key index, or windows shorter than two samples)"
	}
	svg, err := lines("Key index size during the window", "seconds into the measured window (rounds one after another)", "MiB", ss)
	return r.chart("Sizes over time", "The key index's size sampled "+sampledEvery(ss)+" during each key's window (001 tracked its relations every 15 s): "+
		"an index whose inserts scatter grows faster than its rows, its split pages half empty.", svg, err)
}

func (r *renderer) walPerRow() (Chart, string) {
	// The steady state is drawn beside the rounds' figure when every key
	// has it: a missing bar would read as "none".
	steady, why, spacing := true, "", ""
	for _, g := range r.headline {
		st, ok := r.cell(g).Metrics.SteadyWAL.Get()
		if !ok {
			steady, why = false, r.cell(g).Metrics.SteadyWAL.Reason()
			break
		}
		spacing = st.Whose() // each key at its own rate
	}
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		b, ok := c.Metrics.WALBytesPerRow.Get()
		if !ok || !steady {
			return []float64{b}, ok
		}
		st, _ := c.Metrics.SteadyWAL.Get()
		return []float64{b, st.WALBytesPerRow}, true
	})
	if len(ss) == 0 {
		return Chart{}, "WAL per row: not collected"
	}
	categories := []string{"WAL bytes / row"}
	caption := "WAL the whole cluster wrote during the cell (pg_stat_wal), divided by the rows the clients inserted."
	if steady {
		categories = []string{"rounds (a checkpoint before each)", "steady state"}
		caption = "WAL the whole cluster wrote during the cell's rounds (pg_stat_wal), divided by the rows the clients inserted; every round starts at a CHECKPOINT, " +
			"so the first change of each page writes its whole image. Steady state: what a server writes per row between checkpoints at " + spacing +
			", each key at its own rate, derived from the pages each round first touched (pg_walinspect). A random key's inserts touch its whole index: " +
			"an index of this run's size is imaged once a cycle, one of millions of pages nearly once an insert (keybench project carries the model to your table's size)."
	} else if why != "" {
		caption += " Every round starts at a CHECKPOINT, which a server with minutes between checkpoints does not; no steady state: " + why + "."
	}
	svg, err := groupedBars("WAL written per inserted row", "bytes per row", categories, ss)
	return r.chart("WAL bytes per row", caption, svg, err)
}

// shippedPerRow and replayLag are the standbys' figures (--replicas): the WAL shipped to
// a standby per row and its replay lag over the window; not drawn for a
// run without standbys.
func (r *renderer) shippedPerRow() (Chart, string) {
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		st, ok := c.Metrics.Replication.Get()
		if !ok || len(st) == 0 {
			return nil, false
		}
		b, ok := st[0].ShippedBytesPerRow.Get()
		return []float64{b}, ok
	})
	if len(ss) == 0 {
		return Chart{}, r.noReplicas()
	}
	svg, err := groupedBars("WAL shipped to each standby per inserted row", "bytes per row", []string{"WAL sent / row"}, ss)
	return r.chart("WAL shipped per row", "WAL the primary sent to its (first) standby over the cell (pg_stat_replication's sent_lsn), divided by the rows the clients inserted: "+
		"every replica and WAL archive receives it again.", svg, err)
}

func (r *renderer) replayLag() (Chart, string) {
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		st, ok := c.Metrics.Replication.Get()
		if !ok || len(st) == 0 {
			return nil, nil
		}
		for _, l := range st[0].Lag {
			xs, ys = append(xs, l.T), append(ys, l.ReplayMS)
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, r.noReplicas()
	}
	svg, err := lines("Standby replay lag during the window", "seconds into the measured window (rounds one after another)", "replay lag (ms)", ss)
	return r.chart("Replay lag", "The (first) standby's replay_lag sampled every 0.5 s: the time from a WAL record's flush on the primary to its replay on the standby, "+
		"whose single startup process must read every index page a record changes: a line that climbs through a round is a standby falling behind.", svg, err)
}

// noReplicas is why the standby charts are missing: "" (not applicable)
// when the run had no standbys, the cells' reason when it had some.
func (r *renderer) noReplicas() string {
	if len(r.res.Environment.Standbys) == 0 {
		return ""
	}
	for _, g := range r.headline {
		if m := r.cell(g).Metrics.Replication; !m.IsZero() {
			if _, ok := m.Get(); !ok {
				return "replicas: " + m.Reason()
			}
		}
	}
	return "replicas: not measured"
}

func (r *renderer) fpiPerRow() (Chart, string) {
	// Where the images were taken is drawn only when every key measured
	// it: a bar at zero would read as "none".
	byRelation, why := true, ""
	for _, g := range r.headline {
		if by := r.cell(g).Metrics.WALFPIByRelation; by.IsZero() {
			byRelation, why = false, "not recorded"
		} else if _, ok := by.Get(); !ok {
			byRelation, why = false, by.Reason()
		}
	}
	ss := r.barsPerKey(func(c *results.Cell) ([]float64, bool) {
		total, ok := c.Metrics.WALFPIPerRow.Get()
		if !ok {
			return nil, false
		}
		if !byRelation {
			return []float64{total}, true
		}
		out := []float64{total, 0, 0, 0}
		fpi, _ := results.Float(c.Metrics.WALFPI)
		if by, ok := c.Metrics.WALFPIByRelation.Get(); ok && fpi > 0 && total > 0 {
			rows := fpi / total
			for i, role := range []string{results.RoleKeyIndex, results.RoleDataIndex, results.RoleTable} {
				out[i+1] = float64(by[role]) / rows
			}
		}
		return out, true
	})
	if len(ss) == 0 {
		return Chart{}, "full-page images per row: not collected"
	}
	categories := []string{"all relations", "key index", "data index", "table"}
	caption := "Full-page images (pg_stat_wal), and where they were taken (pg_walinspect)."
	if !byRelation {
		categories = categories[:1]
		caption = "Full-page images (pg_stat_wal); where they were taken was not measured (" + why + ")."
	}
	svg, err := groupedBars("WAL full-page images per inserted row", "full-page images per row", categories, ss)
	return r.chart("Full-page images per row", caption+" Random keys touch many index pages after each checkpoint; each first touch writes a whole 8 kB page to the WAL.", svg, err)
}

func (r *renderer) cacheOverTime() (Chart, string) {
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		bc, _ := c.Metrics.BufferCache.Get()
		if _, ok := bc.KeyIndexShare(); !ok {
			return nil, nil // no key index during the window: no line at 0%
		}
		for _, smp := range bc.Samples {
			xs, ys = append(xs, smp.T), append(ys, smp.Shares[results.RoleKeyIndex]*100)
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "buffer-cache share: not sampled (pg_buffercache unavailable, sampling off, or windows shorter than two samples)"
	}
	svg, err := lines("Key index's share of the buffer cache", "seconds into the measured window", "% of shared_buffers", ss)
	return r.chart("Buffer-cache share over time", "Share of shared_buffers holding the key index (pg_buffercache, sampled "+sampledEvery(ss)+"). Pages a random key needs crowd out everything else.", svg, err)
}

// sampledEvery says how often the lines' points were sampled, as they
// were: the median gap between a line's points, and its range where the
// gaps differ ("every 2 s", "every 19 s (15–23 s)"), never the samplers'
// aim.
func sampledEvery(ss []series) string {
	var gaps []float64
	for _, s := range ss {
		for i := 1; i < len(s.xs); i++ {
			if g := s.xs[i] - s.xs[i-1]; g > 0 {
				gaps = append(gaps, g)
			}
		}
	}
	if len(gaps) == 0 {
		return "once"
	}
	slices.Sort(gaps)
	m := gaps[len(gaps)/2]
	lo, hi := gaps[len(gaps)/10], gaps[len(gaps)*9/10]
	if hi-lo < 0.5 {
		return fmt.Sprintf("every %s s", results.Significant(m))
	}
	return fmt.Sprintf("every %s s (%s–%s s)", results.Significant(m), results.Significant(lo), results.Significant(hi))
}

func (r *renderer) waits() (Chart, string) {
	total := map[string]float64{}
	for _, g := range r.headline {
		counts, n := waitCounts(r.cell(g))
		for k, v := range counts {
			total[k] += v / n
		}
	}
	events := slices.Sorted(maps.Keys(total))
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
	svg, err := percentBars("What the clients' backends were doing", "% of samples", events, ss)
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
	svg, err := groupedBars("Latency percentiles of all transactions, pooled", "milliseconds", []string{"p50", "p95", "p99", "p99.9"}, ss)
	return r.chart("Latency percentiles (pooled)", "Latency percentiles of all the cell's transactions pooled (HDR histograms merged over the clients and rounds: "+
		"the CSV's *_pooled_ms); the tables' p99 is another figure, the median of the rounds' p99.", svg, err)
}

// view is how the headline's cells are shown.
func (r *renderer) view() present.View {
	if len(r.headline) == 0 {
		return viewOf("")
	}
	return viewOf(r.headline[0].Workload)
}

// kind is how the headline's cells read.
func (r *renderer) kind() results.Kind {
	if len(r.headline) == 0 {
		return results.Kind{}
	}
	return r.res.KindOf(r.headline[0].Workload)
}

// viewCharts draws the charts each workload's kind asks for, of its
// first block's groups (of the headline's when the run has one block); a
// run of several tasks names the task in each heading.
func (r *renderer) viewCharts() (charts []Chart, missing []string) {
	blocks := r.blocks
	if len(blocks) == 0 {
		blocks = [][]*results.Group{r.headline}
	}
	saved := r.headline
	defer func() { r.headline = saved }()
	seen := map[string]bool{}
	for _, b := range blocks {
		if len(b) == 0 || seen[b[0].Workload] {
			continue
		}
		seen[b[0].Workload] = true
		r.headline = b
		for _, spec := range viewOf(b[0].Workload).Charts {
			if len(blocks) > 1 {
				spec.Heading += " (" + b[0].Task() + ")"
			}
			c, m := r.viewChart(spec)
			if m != "" {
				missing = append(missing, m)
			} else {
				charts = append(charts, c)
			}
		}
	}
	return charts, missing
}

// partitionSizes draws each headline key's partitions, oldest first: the
// table and key index of each, as a table partitioned by time holds them
// at the end of the cell.
func (r *renderer) partitionSizes() (Chart, string) {
	ss := r.linesPerKey(nil, func(c *results.Cell) (xs, ys []float64) {
		parts, _ := c.Metrics.Partitions.Get()
		for i, p := range parts {
			xs, ys = append(xs, float64(i)), append(ys, float64(p.TableBytes+p.KeyIndexBytes)/mib)
		}
		return xs, ys
	})
	if len(ss) == 0 {
		return Chart{}, "" // no partitioned table: the chart does not apply
	}
	svg, err := lines("Partition sizes, oldest first (table + key index)", "partition (oldest first; the last holds the rows made after the history)", "MiB", ss)
	return r.chart("Partition sizes", "Each partition's table and key index at the end of each key's cell: the history's slices (a day each, the oldest expired "+
		"by a retention) and the partition that takes the window's rows.", svg, err)
}

func (r *renderer) viewChart(spec present.Chart) (Chart, string) {
	var svg string
	var err error
	if spec.Points != nil {
		ss := r.linesPerKey(func(g *results.Group) bool { return spec.Keep == nil || spec.Keep(r.headline, g) }, spec.Points)
		if len(ss) == 0 {
			return Chart{}, spec.Missing
		}
		svg, err = lines(spec.Title, spec.XLabel, spec.YLabel, ss)
	} else {
		ss := r.barsPerKey(spec.Values)
		if len(ss) == 0 {
			return Chart{}, spec.Missing
		}
		if spec.Reference != nil && len(r.headline) > 0 {
			if name, ys := spec.Reference(r.cell(r.headline[0])); len(ys) > 0 {
				ss = append(ss, series{name: name, color: color.Gray{Y: 150}, ys: ys})
			}
		}
		draw := groupedBars
		if spec.LogY {
			draw = logBars
		}
		svg, err = draw(spec.Title, spec.YLabel, spec.Categories, ss)
	}
	return r.chart(spec.Heading, spec.Caption, svg, err)
}
