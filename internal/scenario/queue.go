package scenario

import (
	"time"

	"github.com/keybench/keybench/internal/server"
)

// The queue preset: 004's "burn after reading" queue, rows in and out at once.
func init() {
	register(&Scenario{
		Name:   "queue",
		Order:  6,
		Kind:   Preset,
		Ask:    "How many rows in and out a second does each key give a queue? (004)",
		Source: "004",
		Description: "produce/consume queue (004): producers insert batches of 1000 rows into random partitions of a 64-way partitioned heap " +
			"while as many consumers delete batches, by ctid in no order (004, no index) and in key order with SKIP LOCKED (bigint, uuidv7, uuidv4)",
		Defaults: Params{
			Workload: "queue,queue-fifo", Keys: []string{"bigint:index=none", "bigint", "uuidv7", "uuidv4"},
			Clients: []int{4}, Rows: []int64{0}, Warmup: 2 * time.Second, Duration: 15 * time.Second,
			Payload: 0, Repeat: 1, Rounds: 5, Options: map[string]string{"batch": "1000", "partitions": "64"},
		},
		Quick: func(p *Params) {
			p.Keys, p.Warmup, p.Duration, p.Options["partitions"] = []string{"bigint:index=none", "uuidv4"}, time.Second, 3*time.Second, "16"
		},
		// A queue lives on autovacuum: consumers scan past the dead rows of
		// earlier deletes until it has cleaned a partition.
		Settings: append([]server.Setting{{Name: "autovacuum_naptime", Value: "1s"}, {Name: "autovacuum_vacuum_cost_delay", Value: "0"},
			{Name: "autovacuum_vacuum_scale_factor", Value: "0.01"}, {Name: "autovacuum_vacuum_insert_scale_factor", Value: "0.01"}}, embeddedDefaults...),
	})
}
