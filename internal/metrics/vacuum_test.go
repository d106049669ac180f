package metrics

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server/servertest"
)

// TestVacuumBooks: each stretch of a worker's CPU goes to the table it
// was on at the stretch's start; a worker first seen gets its CPU since
// the round began; a living worker's last stretch goes to its last table.
func TestVacuumBooks(t *testing.T) {
	f := newVacuumFollower(nil, 0, treeSnap{run: map[int]int64{7: 1_000}}) // worker 7 lived before the round
	f.seen(7, 1_500, 10)                                                   // 500 ns on 10 since the round began
	f.seen(7, 2_500, 11)                                                   // 1000 on 10 (where it was), now on 11
	f.seen(8, 300, 0)                                                      // born, between tables: nothing yet
	f.seen(8, 700, 0)
	f.seen(8, 900, 12) // its 900 ns so far go to 12, the first table it is seen on
	f.seen(8, 1_900, 12)
	f.seen(9, 400, 20) // worker 9 exits after this sample: what follows is not seen
	close(f.done)      // no sampling goroutine in this test
	tree := treeSnap{run: map[int]int64{7: 3_000, 8: 2_000}, kind: map[int]string{7: KindAutovacuum, 8: KindAutovacuum}}
	v := f.end(tree)
	want := VacuumCPU{Living: map[uint32]int64{10: 1_500, 11: 500, 12: 2_000}, Exited: map[uint32]int64{20: 400}}
	for rel, ns := range want.Living {
		if v.Living[rel] != ns {
			t.Errorf("living workers on %d: %d ns, want %d (all %v)", rel, v.Living[rel], ns, v.Living)
		}
	}
	if len(v.Exited) != 1 || v.Exited[20] != 400 {
		t.Errorf("exited workers: %v, want %v", v.Exited, want.Exited)
	}
}

// TestMoveVacuum: the CPU on other keys' tables leaves the round's work
// (at most what its kind counted), is recorded apart, and what others'
// rounds spent on this key's tables is charged to it.
func TestMoveVacuum(t *testing.T) {
	c := &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(1.0),
		CPUByProcess: results.Of(map[string]float64{KindBackend: 0.8, KindAutovacuum: 0.05, KindExited: 0.15})}
	// 0.03 ms a transaction of a living worker's, 0.2 of the exited (more
	// than the 0.15 the clock ticks counted), 0.1 carried in.
	l, e := MoveVacuum(c, 30e6, 200e6, 100e6)
	if l != 30e6 || e != 150e6 {
		t.Fatalf("moved %d and %d ns, want 30e6 and 150e6", l, e)
	}
	all := c.ServerAllCPUMS.Value()
	kinds := c.CPUByProcess.Value()
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(all, 1.0-0.03-0.15+0.1) {
		t.Errorf("all CPU %.4f ms a transaction, want %.4f", all, 1.0-0.03-0.15+0.1)
	}
	if !near(kinds[KindVacuumElsewhere], 0.18) || !near(kinds[KindVacuumCarried], 0.1) || !near(kinds[KindAutovacuum], 0.02) {
		t.Errorf("by kind %v", kinds)
	}
	if _, ok := kinds[KindExited]; ok {
		t.Errorf("the exited kind, all moved, still %v", kinds[KindExited])
	}
	var charged float64
	for k, v := range kinds {
		if k != KindVacuumElsewhere && k != KindSessions {
			charged += v
		}
	}
	if !near(charged, all) {
		t.Errorf("the charged kinds add up to %.4f, the work's CPU is %.4f", charged, all)
	}
	un := &results.RoundCost{Txns: 10, ServerAllCPUMS: results.Unavailable[float64]("remote"), CPUByProcess: results.Unavailable[map[string]float64]("remote")}
	if l, e := MoveVacuum(un, 5, 5, 5); l != 0 || e != 0 || un.ServerAllCPUMS.Reason() != "remote" {
		t.Errorf("a cost without CPU moved %d, %d: %+v", l, e, un)
	}
}

// TestFollowsAutovacuum watches a real autovacuum: a table of dead rows,
// vacuumed by the server's own worker while a round's watch follows it,
// has the worker's CPU charged to its OID, and a table beside it with
// autovacuum off none.
func TestFollowsAutovacuum(t *testing.T) {
	ctx := context.Background()
	c := servertest.Connect(t)
	exec := func(sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("DROP TABLE IF EXISTS vac_dead, vac_quiet")
	exec("VACUUM (ANALYZE, SKIP_LOCKED)") // the other tests' tables: nothing left for a worker but vac_dead
	// vac_dead's vacuum (a million dead rows, an index) lasts several of
	// the follower's samples: a worker's CPU after its last sample before
	// it exits is not placed, so a vacuum shorter than a sample may not be.
	exec("CREATE TABLE vac_dead (i int, v text) WITH (autovacuum_enabled = off)")
	exec("CREATE INDEX ON vac_dead (v)")
	exec("CREATE TABLE vac_quiet (i int, v text) WITH (autovacuum_enabled = off)")
	exec("INSERT INTO vac_dead SELECT i, md5(i::text) FROM generate_series(1, 1000000) i")
	exec("INSERT INTO vac_quiet SELECT i, md5(i::text) FROM generate_series(1, 1000) i")
	exec("DELETE FROM vac_dead")
	exec("DELETE FROM vac_quiet")
	exec("ALTER SYSTEM SET autovacuum_naptime = 1")
	exec("SELECT pg_reload_conf()")
	defer func() { exec("ALTER SYSTEM RESET autovacuum_naptime"); exec("SELECT pg_reload_conf()") }()
	var dead, quiet uint32
	if err := c.QueryRow(ctx, "SELECT 'vac_dead'::regclass::oid, 'vac_quiet'::regclass::oid").Scan(&dead, &quiet); err != nil {
		t.Fatal(err)
	}
	w := WatchCost(nil, servertest.Server.PID(), "no client backends in this test")
	w.FollowVacuum(servertest.Connect(t))
	w.Start()
	exec("ALTER TABLE vac_dead SET (autovacuum_enabled = on, autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0)")
	var vacuumed int64
	for range 600 { // until the worker has vacuumed it, at most a minute
		if err := c.QueryRow(ctx, "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = $1", dead).Scan(&vacuumed); err != nil {
			t.Fatal(err)
		}
		if vacuumed > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.End()
	if vacuumed == 0 {
		t.Fatal("no autovacuum of vac_dead within a minute")
	}
	v := w.Vacuum()
	if v.Err != nil {
		t.Fatal(v.Err)
	}
	if v.Living[dead]+v.Exited[dead] <= 0 {
		t.Errorf("the worker's CPU on vac_dead: none charged (living %v, exited %v)", v.Living, v.Exited)
	}
	if v.Living[quiet]+v.Exited[quiet] != 0 {
		t.Errorf("vac_quiet, never vacuumed, charged %d ns", v.Living[quiet]+v.Exited[quiet])
	}
}

// TestStopFollowingFreesTheConnection: a round whose window fails ends
// without End; its follower stops all the same, and the connection it was
// lent serves the next round's (two followers on one connection would
// find it busy).
func TestStopFollowingFreesTheConnection(t *testing.T) {
	ctx := context.Background()
	conn := servertest.Connect(t)
	w := WatchCost(nil, servertest.Server.PID(), "no client backends in this test")
	w.FollowVacuum(conn)
	w.Start()
	time.Sleep(3 * VacuumEvery) // a few samples
	w.StopFollowing()
	w.StopFollowing() // twice: nothing more to stop
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the lent connection after StopFollowing: %v", err)
	}
	next := WatchCost(nil, servertest.Server.PID(), "no client backends in this test")
	next.FollowVacuum(conn)
	next.Start()
	next.End()
	if v := next.Vacuum(); v.Err != nil || v.Living == nil {
		t.Errorf("the next round's follower on the same connection: %+v", v)
	}
}
