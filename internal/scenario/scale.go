package scenario

import (
	"time"

	"github.com/keybench/keybench/internal/results"
)

// The scale preset: does the small lab predict a table 64 times larger?
// The same inserts at three scales, the table and its cache grown
// together (250k rows over 2 MB, 16× and 64× that), each window the same
// share of its table's rows, so that every scale sees the same inserts
// per index page between checkpoints; the key index grown by inserts
// (--fill indexed: CREATE INDEX would pack a random key's leaves 90%
// full and hide its splits). Where a key's ratio to bigint agrees across
// the scales, the lab's ratio carries to larger tables of the same
// index-over-cache; where it drifts, the drift is the finding.
func init() {
	register(&Scenario{
		Name:    "scale",
		Order:   11,
		Kind:    Preset,
		Against: "bigint", // the question: what each key costs against bigint
		Ask:     "Does the lab's verdict hold at 16× and 64× the table and its cache?",
		Source:  "000",
		Pivot:   &results.Pivot{By: results.PivotRows},
		Description: "the same inserts at three scales (000's question at 64× the lab): 250k rows over a 2 MB cache, 4M over 32 MB and 16M over 128 MB, " +
			"each window 3% of its table's rows in rounds, the key index grown by inserts; each key's rate and cost against bigint at each scale, and whether they agree",
		Defaults: Params{
			Workload: "insert", Keys: []string{"uuidv4", "uuidv7", "bigint"},
			Clients: []int{4}, Rows: []int64{250_000, 4_000_000, 16_000_000}, Caches: []int64{2 << 20, 32 << 20, 128 << 20}, Scaled: true,
			TableShare: 0.03, FillIndexed: true, Warmup: time.Second, Payload: 32, Repeat: 1, Rounds: 5,
		},
		Quick: func(p *Params) {
			p.Keys = []string{"uuidv4", "bigint"}
			p.Rows, p.Caches, p.Rounds = []int64{62_500, 250_000, 1_000_000}, []int64{512 << 10, 2 << 20, 8 << 20}, 3
		},
		Settings: embeddedDefaults,
	})
}
