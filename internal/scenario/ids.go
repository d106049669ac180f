package scenario

import (
	"fmt"
	"time"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
)

// idsKeys are every strategy of the catalog in its common storage (its
// first), in catalog order, each followed by the other forms people also
// use of it (idsAlso): a strategy added to the catalog joins the preset.
func idsKeys() []string {
	var out []string
	for _, st := range keys.All() {
		out = append(out, st.Name)
		out = append(out, idsAlso[st.Name]...)
	}
	return out
}

// idsAlso are the forms of a strategy people use beside its common one:
// uuidv4 as text (the varchar uuid) and the random bigint.
var idsAlso = map[string][]string{"bigint": {"bigint:gen=random"}, "uuidv4": {"uuidv4:as=text"}}

// idsPreset is "every id people use" (issue 30): the war's insert and read
// on a table past the cache, for every key of the catalog, so that the
// comparison peers draw from single bulk loads is drawn with keybench's
// rounds and evidence, and each key's bytes and what it reveals beside
// its rate. Fewer rows than the war's, not fewer keys; every key against
// bigint (Against), its 1,500 transactions a client in eight rounds, every
// round run (a fixed design): the five rounds of earlier versions gave a
// paired comparison four degrees of freedom, and the program's simulation
// found a key doing 25% more work than bigint in 28% of runs (0% testing
// all 231 pairs); eight rounds of the same transactions find it in 93%
// (TestTheProgramKeepsItsFalseWinnerRate).
func idsPreset() *Scenario {
	ids := idsKeys()
	return &Scenario{
		Name:    "ids",
		Order:   10,
		Kind:    Preset,
		Against: "bigint", // the question: what each key costs against bigint
		Ask:     "What does each id people use cost, in bytes, in the index and in work?",
		Question: "Every id people use, side by side: what each costs at the insert and the read, in bytes and in the index, " +
			"and what one of its values gives away.",
		Description: "every id people use (peers' 17-id comparisons): 10 clients each insert a row and read one by a random data value, " +
			"on a 150k-row table over a 4 MB cache, for the catalog's " + fmt.Sprint(len(keys.All())) + " strategies in their common storage, uuidv4 as text and a random bigint; " +
			"bytes, leaf density and what each key reveals beside the rate",
		Defaults: Params{
			Workload: "insert-read", Keys: ids,
			Clients: []int{10}, Rows: []int64{150_000}, Warmup: 2 * time.Second, Txns: 1500, Payload: 32, Repeat: 1, Rounds: 8, AllRounds: true,
			// Each key index grown by the prefill's inserts, as a table's is
			// over its life: a random key's leaves split half full (CREATE
			// INDEX after the fill would pack every key's to 90%).
			FillIndexed: true,
		},
		Quick: func(p *Params) {
			p.Rows, p.Warmup, p.Txns = []int64{20_000}, time.Second, 300
		},
		Questions: []results.Question{{
			Ask:   "Every id, ranked by its rate, with the bytes it stores and its key index's leaf density beside it.",
			Keys:  ids,
			Parts: []results.QuestionPart{{Task: "insert-read", Figures: []string{"key bytes", "key index", "leaf density", "WAL / row"}}},
		}},
		ColdCacheMB:   4,
		CacheRelative: true,
		Settings:      embeddedDefaults,
	}
}
