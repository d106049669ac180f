package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/results"
)

// clusterTables print, for a run on a distributed engine, what each key
// did on each worker (its key index there, its splits, images and WAL per
// row, its CPU) and how evenly its rows and each round's inserts spread
// over the shards and the workers: the figures the coordinator cannot see.
func clusterTables(d *Doc, res *results.Results, order []string, last map[string]*results.Group) {
	workers := NewTable("workers: key", "worker", "shards", "rows", "key index", "leaf density", "splits / row", "FPI / row", "WAL / row", "CPU").AlignRight(2, 3, 4, 5, 6, 7, 8, 9)
	skew := NewTable("spread: key", "by", "rows across shards", "a round's inserts across shards", "across workers", "WAL / s by worker", "CPU by worker").AlignRight(2, 3, 4)
	shards := NewTable("shards: key", "shard", "worker", "rows", "a round's inserts (fewest–most)", "key index", "leaf density").AlignRight(1, 3, 4, 5, 6)
	splitsFrom := map[string]bool{}
	for _, k := range order {
		c := res.Last(last[k])
		cl := c.Cluster
		if cl == nil {
			continue
		}
		for _, w := range cl.Workers {
			m := &w.Metrics
			node := w.Node
			if w.Unreachable != "" {
				node += " (" + w.Unreachable + ")"
			}
			if w.SplitsFrom != "" {
				splitsFrom[w.SplitsFrom] = true
			}
			workers.AppendRow(k, node, w.Shards, w.Rows.Text(func(n int64) string { return fmt.Sprintf("%d", n) }),
				m.KeyIndexBytes.Text(results.Bytes), m.LeafDensity.Text(func(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }),
				w.SplitsPerRow.Text(func(v float64) string { return fmt.Sprintf("%.4f", v) }),
				m.WALFPIPerRow.Text(results.Significant),
				m.WALBytesPerRow.Text(func(v float64) string { return fmt.Sprintf("%.0f B", v) }),
				cpuCores(m.CPU))
		}
		for _, sh := range cl.Shards {
			shards.AppendRow(k, sh.ID, sh.Node, sh.Rows.Text(func(n int64) string { return fmt.Sprintf("%d", n) }), spanText(sh.Inserted),
				sh.KeyIndexBytes.Text(results.Bytes), sh.LeafDensity.Text(func(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }))
		}
		worstShards, worstWorkers := worstRound(cl.Rounds)
		skew.AppendRow(k, distributedBy(cl), skewText(cl.Skew), worstShards, worstWorkers, perWorker(cl.Rounds, len(cl.Workers), func(w results.WorkerRound) results.M[float64] { return w.WALBytesPerS }, bytesPerS),
			perWorker(cl.Rounds, len(cl.Workers), func(w results.WorkerRound) results.M[float64] { return w.CPUCores }, cores))
	}
	if len(workers.Rows) == 0 {
		return
	}
	d.Add(workers)
	from := slices.Sorted(maps.Keys(splitsFrom))
	d.Printf("workers: each worker's figures over the cell's shards on it, read there by keybench (its statistics, pgstatindex; per row over the rows its shards took); "+
		"splits counted from %s (a B-tree nothing was deleted from grows one page per split); CPU: the worker's server processes' CPU seconds per second of the cell (a worker on this machine).", strings.Join(from, " and "))
	d.Add(shards)
	d.Add(skew)
	d.Println("spread: max/mean is the fullest part over the mean (1.00: even) and CV the coefficient of variation; a round's inserts: the round most uneven (a hot shard is one that takes more than its share round after round); " +
		"WAL / s and CPU by worker: each worker's median over the rounds, in the workers' order above.")
}

// unreadWorkers names each worker of the run's cells that keybench could
// not read, with why, once: what its figures and the cost leave out.
func unreadWorkers(res *results.Results) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range res.Cells {
		if c.Cluster == nil {
			continue
		}
		for _, w := range c.Cluster.Workers {
			if w.Unreachable != "" && !seen[w.Node+w.Unreachable] {
				seen[w.Node+w.Unreachable] = true
				out = append(out, fmt.Sprintf("Not read on worker %s: %s; its shards' figures are missing and the cost is unavailable.", w.Node, w.Unreachable))
			}
		}
	}
	return out
}

func distributedBy(cl *results.Cluster) string {
	if cl.Tenants > 0 {
		return fmt.Sprintf("%s (%d %s tenants)", cl.DistributedBy, cl.Tenants, cl.TenantSkew)
	}
	return cl.DistributedBy
}

func skewText(s results.M[results.Skew]) string {
	return s.Text(func(v results.Skew) string { return fmt.Sprintf("%.2f max/mean, CV %.2f", v.MaxOverMean, v.CV) })
}

// worstRound is the most uneven round's skew across shards and across workers.
func worstRound(rounds []results.ClusterRound) (string, string) {
	if len(rounds) == 0 {
		return "n/a", "n/a"
	}
	worst := func(get func(results.ClusterRound) results.M[results.Skew]) string {
		best := get(rounds[0])
		for _, r := range rounds[1:] {
			s, ok := get(r).Get()
			b, bok := best.Get()
			if ok && (!bok || s.MaxOverMean > b.MaxOverMean) {
				best = get(r)
			}
		}
		return skewText(best)
	}
	return worst(func(r results.ClusterRound) results.M[results.Skew] { return r.Shards }),
		worst(func(r results.ClusterRound) results.M[results.Skew] { return r.Workers })
}

// perWorker is each worker's median of a round figure, in order.
func perWorker(rounds []results.ClusterRound, n int, get func(results.WorkerRound) results.M[float64], format func(float64) string) string {
	parts := make([]string, n)
	for i := range parts {
		var vs []float64
		why := "no round"
		for _, r := range rounds {
			if i >= len(r.PerWorker) {
				continue
			}
			v, ok := get(r.PerWorker[i]).Get()
			if !ok {
				why = get(r.PerWorker[i]).Reason()
				continue
			}
			vs = append(vs, v)
		}
		if len(vs) == 0 {
			parts[i] = "unavailable (" + why + ")"
			continue
		}
		sort.Float64s(vs)
		parts[i] = format(vs[len(vs)/2])
	}
	return strings.Join(parts, " / ")
}

func bytesPerS(v float64) string { return results.Bytes(int64(v)) + "/s" }
func cores(v float64) string     { return fmt.Sprintf("%.2f", v) }

func cpuCores(c results.M[results.CPU]) string {
	cpu, ok := c.Get()
	if !ok {
		return "unavailable"
	}
	return cpu.ServerCores.Text(func(v float64) string { return cores(v) + " cores" })
}

// spanText is the fewest and the most of a shard's rounds' inserts.
func spanText(ins []int64) string {
	if len(ins) == 0 {
		return "n/a"
	}
	lo, hi := ins[0], ins[0]
	for _, n := range ins[1:] {
		lo, hi = min(lo, n), max(hi, n)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}
