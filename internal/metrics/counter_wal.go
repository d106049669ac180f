package metrics

import (
	"context"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// walCounter: pg_stat_wal (records, full-page images, bytes; the same three
// columns from 14 to 18). It counts the whole cluster's WAL, which during a
// cell is the cell's.
type walCounter struct{}

type walSnap struct{ records, fpi, bytes int64 }

func (walCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	var s walSnap
	err := env.Admin.QueryRow(ctx, "SELECT wal_records, wal_fpi, wal_bytes::bigint FROM pg_stat_wal").Scan(&s.records, &s.fpi, &s.bytes)
	return s, err
}

func (walCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(walSnap), a.(walSnap)
	into.WALRecords = results.Of(after.records - before.records)
	into.WALFPI = results.Of(after.fpi - before.fpi)
	into.WALBytes = results.Of(after.bytes - before.bytes)
}

func (walCounter) unavailable(reason string, into *results.Metrics) {
	reason = "pg_stat_wal: " + reason
	into.WALRecords, into.WALFPI, into.WALBytes = results.Unavailable[int64](reason), results.Unavailable[int64](reason), results.Unavailable[int64](reason)
}

// figures: the counts add up over rounds; per row over the cell's rows.
func (walCounter) figures() []declared {
	i := func(get func(*results.Metrics) *results.M[int64]) typed[int64] {
		return summed(get, onCoordinator, add)
	}
	return []declared{
		i(func(m *results.Metrics) *results.M[int64] { return &m.WALRecords }),
		i(func(m *results.Metrics) *results.M[int64] { return &m.WALFPI }),
		i(func(m *results.Metrics) *results.M[int64] { return &m.WALBytes }),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.WALBytesPerRow }, func(m *results.Metrics) results.M[int64] { return m.WALBytes }).
			show("WAL / row", formatted("%.0f B", 1), ""),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.WALFPIPerRow }, func(m *results.Metrics) results.M[int64] { return m.WALFPI }).
			show("FPI / row", results.Significant, "FPI: WAL full-page images"),
		perRow(func(m *results.Metrics) *results.M[float64] { return &m.WALRecordsPerRow }, func(m *results.Metrics) results.M[int64] { return m.WALRecords }),
	}
}
