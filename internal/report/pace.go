package report

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
)

// At a fixed rate (--rate, pgbench -R) every key runs the same
// transactions per second, so the rate says nothing of the key unless the
// server could not keep up; what the keys are compared on is how long the
// transactions took (from their scheduled start: a queue behind a slow
// server counts) and what they cost the server each second at that rate.
// Every figure below is read from the run: the rounds' 99th percentiles
// compared as independent samples (Mann-Whitney, Holm over the shape's
// comparisons, the Hodges-Lehmann ratio's 95% interval), each key's cost
// per transaction times the rate it ran.

// paceTables writes, for each shape run at a fixed rate, its table and the
// keys that did not hold the rate.
func paceTables(d *Doc, res *results.Results, a *results.Analysis) {
	for _, sh := range shapesOf(a) {
		first := res.Last(sh.Groups[0])
		if first.Pace == nil || sh.Pace == nil {
			continue
		}
		d.Printf("At a fixed %s tps (%s; Poisson starts, latency from each scheduled start):", results.Kilo(first.Pace.RateTPS), sh.Title)
		t := NewTable("key", present.Rate.Header+" (of its schedule)", present.P99Column.Header, "p99 vs least", "lag p99", "late / skipped", "server CPU", "WAL / s", "blocks read / s").AlignRight(1, 2, 4, 5, 6, 7, 8)
		var behind []string
		for _, g := range sh.Groups {
			c := res.Last(g)
			pk := sh.paceOf(g.Key)
			vs := sh.p99Versus(g, true)
			cpu, wal, reads := perSecond(res, g, g.Rate)
			t.AppendRow(g.Key, fmt.Sprintf("%s (%.0f%%)", present.Rate.Text(res, g), 100*c.ScheduleShare()), results.Millis(pk.P99MS), vs,
				results.Millis(c.Pace.LagMS.P99), lateText(c.Pace), cpu, wal, reads)
			if !c.Held() {
				behind = append(behind, fmt.Sprintf("%s ran %d of the %d transactions its schedule started (%.0f%%), its starts %s behind it at p99%s",
					g.Key, c.Txns, c.Pace.Scheduled, 100*c.ScheduleShare(), results.Millis(c.Pace.LagMS.P99), limitOf(res, g, c)))
			}
		}
		d.Add(t)
		d.Println(present.Notes(present.Rate, present.P99Column) + " the share: of the transactions its schedule started (a Poisson schedule's count is the rate times the window within about its square root; every key draws the same schedule); each p99 from the scheduled start; vs least: the ratio of the two p99, the rounds compared (Mann-Whitney, Holm, the Hodges–Lehmann 95% interval; \"~\": within noise); " +
			"lag: how late a transaction started behind its schedule; late: slower than --latency-limit from the schedule; skipped: already that late, not sent; " +
			"server CPU (every server process's, a share of one core), WAL and blocks read from outside shared buffers per second: the rounds' mean of each per transaction (its geometric mean, as every output gives a count) at the rate each key ran.")
		if len(behind) > 0 {
			d.Printf("The schedule was not kept (below %.0f%% of it): %s; at this rate these keys queue, and their latency is the queue's.", 100*results.PaceHeld, strings.Join(behind, "; "))
		}
	}
}

// paceOf is the key's latency at the shape's fixed rate (zero: none).
func (s shape) paceOf(key string) results.PaceKey {
	if s.Pace != nil {
		for _, k := range s.Pace.Keys {
			if k.Key == key {
				return k
			}
		}
	}
	return results.PaceKey{Key: key}
}

// p99Versus is a key's p99 against the least's: the ratio of the two p99
// printed beside it (the medians of their rounds'), marked as the rounds'
// comparison decided, with its interval when asked.
func (sh shape) p99Versus(g *results.Group, withInterval bool) string {
	pk := sh.paceOf(g.Key)
	switch {
	case g.Key == sh.Pace.Least:
		return "least"
	case pk.Versus == nil:
		return "-"
	}
	iv := ""
	if withInterval {
		iv = pk.Versus.IntervalText()
	}
	return versusCell(pk.Versus, pk.P99MS/sh.paceOf(sh.Pace.Least).P99MS, iv)
}

// lateText is a cell's late and skipped transactions ("-" without a limit).
func lateText(p *results.Pace) string {
	if p.LatencyLimitMS == 0 {
		return "- (no --latency-limit)"
	}
	return fmt.Sprintf("%d / %d", p.Late.Value(), p.Skipped.Value())
}

// perSecond are the group's server CPU (every server process's), WAL and
// blocks read per second at the rate it ran, from its rounds' costs per
// transaction: the figures the work is made of, under their names.
func perSecond(res *results.Results, g *results.Group, tps float64) (cpu, wal, reads string) {
	at := func(get func(*results.RoundCost) *results.M[float64], text func(float64) string) string {
		f := results.RoundFigureOf(get)
		if v, ok := res.RoundMean(g, f); ok {
			return text(v * tps)
		}
		for _, rd := range res.Last(g).Rounds {
			if rd.Cost != nil {
				return "unavailable: " + f.Get(rd.Cost).Reason()
			}
		}
		return "unavailable: one window, no rounds' costs"
	}
	// ms of CPU per second: a thousandth of a core each.
	cpu = at(func(c *results.RoundCost) *results.M[float64] { return &c.ServerAllCPUMS }, func(v float64) string { return results.Significant(v/10) + "%" })
	wal = at(func(c *results.RoundCost) *results.M[float64] { return &c.WALBytes }, func(v float64) string { return results.Bytes(int64(v)) + "/s" })
	reads = at(func(c *results.RoundCost) *results.M[float64] { return &c.ServerReads }, results.Significant)
	return cpu, wal, reads
}
