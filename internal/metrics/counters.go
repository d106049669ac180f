package metrics

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/keybench/keybench/internal/results"
)

// walCounter: pg_stat_wal (records, full-page images, bytes; the same three
// columns from 14 to 18). It counts the whole cluster's WAL, which during a
// cell is the cell's.
type walCounter struct{}

type walSnap struct{ records, fpi, bytes int64 }

func (walCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	var s walSnap
	err := env.Admin.QueryRow(ctx, "SELECT wal_records, wal_fpi, wal_bytes::bigint FROM pg_stat_wal").Scan(&s.records, &s.fpi, &s.bytes)
	return s, err
}

func (walCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(walSnap), a.(walSnap)
	into.WALRecords = results.Of(after.records - before.records)
	into.WALFPI = results.Of(after.fpi - before.fpi)
	into.WALBytes = results.Of(after.bytes - before.bytes)
}

func (walCounter) unavailable(reason string, into *results.Metrics) {
	reason = "pg_stat_wal: " + reason
	into.WALRecords, into.WALFPI, into.WALBytes = unavailable[int64](reason), unavailable[int64](reason), unavailable[int64](reason)
}

// figures: the counts add up over rounds; per row over the cell's rows.
func (walCounter) figures() []figure {
	i := func(get func(*results.Metrics) *results.M[int64]) figure { return summed(get, onCoordinator, add) }
	return []figure{
		i(func(m *results.Metrics) *results.M[int64] { return &m.WALRecords }),
		i(func(m *results.Metrics) *results.M[int64] { return &m.WALFPI }),
		i(func(m *results.Metrics) *results.M[int64] { return &m.WALBytes }),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.WALBytesPerRow }, func(m *results.Metrics) results.M[int64] { return m.WALBytes }),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.WALFPIPerRow }, func(m *results.Metrics) results.M[int64] { return m.WALFPI }),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.WALRecordsPerRow }, func(m *results.Metrics) results.M[int64] { return m.WALRecords }),
	}
}

// checkpointCounter: pg_stat_checkpointer (17+) or pg_stat_bgwriter (up to 16).
type checkpointCounter struct{}

type checkpointSnap struct{ timed, requested int64 }

func (checkpointCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	q := "SELECT num_timed, num_requested FROM pg_stat_checkpointer"
	if env.Major < 17 {
		q = "SELECT checkpoints_timed, checkpoints_req FROM pg_stat_bgwriter"
	}
	var s checkpointSnap
	err := env.Admin.QueryRow(ctx, q).Scan(&s.timed, &s.requested)
	return s, err
}

func (checkpointCounter) figures() []figure {
	return []figure{summed(func(m *results.Metrics) *results.M[results.Checkpoints] { return &m.Checkpoints }, onCoordinator,
		func(a, b results.Checkpoints) results.Checkpoints {
			return results.Checkpoints{Timed: a.Timed + b.Timed, Requested: a.Requested + b.Requested, Total: a.Total + b.Total}
		})}
}

func (checkpointCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(checkpointSnap), a.(checkpointSnap)
	into.Checkpoints = results.Of(results.Checkpoints{Timed: after.timed - before.timed, Requested: after.requested - before.requested,
		Total: after.timed + after.requested - before.timed - before.requested})
}

func (checkpointCounter) unavailable(reason string, into *results.Metrics) {
	into.Checkpoints = unavailable[results.Checkpoints](reason)
}

// ioCounter: pg_stat_io (16+), summed over client backends and over all
// backends, for relations.
type ioCounter struct{}

// ioSnap holds the sums for all backends and for client backends: reads,
// writes, extends, hits, evictions, fsyncs; the clients' read time (ms; why
// none when track_io_timing is off) and the WAL's flushes.
type ioSnap struct {
	all, clients  [6]int64
	clientsReadMS float64
	// clientsIOMS is the client backends' time in relation IO (reads,
	// writes, extends, fsyncs), walIOMS the WAL's writes and flushes (the
	// client backends' on 18, the cluster's before): with the backends'
	// CPU, what a transaction cost the server (track_io_timing,
	// track_wal_io_timing).
	clientsIOMS, walIOMS  float64
	noTiming, noWALTiming string
	walFsyncs             int64
	walErr                string
}

func (ioCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	if env.Major < 16 {
		return nil, fmt.Errorf("pg_stat_io needs PostgreSQL 16 (this is %d)", env.Major)
	}
	rows, err := env.Admin.Query(ctx, `SELECT backend_type = 'client backend',
		coalesce(sum(reads),0)::bigint, coalesce(sum(writes),0)::bigint, coalesce(sum(extends),0)::bigint,
		coalesce(sum(hits),0)::bigint, coalesce(sum(evictions),0)::bigint, coalesce(sum(fsyncs),0)::bigint,
		coalesce(sum(read_time),0)::float8,
		coalesce(sum(read_time),0)::float8 + coalesce(sum(write_time),0)::float8 + coalesce(sum(extend_time),0)::float8 + coalesce(sum(fsync_time),0)::float8
		FROM pg_stat_io WHERE object = 'relation' GROUP BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var s ioSnap
	for rows.Next() {
		var client bool
		var v [6]int64
		var readMS, ioMS float64
		if err := rows.Scan(&client, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &readMS, &ioMS); err != nil {
			return nil, err
		}
		for i := range v {
			s.all[i] += v[i]
			if client {
				s.clients[i] += v[i]
			}
		}
		if client {
			s.clientsReadMS += readMS
			s.clientsIOMS += ioMS
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var timing string
	if err := env.Admin.QueryRow(ctx, `SELECT current_setting('track_io_timing')`).Scan(&timing); err != nil {
		return nil, err
	}
	if timing != "on" {
		s.noTiming = "track_io_timing is off on the server: read times are not counted"
	}
	walQ := `SELECT coalesce(sum(fsyncs),0)::bigint, coalesce(sum(write_time + fsync_time) FILTER (WHERE backend_type = 'client backend'),0)::float8,
		current_setting('track_wal_io_timing') FROM pg_stat_io WHERE object = 'wal'`
	if env.Major < 18 {
		walQ = `SELECT wal_sync, (wal_write_time + wal_sync_time)::float8, current_setting('track_wal_io_timing') FROM pg_stat_wal`
	}
	var walTiming string
	if err := env.Admin.QueryRow(ctx, walQ).Scan(&s.walFsyncs, &s.walIOMS, &walTiming); err != nil {
		s.walErr = err.Error()
	} else if walTiming != "on" {
		s.noWALTiming = "track_wal_io_timing is off on the server: the WAL's write and flush times are not counted"
	}
	return s, nil
}

func (ioCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(ioSnap), a.(ioSnap)
	out := results.IO{Source: "pg_stat_io (object relation; blocks of 8 kB)"}
	for i := range out.All {
		out.All[i], out.Clients[i] = after.all[i]-before.all[i], after.clients[i]-before.clients[i]
	}
	if after.noTiming != "" {
		out.ClientsReadMS = results.Unavailable[float64](after.noTiming)
		out.ClientsIOMS = results.Unavailable[float64](after.noTiming)
	} else {
		out.ClientsReadMS = results.Of(after.clientsReadMS - before.clientsReadMS)
		out.ClientsIOMS = results.Of(after.clientsIOMS - before.clientsIOMS)
	}
	switch {
	case after.walErr != "":
		out.WALIOMS = results.Unavailable[float64](after.walErr)
	case after.noWALTiming != "":
		out.WALIOMS = results.Unavailable[float64](after.noWALTiming)
	default:
		out.WALIOMS = results.Of(after.walIOMS - before.walIOMS)
	}
	if after.walErr != "" {
		out.WALFsyncs = results.Unavailable[int64](after.walErr)
	} else {
		out.WALFsyncs = results.Of(after.walFsyncs - before.walFsyncs)
	}
	into.IO = results.Of(out)
}

func (ioCounter) figures() []figure {
	return []figure{merged(func(m *results.Metrics) *results.M[results.IO] { return &m.IO }, onCoordinator, mergeIO)}
}

func (ioCounter) unavailable(reason string, into *results.Metrics) {
	into.IO = unavailable[results.IO](reason)
}

// statioCounter: pg_statio_user_tables for the cell's table (heap, indexes, TOAST).
type statioCounter struct{}

// statioSnap is each leaf table's six counters, by name.
type statioSnap map[string][]int64

func (statioCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	// A partitioned table's figures are its partitions'.
	return readByRelation(ctx, env, 6, `SELECT relname, coalesce(heap_blks_read,0)::bigint, coalesce(heap_blks_hit,0)::bigint,
		coalesce(idx_blks_read,0)::bigint, coalesce(idx_blks_hit,0)::bigint,
		coalesce(toast_blks_read,0)::bigint, coalesce(toast_blks_hit,0)::bigint
		FROM pg_statio_user_tables WHERE schemaname = $1 AND relname = ANY($2)`, func(m map[string][]int64) snapshot { return statioSnap(m) })
}

// readByRelation reads n counters of each of the cell's leaf tables.
func readByRelation(ctx context.Context, env *Env, n int, sql string, as func(map[string][]int64) snapshot) (snapshot, error) {
	rows, err := env.Admin.Query(ctx, sql, env.Schema, env.LeafTables)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]int64{}
	for rows.Next() {
		var name string
		v := make([]int64, n)
		dst := []any{&name}
		for i := range v {
			dst = append(dst, &v[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		out[name] = v
	}
	return as(out), rows.Err()
}

// deltaByRelation is after less before, summed over the relations both
// hold: a partition dropped in between (a retention's) takes its counters
// with it, and one made in between had none before.
func deltaByRelation(before, after map[string][]int64, n int) []int64 {
	d := make([]int64, n)
	for name, a := range after {
		b, ok := before[name]
		if !ok {
			continue
		}
		for i := range d {
			d[i] += a[i] - b[i]
		}
	}
	return d
}

func (statioCounter) figures() []figure {
	return []figure{
		summed(func(m *results.Metrics) *results.M[results.Blocks] { return &m.Blocks }, onCoordinator, func(a, b results.Blocks) results.Blocks {
			return results.Blocks{HeapRead: a.HeapRead + b.HeapRead, HeapHit: a.HeapHit + b.HeapHit, IdxRead: a.IdxRead + b.IdxRead,
				IdxHit: a.IdxHit + b.IdxHit, ToastRead: a.ToastRead + b.ToastRead, ToastHit: a.ToastHit + b.ToastHit}
		}),
		merged(func(m *results.Metrics) *results.M[results.BlocksPerTxn] { return &m.BlocksPerTxn }, onCoordinator, blocksPerTxn),
	}
}

func (statioCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	d := deltaByRelation(b.(statioSnap), a.(statioSnap), 6)
	into.Blocks = results.Of(results.Blocks{HeapRead: d[0], HeapHit: d[1], IdxRead: d[2], IdxHit: d[3], ToastRead: d[4], ToastHit: d[5]})
}

func (statioCounter) unavailable(reason string, into *results.Metrics) {
	into.Blocks = unavailable[results.Blocks](reason)
}

// tupleCounter: pg_stat_user_tables' row counts for the cell's tables.
type tupleCounter struct{}

// tupleSnap is each leaf table's row counts, by name.
type tupleSnap map[string][]int64

func (tupleCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	return readByRelation(ctx, env, 4, `SELECT relname, coalesce(n_tup_ins,0)::bigint, coalesce(n_tup_upd,0)::bigint,
		coalesce(n_tup_hot_upd,0)::bigint, coalesce(n_tup_del,0)::bigint
		FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = ANY($2)`, func(m map[string][]int64) snapshot { return tupleSnap(m) })
}

func (tupleCounter) figures() []figure {
	return []figure{summed(func(m *results.Metrics) *results.M[results.Tuples] { return &m.Tuples }, onCoordinator, func(a, b results.Tuples) results.Tuples {
		return results.Tuples{Inserted: a.Inserted + b.Inserted, Updated: a.Updated + b.Updated, HOTUpdated: a.HOTUpdated + b.HOTUpdated, Deleted: a.Deleted + b.Deleted}
	})}
}

func (tupleCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	d := deltaByRelation(b.(tupleSnap), a.(tupleSnap), 4)
	into.Tuples = results.Of(results.Tuples{Inserted: d[0], Updated: d[1], HOTUpdated: d[2], Deleted: d[3]})
}

func (tupleCounter) unavailable(reason string, into *results.Metrics) {
	into.Tuples = unavailable[results.Tuples](reason)
}

// diskCounter: /proc/diskstats of the device holding the embedded server's
// data directory (the whole device's traffic, which during a cell is mostly the server's).
type diskCounter struct{}

type diskSnap struct {
	dev string
	s   blockdevice.IOStats
}

func (diskCounter) read(_ context.Context, env *Env) (snapshot, error) {
	if env.DataDir == "" {
		return nil, errEmbeddedOnly
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
func (diskCounter) figures() []figure {
	return []figure{merged(func(m *results.Metrics) *results.M[results.Disk] { return &m.Disk }, fromClients, mergeDisk)}
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
		return unavailable[float64]("no operations")
	}
	return results.Of(float64(a) / float64(b))
}

func (diskCounter) unavailable(reason string, into *results.Metrics) {
	into.Disk = unavailable[results.Disk](reason)
}

// cpuCounter: keybench's own CPU (getrusage) and, for the embedded server,
// the postmaster's and all its children's, exited ones included.
type cpuCounter struct{}

type cpuSnap struct {
	at             time.Time
	client, server float64
	serverErr      error
}

func (cpuCounter) read(_ context.Context, env *Env) (snapshot, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nil, err
	}
	s := cpuSnap{at: time.Now(), client: tv(ru.Utime) + tv(ru.Stime)}
	if env.ServerPID == 0 {
		s.serverErr = errEmbeddedOnly
	} else {
		s.server, s.serverErr = treeCPU(env.ServerPID)
	}
	return s, nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// processStats is every process's /proc/PID/stat, by PID (a process that
// ends while they are read is left out).
func processStats() (map[int]procfs.ProcStat, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, err
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, err
	}
	out := make(map[int]procfs.ProcStat, len(procs))
	for _, p := range procs {
		if st, err := p.Stat(); err == nil {
			out[st.PID] = st
		}
	}
	return out, nil
}

// treeCPU is the CPU seconds of pid and its descendants, living and reaped.
func treeCPU(pid int) (float64, error) {
	stats, err := processStats()
	if err != nil {
		return 0, err
	}
	children := map[int][]procfs.ProcStat{}
	var root *procfs.ProcStat
	for _, st := range stats {
		if st.PID == pid {
			r := st
			root = &r
		}
		children[st.PPID] = append(children[st.PPID], st)
	}
	if root == nil {
		return 0, fmt.Errorf("server process %d not found", pid)
	}
	hz := 100.0 // USER_HZ on Linux
	total := float64(root.UTime+root.STime) + float64(root.CUTime+root.CSTime)
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			total += float64(c.UTime + c.STime)
			walk(c.PID)
		}
	}
	walk(pid)
	return total / hz, nil
}

// figures: keybench's CPU stands anywhere (the server's is unavailable elsewhere by itself).
func (cpuCounter) figures() []figure {
	return []figure{merged(func(m *results.Metrics) *results.M[results.CPU] { return &m.CPU }, fromClients, mergeCPU)}
}

func (cpuCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(cpuSnap), a.(cpuSnap)
	secs := after.at.Sub(before.at).Seconds()
	out := results.CPU{ElapsedS: secs, ClientS: after.client - before.client, ClientCores: (after.client - before.client) / secs}
	if before.serverErr != nil || after.serverErr != nil {
		out.ServerS = unavailable[float64](firstErr(before.serverErr, after.serverErr).Error())
	} else {
		out.ServerS = results.Of(after.server - before.server)
		out.ServerCores = results.Of((after.server - before.server) / secs)
	}
	into.CPU = results.Of(out)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (cpuCounter) unavailable(reason string, into *results.Metrics) {
	into.CPU = unavailable[results.CPU](reason)
}
