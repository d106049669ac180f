package metrics

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/prometheus/procfs/blockdevice"

	"github.com/keybench/keybench/internal/results"
)

// diskCounter: /proc/diskstats of the device holding the embedded server's
// data directory (the whole device's traffic, which during a cell is mostly the server's).
type diskCounter struct{}

type diskSnap struct {
	dev string
	s   blockdevice.IOStats
}

func (diskCounter) read(_ context.Context, env *Env) (snapshot, error) {
	if env.DataDir == "" {
		return nil, env.noProcess()
	}
	var st syscall.Stat_t
	if err := syscall.Stat(env.DataDir, &st); err != nil {
		return nil, err
	}
	major, minor := uint32(st.Dev>>8)&0xfff, uint32(st.Dev&0xff)|uint32(st.Dev>>12)&0xfff00
	fs, err := blockdevice.NewDefaultFS()
	if err != nil {
		return nil, err
	}
	stats, err := fs.ProcDiskstats()
	if err != nil {
		return nil, err
	}
	for _, d := range stats {
		if d.MajorNumber == major && d.MinorNumber == minor {
			return diskSnap{dev: d.DeviceName, s: d.IOStats}, nil
		}
	}
	return nil, fmt.Errorf("device %d:%d of %s is not in /proc/diskstats", major, minor, env.DataDir)
}

// figures: the disk is the host's, seen by keybench.
func (diskCounter) figures() []declared {
	return []declared{merged(func(m *results.Metrics) *results.M[results.Disk] { return &m.Disk }, fromClients, mergeDisk)}
}

func (diskCounter) report(b, a snapshot, elapsed time.Duration, into *results.Metrics) {
	before, after := b.(diskSnap), a.(diskSnap)
	into.Disk = results.Of(results.Disk{
		Device:       after.dev,
		Reads:        after.s.ReadIOs - before.s.ReadIOs,
		ReadBytes:    (after.s.ReadSectors - before.s.ReadSectors) * 512,
		Writes:       after.s.WriteIOs - before.s.WriteIOs,
		WriteBytes:   (after.s.WriteSectors - before.s.WriteSectors) * 512,
		BusyFraction: float64(after.s.IOsTotalTicks-before.s.IOsTotalTicks) / float64(max(elapsed.Milliseconds(), 1)),
		ReadAwaitMS:  ratio(after.s.ReadTicks-before.s.ReadTicks, after.s.ReadIOs-before.s.ReadIOs),
		WriteAwaitMS: ratio(after.s.WriteTicks-before.s.WriteTicks, after.s.WriteIOs-before.s.WriteIOs),
	})
}

func ratio(a, b uint64) results.M[float64] {
	if b == 0 {
		return results.Unavailable[float64]("no operations")
	}
	return results.Of(float64(a) / float64(b))
}

func (diskCounter) unavailable(reason string, into *results.Metrics) {
	into.Disk = results.Unavailable[results.Disk](reason)
}
