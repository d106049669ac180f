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
// with the error of its own leave-one-out check, and what the projection
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
	t := NewTable("key", "table", "key index (leaf density)", "index / cache", "rate vs "+ref, "leave-one-out error", "measured at (index / cache)", "WAL / day (FPI share)").AlignRight(1, 2, 3, 4, 5)
	for _, p := range ps {
		rel := fmt.Sprintf("%.2f", p.Relative)
		if p.Outside {
			rel += " (outside the measured range: extrapolated)"
		}
		loo := p.LeaveOneOut.Text(func(e float64) string { return fmt.Sprintf("%+.0f%%", e*100) })
		if r := p.LeaveOneOut.Reason(); r != "" {
			loo = "none: " + r
		}
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
		t.AppendRow(p.Key, results.Bytes(p.TableBytes), index, fmt.Sprintf("%.2g×", p.Ratio), rel, loo, strings.Join(at, ", "), walText)
	}
	d.Add(t)
	for _, n := range rep.NotProjected {
		d.Printf("%s is not projected: %s.", n.Key, n.Why)
	}
	d.Println("key index: its bytes per row at the run's largest table, at the leaf density an index grown by inserts alone had in the run (the cell that began empty), where the run had one; " +
		"a key whose inserts scatter leaves its pages about 70% full, not the 90% CREATE INDEX packs.")
	d.Println("leave-one-out error: each key's largest measured size projected from its smaller ones, against what was measured (+10%: the projection said 10% faster); " +
		"FPI share: full-page images counted as 8 kB each, an upper bound (an index page's image leaves its free space out). " +
		"WAL per day: the steady state of a server with PostgreSQL's default checkpoint spacing at the insert rate, derived from the pages each round of the key's cell touched first " +
		"(a random key's index, its hot set the whole index, grown to the projected size: nearly every insert then touches a page not imaged since the checkpoint), " +
		"or, where a key's cell has none, its rounds' own, each starting at a checkpoint.")
	for _, p := range ps {
		if p.WALFrom != "" && !strings.HasPrefix(p.WALFrom, "steady state") {
			d.Printf("%s's WAL per day: %s.", p.Key, p.WALFrom)
		}
	}
	for _, p := range ps {
		if p.Key != "uuidv4" {
			continue
		}
		// 000 measured uuidv4 at 0.31 of the sequence's rate at 1M rows and 0.20 at 10M.
		var parts []string
		for _, f := range []struct {
			rel  float64
			rows string
		}{{0.31, "1M"}, {0.20, "10M"}} {
			if r, ok := p.Curve.RatioWhere(f.rel); ok {
				parts = append(parts, fmt.Sprintf("%.2f (000 at %s rows) at an index %.2g× the cache", f.rel, f.rows, r))
			} else {
				parts = append(parts, fmt.Sprintf("%.2f (000 at %s rows) not within the measured range (lowest %.2f)", f.rel, f.rows, lowest(p.Curve)))
			}
		}
		d.Printf("Against a published figure: 000 ran uuidv4 at 0.31 of a sequence's insert rate at 1M rows and 0.20 at 10M; this run's uuidv4 curve reaches %s.", strings.Join(parts, "; "))
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
