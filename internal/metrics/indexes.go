package metrics

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Index records the key index's leaf density and fragmentation
// (pgstatindex, btree only), then rebuilds the table's indexes and records
// their size after REINDEX and the key index's bloat ratio, size before /
// size after, as "Кэширование значений последовательностей" measured it.
// keyIndexes are the key's indexes (one per partition of a partitioned
// table, whose figures are summed, densities weighted by leaf pages); none
// when the key has no index.
func Index(ctx context.Context, conn *pgx.Conn, ext *Extensions, table string, keyIndexes []string, btree bool, into map[string]any) {
	if len(keyIndexes) == 0 {
		for _, m := range []string{"leaf_density", "leaf_fragmentation", "key_index_bytes", "key_index_bytes_after_reindex", "bloat_ratio"} {
			into[m] = unavailable("the key has no index (index=none)")
		}
	} else {
		if before, err := relationsSize(ctx, conn, keyIndexes); err != nil {
			into["key_index_bytes"] = unavailable(err.Error())
		} else {
			into["key_index_bytes"] = before
		}
		leafStats(ctx, conn, ext, keyIndexes, btree, into)
	}
	if _, err := conn.Exec(ctx, "REINDEX TABLE "+table); err != nil {
		for _, m := range []string{"index_bytes_after_reindex", "key_index_bytes_after_reindex", "bloat_ratio"} {
			into[m] = unavailablef("REINDEX: %v", err)
		}
		return
	}
	var after int64
	if err := conn.QueryRow(ctx, "SELECT coalesce(sum(pg_indexes_size(l.oid)), 0)::bigint FROM "+leafTables+" l", table).Scan(&after); err == nil {
		into["index_bytes_after_reindex"] = after
	}
	if len(keyIndexes) == 0 {
		return
	}
	keyAfter, err := relationsSize(ctx, conn, keyIndexes)
	if err != nil {
		into["key_index_bytes_after_reindex"] = unavailable(err.Error())
		into["bloat_ratio"] = into["key_index_bytes_after_reindex"]
		return
	}
	into["key_index_bytes_after_reindex"] = keyAfter
	if before, ok := into["key_index_bytes"].(int64); ok && keyAfter > 0 {
		into["bloat_ratio"] = float64(before) / float64(keyAfter)
	}
}

func relationsSize(ctx context.Context, conn *pgx.Conn, rels []string) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, "SELECT coalesce(sum(pg_relation_size(r::regclass)), 0)::bigint FROM unnest($1::text[]) r", rels).Scan(&n)
	return n, err
}

// leafStats is pgstatindex over the key's indexes: leaf density and
// fragmentation weighted by each index's leaf pages.
func leafStats(ctx context.Context, conn *pgx.Conn, ext *Extensions, indexes []string, btree bool, into map[string]any) {
	fail := func(reason string) {
		into["leaf_density"] = unavailable(reason)
		into["leaf_fragmentation"] = into["leaf_density"]
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
	into["leaf_density"], into["leaf_fragmentation"], into["leaf_pages"] = density/100, frag/100, leaves
}
