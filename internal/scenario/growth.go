package scenario

import (
	"time"

	"github.com/keybench/keybench/internal/results"
)

// The growth preset: 000's table of each key's insert rate as the table grows, and the index variants.
func init() {
	register(&Scenario{
		Name:    "growth",
		Order:   2,
		Kind:    Preset,
		Against: "bigint", // the question: what each key costs against bigint
		Ask:     "Does a random key cost more as the table outgrows the cache? (000)",
		Source:  "000",
		Pivot:   &results.Pivot{By: results.PivotRows},
		Description: "inserts as the table grows (000): 8 clients insert single rows into tables of increasing size, " +
			"the uuidv4 index going from inside the cache (2 MB) to fifteen times it; also uuidv4 with a plain btree, a unique index and no index",
		Defaults: Params{
			Workload: "insert", Keys: []string{"bigint", "uuidv7", "seq-uuid-time", "uuidv4", "uuidv4:index=btree", "uuidv4:index=unique", "uuidv4:index=none"},
			Clients: []int{8}, Rows: []int64{0, 250_000, 1_000_000}, Warmup: 2 * time.Second, Duration: 6 * time.Second,
			Payload: 32, Repeat: 1, Rounds: 5,
		},
		Quick: func(p *Params) {
			p.Keys = []string{"bigint", "uuidv7", "uuidv4"}
			p.Rows, p.Warmup, p.Duration = []int64{0, 100_000}, time.Second, 2*time.Second
		},
		Settings: embeddedDefaults,
		// A 2 MB cache: the uuidv4 index (about 30 bytes a row) is fifteen
		// times the cache at 1M rows, which a 16 MB cache would need 8M
		// rows for. With 3 MB and a 2M-row size the run took 11-12 minutes
		// here; uuidv4's rate levels off at about half of bigint's from
		// 4× the cache on, so the largest size adds time, not a new shape.
		ColdCacheMB:   2,
		CacheRelative: true,
	})
}
