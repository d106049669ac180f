package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
)

// WriteProjection prints a run's keys carried to the user's scale, each
// with its interval and the error checked at its own distance, and what the projection
// assumes, fitted to width columns (0: whole).
func WriteProjection(w io.Writer, width int, rep projection.Report, s projection.Scale) {
	projectionDoc(rep, s).Write(w, width)
}

// projectionDoc is the projection as the console and the page show it.
func projectionDoc(rep projection.Report, s projection.Scale) *Doc {
	ps, ref := rep.Keys, rep.Reference
	d := &Doc{}
	d.Printf("At %s rows, a cache (shared_buffers) of %s%s; rates relative to %s at the same scale, read off this run's curve of that ratio against the key index's size over the cache (of its first task).",
		thousands(s.Rows), results.Bytes(s.CacheBytes), insertRate(s), ref)
	t := NewTable("key", "table", "key index (leaf density)", "index / cache", "rate vs "+ref+" [interval]", "checked error at its distance", "measured at (index / cache)", "WAL / day (FPI share)").AlignRight(1, 2, 3, 4, 5)
	for _, p := range ps {
		var at []string
		for _, pt := range p.Curve.Points {
			at = append(at, fmt.Sprintf("%.2g×: %.2f", pt.Ratio, pt.Relative))
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
		t.AppendRow(p.Key, results.Bytes(p.TableBytes), index, fmt.Sprintf("%.2g×", p.Ratio), relativeText(p, ref), validationText(p, ref), strings.Join(at, ", "), walText)
	}
	d.Add(t)
	if len(rep.OtherClients) > 0 {
		d.Printf("The curves are the run's at %d clients; it also measured %v clients, not pooled with them (a key's rate at another client count is another curve: --clients N projects those).", rep.Clients, rep.OtherClients)
	}
	for _, n := range rep.NotProjected {
		d.Printf("%s is not projected: %s.", n.Key, n.Why)
	}
	d.Println("key index: its bytes per row at the run's largest table, at the leaf density an index grown by inserts alone had in the run (the cell that began empty), where the run had one; " +
		"a key whose inserts scatter leaves its pages about 70% full, not the 90% CREATE INDEX packs.")
	d.Println("checked error: every measured size of the key projected from the sizes below it (from all of them, and from fewer: one, two, three steps back) and from its neighbours, " +
		"each check an error at a distance in doublings of the index over the cache past the last size it used; a projection carries the check at its own distance (the nearest at least as far, the worst of equals), " +
		"or says it is beyond anything checked. interval: the rounds' paired interval of each measured point's rate relative to " + ref + " (95%), read through the curve. " +
		"FPI share: full-page images counted as 8 kB each, an upper bound (an index page's image leaves its free space out). " +
		"WAL per day: the steady state of a server with PostgreSQL's default checkpoint spacing at the insert rate, derived from the pages each round of the key's cell touched first " +
		"(a random key's index, its hot set the whole index, grown to the projected size: nearly every insert then touches a page not imaged since the checkpoint), " +
		"or, where a key's cell has none, its rounds' own, each starting at a checkpoint.")
	for _, p := range ps {
		if p.WALFrom != "" && !strings.HasPrefix(p.WALFrom, "steady state") {
			d.Printf("%s's WAL per day: %s.", p.Key, p.WALFrom)
		}
	}
	d.Println("The projection assumes the same class of hardware as the run, the same workload shape (clients, statements, row width unless --row-bytes), " +
		"and that the key index's size over the cache drives the difference between keys; it ignores the OS page cache beyond shared_buffers, " +
		"autovacuum and checkpoints at a scale the run never reached, replication, and whatever else runs on the server.")
	return d
}

func insertRate(s projection.Scale) string {
	if s.InsertRate <= 0 {
		return ""
	}
	return fmt.Sprintf(", %.0f inserted rows per second", s.InsertRate)
}

func lowest(c projection.Curve) float64 {
	low := math.Inf(1)
	for _, p := range c.Points {
		low = math.Min(low, p.Relative)
	}
	return low
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
	if p.RelativeHi > 0 {
		s += fmt.Sprintf(" [%.2f, %.2f]", p.RelativeLo, p.RelativeHi)
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
	}
	where := "between measured sizes"
	if v.Distance > 0 {
		where = fmt.Sprintf("%.1f doublings out", v.Distance)
	}
	return fmt.Sprintf("%+.0f%% (%s; checked at %.1f)", v.Check.Error*100, where, v.Check.Distance)
}
