// Package device names the disk a run's work is priced on (results.Device):
// this machine's disk under a directory, probed once and kept (package
// diskprobe: random 8 kB reads, sequential writes, a write and its flush,
// all with direct IO) and probed again when the kept figures are older
// than MaxAge or when asked; a documented profile (Profiles: a local NVMe
// drive, a network volume, a spinning disk); or the user's own figures, a
// file `keybench disk DIR --json` wrote or one of results.Device's shape.
// The counts a run measured (CPU, blocks read and written, WAL, flushes)
// carry to any of them; only their price changes.
package device

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/keybench/keybench/internal/diskprobe"
	"github.com/keybench/keybench/internal/results"
)

// Profiles are named disks with typical figures, for a user who prices a
// run on a disk like theirs without probing it: figures of their class as
// vendors and published benchmarks put them, one operation at a time
// (queue depth 1), not measured by keybench.
var Profiles = map[string]results.Device{
	"nvme": {Name: "nvme", Kind: results.DeviceProfile, Source: "profile: a local NVMe SSD (typical queue-depth-1 figures, not measured: random 8 kB read 0.1 ms, 1,000 MB/s written, a write and its flush 0.5 ms without power-loss protection)",
		ReadMS: 0.1, WriteMBps: 1000, FlushMS: 0.5},
	"network": {Name: "network", Kind: results.DeviceProfile, Source: "profile: a network block volume such as a cloud provider's general-purpose SSD (typical figures, not measured: random 8 kB read 0.5 ms, 125 MB/s written, a write and its flush 1 ms)",
		ReadMS: 0.5, WriteMBps: 125, FlushMS: 1},
	"hdd": {Name: "hdd", Kind: results.DeviceProfile, Source: "profile: a 7,200 rpm disk (typical figures, not measured: a random 8 kB read 8 ms, 150 MB/s written, a write and its flush 8 ms)",
		ReadMS: 8, WriteMBps: 150, FlushMS: 8},
}

// Default is the profile a run is priced on when it recorded no device (a
// results file of an earlier keybench) or its server's disk cannot be probed.
const Default = "nvme"

// MaxAge is how long a probe of a disk is kept before it is taken again.
const MaxAge = 30 * 24 * time.Hour

// Names lists what --device takes.
func Names() []string {
	out := []string{"probe", "reprobe"}
	return append(append(out, slices.Sorted(maps.Keys(Profiles))...), "FILE.json")
}

// Resolve is the device name says: "probe" (this machine's disk under dir,
// kept figures when fresh), "reprobe" (probed now), a profile's name, or
// a file of figures. Probing writes a file of its own under dir and
// removes it.
func Resolve(ctx context.Context, name, dir string) (results.Device, error) {
	switch {
	case name == "probe" || name == "reprobe":
		return probed(ctx, dir, name == "reprobe")
	case Profiles[name].Name != "":
		return Profiles[name], nil
	case strings.HasSuffix(name, ".json"):
		return fromFile(name)
	}
	return results.Device{}, fmt.Errorf("--device takes %s, not %q", strings.Join(Names(), ", "), name)
}

// probed is the disk under dir as probed: the kept probe of that disk
// when younger than MaxAge (and not fresh), else a probe taken now and kept.
func probed(ctx context.Context, dir string, fresh bool) (results.Device, error) {
	keep, err := keptPath(dir)
	if err == nil && !fresh {
		if d, err := fromFile(keep); err == nil && d.ProbedAt != nil && time.Since(*d.ProbedAt) < MaxAge {
			return d, nil
		}
	}
	res, err := diskprobe.Probe(ctx, dir, diskprobe.Options{FileBytes: 64 << 20, Each: time.Second})
	if err != nil {
		return results.Device{}, fmt.Errorf("probing the disk under %s: %w", dir, err)
	}
	d := fromProbe(res)
	now := time.Now().UTC().Truncate(time.Second)
	d.ProbedAt = &now
	d.Name, d.Kind = "this machine's disk under "+dir, results.DeviceProbe
	if keep != "" {
		_ = save(keep, d) // a probe not kept is taken again next time
	}
	return d, nil
}

// fromProbe prices a probe: each operation at its mean time one at a time.
func fromProbe(r *diskprobe.Result) results.Device {
	d := results.Device{Name: "the disk under " + r.Dir, Kind: results.DeviceFile, WriteMBps: r.SeqWriteMBps,
		Source: fmt.Sprintf("keybench disk (direct IO): %d random 8 kB reads, %d writes with their flush, one at a time; %.0f MB/s written", r.RandomRead.N, r.Flush.N, r.SeqWriteMBps)}
	if r.RandomRead.PerS > 0 {
		d.ReadMS = 1000 / r.RandomRead.PerS
	}
	if r.Flush.PerS > 0 {
		d.FlushMS = 1000 / r.Flush.PerS
	}
	if r.Memory {
		d.Source += "; the directory is on " + r.FileSystem + ": these are memory's figures, not a disk's"
	}
	return d
}

// fromFile reads a device's figures: results.Device's fields, or what
// `keybench disk --json` printed.
func fromFile(path string) (results.Device, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return results.Device{}, fmt.Errorf("--device %s: %w", path, err)
	}
	var d results.Device
	if err := json.Unmarshal(b, &d); err == nil && d.ReadMS > 0 && d.WriteMBps > 0 && d.FlushMS > 0 {
		if d.Name == "" {
			d.Name = filepath.Base(path)
		}
		d.Kind = results.DeviceFile
		if d.Source == "" {
			d.Source = "the user's figures in " + path
		}
		return d, sane(path, d)
	}
	var r diskprobe.Result
	if err := json.Unmarshal(b, &r); err == nil && r.RandomRead.PerS > 0 && r.Flush.PerS > 0 && r.SeqWriteMBps > 0 {
		d := fromProbe(&r)
		d.Source = "keybench disk's probe in " + path + ": " + d.Source
		return d, sane(path, d)
	}
	return results.Device{}, fmt.Errorf("--device %s holds neither a device's figures (random_read_ms, write_mbps and flush_ms above 0) nor keybench disk --json's output", path)
}

// Bounds of a device's figures: a disk's unit costs are finite and within
// what any storage has (a read between a microsecond and ten seconds, a
// flush the same, writes between 0.1 MB/s and 1 TB/s); past them a
// figure is a typing slip, and its price of a run's counts would be
// infinite or zero.
var bounds = []struct {
	name     string
	lo, hi   float64
	of       func(results.Device) float64
	unitText string
}{
	{"random_read_ms", 0.001, 10_000, func(d results.Device) float64 { return d.ReadMS }, "ms"},
	{"write_mbps", 0.1, 1_000_000, func(d results.Device) float64 { return d.WriteMBps }, "MB/s"},
	{"flush_ms", 0.001, 10_000, func(d results.Device) float64 { return d.FlushMS }, "ms"},
}

// sane refuses a device whose figures are out of bounds.
func sane(path string, d results.Device) error {
	for _, b := range bounds {
		if v := b.of(d); math.IsNaN(v) || v < b.lo || v > b.hi {
			return fmt.Errorf("--device %s: %s is %g, outside %g–%g %s", path, b.name, v, b.lo, b.hi, b.unitText)
		}
	}
	return nil
}

// keptPath is where the probe of the disk under dir is kept: the user's
// cache, one file per device (st_dev).
func keptPath(dir string) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "keybench", "disks", fmt.Sprintf("dev-%d.json", st.Dev)), nil
}

// save keeps a probe, written whole or not at all.
func save(path string, d results.Device) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	err = results.WriteFileAtomic(path, append(b, '\n'))
	if errors.Is(err, os.ErrPermission) {
		return nil
	}
	return err
}
