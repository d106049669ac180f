package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/keybench/keybench/internal/diskprobe"
	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
)

type diskCmd struct {
	Dir  string     `arg:"" placeholder:"DIR" help:"A directory on the disk to measure (your database's, e.g. the data directory's parent); keybench writes one probe file there and removes it."`
	Size string     `default:"256MB" help:"The probe file's size: more than the disk's own cache, so random reads reach the medium."`
	Each pgDuration `default:"2s" placeholder:"SECONDS" help:"How long each of the three probes (random reads, flushes) runs."`
	JSON bool       `name:"json" help:"Print the result as JSON."`
}

// MaxProbeBytes bounds --size: a probe, not a fill of the user's disk.
const MaxProbeBytes = 16 << 30

func (d *diskCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return d.run(e) })
}

func (d *diskCmd) run(e *env) error {
	size, err := projection.ParseBytes(d.Size)
	if err != nil {
		return usagef("--size %v", err)
	}
	if size < 1<<20 || size > MaxProbeBytes {
		return usagef("--size must be from 1MB to 16GB, not %s", d.Size)
	}
	if each := time.Duration(d.Each); each <= 0 || each > time.Minute {
		return usagef("--each must be above 0 and at most 1m, not %s", each)
	}
	st, err := os.Stat(d.Dir)
	switch {
	case err != nil:
		return usagef("%s: no such directory", d.Dir)
	case !st.IsDir():
		return usagef("%s is not a directory", d.Dir)
	}
	if err := results.CheckWritable(d.Dir); err != nil {
		return usagef("%s is not writable: %v", d.Dir, err)
	}
	if !d.JSON {
		fmt.Fprintf(e.stdout, "Probing the disk under %s (direct IO: a %s file, then random reads and flushes, %s each)...\n", d.Dir, d.Size, time.Duration(d.Each))
	}
	res, err := diskprobe.Probe(e.ctx, d.Dir, diskprobe.Options{FileBytes: size, Each: time.Duration(d.Each)})
	if err != nil {
		if e.ctx.Err() != nil {
			return e.ctx.Err()
		}
		return fmt.Errorf("disk probe: %w", err)
	}
	if d.JSON {
		return printJSON(e, res)
	}
	report.WriteDisk(&printable{w: e.stdout}, e.width(e.stdout), res)
	return nil
}
