// Package diskprobe measures the disk under a directory the way PostgreSQL
// uses it, for the projection's cost model (`keybench disk`): random 8 kB
// reads one at a time (an index page a backend waits for), sequential
// writes (WAL, a checkpoint's stream), and a write followed by fdatasync
// (a commit's flush). The reads and writes bypass the OS page cache
// (O_DIRECT): a probe answered from memory would measure the memory.
//
// It writes one file of its own in the directory, named by the probe,
// and removes it when done, interrupted or not.
package diskprobe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PageBytes is PostgreSQL's block size, the unit of every probe.
const PageBytes = 8192

// Options size the probe.
type Options struct {
	// FileBytes is the probe file's size: larger than the disk's own
	// cache, so random reads reach the medium (default 256 MB).
	FileBytes int64
	// Each is how long each of the three probes runs (default 2 s).
	Each time.Duration
}

// Latency is one probe's operations: how many, their rate one at a time,
// and their latency.
type Latency struct {
	N     int     `json:"n"`
	PerS  float64 `json:"per_s"`
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

// Result is what the probe measured.
type Result struct {
	Dir       string `json:"dir"`
	FileBytes int64  `json:"file_bytes"`
	// SeqWriteMBps is the sequential write rate of the file's creation
	// (direct IO, 1 MB writes, flushed at the end), in MB/s (10^6 bytes).
	SeqWriteMBps float64 `json:"seq_write_mbps"`
	// RandomRead is 8 kB direct reads at random offsets, one at a time.
	RandomRead Latency `json:"random_read"`
	// Flush is an 8 kB write followed by fdatasync, one at a time (a commit).
	Flush Latency `json:"flush"`
	// FileSystem is the file system's kind where it is not a disk's (tmpfs,
	// ramfs: memory), with Memory set: the figures are RAM's, not a disk's.
	FileSystem string `json:"file_system,omitempty"`
	Memory     bool   `json:"memory,omitempty"`
}

// memoryFileSystems are the file systems whose files live in memory
// (statfs' f_type): a probe there measures RAM and the page cache.
var memoryFileSystems = map[int64]string{0x01021994: "tmpfs", 0x858458f6: "ramfs"}

// fileSystem is the kind of file system under dir when it keeps its files
// in memory ("" otherwise, or when statfs fails).
func fileSystem(dir string) (string, bool) {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return "", false
	}
	name, ok := memoryFileSystems[int64(fs.Type)]
	return name, ok
}

// Probe measures the disk under dir, an existing writable directory.
func Probe(ctx context.Context, dir string, o Options) (*Result, error) {
	if o.FileBytes <= 0 {
		o.FileBytes = 256 << 20
	}
	if o.Each <= 0 {
		o.Each = 2 * time.Second
	}
	o.FileBytes = (o.FileBytes + (1<<20 - 1)) &^ (1<<20 - 1)
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return nil, fmt.Errorf("%s is not writable: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "keybench-disk-probe-*")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_DIRECT, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening %s with direct IO (the file system may not support it): %w", filepath.Base(path), err)
	}
	defer unix.Close(fd)
	res := &Result{Dir: dir, FileBytes: o.FileBytes}
	res.FileSystem, res.Memory = fileSystem(dir)
	if res.SeqWriteMBps, err = sequentialWrite(ctx, fd, o.FileBytes); err != nil {
		return nil, err
	}
	if res.RandomRead, err = randomReads(ctx, fd, o.FileBytes, o.Each); err != nil {
		return nil, err
	}
	if res.Flush, err = flushes(ctx, fd, o.FileBytes, o.Each); err != nil {
		return nil, err
	}
	return res, nil
}

// aligned is a buffer aligned for direct IO (4 kB covers every device's
// logical block).
func aligned(n int) []byte {
	b := make([]byte, n+4096)
	off := (4096 - int(uintptr(unsafe.Pointer(&b[0]))&4095)) & 4095
	return b[off : off+n]
}

func sequentialWrite(ctx context.Context, fd int, size int64) (float64, error) {
	buf := aligned(1 << 20)
	for i := range buf {
		buf[i] = byte(i * 31) // not zeros: some devices compress or skip them
	}
	start := time.Now()
	for off := int64(0); off < size; off += int64(len(buf)) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if _, err := unix.Pwrite(fd, buf, off); err != nil {
			return 0, fmt.Errorf("writing the probe file: %w", err)
		}
	}
	if err := unix.Fdatasync(fd); err != nil {
		return 0, err
	}
	return float64(size) / 1e6 / time.Since(start).Seconds(), nil
}

func randomReads(ctx context.Context, fd int, size int64, each time.Duration) (Latency, error) {
	buf := aligned(PageBytes)
	pages := size / PageBytes
	rng := rand.New(rand.NewPCG(1, 2))
	return timed(ctx, each, func() error {
		_, err := unix.Pread(fd, buf, rng.Int64N(pages)*PageBytes)
		return err
	})
}

func flushes(ctx context.Context, fd int, size int64, each time.Duration) (Latency, error) {
	buf := aligned(PageBytes)
	off := int64(0)
	return timed(ctx, each, func() error {
		if _, err := unix.Pwrite(fd, buf, off); err != nil {
			return err
		}
		off = (off + PageBytes) % size
		return unix.Fdatasync(fd)
	})
}

// timed runs op one at a time for d and summarises its latencies.
func timed(ctx context.Context, d time.Duration, op func() error) (Latency, error) {
	var lat []float64
	start := time.Now()
	for time.Since(start) < d || len(lat) < 3 {
		if err := ctx.Err(); err != nil {
			return Latency{}, err
		}
		t := time.Now()
		if err := op(); err != nil {
			return Latency{}, err
		}
		lat = append(lat, float64(time.Since(t))/float64(time.Millisecond))
	}
	elapsed := time.Since(start).Seconds()
	sort.Float64s(lat)
	at := func(q float64) float64 { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	return Latency{N: len(lat), PerS: float64(len(lat)) / elapsed, P50MS: at(0.5), P99MS: at(0.99)}, nil
}
