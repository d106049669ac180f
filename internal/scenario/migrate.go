package scenario

import "time"

// The migrate preset: a live table switching its new rows from uuidv4 to uuidv7.
func init() {
	register(&Scenario{
		Name:  "migrate",
		Order: 8,
		Kind:  Preset,
		Ask:   "Do new uuidv7 rows on a uuidv4 table insert cheaper, and what do they cost the index?",
		Question: "A table with a uuidv4 history: do new rows with uuidv7 (or ulid) keys insert faster, and what do they cost the index? " +
			"Their keys land at one point inside the uuidv4 key space, so inserts are local but split leaves in the middle, not at the right edge: " +
			"compare the index's growth per inserted row and its page splits with all-uuidv4 and all-uuidv7 tables.",
		Description: "switching keys on a live table (the question of projects' pull requests): a uuidv4 history, then uuidv4, uuidv7 and ulid inserts into it, " +
			"beside an all-uuidv7 table; insert rate, index growth per row, page splits and leaf density",
		Defaults: Params{
			Workload: "insert", Keys: []string{"uuidv4", "uuidv7:prefill=uuidv4", "ulid:prefill=uuidv4", "uuidv7"},
			Clients: []int{8}, Rows: []int64{1_000_000}, Warmup: 2 * time.Second, Duration: 20 * time.Second,
			Payload: 32, Repeat: 1, Rounds: 5,
		},
		Quick: func(p *Params) {
			p.Keys, p.Rows, p.Warmup, p.Duration = []string{"uuidv4", "uuidv7:prefill=uuidv4", "uuidv7"}, []int64{100_000}, time.Second, 3*time.Second
		},
		CacheRelative: true,
		Settings:      embeddedDefaults,
	})
}
