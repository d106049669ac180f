package metrics

// The CPU of every process of the server over a round, by kind: the
// client backends, the checkpointer, the background writer, the WAL
// writer, autovacuum, PostgreSQL 18's IO workers, and what processes that
// exited during the round spent (read from the postmaster's reaped
// children's time). Living processes are read from /proc/PID/schedstat
// (nanoseconds, their time on a CPU, not their wait for one); the exited
// ones from /proc/PID/stat's cutime and cstime (clock ticks).

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/prometheus/procfs"
)

// Kinds of server process, as their titles name them.
const (
	KindBackend    = "client backends"
	KindCheckpoint = "checkpointer"
	KindBGWriter   = "background writer"
	KindWALWriter  = "WAL writer"
	KindAutovacuum = "autovacuum"
	KindIOWorker   = "IO workers"
	KindPostmaster = "postmaster"
	// KindSessions are the server's other sessions: keybench's own
	// (its samplers, its admin connection) and anyone else's. Their CPU
	// is recorded, not charged to the key's work.
	KindSessions    = "other sessions (not charged)"
	KindExited      = "exited during the round"
	KindOtherServer = "other server processes"
)

// processKind is the kind of a server process from its title
// ("postgres: checkpointer", "postgres: USER DB 127.0.0.1(5432) idle").
func processKind(title string) string {
	t := strings.TrimPrefix(title, "postgres: ")
	switch {
	case strings.HasPrefix(t, "checkpointer"):
		return KindCheckpoint
	case strings.HasPrefix(t, "background writer"):
		return KindBGWriter
	case strings.HasPrefix(t, "walwriter"):
		return KindWALWriter
	case strings.HasPrefix(t, "autovacuum"):
		return KindAutovacuum
	case strings.HasPrefix(t, "io worker"):
		return KindIOWorker
	case strings.HasPrefix(t, "logical replication"), strings.HasPrefix(t, "walsender"), strings.HasPrefix(t, "startup"),
		strings.HasPrefix(t, "archiver"), strings.HasPrefix(t, "stats collector"), strings.HasPrefix(t, "walsummarizer"),
		strings.HasPrefix(t, "parallel worker"), strings.HasPrefix(t, "Citus"), title == "" || !strings.HasPrefix(title, "postgres"):
		return KindOtherServer
	}
	return KindBackend
}

// treeSnap is the server's process tree at one moment: each living
// descendant's time on a CPU (ns) and kind, the postmaster's own, and the
// time of its reaped children (ns, from clock ticks).
type treeSnap struct {
	run    map[int]int64
	kind   map[int]string
	master int64
	reaped int64
	err    error
}

// serverTree reads the process tree under the postmaster pid; clients
// are the round's client backends (other backends are other sessions).
func serverTree(pid int, clients map[int]bool) treeSnap {
	s := treeSnap{run: map[int]int64{}, kind: map[int]string{}}
	stats, err := processStats()
	if err != nil {
		s.err = err
		return s
	}
	root, ok := stats[pid]
	if !ok {
		s.err = fmt.Errorf("server process %d not found", pid)
		return s
	}
	const tick = int64(1e7) // USER_HZ = 100: a tick is 10 ms
	s.reaped = int64(root.CUTime+root.CSTime) * tick
	if m, err := readSchedstat(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
		s.master = m.run
	}
	children := map[int][]int{}
	for _, st := range stats {
		children[st.PPID] = append(children[st.PPID], st.PID)
	}
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			if sc, err := readSchedstat(fmt.Sprintf("/proc/%d/schedstat", c)); err == nil { // one may end between the reads
				s.run[c], s.kind[c] = sc.run, processKind(title(c))
				if s.kind[c] == KindBackend && !clients[c] {
					s.kind[c] = KindSessions
				}
			}
			walk(c)
		}
	}
	walk(pid)
	return s
}

// title is a process's title (its cmdline, NULs as spaces).
func title(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	return string(bytes.TrimRight(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), " "))
}

// byKind is the CPU (ns) the tree spent between two snapshots, by kind:
// a process living at both, its difference; one born since, its whole
// time; those that exited, the reaped time the postmaster gained less
// what they had spent at the first snapshot.
func byKind(a, b treeSnap) map[string]int64 {
	out := map[string]int64{KindPostmaster: b.master - a.master}
	var gone int64
	same := func(pid int) bool { _, ok := a.run[pid]; return ok && a.kind[pid] == b.kind[pid] }
	for pid, start := range a.run {
		if end, ok := b.run[pid]; ok && same(pid) {
			out[a.kind[pid]] += max(0, end-start)
		} else {
			gone += start // exited (or its PID taken by another process since)
		}
	}
	for pid, end := range b.run {
		if !same(pid) {
			out[b.kind[pid]] += end
		}
	}
	out[KindExited] = max(0, b.reaped-a.reaped-gone)
	for k, v := range out {
		if v == 0 {
			delete(out, k)
		}
	}
	return out
}

// postmasterOf is the parent of a local backend: the server's postmaster.
func postmasterOf(backend uint32) (int, bool) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, false
	}
	p, err := fs.Proc(int(backend))
	if err != nil {
		return 0, false
	}
	st, err := p.Stat()
	if err != nil || st.PPID <= 1 {
		return 0, false
	}
	return st.PPID, true
}
