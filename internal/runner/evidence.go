package runner

// The evidence of a cell, read from the server when its rounds are over:
// sizes, the key index's density and bloat, the cache it ran with, the
// rows the server holds and the rows its counters saw written, checked
// against what the clients said; and the figures derived from them.

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

// growthPerRow is an index's growth from before to after over rows inserted rows.
func growthPerRow(before, after results.M[int64], rows int64) results.M[float64] {
	b, ok := before.Get()
	if !ok {
		return results.Unavailable[float64]("the key index's size before the window: " + before.Reason())
	}
	a, ok := after.Get()
	if !ok {
		return results.Unavailable[float64]("the key index's size after the window: " + after.Reason())
	}
	return results.PerRow(float64(a-b), rows)
}

// meanRatio is the key index's mean size over the cell (halfway between
// its size when the window began and at its end) over the cache: what the
// cell's inserts met on average. A table that starts empty ends with the
// index its window wrote, and its rate was measured with less.
func meanRatio(before, after results.M[int64], cache results.M[int64]) results.M[float64] {
	c, ok := cache.Get()
	if !ok {
		return results.Unavailable[float64]("the cache: " + cache.Reason())
	}
	a, ok := after.Get()
	if !ok {
		return results.Unavailable[float64]("the key index's size: " + after.Reason())
	}
	if b, ok := before.Get(); ok {
		a = (a + b) / 2
	}
	return results.Of(float64(a) / float64(c))
}

// evidence ends a cell: sizes, the key index's density and bloat, and the
// rows the server holds and saw written checked against the outcome's.
func (r *run) evidence(ctx context.Context, conn *pgx.Conn, t *workload.Table, o *workload.Outcome, c *results.Cell) error {
	step := r.ui.Step("  " + c.Key + ": collecting evidence (sizes, REINDEX, pgstatindex, the rows)")
	defer step.Done()
	// Every collector needs the table: one probe fails the cell at once,
	// with the reason, when another session holds it locked, instead of
	// each collector waiting out its own lock timeout.
	if err := probeLock(ctx, conn, t.Qualified()); err != nil {
		return err
	}
	metrics.Sizes(ctx, conn, t.Qualified(), &c.Metrics)
	metrics.Index(ctx, conn, r.ext, t.Qualified(), workload.KeyIndexNames(t), t.Key.Index != keys.IndexHash && t.Key.Index != keys.IndexBrin, &c.Metrics)
	metrics.Cache(r.cache, r.cacheWhy, &c.Metrics) // the rounds' cache, not the evidence server's
	metrics.KeyBytes(ctx, conn, t.Qualified(), t.KeyColumn(), &c.Metrics)
	metrics.Partitions(ctx, conn, workload.PartitionNames(t), workload.KeyIndexNames(t), &c.Metrics)
	var server int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+t.Qualified()).Scan(&server); err != nil {
		return explainLockTimeout(err, "counting the rows the server holds")
	}
	c.RowCheck = &results.RowCheck{Expected: o.Expected, Server: server, OK: o.Expected == server}
	if !c.RowCheck.OK {
		c.Status = results.StatusInvalid
		c.Error = fmt.Sprintf("the server holds %d rows, keybench wrote %d", server, o.Expected)
		return nil
	}
	// What the server's counters saw the cell's sessions write (every
	// table of the cell, warm-ups included) against what the clients said.
	if seen, ok := c.Metrics.Tuples.Get(); ok {
		said := results.Tuples{Inserted: o.Work.Inserted, Updated: o.Work.Updated, Deleted: o.Work.Deleted}
		w := &results.WrittenCheck{Clients: said, Server: seen, ReadByClients: o.Work.Read,
			OK: said.Inserted == seen.Inserted && said.Updated == seen.Updated && said.Deleted == seen.Deleted}
		w.Server.HOTUpdated = 0 // the clients cannot tell; its share is in metrics.tuples
		c.RowCheck.Written = w
		if !w.OK {
			c.Status = results.StatusInvalid
			c.Error = fmt.Sprintf("the server counted %d rows inserted, %d updated and %d deleted; the clients said %d, %d and %d",
				seen.Inserted, seen.Updated, seen.Deleted, said.Inserted, said.Updated, said.Deleted)
		}
	}
	return nil
}

// probeLock takes and releases the lock the collectors need on table.
func probeLock(ctx context.Context, conn *pgx.Conn, table string) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS SHARE MODE"); err != nil {
			return explainLockTimeout(err, "collecting the evidence of "+table)
		}
		return nil
	})
}
