package scenario

import "time"

// The replicas preset: what each key's WAL costs streaming standbys (shipped bytes, replay lag).
func init() {
	register(&Scenario{
		Name:  "replicas",
		Order: 3,
		Kind:  Preset,
		Ask:   "What does each key's WAL cost a streaming replica?",
		Question: "What does each key cost a streaming replica? Every byte of WAL an insert writes, full-page images of random index pages above all, " +
			"is sent to every standby and replayed there by a single process that must read each page a record changes: compare the WAL shipped per row and the replay lag.",
		Description: "a key's cost to a streaming standby (users' question): 8 clients insert into a 1M-row table, several times the 16 MB cache, " +
			"with one physical standby of the embedded server; WAL shipped per row, replay lag and catch-up per key; " +
			"five rounds of 10 s, long enough for a standby that cannot keep up to fall behind: the preset's 4-5 minutes are mostly those",
		Defaults: Params{
			Workload: "insert", Keys: []string{"uuidv4", "uuidv7", "bigint", "uuidv4:as=text"},
			Clients: []int{8}, Rows: []int64{1_000_000}, Warmup: 2 * time.Second, Duration: 50 * time.Second,
			Payload: 32, Repeat: 1, Rounds: 5,
		},
		// Five rounds of 10 s, the fewest with which a verdict over the six
		// pairs can be reached: a standby whose replay cannot keep up falls
		// behind over seconds (in one 60 s window here uuidv4's replay lag
		// reached 12 s while bigint's stayed under 0.3 s), which rounds of
		// 2 s would hide. That is most of the preset's 4-5 minutes: the
		// physics of a lag, not keybench's overhead.
		Quick: func(p *Params) {
			p.Keys = []string{"uuidv4", "bigint"}
			p.Rows, p.Warmup, p.Duration = []int64{50_000}, time.Second, 3*time.Second
		},
		Settings:      embeddedDefaults,
		Replicas:      1,
		CacheRelative: true,
	})
}
