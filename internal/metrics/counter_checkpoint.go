package metrics

import (
	"context"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// checkpointCounter: pg_stat_checkpointer (17+) or pg_stat_bgwriter (up to 16).
type checkpointCounter struct{}

type checkpointSnap struct{ timed, requested int64 }

func (checkpointCounter) read(ctx context.Context, env *Env) (snapshot, error) {
	q := "SELECT num_timed, num_requested FROM pg_stat_checkpointer"
	if env.Major < 17 {
		q = "SELECT checkpoints_timed, checkpoints_req FROM pg_stat_bgwriter"
	}
	var s checkpointSnap
	err := env.Admin.QueryRow(ctx, q).Scan(&s.timed, &s.requested)
	return s, err
}

func (checkpointCounter) figures() []declared {
	return []declared{summed(func(m *results.Metrics) *results.M[results.Checkpoints] { return &m.Checkpoints }, onCoordinator,
		func(a, b results.Checkpoints) results.Checkpoints {
			return results.Checkpoints{Timed: a.Timed + b.Timed, Requested: a.Requested + b.Requested, Total: a.Total + b.Total}
		})}
}

func (checkpointCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(checkpointSnap), a.(checkpointSnap)
	into.Checkpoints = results.Of(results.Checkpoints{Timed: after.timed - before.timed, Requested: after.requested - before.requested,
		Total: after.timed + after.requested - before.timed - before.requested})
}

func (checkpointCounter) unavailable(reason string, into *results.Metrics) {
	into.Checkpoints = results.Unavailable[results.Checkpoints](reason)
}
