// Package verdicttest makes up runs for the tests of what reads them: keys
// of a given work per transaction, in rounds with noise.
package verdicttest

import (
	"math/rand/v2"

	"github.com/keybench/keybench/internal/results"
)

// KeysOf is a run of the keys in the same n rounds, each its work per
// transaction (CPU, priced 1:1), with 5% noise a round.
func KeysOf(n int, work map[string]float64, order []string, seed uint64) *results.Results {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := &results.Results{SchemaVersion: results.SchemaVersion, Status: results.StatusOK, Environment: results.Environment{ServerVersion: "18.6"}}
	for _, key := range order {
		c := results.Cell{Key: key, Workload: "insert", Clients: 8, RowsBefore: 1000, Status: results.StatusOK, Txns: 1000, DurationS: 1}
		for i := 0; i < n; i++ {
			noise := func() float64 { return 1 + 0.05*rng.NormFloat64() }
			c.Rounds = append(c.Rounds, results.Round{Round: i + 1, Rate: 1000 * noise(), Txns: 1000,
				Cost: &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(work[key] * noise()), WALBytes: results.Of(1000 * noise())}})
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}
