package metrics

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// Index records the key index's leaf density and fragmentation
// (pgstatindex, btree only), then rebuilds the table's indexes and records
// their size after REINDEX and the key index's bloat ratio, size before /
// size after, as "Кэширование значений последовательностей" measured it.
// keyIndexes are the key's indexes (one per partition of a partitioned
// table, whose figures are summed, densities weighted by leaf pages); none
// when the key has no index.
func Index(ctx context.Context, conn *pgx.Conn, ext *Extensions, table string, keyIndexes []string, btree bool, into *results.Metrics) {
	KeyIndex(ctx, conn, ext, keyIndexes, btree, into)
	if len(keyIndexes) == 0 {
		into.BloatRatio, into.KeyIndexBytesAfterReindex = results.Unavailable[float64](noKeyIndex), results.Unavailable[int64](noKeyIndex)
	}
	if _, err := conn.Exec(ctx, "REINDEX TABLE "+table); err != nil {
		reason := fmt.Sprintf("REINDEX: %v", err)
		into.IndexBytesAfterReindex, into.KeyIndexBytesAfterReindex, into.BloatRatio = results.Unavailable[int64](reason), results.Unavailable[int64](reason), results.Unavailable[float64](reason)
		return
	}
	var after int64
	if err := conn.QueryRow(ctx, "SELECT coalesce(sum(pg_indexes_size(l.oid)), 0)::bigint FROM "+leafTables+" l", table).Scan(&after); err != nil {
		into.IndexBytesAfterReindex = results.Unavailable[int64](err.Error())
	} else {
		into.IndexBytesAfterReindex = results.Of(after)
	}
	if len(keyIndexes) == 0 {
		return
	}
	keyAfter, err := relationsSize(ctx, conn, keyIndexes)
	if err != nil {
		into.KeyIndexBytesAfterReindex, into.BloatRatio = results.Unavailable[int64](err.Error()), results.Unavailable[float64](err.Error())
		return
	}
	into.KeyIndexBytesAfterReindex = results.Of(keyAfter)
	switch before, ok := into.KeyIndexBytes.Get(); {
	case !ok:
		into.BloatRatio = results.Unavailable[float64]("the key index's size before REINDEX: " + into.KeyIndexBytes.Reason())
	case keyAfter == 0:
		into.BloatRatio = results.Unavailable[float64]("the key index is empty after REINDEX")
	default:
		into.BloatRatio = results.Of(float64(before) / float64(keyAfter))
	}
}

const noKeyIndex = "the key has no index (index=none)"

// KeyIndex records the key index's size and its leaves (pgstatindex,
// btree only) as they stand, rebuilding nothing: what Index reads before
// its REINDEX, and all that is read where keybench writes nothing.
func KeyIndex(ctx context.Context, conn *pgx.Conn, ext *Extensions, keyIndexes []string, btree bool, into *results.Metrics) {
	if len(keyIndexes) == 0 {
		into.LeafDensity, into.LeafFragmentation = results.Unavailable[float64](noKeyIndex), results.Unavailable[float64](noKeyIndex)
		into.KeyIndexBytes = results.Unavailable[int64](noKeyIndex)
		return
	}
	if before, err := relationsSize(ctx, conn, keyIndexes); err != nil {
		into.KeyIndexBytes = results.Unavailable[int64](err.Error())
	} else {
		into.KeyIndexBytes = results.Of(before)
	}
	leafStats(ctx, conn, ext, keyIndexes, btree, into)
}

// KeyIndexBytes is the size of the key's indexes (none: the key has no index).
func KeyIndexBytes(ctx context.Context, conn *pgx.Conn, keyIndexes []string) results.M[int64] {
	if len(keyIndexes) == 0 {
		return results.Unavailable[int64](noKeyIndex)
	}
	n, err := relationsSize(ctx, conn, keyIndexes)
	if err != nil {
		return results.Unavailable[int64](err.Error())
	}
	return results.Of(n)
}

func relationsSize(ctx context.Context, conn *pgx.Conn, rels []string) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, "SELECT coalesce(sum(pg_relation_size(r::regclass)), 0)::bigint FROM unnest($1::text[]) r", rels).Scan(&n)
	return n, err
}

// leafStats is pgstatindex over the key's indexes: leaf density and
// fragmentation weighted by each index's leaf pages.
func leafStats(ctx context.Context, conn *pgx.Conn, ext *Extensions, indexes []string, btree bool, into *results.Metrics) {
	fail := func(reason string) {
		into.LeafDensity, into.LeafFragmentation = results.Unavailable[float64](reason), results.Unavailable[float64](reason)
	}
	if !btree {
		fail("pgstatindex reads btree indexes only")
		return
	}
	fn, err := ext.fn("pgstattuple", "pgstatindex")
	if err != nil {
		fail(err.Error())
		return
	}
	var density, frag float64
	var leaves int64
	// An index without leaf pages reports NaN densities: leave it out.
	err = conn.QueryRow(ctx, fmt.Sprintf(`SELECT coalesce(sum(s.avg_leaf_density * s.leaf_pages) FILTER (WHERE s.leaf_pages > 0) / nullif(sum(s.leaf_pages), 0), 0),
		coalesce(sum(s.leaf_fragmentation * s.leaf_pages) FILTER (WHERE s.leaf_pages > 0) / nullif(sum(s.leaf_pages), 0), 0), coalesce(sum(s.leaf_pages), 0)::bigint
		FROM unnest($1::text[]) r, LATERAL %s(r) s`, fn), indexes).Scan(&density, &frag, &leaves)
	if err != nil {
		fail(err.Error())
		return
	}
	if leaves == 0 {
		fail("the key index has no leaf pages (an empty table)")
		return
	}
	into.LeafDensity, into.LeafFragmentation, into.LeafPages = results.Of(density/100), results.Of(frag/100), results.Of(leaves)
}

// SharedBuffers is the server's cache (shared_buffers) in bytes.
func SharedBuffers(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var cache int64
	err := conn.QueryRow(ctx, "SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings WHERE name = 'shared_buffers'").Scan(&cache)
	return cache, err
}

// Cache records the cache the cell's rounds ran with (shared_buffers, read
// when the server started or was restarted for the cell: the evidence may
// run on a server restarted with another cache for its own work) and the
// key index's and table's sizes (already in into) relative to it; why
// says why it could not be read (cache 0).
func Cache(cache int64, why string, into *results.Metrics) {
	if cache <= 0 {
		why = "shared_buffers could not be read: " + why
		into.CacheBytes, into.KeyIndexCacheRatio, into.TableCacheRatio = results.Unavailable[int64](why), results.Unavailable[float64](why), results.Unavailable[float64](why)
		return
	}
	into.CacheBytes = results.Of(cache)
	ratio := func(size results.M[int64]) results.M[float64] {
		if v, ok := size.Get(); ok {
			return results.Of(float64(v) / float64(cache))
		}
		return results.Unavailable[float64](size.Reason())
	}
	into.KeyIndexCacheRatio, into.TableCacheRatio = ratio(into.KeyIndexBytes), ratio(into.TableBytes)
}
