package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
)

// Finish reads each shard's rows and key index (the evidence, after the
// rounds) and merges each worker's rounds into its figures: per row over
// the rows its shards took, per transaction over the cell's txns (every
// transaction of the cell, each a worker's share when it touches one).
func (w *Watch) Finish(ctx context.Context, txns int64) {
	w.out.Rounds = w.rounds
	w.out.Workers = make([]results.Worker, len(w.workers))
	w.out.Shards = make([]results.Shard, len(w.shards))
	shards := map[shardAt]*results.Shard{}
	for i, s := range w.shards {
		wk := w.workers[s.worker]
		sh := &w.out.Shards[i]
		sh.ID, sh.Node = s.id, wk.node.String()
		for _, ins := range w.perShard {
			if n, ok := ins[s]; ok {
				sh.Inserted = append(sh.Inserted, n)
			}
		}
		shards[s] = sh
	}
	for i, wk := range w.workers {
		w.out.Workers[i] = wk.finish(ctx, w.schema, w.keyed, func(id int64) *results.Shard { return shards[shardAt{id: id, worker: i}] }, w.inserted(i), txns)
	}
	w.out.Written = w.written()
	rows := make([]int64, 0, len(w.out.Shards))
	for _, sh := range w.out.Shards {
		n, ok := sh.Rows.Get()
		if !ok {
			w.out.Skew = results.Unavailable[results.Skew]("shard " + strconv.FormatInt(sh.ID, 10) + "'s rows: " + sh.Rows.Reason())
			return
		}
		rows = append(rows, n)
	}
	w.out.Skew = SkewOf(rows)
}

// finish is one worker's evidence and merged figures.
// inserted is the rows worker i's shards took over the rounds
// (unavailable when a round's could not be read).
func (w *Watch) inserted(i int) results.M[int64] {
	var n int64
	for _, r := range w.rounds {
		v, ok := r.PerWorker[i].Inserted.Get()
		if !ok {
			return r.PerWorker[i].Inserted
		}
		n += v
	}
	if len(w.rounds) == 0 {
		return results.Unavailable[int64]("no round was read")
	}
	return results.Of(n)
}

func (wk *worker) finish(ctx context.Context, schema string, keyed Table, shard func(int64) *results.Shard, ins results.M[int64], txns int64) results.Worker {
	out := results.Worker{Node: wk.node.String(), Shards: len(wk.keyed), Unreachable: wk.unreachable}
	if wk.conn == nil {
		why := wk.unreachable
		out.Rows, out.Inserted, out.Splits = results.Unavailable[int64](why), results.Unavailable[int64](why), results.Unavailable[int64](why)
		out.SplitsPerRow = results.Unavailable[float64](why)
		for _, id := range wk.keyed {
			sh := shard(id)
			sh.Rows, sh.KeyIndexBytes, sh.LeafDensity = results.Unavailable[int64](why), results.Unavailable[int64](why), results.Unavailable[float64](why)
		}
		return out
	}
	out.Inserted = ins
	inserted, _ := ins.Get()
	out.Metrics = metrics.MergeRounds(wk.rounds, inserted, txns)
	var total int64
	rowsOK := true
	for _, id := range wk.keyed {
		sh := shard(id)
		var n int64
		if err := wk.conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM %s.%s", schema, ShardName(keyed.Name, id))).Scan(&n); err != nil {
			sh.Rows, rowsOK = results.Unavailable[int64](err.Error()), false
		} else {
			sh.Rows, total = results.Of(n), total+n
		}
		var m results.Metrics
		var ix []string
		if keyed.KeyIndex != "" {
			ix = []string{schema + "." + ShardName(keyed.KeyIndex, id)}
		}
		metrics.KeyIndex(ctx, wk.conn, wk.env.Ext, ix, wk.btree, &m)
		sh.KeyIndexBytes, sh.LeafDensity = m.KeyIndexBytes, m.LeafDensity
	}
	if rowsOK {
		out.Rows = results.Of(total)
	} else {
		out.Rows = results.Unavailable[int64]("a shard's rows could not be counted")
	}
	// The key index over all its shards on the worker: sizes summed,
	// densities weighted by leaf pages (as over a table's partitions).
	metrics.KeyIndex(ctx, wk.conn, wk.env.Ext, wk.keyIndexes, wk.btree, &out.Metrics)
	wk.splits(&out, inserted)
	return out
}

// splits counts the key index's page splits on the worker: pg_walinspect's
// split records where the session read them (16+), else the pages the key
// indexes grew by, which for a btree that nothing was deleted from is one
// per split (a split takes one new page; a page is reused only after
// VACUUM has deleted one).
func (wk *worker) splits(out *results.Worker, inserted int64) {
	if s, ok := out.Metrics.BtreeSplits.Get(); ok {
		out.Splits, out.SplitsFrom = results.Of(s.Splits()), "pg_walinspect"
	} else {
		var pages int64
		for _, p := range wk.pages {
			if p < 0 {
				why := "the key index's pages could not be read in a round (and " + out.Metrics.BtreeSplits.Reason() + ")"
				out.Splits, out.SplitsPerRow = results.Unavailable[int64](why), results.Unavailable[float64](why)
				return
			}
			pages += p
		}
		out.Splits, out.SplitsFrom = results.Of(pages), "pages added"
	}
	n, _ := out.Splits.Get()
	if inserted <= 0 {
		out.SplitsPerRow = results.Unavailable[float64]("no rows inserted on the worker")
		return
	}
	out.SplitsPerRow = results.Of(float64(n) / float64(inserted))
}

// written is the rows the cell's tables took, counted on the workers
// (their statistics, every round): each worker's summed, a reference
// table's copies once (each worker's keyed shards beyond the first copy's
// taken away), for the check against what the clients said.
func (w *Watch) written() results.M[results.Tuples] {
	var sum results.Tuples
	copies := 0
	for i, wk := range w.workers {
		t, ok := w.out.Workers[i].Metrics.Tuples.Get()
		if !ok {
			why := w.out.Workers[i].Metrics.Tuples.Reason()
			switch {
			case why == "" && wk.unreachable != "":
				why = wk.unreachable
			case why == "":
				why = "its tables' statistics were read in no round"
			}
			return results.Unavailable[results.Tuples]("worker " + wk.node.String() + "'s rows: " + why)
		}
		sum.Inserted, sum.Updated, sum.HOTUpdated, sum.Deleted = sum.Inserted+t.Inserted, sum.Updated+t.Updated, sum.HOTUpdated+t.HOTUpdated, sum.Deleted+t.Deleted
		if !w.out.Replicated || len(wk.keyed) == 0 {
			continue
		}
		if copies++; copies == 1 {
			continue
		}
		if wk.keyedErr != nil {
			return results.Unavailable[results.Tuples]("worker " + wk.node.String() + "'s copy of the reference table: " + wk.keyedErr.Error())
		}
		sum.Inserted, sum.Updated, sum.Deleted = sum.Inserted-wk.keyedTook.Inserted, sum.Updated-wk.keyedTook.Updated, sum.Deleted-wk.keyedTook.Deleted
	}
	return results.Of(sum)
}

// keyedTuples is the rows the keyed shards took (n_tup_ins, upd, del summed);
// a previous error stands (a round's count missing spoils the cell's).
func keyedTuples(ctx context.Context, conn *pgx.Conn, schema, table string, shards []int64, prev error) (results.Tuples, error) {
	var t results.Tuples
	if prev != nil {
		return t, prev
	}
	names := make([]string, len(shards))
	for i, s := range shards {
		names[i] = ShardName(table, s)
	}
	err := conn.QueryRow(ctx, `SELECT coalesce(sum(n_tup_ins), 0)::bigint, coalesce(sum(n_tup_upd), 0)::bigint, coalesce(sum(n_tup_del), 0)::bigint
		FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = ANY($2)`, schema, names).Scan(&t.Inserted, &t.Updated, &t.Deleted)
	return t, err
}

// shardInserts is each keyed shard's n_tup_ins.
func shardInserts(ctx context.Context, conn *pgx.Conn, schema, table string, shards []int64) (map[int64]int64, error) {
	names := make([]string, len(shards))
	id := map[string]int64{}
	for i, s := range shards {
		names[i] = ShardName(table, s)
		id[names[i]] = s
	}
	rows, _ := conn.Query(ctx, "SELECT relname::text, n_tup_ins FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = ANY($2)", schema, names)
	out := map[int64]int64{}
	var name string
	var n int64
	_, err := pgx.ForEachRow(rows, []any{&name, &n}, func() error { out[id[name]] = n; return nil })
	return out, err
}

// indexPages is the pages of the key indexes (-1: unread).
func indexPages(ctx context.Context, conn *pgx.Conn, indexes []string) int64 {
	if len(indexes) == 0 {
		return -1
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT coalesce(sum(pg_relation_size(r::regclass)), 0)::bigint / current_setting('block_size')::bigint FROM unnest($1::text[]) r", indexes).Scan(&n); err != nil {
		return -1
	}
	return n
}

// citusBackends counts the worker's backends that serve a coordinator's
// sessions (Citus names them citus_internal gpid=…).
func citusBackends(ctx context.Context, conn *pgx.Conn) int64 {
	var n int64
	_ = conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'citus_internal gpid=%'").Scan(&n)
	return n
}

// waitForBackends waits (at most 5 s) until the backends that served the
// round's clients have left the worker: no more of them than before the
// round. A backend flushes its statistics as it exits.
func waitForBackends(ctx context.Context, conn *pgx.Conn, baseline int64) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if citusBackends(ctx, conn) <= baseline {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// majorOf is the major version in server_version ("15.18 (Debian …)": 15).
func majorOf(version string) int {
	v, _, _ := strings.Cut(version, ".")
	n, _ := strconv.Atoi(strings.TrimSpace(v))
	return n
}
