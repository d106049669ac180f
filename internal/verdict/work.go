package verdict

import (
	"strings"

	"github.com/keybench/keybench/internal/device"
	"github.com/keybench/keybench/internal/results"
)

// The work figure: what a transaction made the server do, priced on a
// named disk (results.Device), the figure the cost family decides on. It
// adds the CPU time of every server process (on a CPU, not waiting for
// one: the client backends, the checkpointer with the round's own
// CHECKPOINT, the background writer, the WAL writer, autovacuum — on
// the key's own tables, wherever it ran —, IO workers) to each count times its unit cost: the blocks read from outside
// shared buffers at a random 8 kB read, the blocks written and added at
// 8 kB of the device's write rate, the WAL's bytes at its write rate, and
// each WAL flush at a write and its flush. Waiting — for a CPU, for the
// disk's queue, for a lock — is in none of it: another tenant's burst
// lengthens the waits, not the work.

// MissingCPU is the part Work says missing when no server CPU was read.
const MissingCPU = "the server's CPU"

// total is the work of the parts counted.
func total(w results.WorkParts) float64 { return w.CPUMS + w.ReadMS + w.WriteMS + w.WALMS + w.FlushMS }

// Work is a round's work per transaction on d: each part from the round's
// counts, the closest one an earlier file recorded where the whole
// server's is missing (the client backends' CPU, the table's reads), and
// what was left out (missing); false when neither the CPU nor any count
// was measured.
func Work(c *results.RoundCost, d results.Device) (w results.WorkParts, missing []string, ok bool) {
	got := false
	part := func(into *float64, price float64, what string, ms ...results.M[float64]) {
		for _, m := range ms {
			if v, ok := m.Get(); ok {
				*into, got = v*price, true
				return
			}
		}
		missing = append(missing, what)
	}
	part(&w.CPUMS, 1, MissingCPU, c.ServerAllCPUMS, c.ServerCPUMS)
	if _, ok := c.ServerAllCPUMS.Get(); !ok {
		if _, ok := c.ServerCPUMS.Get(); ok {
			missing = append(missing, "the CPU of the server's processes other than its client backends")
		}
	}
	part(&w.ReadMS, d.ReadMS, "the blocks read", c.ServerReads, c.BlocksRead)
	if _, ok := c.ServerReads.Get(); !ok {
		if _, ok := c.BlocksRead.Get(); ok {
			missing = append(missing, "the reads of relations other than the cell's tables")
		}
	}
	part(&w.WriteMS, 8.192/d.WriteMBps, "the blocks written", c.ServerWrites)
	part(&w.WALMS, 1e-3/d.WriteMBps, "the WAL", c.WALBytes)
	part(&w.FlushMS, d.FlushMS, "the WAL's flushes", c.WALFlushes)
	return w, missing, got
}

// WorkOf is a round's work per transaction on d, or why it has none.
func WorkOf(c *results.RoundCost, d results.Device) results.M[float64] {
	w, missing, ok := Work(c, d)
	if !ok {
		return results.Unavailable[float64]("neither the server's CPU nor its IO was counted: " + strings.Join(missing, ", "))
	}
	return results.Of(total(w))
}

// DeviceOf is the disk res's work is priced on: the one it recorded, or
// the default profile for a file of an earlier keybench.
func DeviceOf(res *results.Results) results.Device {
	if d := res.Environment.Device; d != nil && d.ReadMS > 0 && d.WriteMBps > 0 {
		return *d
	}
	d := device.Profiles[device.Default]
	d.Source = "the run recorded no disk (an earlier keybench): priced on the " + d.Source
	return d
}
