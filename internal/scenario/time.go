package scenario

import (
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server"
)

// The time preset's keys: uuidv7 with a created_at column, with and
// without its index; uuidv4 with created_at, indexed and not; and three
// tables partitioned by day — uuidv7 on its key, uuidv4 on created_at,
// bigint by its values.
const (
	timeV7Column    = "uuidv7:created-at=column"
	timeV7Indexed   = "uuidv7:created-at=indexed"
	timeV4Indexed   = "uuidv4:created-at=indexed"
	timeV4Column    = "uuidv4:created-at=column"
	timeV7Parts     = "uuidv7:partition=1d"
	timeV4Parts     = "uuidv4:created-at=indexed:partition=1d"
	timeBigintParts = "bigint:partition=1d"
)

// timePreset is "time in the key" (issue 29): what a time-ordered key does
// for a table whose rows are found, partitioned and expired by their time.
// 200,000 rows stand for ten days (20,000 a day) on an 8 MB cache; each
// round inserts, reads the last hour of the newest 5% of the history, and
// expires the oldest day.
func timePreset() *Scenario {
	return &Scenario{
		Name:  "time",
		Order: 9,
		Kind:  Preset,
		Ask:   "Can time in the key replace a created_at index, and how do partitions by time fare?",
		Question: "Time in the key: can a uuidv7 key replace the created_at index, how does a table partitioned by day fare with each key, " +
			"and what does expiring old rows cost — a partition dropped, or a DELETE by key or by created_at?",
		Description: "time in the key (users' questions): inserts, a recent range query and retention on 200,000 rows standing for 10 days, " +
			"for uuidv7 with and without a created_at index, uuidv4 with created_at, and tables partitioned by day (uuidv7 on its key, uuidv4 on created_at, bigint by its values)",
		Defaults: Params{
			Workload: "insert,range-query,retention",
			Keys:     []string{timeV7Column, timeV7Indexed, timeV4Indexed, timeV4Column, timeV7Parts, timeV4Parts, timeBigintParts},
			Clients:  []int{8}, Rows: []int64{200_000}, History: 10 * 24 * time.Hour,
			Warmup: time.Second, Duration: 4 * time.Second, Payload: 32, Repeat: 1, Rounds: 5,
			Options: map[string]string{"window": "1h", "recent-rows": "0.05", "expire": "1d"},
		},
		Quick: func(p *Params) {
			p.Keys = []string{timeV7Column, timeV7Indexed, timeV4Indexed, timeV7Parts}
			p.Rows, p.Duration = []int64{50_000}, 2*time.Second
		},
		Questions: []results.Question{
			{
				Ask:  "With uuidv7, what does dropping the created_at index save on every insert, and what does a recent range query cost through the key instead?",
				Keys: []string{timeV7Column, timeV7Indexed, timeV4Indexed, timeV4Column},
				Parts: []results.QuestionPart{
					{Task: "insert", Figures: []string{"WAL / row", "indexes", "key index"}},
					{Task: "range-query", Figures: []string{"path", "rows / query", "blocks / query (read)"}},
				},
			},
			{
				Ask:  "A table partitioned by day: uuidv7 on its key, uuidv4 on created_at, bigint by its values — the insert rate, the partitions a query of the last hour scans, and its blocks.",
				Keys: []string{timeV7Parts, timeV4Parts, timeBigintParts},
				Parts: []results.QuestionPart{
					{Task: "insert", Figures: []string{"WAL / row", "indexes"}},
					{Task: "range-query", Figures: []string{"blocks / query (read)", "plan"}},
				},
			},
			{
				Ask:  "Retention, a day a round while inserts go on: the oldest partition dropped, or DELETE by key (uuidv7), or by created_at (uuidv4) — its time, WAL and locks, and what it leaves behind.",
				Keys: []string{timeV7Parts, timeV7Column, timeV4Indexed},
				Parts: []results.QuestionPart{
					{Task: "retention", Figures: []string{"method", "expiry time", "WAL / expiry: records (images)", "lock on the table", "VACUUM after", "table, key index after (leaf density)"}},
				},
			},
		},
		ColdCacheMB:   8,
		CacheRelative: true,
		// WAL per row is the cluster's WAL over the rows: an autovacuum of
		// another cell's table (the inserts cross its insert threshold in a
		// few rounds) would land in whichever cell ran then, as it once
		// doubled uuidv7's WAL per row without a created_at index. The
		// retention's VACUUM is its own, timed after the rounds.
		Settings: append([]server.Setting{{Name: "autovacuum", Value: "off"}}, embeddedDefaults...),
	}
}
