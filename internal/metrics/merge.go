package metrics

import "github.com/keybench/keybench/internal/results"

// MergeRounds joins the session metrics of a cell's rounds (each round a
// session of its own) into the cell's, each figure as its collector says
// (figure.merge): counts add up, figures per row are taken over the sums
// and rows (every row the cell wrote), figures per transaction over txns
// (every transaction of its sessions, warm-ups included), the samplers'
// samples follow each other. A figure unavailable in any round is
// unavailable for the cell, with that round's reason.
func MergeRounds(ms []results.Metrics, rows, txns int64) results.Metrics {
	var out results.Metrics
	for _, f := range figures() {
		f.merge(ms, totals{rows: rows, txns: txns}, &out)
	}
	return out
}

// combine folds a figure over the rounds with add; unavailable in any round is unavailable.
func combine[T any](ms []results.Metrics, get func(*results.Metrics) results.M[T], add func(a, b T) T) results.M[T] {
	var acc T
	for i := range ms {
		f := get(&ms[i])
		v, ok := f.Get()
		if !ok {
			if f.IsZero() {
				return f
			}
			return results.Unavailable[T](f.Reason())
		}
		if i == 0 {
			acc = v
		} else {
			acc = add(acc, v)
		}
	}
	return results.Of(acc)
}

func add(a, b int64) int64 { return a + b }

func perRowOf(m results.M[int64], rows int64) results.M[float64] {
	if v, ok := m.Get(); ok {
		return results.PerRow(float64(v), rows)
	}
	if m.IsZero() {
		return results.M[float64]{}
	}
	return results.Unavailable[float64](m.Reason())
}

// mergeDisk adds the rounds' device counts; busy fraction and waits are weighted by time and operations.
func mergeDisk(ms []results.Metrics, _ totals, _ *results.Metrics) results.M[results.Disk] {
	type acc struct {
		d                 results.Disk
		busyMS, rMS, wMS  float64
		elapsed, rAw, wAw float64
	}
	var a acc
	for i := range ms {
		d, ok := ms[i].Disk.Get()
		if !ok {
			return ms[i].Disk
		}
		el := 1.0
		if c, ok := ms[i].CPU.Get(); ok && c.ElapsedS > 0 {
			el = c.ElapsedS
		}
		a.d.Device = d.Device
		a.d.Reads, a.d.ReadBytes, a.d.Writes, a.d.WriteBytes = a.d.Reads+d.Reads, a.d.ReadBytes+d.ReadBytes, a.d.Writes+d.Writes, a.d.WriteBytes+d.WriteBytes
		a.busyMS += d.BusyFraction * el
		a.elapsed += el
		if v, ok := d.ReadAwaitMS.Get(); ok {
			a.rMS += v * float64(d.Reads)
			a.rAw += float64(d.Reads)
		}
		if v, ok := d.WriteAwaitMS.Get(); ok {
			a.wMS += v * float64(d.Writes)
			a.wAw += float64(d.Writes)
		}
	}
	a.d.BusyFraction = a.busyMS / a.elapsed
	a.d.ReadAwaitMS, a.d.WriteAwaitMS = weighted(a.rMS, a.rAw), weighted(a.wMS, a.wAw)
	return results.Of(a.d)
}

func weighted(total, n float64) results.M[float64] {
	if n == 0 {
		return results.Unavailable[float64]("no operations")
	}
	return results.Of(total / n)
}

// mergeCPU adds the rounds' CPU seconds; cores are over the summed time.
func mergeCPU(ms []results.Metrics, _ totals, _ *results.Metrics) results.M[results.CPU] {
	return combine(ms, func(m *results.Metrics) results.M[results.CPU] { return m.CPU }, func(a, b results.CPU) results.CPU {
		c := results.CPU{ElapsedS: a.ElapsedS + b.ElapsedS, ClientS: a.ClientS + b.ClientS}
		if c.ElapsedS > 0 {
			c.ClientCores = c.ClientS / c.ElapsedS
		}
		sa, okA := a.ServerS.Get()
		sb, okB := b.ServerS.Get()
		switch {
		case okA && okB:
			c.ServerS = results.Of(sa + sb)
			if c.ElapsedS > 0 {
				c.ServerCores = results.Of((sa + sb) / c.ElapsedS)
			}
		case !okA:
			c.ServerS = a.ServerS
		default:
			c.ServerS = b.ServerS
		}
		return c
	})
}

// mergeBufferCache puts the rounds' samples one after the other (times
// continuing from the previous round's window) and averages over all of them.
func mergeBufferCache(ms []results.Metrics, _ totals, _ *results.Metrics) results.M[results.BufferCache] {
	var out results.BufferCache
	offset := 0.0
	for i := range ms {
		bc, ok := ms[i].BufferCache.Get()
		if !ok {
			return ms[i].BufferCache
		}
		out.Buffers = bc.Buffers
		for _, s := range bc.Samples {
			out.Samples = append(out.Samples, results.CacheSample{T: s.T + offset, Shares: s.Shares})
		}
		out.FinalShare, out.UsageCountsFinal = bc.FinalShare, bc.UsageCountsFinal
		if smp, ok := ms[i].Sampling.Get(); ok {
			offset += smp.WindowS
		}
	}
	out.MeanShare = map[string]float64{}
	for _, s := range out.Samples {
		for k, v := range s.Shares {
			out.MeanShare[k] += v / float64(len(out.Samples))
		}
	}
	return results.Of(out)
}

// mergeSizes joins the rounds' size samples, each round's times after the
// rounds before it (their windows' lengths).
func mergeSizes(ms []results.Metrics, _ totals, _ *results.Metrics) results.M[[]results.SizeSample] {
	var out []results.SizeSample
	offset := 0.0
	for i := range ms {
		ss, ok := ms[i].SizesOverTime.Get()
		if !ok {
			return ms[i].SizesOverTime
		}
		for _, s := range ss {
			out = append(out, results.SizeSample{T: s.T + offset, Bytes: s.Bytes})
		}
		if smp, ok := ms[i].Sampling.Get(); ok {
			offset += smp.WindowS
		}
	}
	return results.Of(out)
}

// mergeIO adds the rounds' pg_stat_io counts and derives the clients' hit
// ratio and reads per row from the sums.
func mergeIO(ms []results.Metrics, tot totals, _ *results.Metrics) results.M[results.IO] {
	out := combine(ms, func(m *results.Metrics) results.M[results.IO] { return m.IO }, func(a, b results.IO) results.IO {
		c := results.IO{Source: a.Source, ClientsReadMS: sumM(a.ClientsReadMS, b.ClientsReadMS), WALFsyncs: sumM(a.WALFsyncs, b.WALFsyncs),
			ClientsIOMS: sumM(a.ClientsIOMS, b.ClientsIOMS), WALIOMS: sumM(a.WALIOMS, b.WALIOMS)}
		for i := range c.All {
			c.All[i], c.Clients[i] = a.All[i]+b.All[i], a.Clients[i]+b.Clients[i]
		}
		return c
	})
	if io, ok := out.Get(); ok {
		if r, h := io.Clients.Reads(), io.Clients.Hits(); r+h > 0 {
			io.ClientsHitRatio = results.Of(float64(h) / float64(r+h))
			io.ClientsReadsPerRow = results.PerRow(float64(r), tot.rows)
		}
		switch ms, ok := io.ClientsReadMS.Get(); {
		case !ok:
			io.ClientsMSPerRead = results.Unavailable[float64](io.ClientsReadMS.Reason())
		case io.Clients.Reads() == 0:
			io.ClientsMSPerRead = results.Unavailable[float64]("no block was read from outside shared_buffers")
		default:
			io.ClientsMSPerRead = results.Of(ms / float64(io.Clients.Reads()))
		}
		out = results.Of(io)
	}
	return out
}

// blocksPerTxn is the blocks merged before it over every transaction the sessions watched.
func blocksPerTxn(_ []results.Metrics, tot totals, out *results.Metrics) results.M[results.BlocksPerTxn] {
	if tot.txns <= 0 {
		return results.Unavailable[results.BlocksPerTxn]("no transaction completed")
	}
	b, ok := out.Blocks.Get()
	if !ok {
		return results.Unavailable[results.BlocksPerTxn](out.Blocks.Reason())
	}
	n := float64(tot.txns)
	return results.Of(results.BlocksPerTxn{Hit: float64(b.Hits()) / n, Read: float64(b.Reads()) / n, Heap: float64(b.HeapHit+b.HeapRead) / n})
}

// sumM adds two measured figures: unavailable, with the first reason, when
// either is; unset when both are.
func sumM[T int64 | float64](a, b results.M[T]) results.M[T] {
	switch {
	case a.IsZero() && b.IsZero():
		return a
	case a.Reason() != "":
		return a
	case b.Reason() != "":
		return b
	}
	return results.Of(a.Value() + b.Value())
}
