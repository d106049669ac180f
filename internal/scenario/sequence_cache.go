package scenario

import (
	"time"

	"github.com/keybench/keybench/internal/results"
)

// The sequence-cache preset: 002's sequence CACHE and the btree's rightmost-leaf fast path.
func init() {
	register(&Scenario{
		Name:   "sequence-cache",
		Order:  4,
		Kind:   Preset,
		Ask:    "Do a sequence's cache and a random key bloat the key index under concurrent inserts? (002)",
		Source: "002",
		Pivot:  &results.Pivot{By: results.PivotClients, Bloat: true},
		Description: "sequence CACHE and the btree rightmost-leaf fast path (002): bigint cache 50 vs uuidv4 vs bigint cache 1 vs uuidv7 " +
			"at 16, 32 and 64 clients; index size before and after REINDEX",
		Defaults: Params{
			Workload: "insert", Keys: []string{"bigint:cache=50", "uuidv4", "bigint", "uuidv7"},
			Clients: []int{16, 32, 64}, Rows: []int64{0}, Warmup: time.Second, Duration: 10 * time.Second,
			Payload: 0, Repeat: 1, Rounds: 5,
		},
		Quick: func(p *Params) {
			p.Clients, p.Duration = []int{16, 64}, 3*time.Second
		},
		Settings: embeddedDefaults,
	})
}
