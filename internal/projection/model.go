package projection

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/keybench/keybench/internal/results"
)

// The cost model: a transaction's cost split into parts each measured on
// the run — server CPU, blocks read from outside shared_buffers, relation
// pages written back (by backends, the background writer or checkpoints),
// WAL bytes, and the commit's flush — then priced on another machine by its
// disk (random read, sequential write, flush: `keybench disk` or the
// flags) and its cache (shared_buffers, and the share of the OS page cache
// that stays with the key index: an assumption the caller states).
//
// Its stance: the rate is the least of three limits — the disk's time per
// transaction (every part that reaches the disk, on one device), the
// clients' wait per transaction (each waits for its own reads and commit
// flush; closed loop), and the CPU cores — and the model names the part
// that sets it. Parts at a ratio the run did not measure are read off the
// run's cells along the key index's ratio to the cache, like the rate.
// What it leaves out: the device's queue (one random operation at a time:
// an HDD's, pessimistic for an SSD's parallelism), the kernel merging
// writes of neighbouring pages, and locks.

// Parts are one cell's costs per transaction, measured.
type Parts struct {
	Key     string  `json:"key"`
	Ratio   float64 `json:"key_index_cache_ratio"`
	Clients int     `json:"clients"`
	TPS     float64 `json:"tps"`
	// CPUMS is the server's CPU per transaction (ms, all its processes).
	CPUMS float64 `json:"cpu_ms"`
	// Reads are blocks client backends read from outside shared_buffers,
	// MSPerRead what one cost on the run's server (pg_stat_io read_time).
	Reads     float64            `json:"reads"`
	MSPerRead results.M[float64] `json:"ms_per_read"`
	// Writes are relation blocks written back by any process.
	Writes float64 `json:"writes"`
	// WALBytes and FPIShare: WAL per transaction and its full-page images'
	// share (images of their measured mean size: imageBytes).
	WALBytes float64 `json:"wal_bytes"`
	FPIShare float64 `json:"fpi_share"`
	// TxnsPerFlush is the transactions one WAL flush carried on the run (group commit).
	TxnsPerFlush float64 `json:"txns_per_flush"`
}

// PartsOf reads a cell's parts, or says which figure is missing.
func PartsOf(c *results.Cell, ratio float64) (Parts, error) {
	p := Parts{Key: c.Key, Ratio: ratio, Clients: c.Clients, TPS: c.TPS}
	if c.Txns <= 0 {
		return p, fmt.Errorf("no transaction")
	}
	n := float64(c.Txns)
	io, ok := c.Metrics.IO.Get()
	if !ok {
		return p, fmt.Errorf("no pg_stat_io: %s", c.Metrics.IO.Reason())
	}
	cpu, ok := c.Metrics.CPU.Get()
	if !ok {
		return p, fmt.Errorf("no CPU figures: %s", c.Metrics.CPU.Reason())
	}
	server, ok := cpu.ServerS.Get()
	if !ok {
		return p, fmt.Errorf("no server CPU: %s", cpu.ServerS.Reason())
	}
	wal, ok := c.Metrics.WALBytes.Get()
	if !ok {
		return p, fmt.Errorf("no WAL bytes: %s", c.Metrics.WALBytes.Reason())
	}
	p.CPUMS = server * 1000 / n
	p.Reads, p.MSPerRead = float64(io.Clients.Reads())/n, io.ClientsMSPerRead
	p.Writes = float64(io.All[1]) / n
	p.WALBytes = float64(wal) / n
	if fpi, ok := c.Metrics.WALFPI.Get(); ok && wal > 0 {
		p.FPIShare = math.Min(1, float64(fpi)*imageBytes(c)/float64(wal))
	}
	p.TxnsPerFlush = 1
	if f, ok := io.WALFsyncs.Get(); ok && f > 0 {
		p.TxnsPerFlush = math.Max(1, n/float64(f))
	}
	return p, nil
}

// Disk and Machine are where the model prices the parts (results' types:
// a projection's scale records the machine it was asked for).
type (
	Disk    = results.DiskCosts
	Machine = results.Machine
)

// OSReadMS is what a read the OS page cache serves costs when the user does
// not say: a system call and an 8 kB copy, about 20 µs (an assumption the
// projection states).
const OSReadMS = 0.02

// Limits a prediction names.
const (
	LimitCPU         = "CPU"
	LimitWait        = "the clients' wait (reads and commit flushes, one at a time each)"
	LimitDiskReads   = "disk: reads of index pages"
	LimitDiskWrites  = "disk: writing back dirty pages (random writes)"
	LimitDiskWAL     = "disk: WAL volume"
	LimitDiskFlushes = "disk: commit flushes"
)

// Prediction is the model's rate for a key at a size on a machine.
type Prediction struct {
	TPS   float64 `json:"tps"`
	Limit string  `json:"limit"`
	// The per-transaction times (ms) the limits come from.
	DiskMS     float64 `json:"disk_ms"`
	WaitMS     float64 `json:"wait_ms"`
	CPUMS      float64 `json:"cpu_ms"`
	DiskReads  float64 `json:"disk_reads"`
	Parts      Parts   `json:"parts"`
	IndexBytes int64   `json:"key_index_bytes"`
}

// Predict prices parts (measured at the key index's ratio to the cache the
// machine gives it) at clients clients on m.
func Predict(p Parts, indexBytes int64, clients int, m Machine) Prediction {
	// Reads from outside shared_buffers: the OS cache serves the share of
	// the index beyond shared_buffers it holds, the disk the rest.
	beyond := float64(indexBytes - m.SharedBuffers)
	missOS := 0.0
	if beyond > 0 {
		missOS = math.Max(0, 1-float64(m.OSCache)/beyond)
	}
	diskReads := p.Reads * missOS
	osReads := p.Reads - diskReads
	// Commits wait together for a slow flush (group commit). A flush
	// carries the commits that arrived while the one before it ran: the
	// clients it released are still on their next transaction when the
	// next flush starts, so a flush-bound closed loop alternates two halves
	// of the clients — half of them a flush when the flush outlasts the
	// rest of a transaction, fewer as it does not.
	group := math.Max(p.TxnsPerFlush, float64(clients)/2*m.Disk.FlushMS/(m.Disk.FlushMS+p.CPUMS+diskReads*m.Disk.ReadMS))
	group = math.Min(math.Max(group, 1), float64(clients))
	parts := map[string]float64{
		LimitDiskReads:   diskReads * m.Disk.ReadMS,
		LimitDiskWrites:  p.Writes * m.Disk.ReadMS,
		LimitDiskWAL:     p.WALBytes / (m.Disk.WriteMBps * 1e3),
		LimitDiskFlushes: m.Disk.FlushMS / group,
	}
	pred := Prediction{Parts: p, IndexBytes: indexBytes, CPUMS: p.CPUMS, DiskReads: diskReads}
	for _, v := range parts {
		pred.DiskMS += v
	}
	pred.WaitMS = p.CPUMS + diskReads*m.Disk.ReadMS + osReads*m.OSReadMS + m.Disk.FlushMS
	limits := map[string]float64{
		LimitWait: float64(clients) * 1000 / pred.WaitMS,
		LimitCPU:  float64(max(m.Cores, 1)) * 1000 / p.CPUMS,
	}
	if pred.DiskMS > 0 {
		// The disk's limit is named by its largest part.
		top, v := "", -1.0
		for _, k := range slices.Sorted(maps.Keys(parts)) {
			if parts[k] > v {
				top, v = k, parts[k]
			}
		}
		limits[top] = 1000 / pred.DiskMS
	}
	pred.TPS = math.Inf(1)
	for _, k := range slices.Sorted(maps.Keys(limits)) {
		if limits[k] < pred.TPS {
			pred.TPS, pred.Limit = limits[k], k
		}
	}
	return pred
}

// PartsCurve is a key's parts at every ratio the run measured it at.
type PartsCurve []Parts

// At reads the parts at ratio: each part interpolated in log(ratio) between
// the measured cells, extrapolated beyond the largest along the nearer
// half's line (never below zero), like the rate (Curve.At); below the
// smallest, the smallest's own (a part does not shrink below what an index
// within the cache costs).
func (pc PartsCurve) At(ratio float64) Parts {
	if len(pc) == 0 {
		return Parts{}
	}
	if ratio <= pc[0].Ratio {
		out := pc[0]
		out.Ratio = ratio
		return out
	}
	out := pc[len(pc)-1]
	out.Ratio = ratio
	read := func(f func(Parts) float64) float64 {
		c := Curve{}
		for _, p := range pc {
			c.Points = append(c.Points, Point{Ratio: p.Ratio, Relative: f(p)})
		}
		v, _ := c.At(ratio)
		return v
	}
	out.CPUMS = read(func(p Parts) float64 { return p.CPUMS })
	out.Reads = read(func(p Parts) float64 { return p.Reads })
	out.Writes = read(func(p Parts) float64 { return p.Writes })
	out.WALBytes = read(func(p Parts) float64 { return p.WALBytes })
	out.FPIShare = math.Min(1, read(func(p Parts) float64 { return p.FPIShare }))
	return out
}

// PartsCurves are the run's keys' parts by ratio, of the curves' shape
// (CurvesAt: first workload, one client count); a key whose cells lack a
// figure is left out with why.
func PartsCurves(r *results.Results, clients int) (map[string]PartsCurve, map[string]string, error) {
	curves, _, _, err := CurvesAt(r, clients)
	if err != nil {
		return nil, nil, err
	}
	out, missing := map[string]PartsCurve{}, map[string]string{}
	for _, c := range curves {
		for _, pt := range c.Points {
			if pt.cell == nil {
				continue
			}
			p, err := PartsOf(pt.cell, pt.Ratio)
			if err != nil {
				missing[c.Key] = err.Error()
				continue
			}
			out[c.Key] = append(out[c.Key], p)
		}
	}
	return out, missing, nil
}
