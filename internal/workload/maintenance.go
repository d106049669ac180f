package workload

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// TimedMaintenance says what TimeMaintenance times (Hooks.MaintainSays).
const TimedMaintenance = "maintenance (VACUUM, ANALYZE, REINDEX, COPY TO)"

// TimeMaintenance times, on conn, the maintenance 003 timed per key on a
// table after its writes: VACUUM (dead rows to clean after updates, the
// visibility map to set after a load), ANALYZE, REINDEX of the key's
// indexes, and COPY of the table to the client (read and discarded). Each
// runs alone, after the measured window, in that order; a command that
// fails is unavailable with its error and the others still run.
func TimeMaintenance(ctx context.Context, conn *pgx.Conn, t *Table) results.Maintenance {
	timed := func(run func() error) results.M[float64] {
		t0 := time.Now()
		if err := run(); err != nil {
			return results.Unavailable[float64](err.Error())
		}
		return results.Of(time.Since(t0).Seconds())
	}
	exec := func(sql string) func() error {
		return func() error { _, err := conn.Exec(ctx, sql); return err }
	}
	var m results.Maintenance
	m.Vacuum = timed(exec("VACUUM " + t.Qualified()))
	m.Analyze = timed(exec("ANALYZE " + t.Qualified()))
	if names := KeyIndexNames(t); len(names) == 0 {
		m.Reindex = results.Unavailable[float64]("the key has no index")
	} else {
		m.Reindex = timed(func() error {
			for _, n := range names {
				if _, err := conn.Exec(ctx, "REINDEX INDEX "+n); err != nil {
					return err
				}
			}
			return nil
		})
	}
	m.CopyTo = timed(func() error {
		_, err := conn.PgConn().CopyTo(ctx, io.Discard, fmt.Sprintf("COPY %s TO STDOUT", t.Qualified()))
		return err
	})
	return m
}

// MaintenanceColumn is a cell's maintenance times in one column: "0.41 / 0.05 / 1.20 / 0.80".
func MaintenanceColumn(m results.Maintenance) string {
	f := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	return fmt.Sprintf("%s / %s / %s / %s", m.Vacuum.Text(f), m.Analyze.Text(f), m.Reindex.Text(f), m.CopyTo.Text(f))
}
