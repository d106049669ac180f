package verdict

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/workload/all"
)

func threeKeys() *results.Results {
	return &results.Results{SchemaVersion: results.SchemaVersion, Status: results.StatusOK, Scenario: "war",
		Environment: results.Environment{ServerVersion: "18.6", Settings: map[string]string{"shared_buffers": "2048"}},
		Cells: []results.Cell{
			{Key: "uuidv4", Workload: "insert", Clients: 8, Status: results.StatusOK, TPS: 1000, DurationS: 10, Txns: 10000,
				Timeline: seconds(1000, 990, 1010, 1005, 995, 1000), Metrics: results.Metrics{TotalBytes: results.Of[int64](2000)}},
			{Key: "bigint", Workload: "insert", Clients: 8, Status: results.StatusOK, TPS: 1500, DurationS: 10, Txns: 15000,
				Timeline: seconds(1500, 1490, 1510, 1505, 1495, 1500), Metrics: results.Metrics{TotalBytes: results.Of[int64](1000), IO: results.Unavailable[results.IO]("no permission")}},
			{Key: "uuidv7", Workload: "insert", Clients: 8, Status: results.StatusOK, TPS: 1500, DurationS: 10, Txns: 15000,
				Timeline: seconds(1490, 1510, 1500, 1495, 1505, 1500), Metrics: results.Metrics{TotalBytes: results.Of[int64](1000)}},
		}}
}

func seconds(tps ...float64) []results.Second {
	var out []results.Second
	for i, v := range tps {
		out = append(out, results.Second{T: i + 1, TPS: v, Txns: int64(v)})
	}
	return out
}

func TestGroupsCompare(t *testing.T) {
	// One window per key: per-second rates are never tested.
	if g := Analyze(threeKeys()).Groups; len(g) != 3 || g[1].VsPrevious == nil || !g[1].VsPrevious.TooFew || g[1].VsPrevious.Significant || g[0].Independent() {
		t.Errorf("one window per key: %+v", g)
	}
	// Five rounds per key: every pair of keys compared, adjusted together.
	r := threeKeys()
	for i := range r.Cells {
		for k := 1; k <= 5; k++ {
			r.Cells[i].Rounds = append(r.Cells[i].Rounds, results.Round{Round: k, Rate: r.Cells[i].TPS + float64(k%3)*5})
		}
	}
	g := Analyze(r).Groups
	if len(g) != 3 || g[0].Unit != results.UnitRounds || len(g[0].Compared) != 2 || g[1].Correction != "holm over 3 comparisons" {
		t.Fatalf("groups: %+v", g)
	}
	v := g[1].VsPrevious // bigint over uuidv4
	if v.Key != "uuidv4" || !v.Significant || v.N != 5 || v.M != 5 || v.Lo <= 1 || math.Abs(v.PAdjusted-3*v.P) > 1e-12 {
		t.Errorf("bigint vs uuidv4: %+v", v)
	}
	if back := g[0].Compared[0]; back.Key != "bigint" || !back.Significant || back.Hi >= 1 {
		t.Errorf("uuidv4 vs bigint: %+v", back)
	}
	if v := g[2].VsPrevious; v.Key != "bigint" || v.Significant || v.TooFew {
		t.Errorf("uuidv7 vs bigint: %+v", v)
	}
}

// TestGroupsCompareWithinRounds: keys that ran their rounds together are
// compared within them, so a machine whose speed swings from round to
// round (the same for both keys) hides no 10% difference; keys whose rounds
// do not line up are compared by ranks, where the swing drowns it.
func TestGroupsCompareWithinRounds(t *testing.T) {
	speed := []float64{0.6, 1.4, 0.8, 1.2, 1.0, 0.7, 1.3, 0.9, 1.1, 1.0}
	jitter := []float64{1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.0}
	run := func(shiftB int) []results.Group {
		r := &results.Results{SchemaVersion: results.SchemaVersion, Cells: []results.Cell{
			{Key: "uuidv4", Workload: "insert", Clients: 8, Status: results.StatusOK},
			{Key: "bigint", Workload: "insert", Clients: 8, Status: results.StatusOK}}}
		for i, s := range speed {
			r.Cells[0].Rounds = append(r.Cells[0].Rounds, results.Round{Round: i + 1, Rate: 1000 * s})
			r.Cells[1].Rounds = append(r.Cells[1].Rounds, results.Round{Round: i + 1 + shiftB, Rate: 1100 * s * jitter[i]})
		}
		return Analyze(r).Groups
	}
	v := run(0)[1].Compared[0] // bigint over uuidv4, round by round
	if v.Test != stats.TestBlocked || !v.Significant || v.N != 10 || math.Abs(v.Effect-1.1) > 0.01 || v.Lo <= 1 {
		t.Errorf("within rounds: %+v", v)
	}
	v = run(10)[1].Compared[0] // no round in common
	if v.Test != stats.TestMannWhitney || v.Significant {
		t.Errorf("rounds that do not line up: %+v", v)
	}
}

// FuzzAnalyze reads truncated, corrupted and hostile results files as
// 'keybench report' and 'compare' do, with the analysis they hold or
// make: an error is fine, a panic is not, and what is read writes back.
func FuzzAnalyze(f *testing.F) {
	resultstest.AddSeeds(f, "../results/testdata")
	f.Add([]byte(`{"schema_version":2,"cells":[{"status":"ok"}],"analysis":{"version":1,"groups":[{"cells":[7]}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b, "fuzz", all.Kinds())
		if err != nil {
			return
		}
		if err := r.Analysis.Check(len(r.Cells)); err != nil {
			t.Fatalf("an analysis that does not hold: %v", err)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("a parsed file does not write back: %v", err)
		}
	})
}

// TestSeedsAnalyse: every stored quick run reads into groups.
func TestSeedsAnalyse(t *testing.T) {
	files, _ := filepath.Glob("../results/testdata/*.json")
	for _, p := range files {
		r, err := Read(p, all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Analysis.Groups) == 0 || len(r.Analysis.Shapes) == 0 {
			t.Errorf("%s: no groups", p)
		}
	}
}
