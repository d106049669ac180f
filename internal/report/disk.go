package report

import (
	"io"

	"github.com/keybench/keybench/internal/diskprobe"
	"github.com/keybench/keybench/internal/results"
)

// WriteDisk prints a disk probe's result.
func WriteDisk(w io.Writer, width int, r *diskprobe.Result) {
	d := &Doc{}
	t := NewTable("probe", "operations", "per second (one at a time)", "p50", "p99").AlignRight(1, 2, 3, 4)
	for _, p := range []struct {
		name string
		l    diskprobe.Latency
	}{{"random 8 kB read", r.RandomRead}, {"8 kB write + fdatasync", r.Flush}} {
		t.AppendRow(p.name, results.Thousands(int64(p.l.N)), results.Thousands(int64(p.l.PerS+0.5)), results.Significant(p.l.P50MS)+" ms", results.Significant(p.l.P99MS)+" ms")
	}
	if r.Memory {
		d.Printf("%s is on %s, a file system in memory: these are the speeds of RAM, not of a disk (probe a directory on the disk your database is on).", r.Dir, r.FileSystem)
	}
	d.Printf("The disk under %s, probed with direct IO through a %s file of keybench's (removed): sequential writes %.0f MB/s.", r.Dir, results.Bytes(r.FileBytes), r.SeqWriteMBps)
	d.Add(t)
	d.Write(w, width)
}
