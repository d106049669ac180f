package metrics

// Which table the server's autovacuum workers work on during a round, and
// their CPU there, so that a worker's CPU is charged to the key whose
// table it vacuums rather than to whichever key's round it runs in. A
// queue's keys live on autovacuum: in keybench run queue on this
// project's machine, 14% of the samples of a busy worker during a round
// were on another key's table, left by that key's earlier round.
//
// The follower looks 20 times a second at the postmaster's children
// (/proc: a worker is a child whose title says so) and, while an
// autovacuum worker lives, asks the server, on a connection it is lent
// (the runner's, kept for the run: a new backend each round would cost
// the server more than the sampling), for
// each autovacuum worker's table (the progress of VACUUM and ANALYZE,
// pg_stat_get_progress_info) and its time on a CPU (/proc/PID/schedstat:
// the server must be this machine's). A query 20 times a second whether
// or not a worker lives cost the server a third of its rate with 64
// clients on 2 cores here (bigint inserts: 12–15k tps against 17–21k
// with the follower off, its CPU a transaction 8–20% more); /proc alone
// costs it nothing. The CPU a worker spent between two
// samples goes to the table it was on at the first; a worker first seen
// gets its CPU since the round began (or since it was born) charged to
// the table it is first seen on; at the round's end, a living worker's
// CPU since its last sample goes to its last table. What a worker spent
// after its last sample before it exited is not seen: it stays in the
// round as before ("exited during the round"), as does a worker seen on
// no table (between two, or on none of keybench's).

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// VacuumEvery is how often the follower samples the autovacuum workers.
const VacuumEvery = 50 * time.Millisecond

// vacuumQuery lists the processes vacuuming or analyzing a relation, and
// the relation: the progress functions themselves, without the views'
// joins (a sample costs the server a tenth of a millisecond, not most of
// one). The autovacuum workers among them are told by their titles.
const vacuumQuery = `SELECT pid, coalesce(relid, 0)::int8 FROM pg_stat_get_progress_info('VACUUM')
	UNION ALL SELECT pid, coalesce(relid, 0)::int8 FROM pg_stat_get_progress_info('ANALYZE')`

// VacuumCPU is what a round's autovacuum workers spent on each relation
// (by OID), in nanoseconds on a CPU, apart for the workers living at the
// round's end (the kind "autovacuum") and those that exited during it
// ("exited during the round").
type VacuumCPU struct {
	Living, Exited map[uint32]int64
	// Err is what stopped the follower; Why, where it did not follow
	// (Living nil), why not.
	Err error
	Why string
}

// workerSeen is a worker's last sample: its CPU then and its relation.
type workerSeen struct {
	run int64
	rel uint32
}

// vacuumFollower samples the workers through one round.
type vacuumFollower struct {
	conn    *pgx.Conn
	started map[int]int64 // the CPU of the processes living at the round's start
	// postmaster is the server's process; kinds its children's kinds as
	// last seen (a child's title is read once).
	postmaster int
	kinds      map[int]string

	mu      sync.Mutex
	last    map[int]workerSeen
	charged map[int]map[uint32]int64 // pid → relation → ns
	err     error

	stop chan struct{}
	done chan struct{}
}

func newVacuumFollower(conn *pgx.Conn, postmaster int, start treeSnap) *vacuumFollower {
	return &vacuumFollower{conn: conn, started: start.run, postmaster: postmaster, kinds: start.kind,
		last: map[int]workerSeen{}, charged: map[int]map[uint32]int64{}, stop: make(chan struct{}), done: make(chan struct{})}
}

// workerLiving says whether an autovacuum worker is among the
// postmaster's children now, from /proc alone (true where they cannot be
// listed: the server is asked then).
func (f *vacuumFollower) workerLiving() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", f.postmaster, f.postmaster))
	if err != nil {
		return true
	}
	living, any := map[int]string{}, false
	for _, field := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			continue
		}
		kind, known := f.kinds[pid]
		if !known {
			kind = processKind(title(pid))
		}
		living[pid] = kind
		any = any || kind == KindAutovacuum
	}
	f.kinds = living
	return any
}

// run samples until stopped; a sample under way when it is stopped ends
// first (cancelling it would close the lent connection).
func (f *vacuumFollower) run() {
	defer close(f.done)
	tick := time.NewTicker(VacuumEvery)
	defer tick.Stop()
	for {
		if f.workerLiving() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := f.sample(ctx, f.conn)
			cancel()
			if err != nil {
				f.fail(err)
				return
			}
		}
		select {
		case <-f.stop:
			return
		case <-tick.C:
		}
	}
}

func (f *vacuumFollower) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// sample reads the workers and their tables once, then each one's CPU.
func (f *vacuumFollower) sample(ctx context.Context, conn *pgx.Conn) error {
	type working struct {
		pid int32
		rel int64
	}
	rows, _ := conn.Query(ctx, vacuumQuery)
	ws, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (w working, err error) { return w, row.Scan(&w.pid, &w.rel) })
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range ws {
		pid := int(w.pid)
		if _, known := f.last[pid]; !known && processKind(title(pid)) != KindAutovacuum {
			continue // a session's VACUUM: its CPU is its backend's
		}
		s, err := readSchedstat(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			continue // exited since the query
		}
		f.seen(pid, s.run, uint32(w.rel))
	}
	return nil
}

// seen records a sample of worker pid: run ns on a CPU so far, on rel.
func (f *vacuumFollower) seen(pid int, run int64, rel uint32) {
	prev, ok := f.last[pid]
	switch {
	case ok && prev.rel == 0: // it was between two tables: on to this one
		f.charge(pid, rel, run-prev.run)
	case ok:
		f.charge(pid, prev.rel, run-prev.run)
	case rel != 0:
		f.charge(pid, rel, run-f.started[pid]) // born in the round: 0 at its start
	}
	if rel == 0 && !ok {
		return // not yet on a table: its time goes to the first it is seen on
	}
	f.last[pid] = workerSeen{run: run, rel: rel}
}

func (f *vacuumFollower) charge(pid int, rel uint32, ns int64) {
	if rel == 0 || ns <= 0 {
		return
	}
	if f.charged[pid] == nil {
		f.charged[pid] = map[uint32]int64{}
	}
	f.charged[pid][rel] += ns
}

// end stops the follower and closes its books with the round's last
// snapshot: a worker living then has its CPU since its last sample
// charged to its last table; the others had exited.
func (f *vacuumFollower) end(tree treeSnap) VacuumCPU {
	close(f.stop)
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	out := VacuumCPU{Living: map[uint32]int64{}, Exited: map[uint32]int64{}, Err: f.err}
	for pid, prev := range f.last {
		if run, ok := tree.run[pid]; ok && tree.kind[pid] == KindAutovacuum {
			f.charge(pid, prev.rel, run-prev.run)
		}
	}
	for pid, rels := range f.charged {
		into := out.Exited
		if _, ok := tree.run[pid]; ok && tree.kind[pid] == KindAutovacuum {
			into = out.Living
		}
		for rel, ns := range rels {
			into[rel] += ns
		}
	}
	return out
}

// Kinds of autovacuum CPU moved between the rounds of different keys.
const (
	// KindVacuumElsewhere is what the round's autovacuum workers spent on
	// other keys' tables: recorded, charged to those keys.
	KindVacuumElsewhere = "autovacuum of other keys' tables (charged to them)"
	// KindVacuumCarried is what autovacuum workers spent on this key's
	// tables during other keys' rounds since its last round.
	KindVacuumCarried = "autovacuum of this key's tables in other rounds"
)

// MoveVacuum moves autovacuum CPU (ns) between keys in a round's cost:
// out of its work, what its workers spent on other keys' tables (living:
// counted under "autovacuum", exited: under "exited during the round",
// each at most what its kind counted: the exited are read in clock
// ticks), recorded as KindVacuumElsewhere; into it, in, what workers spent
// on this key's tables during other keys' rounds, as KindVacuumCarried.
// It returns what it moved out of each kind. A cost whose CPU was not
// read is left as it is.
func MoveVacuum(c *results.RoundCost, living, exited, in int64) (movedLiving, movedExited int64) {
	all, ok := c.ServerAllCPUMS.Get()
	kinds, kok := c.CPUByProcess.Get()
	if !ok || !kok || c.Txns <= 0 || living+exited+in == 0 {
		return 0, 0
	}
	perTxn := 1e6 * float64(c.Txns)
	out := map[string]float64{}
	for k, v := range kinds {
		out[k] = v
	}
	take := func(kind string, ns int64) int64 {
		ns = min(ns, int64(out[kind]*perTxn))
		if ns > 0 {
			out[kind] -= float64(ns) / perTxn
			out[KindVacuumElsewhere] += float64(ns) / perTxn
		}
		return max(ns, 0)
	}
	movedLiving, movedExited = take(KindAutovacuum, living), take(KindExited, exited)
	if in > 0 {
		out[KindVacuumCarried] += float64(in) / perTxn
	}
	for k, v := range out {
		if v <= 0 {
			delete(out, k)
		}
	}
	c.ServerAllCPUMS = results.Of(all + float64(in-movedLiving-movedExited)/perTxn)
	c.CPUByProcess = results.Of(out)
	return movedLiving, movedExited
}
