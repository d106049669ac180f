package metrics

import (
	"context"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// tupleCounter: pg_stat_user_tables' row counts for the cell's tables.
type tupleCounter struct{}

// tupleSnap is each leaf table's row counts, by name.
type tupleSnap map[string][]int64

func (tupleCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	return readByRelation(ctx, env, 4, `SELECT relname, coalesce(n_tup_ins,0)::bigint, coalesce(n_tup_upd,0)::bigint,
		coalesce(n_tup_hot_upd,0)::bigint, coalesce(n_tup_del,0)::bigint
		FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = ANY($2)`, func(m map[string][]int64) snapshot { return tupleSnap(m) })
}

func (tupleCounter) figures() []declared {
	return []declared{summed(func(m *results.Metrics) *results.M[results.Tuples] { return &m.Tuples }, onCoordinator, func(a, b results.Tuples) results.Tuples {
		return results.Tuples{Inserted: a.Inserted + b.Inserted, Updated: a.Updated + b.Updated, HOTUpdated: a.HOTUpdated + b.HOTUpdated, Deleted: a.Deleted + b.Deleted}
	})}
}

func (tupleCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	d := deltaByRelation(b.(tupleSnap), a.(tupleSnap), 4)
	into.Tuples = results.Of(results.Tuples{Inserted: d[0], Updated: d[1], HOTUpdated: d[2], Deleted: d[3]})
}

func (tupleCounter) unavailable(reason string, into *results.Metrics) {
	into.Tuples = results.Unavailable[results.Tuples](reason)
}
