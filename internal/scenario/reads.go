package scenario

import "time"

// The reads preset: the rest of a key's life after its inserts — lookups, ranges, joins.
func init() {
	register(&Scenario{
		Name:   "reads",
		Order:  7,
		Kind:   Preset,
		Ask:    "What does each key cost its reads after the insert?",
		Source: "001",
		Question: "What does the key cost after the insert? Reads by key of a table four times the cache: point reads (uniform, and 90% among the newest 5% of rows), " +
			"keyset pages, the latest rows, index-only counts, child inserts whose foreign-key check reads the parent's key, joins, and updates.",
		Description: "the rest of a key's life (001's readers' questions): lookups, ranges, latest, counts, foreign keys, joins and updates " +
			"on a table four times the cache, for bigint, int, uuidv7, uuidv4 and uuidv4 as text",
		Defaults: Params{
			Workload: "lookup:query=point:read-dist=uniform,lookup:query=point:read-dist=recent,lookup:query=range:read-dist=uniform," +
				"lookup:query=latest,lookup:query=count:read-dist=uniform,fk-insert:read-dist=recent,join:read-dist=uniform,update:read-dist=uniform",
			Keys:    []string{"bigint", "int", "uuidv7", "uuidv4", "uuidv4:as=text"},
			Clients: []int{8}, Rows: []int64{125_000}, Warmup: time.Second, Duration: 3 * time.Second,
			Payload: 96, Repeat: 1, Rounds: 4, Options: map[string]string{"children": "2", "recent-rows": "0.05"},
		},
		Quick: func(p *Params) {
			p.Keys, p.Rows, p.Warmup, p.Duration = []string{"bigint", "uuidv7", "uuidv4"}, []int64{50_000}, time.Second, 2*time.Second
		},
		// 125k rows on 4 MB: a table over 4x the cache, a uuidv4 key index
		// about the cache's size (the 250k rows on 8 MB of earlier versions,
		// half the fill); 40 cells in at most 4 rounds of 0.75 s, each
		// round of the 40 about 55 s here: under 5 minutes. Three rounds
		// of 1 s took 4 minutes and decided almost nothing (a uuidv4 range
		// read 11 times bigint's time was not significant over 10 pairs).
		ColdCacheMB:   4,
		CacheRelative: true,
		Settings:      embeddedDefaults,
	})
}
