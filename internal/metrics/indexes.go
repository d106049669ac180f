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
// keyIndex is "" when the key has no index.
func Index(ctx context.Context, conn *pgx.Conn, ext *Extensions, table, keyIndex string, btree bool, into map[string]any) {
	if keyIndex == "" {
		for _, m := range []string{"leaf_density", "leaf_fragmentation", "key_index_bytes", "key_index_bytes_after_reindex", "bloat_ratio"} {
			into[m] = unavailable("the key has no index (index=none)")
		}
	} else {
		var before int64
		if err := conn.QueryRow(ctx, "SELECT pg_relation_size($1::regclass)", keyIndex).Scan(&before); err != nil {
			into["key_index_bytes"] = unavailable(err.Error())
		} else {
			into["key_index_bytes"] = before
		}
		if !btree {
			into["leaf_density"] = unavailable("pgstatindex reads btree indexes only")
			into["leaf_fragmentation"] = into["leaf_density"]
		} else if fn, err := ext.fn("pgstattuple", "pgstatindex"); err != nil {
			into["leaf_density"] = unavailable(err.Error())
			into["leaf_fragmentation"] = into["leaf_density"]
		} else {
			var density, frag float64
			var leaves int64
			if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT avg_leaf_density, leaf_fragmentation, leaf_pages FROM %s($1)", fn), keyIndex).Scan(&density, &frag, &leaves); err != nil {
				into["leaf_density"] = unavailable(err.Error())
				into["leaf_fragmentation"] = into["leaf_density"]
			} else {
				into["leaf_density"], into["leaf_fragmentation"], into["leaf_pages"] = density/100, frag/100, leaves
			}
		}
	}
	if _, err := conn.Exec(ctx, "REINDEX TABLE "+table); err != nil {
		for _, m := range []string{"index_bytes_after_reindex", "key_index_bytes_after_reindex", "bloat_ratio"} {
			into[m] = unavailablef("REINDEX: %v", err)
		}
		return
	}
	var after int64
	if err := conn.QueryRow(ctx, "SELECT pg_indexes_size($1::regclass)", table).Scan(&after); err == nil {
		into["index_bytes_after_reindex"] = after
	}
	if keyIndex == "" {
		return
	}
	var keyAfter int64
	if err := conn.QueryRow(ctx, "SELECT pg_relation_size($1::regclass)", keyIndex).Scan(&keyAfter); err != nil {
		into["key_index_bytes_after_reindex"] = unavailable(err.Error())
		into["bloat_ratio"] = into["key_index_bytes_after_reindex"]
		return
	}
	into["key_index_bytes_after_reindex"] = keyAfter
	if before, ok := into["key_index_bytes"].(int64); ok && keyAfter > 0 {
		into["bloat_ratio"] = float64(before) / float64(keyAfter)
	}
}
