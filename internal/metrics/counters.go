package metrics

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
)

// What the counters of the cell's tables share (one counter a file,
// counter_*.go; their list is the counters of session.go).

// readByRelation reads n counters of each of the cell's leaf tables.
func readByRelation(ctx context.Context, env *Env, n int, sql string, as func(map[string][]int64) snapshot) (snapshot, error) {
	rows, _ := env.Admin.Query(ctx, sql, env.Schema, env.LeafTables)
	out := map[string][]int64{}
	var name string
	v := make([]int64, n)
	dst := []any{&name}
	for i := range v {
		dst = append(dst, &v[i])
	}
	_, err := pgx.ForEachRow(rows, dst, func() error { out[name] = slices.Clone(v); return nil })
	return as(out), err
}

// deltaByRelation is after less before, summed over the relations both
// hold: a partition dropped in between (a retention's) takes its counters
// with it, and one made in between had none before.
func deltaByRelation(before, after map[string][]int64, n int) []int64 {
	d := make([]int64, n)
	for name, a := range after {
		b, ok := before[name]
		if !ok {
			continue
		}
		for i := range d {
			d[i] += a[i] - b[i]
		}
	}
	return d
}
