package runner

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
)

// An autovacuum worker's CPU is charged to the key whose table it works
// on (metrics' vacuum follower tells which table), not to the key whose
// round it happens to run in: a key's vacuum debt, left by its rounds,
// is often paid during the next key's round.

// followConn is the connection the autovacuum workers are followed on,
// kept for the run and opened again after a restart of the server (nil
// when it cannot be: autovacuum then stays charged to the round it runs in).
func (r *run) followConn(ctx context.Context) *pgx.Conn {
	if r.follow != nil && r.follow.Ping(ctx) == nil {
		return r.follow
	}
	if r.follow != nil {
		_ = r.follow.Close(ctx)
		r.follow = nil
	}
	cc := r.conn.Copy()
	cc.RuntimeParams["application_name"] = "keybench vacuum follower"
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil
	}
	r.follow = conn
	return conn
}

// relationsQuery lists a table's relations autovacuum works on: the table,
// its partitions, and their TOAST tables.
const relationsQuery = `SELECT c.oid::int8 FROM pg_partition_tree($1::regclass) p JOIN pg_class c ON c.oid = p.relid
	UNION ALL SELECT c.reltoastrelid::int8 FROM pg_partition_tree($1::regclass) p JOIN pg_class c ON c.oid = p.relid WHERE c.reltoastrelid <> 0`

// ownRelations records the cell's tables' relations as its own (run.owners),
// read again at each round: a workload may create its tables anew.
func (cr *cellRun) ownRelations(ctx context.Context) {
	r := cr.r
	if r.owners == nil {
		r.owners = map[uint32]*cellRun{}
	}
	for _, t := range cr.tables {
		rows, err := r.admin.Query(ctx, relationsQuery, t.Qualified())
		if err != nil {
			continue // a table not there (yet): its vacuum stays where it runs
		}
		for rows.Next() {
			var oid int64
			if rows.Scan(&oid) == nil {
				r.owners[uint32(oid)] = cr
			}
		}
		rows.Close()
	}
}

// chargeVacuum moves out of the round's cost what its autovacuum workers
// spent on other keys' tables, to be charged to each of those keys at its
// next round, and charges this key what workers spent on its tables
// during other keys' rounds since its last one (cr.carried). What they
// spend on a key's tables after its last round is charged to no key
// (it stays recorded in the round it ran in, as another key's).
func (cr *cellRun) chargeVacuum(cost *results.RoundCost, v metrics.VacuumCPU) {
	if cost == nil {
		return
	}
	type owed struct{ living, exited int64 }
	to := map[*cellRun]*owed{}
	var living, exited int64
	split := func(by map[uint32]int64, exitedKind bool) {
		for rel, ns := range by {
			o := cr.r.owners[rel]
			if o == nil || o == cr {
				continue
			}
			if to[o] == nil {
				to[o] = &owed{}
			}
			if exitedKind {
				to[o].exited += ns
				exited += ns
			} else {
				to[o].living += ns
				living += ns
			}
		}
	}
	split(v.Living, false)
	split(v.Exited, true)
	cost.AutovacuumPlaced = placed(v, cost.Txns)
	movedL, movedE := metrics.MoveVacuum(cost, living, exited, cr.carried)
	cr.carried = 0
	for o, w := range to {
		o.carried += share(w.living, living, movedL) + share(w.exited, exited, movedE)
	}
}

// placed is the CPU per transaction the follower placed on any table.
func placed(v metrics.VacuumCPU, txns int64) results.M[float64] {
	switch {
	case v.Err != nil:
		return results.Unavailable[float64]("following autovacuum: " + v.Err.Error())
	case v.Living == nil:
		return results.Unavailable[float64](v.Why)
	case txns <= 0:
		return results.Unavailable[float64]("no transaction completed in the round")
	}
	var ns int64
	for _, by := range []map[uint32]int64{v.Living, v.Exited} {
		for _, n := range by {
			ns += n
		}
	}
	return results.Of(float64(ns) / 1e6 / float64(txns))
}

// share is part's share of what was moved of whole.
func share(part, whole, moved int64) int64 {
	if whole <= 0 {
		return 0
	}
	return int64(float64(moved) * float64(part) / float64(whole))
}
