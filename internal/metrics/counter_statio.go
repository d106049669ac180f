package metrics

import (
	"context"
	"time"

	"github.com/keybench/keybench/internal/results"
)

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

func (statioCounter) figures() []declared {
	return []declared{
		summed(func(m *results.Metrics) *results.M[results.Blocks] { return &m.Blocks }, onCoordinator, func(a, b results.Blocks) results.Blocks {
			return results.Blocks{HeapRead: a.HeapRead + b.HeapRead, HeapHit: a.HeapHit + b.HeapHit, IdxRead: a.IdxRead + b.IdxRead,
				IdxHit: a.IdxHit + b.IdxHit, ToastRead: a.ToastRead + b.ToastRead, ToastHit: a.ToastHit + b.ToastHit}
		}),
		merged(func(m *results.Metrics) *results.M[results.BlocksPerTxn] { return &m.BlocksPerTxn }, onCoordinator, blocksPerTxn).
			show("table blocks / txn (read)", results.BlocksAndReads,
				"table blocks / txn: the cell's tables' and indexes' shared blocks touched per transaction, and read from outside the cache (pg_statio, warm-up included)").
			called("table blocks / txn"),
	}
}

func (statioCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	d := deltaByRelation(b.(statioSnap), a.(statioSnap), 6)
	into.Blocks = results.Of(results.Blocks{HeapRead: d[0], HeapHit: d[1], IdxRead: d[2], IdxHit: d[3], ToastRead: d[4], ToastHit: d[5]})
}

func (statioCounter) unavailable(reason string, into *results.Metrics) {
	into.Blocks = results.Unavailable[results.Blocks](reason)
}
