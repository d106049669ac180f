package metrics

// What a round's transactions cost the machine, read from the kernel: the
// time the round's backends and keybench's own threads spent on a CPU and
// waiting for one (/proc/PID/schedstat, in nanoseconds), and the machine's
// CPU that processes other than the run's took (/proc/stat). Unlike a
// rate, a backend's CPU time per transaction hardly moves when another
// process takes a core: the other process lengthens the backend's wait
// for a CPU (its run-queue time, recorded as the contention), not its time
// on one. The IO half of a transaction's server time is pg_stat_io's and
// the WAL's timing (ioCounter); CostOfRound puts the halves together.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"

	"github.com/keybench/keybench/internal/results"
)

// sched is time on a CPU and time waiting on a run queue, in nanoseconds.
type sched struct{ run, wait int64 }

func (a sched) minus(b sched) sched { return sched{a.run - b.run, a.wait - b.wait} }
func (a sched) plus(b sched) sched  { return sched{a.run + b.run, a.wait + b.wait} }

// readSchedstat reads one /proc/…/schedstat: "run_ns wait_ns timeslices".
func readSchedstat(path string) (sched, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return sched{}, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return sched{}, fmt.Errorf("%s: %q is not schedstat's", path, b)
	}
	run, err1 := strconv.ParseInt(f[0], 10, 64)
	wait, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return sched{}, fmt.Errorf("%s: %q is not schedstat's", path, b)
	}
	return sched{run, wait}, nil
}

// selfSched is keybench's own threads' schedstat, summed.
func selfSched() (sched, error) {
	paths, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil || len(paths) == 0 {
		return sched{}, fmt.Errorf("/proc/self/task: %v", err)
	}
	var sum sched
	for _, p := range paths {
		if s, err := readSchedstat(p); err == nil { // a thread may end between the glob and the read
			sum = sum.plus(s)
		}
	}
	return sum, nil
}

// IsLocalBackend says whether pid is, on this host, the backend of a
// connection of user to database: its process title (cmdline) reads
// "postgres: USER DATABASE …". A remote server's backend PIDs name no
// such process here (or another program's).
func IsLocalBackend(pid uint32, user, database string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	title := string(bytes.TrimRight(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), " "))
	return strings.HasPrefix(title, "postgres: "+user+" "+database+" ")
}

// CostWatch reads a round's CPU at its start and its end: its backends'
// (pids) and keybench's own threads' time on a CPU and waiting for one,
// the server's process tree's (ServerPID, the embedded server) and the
// machine's.
type CostWatch struct {
	pids      []uint32
	serverPID int
	// noBackends is why the backends' CPU cannot be read ("": it can).
	noBackends string
	start, end costSnap
	at         [2]time.Time
	ok         [2]bool
	// follow is the connection the autovacuum workers are followed on
	// (nil: they are not); vacuum what they spent on each table.
	follow   *pgx.Conn
	follower *vacuumFollower
	vacuum   VacuumCPU
}

type costSnap struct {
	backends, client sched
	// tree is the server's process tree (none without its postmaster).
	tree         treeSnap
	machineSteal float64 // the CPU seconds the hypervisor gave other guests (steal)
	machineErr   error
	// others is the CPU ticks of every process of the machine that is not
	// the run's (neither keybench nor the server's tree) nor the kernel's
	// own threads, by PID.
	others    map[int]uint64
	othersErr error
}

// WatchCost watches the backends pids (none: noBackends says why) and the
// server's process tree: serverPID's (the embedded server), else, when
// the backends are processes of this machine, their postmaster's.
func WatchCost(pids []uint32, serverPID int, noBackends string) *CostWatch {
	if serverPID == 0 && noBackends == "" && len(pids) > 0 {
		serverPID, _ = postmasterOf(pids[0])
	}
	return &CostWatch{pids: pids, serverPID: serverPID, noBackends: noBackends}
}

// Start snapshots the round's start (the warm-up's: the figures are per
// transaction over every transaction the round ran).
func (w *CostWatch) Start() {
	w.start, w.ok[0], w.at[0] = w.snap(), true, time.Now()
	if w.follow != nil && w.serverPID != 0 && w.start.tree.err == nil {
		w.follower = newVacuumFollower(w.follow, w.serverPID, w.start.tree)
		go w.follower.run()
	}
}

// End snapshots the round's end, before its clients disconnect (an exited
// backend's schedstat is gone).
func (w *CostWatch) End() {
	w.end, w.ok[1], w.at[1] = w.snap(), true, time.Now()
	if w.follower != nil {
		w.vacuum, w.follower = w.follower.end(w.end.tree), nil
	}
}

// StopFollowing stops the autovacuum follower of a round that ends
// without End (its window failed), so that its connection is free; after
// End it does nothing.
func (w *CostWatch) StopFollowing() {
	if w.follower != nil {
		w.follower.end(treeSnap{})
		w.follower = nil
	}
}

// FollowVacuum has the watch follow the server's autovacuum workers on
// conn (see vacuumFollower), which no one else uses from Start to End,
// when the server's processes are this machine's.
func (w *CostWatch) FollowVacuum(conn *pgx.Conn) { w.follow = conn }

// Local says whether the server's processes are this machine's (their
// CPU is read, and autovacuum can be followed).
func (w *CostWatch) Local() bool { return w.serverPID != 0 }

// Vacuum is what the round's autovacuum workers spent on each table
// (after End), or why they were not followed.
func (w *CostWatch) Vacuum() VacuumCPU {
	switch {
	case w.vacuum.Living != nil || w.vacuum.Err != nil:
		return w.vacuum
	case !w.Local():
		return VacuumCPU{Why: "the server's processes are not this machine's: autovacuum's CPU cannot be followed"}
	case w.follow == nil:
		return VacuumCPU{Why: "autovacuum not followed (--sampling off, or no connection for it)"}
	}
	return VacuumCPU{Why: "the round's CPU was not watched"}
}

func (w *CostWatch) snap() costSnap {
	var s costSnap
	if w.noBackends == "" {
		for _, pid := range w.pids {
			b, err := readSchedstat(fmt.Sprintf("/proc/%d/schedstat", pid))
			if err != nil {
				w.noBackends = fmt.Sprintf("backend %d's schedstat: %v", pid, err)
				break
			}
			s.backends = s.backends.plus(b)
		}
	}
	if c, err := selfSched(); err == nil {
		s.client = c
	}
	s.machineSteal, s.machineErr = machineSteal()
	s.others, s.othersErr = othersCPU(w.serverPID, w.pids)
	if w.serverPID != 0 {
		clients := map[int]bool{}
		for _, p := range w.pids {
			clients[int(p)] = true
		}
		s.tree = serverTree(w.serverPID, clients)
	}
	return s
}

// serverCPU is every server process's time on a CPU over the round, in
// ms per transaction, in all and by kind of process; unavailable where the
// server's processes are not this machine's.
func (w *CostWatch) serverCPU(txns int64) (all results.M[float64], kinds results.M[map[string]float64]) {
	why := ""
	switch {
	case w.serverPID == 0:
		why = "the server's processes are not this machine's (a remote server): their CPU cannot be read"
	case w.start.tree.err != nil || w.end.tree.err != nil:
		why = "the server's processes: " + firstErr(w.start.tree.err, w.end.tree.err).Error()
	}
	if why != "" {
		return results.Unavailable[float64](why), results.Unavailable[map[string]float64](why)
	}
	out, total := map[string]float64{}, 0.0
	for k, ns := range byKind(w.start.tree, w.end.tree) {
		out[k] = float64(ns) / 1e6 / float64(txns)
		if k != KindSessions {
			total += out[k]
		}
	}
	return results.Of(total), results.Of(out)
}

// othersCPU is the CPU ticks of each process that is not the run's: not
// keybench, not the server's process tree (the embedded server's, or the
// backends pids of a local --dsn server), not a kernel thread.
func othersCPU(serverPID int, backends []uint32) (map[int]uint64, error) {
	stats, err := processStats()
	if err != nil {
		return nil, err
	}
	ours := map[int]bool{os.Getpid(): true}
	for _, b := range backends {
		ours[int(b)] = true
	}
	// a process is the run's when it or an ancestor is the server or keybench
	var isOurs func(pid, depth int) bool
	isOurs = func(pid, depth int) bool {
		if ours[pid] || pid == serverPID && serverPID != 0 {
			return true
		}
		st, ok := stats[pid]
		if !ok || depth > 64 || st.PPID <= 1 {
			return false
		}
		return isOurs(st.PPID, depth+1)
	}
	out := map[int]uint64{}
	for pid, st := range stats {
		if pid == 2 || st.PPID == 2 || isOurs(pid, 0) { // kthreadd and its kernel threads
			continue
		}
		out[pid] = uint64(st.UTime + st.STime)
	}
	return out, nil
}

// machineSteal is the CPU seconds a hypervisor took from the machine's
// cores for its other guests since boot (/proc/stat's steal).
func machineSteal() (float64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, err
	}
	st, err := fs.Stat()
	if err != nil {
		return 0, err
	}
	return st.CPUTotal.Steal, nil
}

// CostOfRound is the round's cost per transaction: the CPU the watch saw
// over txns transactions (warm-up and window), the IO time, WAL and blocks
// the round's metrics counted over the same transactions, and the share of
// the machine's CPU that other processes took meanwhile.
func CostOfRound(w *CostWatch, txns int64, m *results.Metrics) *results.RoundCost {
	c := &results.RoundCost{Txns: txns}
	perTxn := func(v float64) results.M[float64] { return results.Of(v / float64(txns)) }
	un := func(reason string) results.M[float64] { return results.Unavailable[float64](reason) }
	if txns <= 0 {
		const none = "no transaction completed in the round"
		c.ServerCPUMS, c.ServerRunQueueMS, c.ClientCPUMS, c.IOMS, c.ServerMS = un(none), un(none), un(none), un(none), un(none)
		c.WALBytes, c.WALFPI, c.BlocksRead, c.OthersCPUShare, c.StealShare = un(none), un(none), un(none), un(none), un(none)
		c.ServerAllCPUMS, c.ServerReads, c.ServerWrites, c.WALFlushes = un(none), un(none), un(none), un(none)
		c.CPUByProcess = results.Unavailable[map[string]float64](none)
		return c
	}
	if w == nil || !w.ok[0] || !w.ok[1] {
		c.ServerCPUMS, c.ServerRunQueueMS, c.ClientCPUMS = un("the round's CPU was not watched"), un("the round's CPU was not watched"), un("the round's CPU was not watched")
	} else {
		if w.noBackends != "" {
			c.ServerCPUMS, c.ServerRunQueueMS = un(w.noBackends), un(w.noBackends)
		} else {
			d := w.end.backends.minus(w.start.backends)
			c.ServerCPUMS, c.ServerRunQueueMS = perTxn(float64(d.run)/1e6), perTxn(float64(d.wait)/1e6)
		}
		d := w.end.client.minus(w.start.client)
		c.ClientCPUMS, c.ClientRunQueueMS = perTxn(float64(d.run)/1e6), perTxn(float64(d.wait)/1e6)
		c.OthersCPUShare, c.StealShare = w.othersShare()
	}
	if io := ioMS(m); io.Reason() != "" {
		c.IOMS = io
	} else {
		c.IOMS = perTxn(io.Value())
	}
	switch cpu, io := c.ServerCPUMS, c.IOMS; {
	case cpu.Reason() != "":
		c.ServerMS = un(cpu.Reason())
	case io.Reason() != "":
		c.ServerMS = un(io.Reason())
	default:
		c.ServerMS = results.Of(cpu.Value() + io.Value())
	}
	if b, ok := m.WALBytes.Get(); ok {
		c.WALBytes = perTxn(float64(b))
	} else {
		c.WALBytes = un(m.WALBytes.Reason())
	}
	if f, ok := m.WALFPI.Get(); ok {
		c.WALFPI = perTxn(float64(f))
	} else {
		c.WALFPI = un(m.WALFPI.Reason())
	}
	if b, ok := m.Blocks.Get(); ok {
		c.BlocksRead = perTxn(float64(b.Reads()))
	} else {
		c.BlocksRead = un(m.Blocks.Reason())
	}
	if io, ok := m.ServerIO.Get(); ok {
		c.ServerReads, c.ServerWrites, c.WALFlushes = perTxn(float64(io.Reads)), perTxn(float64(io.Writes+io.Extends)), perTxn(float64(io.WALFlushes))
	} else {
		c.ServerReads, c.ServerWrites, c.WALFlushes = un(m.ServerIO.Reason()), un(m.ServerIO.Reason()), un(m.ServerIO.Reason())
	}
	if w == nil || !w.ok[0] || !w.ok[1] {
		c.ServerAllCPUMS = un("the round's CPU was not watched")
		c.CPUByProcess = results.Unavailable[map[string]float64]("the round's CPU was not watched")
	} else {
		c.ServerAllCPUMS, c.CPUByProcess = w.serverCPU(txns)
	}
	return c
}

// ioMS is the round's IO time in milliseconds: the client backends'
// relation IO and the WAL's writes and flushes.
func ioMS(m *results.Metrics) results.M[float64] {
	io, ok := m.IO.Get()
	if !ok {
		if db, ok := m.DatabaseIOMS.Get(); ok { // before 16: the database's, from pg_stat_database
			return results.Of(db)
		}
		if why := m.DatabaseIOMS.Reason(); why != "" && !m.DatabaseIOMS.IsZero() {
			return results.Unavailable[float64]("pg_stat_io: " + m.IO.Reason() + "; pg_stat_database: " + why)
		}
		return results.Unavailable[float64]("pg_stat_io: " + m.IO.Reason())
	}
	rel, okRel := io.ClientsIOMS.Get()
	wal, okWAL := io.WALIOMS.Get()
	switch {
	case !okRel:
		return results.Unavailable[float64](io.ClientsIOMS.Reason())
	case !okWAL:
		return results.Unavailable[float64](io.WALIOMS.Reason())
	}
	return results.Of(rel + wal)
}

// othersShare is the share of the machine's CPU (all its cores over the
// round) that processes not the run's took (those alive at the round's
// end: a lower bound), and the share the hypervisor gave its other guests.
func (w *CostWatch) othersShare() (others, steal results.M[float64]) {
	elapsed := w.at[1].Sub(w.at[0]).Seconds() * float64(runtime.NumCPU())
	if elapsed <= 0 {
		why := results.Unavailable[float64]("the round took no time")
		return why, why
	}
	if err := firstErr(w.start.machineErr, w.end.machineErr); err != nil {
		steal = results.Unavailable[float64]("/proc/stat: " + err.Error())
	} else {
		steal = results.Of(min(1, max(0, (w.end.machineSteal-w.start.machineSteal)/elapsed)))
	}
	if err := firstErr(w.start.othersErr, w.end.othersErr); err != nil {
		return results.Unavailable[float64]("/proc: " + err.Error()), steal
	}
	if w.noBackends != "" {
		// The server's processes are not told apart from the others: the
		// others' share would be the server under test's own.
		return results.Unavailable[float64]("the server's processes are not seen (" + w.noBackends + "): the other processes' share would hold the server's own"), steal
	}
	var ticks uint64
	for pid, end := range w.end.others {
		if start, ok := w.start.others[pid]; ok && start <= end {
			ticks += end - start
		} else if !ok {
			ticks += end // started during the round
		}
	}
	const hz = 100.0 // USER_HZ
	return results.Of(min(1, float64(ticks)/hz/elapsed)), steal
}

// AddWorkers adds to a round's cost what the workers of a distributed
// engine spent on it, where the rows are: each worker's server CPU (its
// processes, when they run on this machine), its block IO time and its
// WAL, per transaction (ws: each worker's figures over the round, named
// by nodes). A worker whose CPU, IO time or WAL cannot be read leaves that
// part unavailable with its reason, and the server time with it: the
// coordinator's alone would leave out the part of the cost a key changes.
func AddWorkers(c *results.RoundCost, ws []results.Metrics, nodes []string) {
	if c.Txns <= 0 || len(ws) == 0 {
		return
	}
	per := float64(c.Txns)
	var cpuMS, ioTotal, wal, fpi float64
	var noCPU, noIO, noWAL string
	for i := range ws {
		m := &ws[i]
		cpu, ok := m.CPU.Get()
		s, sok := cpu.ServerS.Get()
		switch {
		case !ok:
			noCPU = "worker " + nodes[i] + "'s CPU: " + m.CPU.Reason()
		case !sok:
			noCPU = "worker " + nodes[i] + "'s CPU: " + cpu.ServerS.Reason()
		default:
			cpuMS += s * 1000
		}
		if io := ioMS(m); io.Reason() != "" {
			noIO = "worker " + nodes[i] + "'s IO time: " + io.Reason()
		} else {
			ioTotal += io.Value()
		}
		b, bok := m.WALBytes.Get()
		f, fok := m.WALFPI.Get()
		if !bok || !fok {
			noWAL = "worker " + nodes[i] + "'s WAL: " + m.WALBytes.Reason() + m.WALFPI.Reason()
		}
		wal, fpi = wal+float64(b), fpi+float64(f)
	}
	add := func(into *results.M[float64], v float64, why string) {
		if why != "" {
			*into = results.Unavailable[float64](why)
		} else if x, ok := into.Get(); ok {
			*into = results.Of(x + v/per)
		}
	}
	add(&c.ServerCPUMS, cpuMS, noCPU)
	add(&c.IOMS, ioTotal, noIO)
	add(&c.ServerMS, cpuMS+ioTotal, firstOf(noCPU, noIO))
	add(&c.WALBytes, wal, noWAL)
	add(&c.WALFPI, fpi, noWAL)
}

// firstOf is the first non-empty string ("" when none is).
func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
