package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/verdict/verdicttest"
)

// twoKeys is a run of two keys in the same n rounds: each round's work
// (CPU per transaction, priced 1:1) and WAL per transaction, with noise.
func twoKeys(n int, workA, workB, walA, walB float64, seed uint64) *results.Results {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := &results.Results{SchemaVersion: results.SchemaVersion, Status: results.StatusOK, Environment: results.Environment{ServerVersion: "18.6"}}
	for k, key := range []string{"bigint", "uuidv4"} {
		work, wal := []float64{workA, workB}[k], []float64{walA, walB}[k]
		c := results.Cell{Key: key, Workload: "insert", Clients: 8, RowsBefore: 1000, Status: results.StatusOK, Txns: 1000, DurationS: 1}
		for i := 0; i < n; i++ {
			noise := func() float64 { return 1 + 0.05*rng.NormFloat64() }
			c.Rounds = append(c.Rounds, results.Round{Round: i + 1, Rate: 1000 * noise(), Txns: 1000,
				Cost: &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(work * noise()), WALBytes: results.Of(wal * noise())}})
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// TestTheAnswerSaysWhatToChoose (issue 62): the analysis' answer names
// the key of least work, the costliest key's work over it with its
// interval, and, apart, a key whose WAL its own family found above the
// least's even where the work did not differ; two keys alike are each
// not found to write more WAL.
func TestTheAnswerSaysWhatToChoose(t *testing.T) {
	a := Analyze(twoKeys(8, 0.2, 0.3, 1000, 9000, 1))
	ans := a.Answer
	if ans == nil || ans.Choose[0] != "bigint" || ans.Costliest != "uuidv4" || ans.Work == nil || ans.Work.Ratio < 1.3 {
		t.Fatalf("answer %+v", ans)
	}
	if len(ans.WALMore) != 1 || ans.WALMore[0].Key != "uuidv4" || ans.WALMore[0].Ratio.Ratio < 8 || ans.WALLeast != "bigint" {
		t.Errorf("the WAL family: %+v", ans.WALMore)
	}
	for _, want := range []string{"Choose bigint (least work).", "Costlier: uuidv4 1.", "WAL over bigint's: uuidv4 "} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("the answer %q lacks %q", ans.Text, want)
		}
	}
	// The same work, nine times the WAL: the WAL is said, the work not, and
	// with nothing told apart no key is chosen (none is ranked).
	ans = Analyze(twoKeys(8, 0.2, 0.2, 1000, 9000, 2)).Answer
	if ans == nil || ans.Costliest != "" || len(ans.WALMore) != 1 || !strings.Contains(ans.Text, "No key was shown to do more work than another: bigint and uuidv4 not told apart") ||
		strings.Contains(ans.Text, "Choose") {
		t.Errorf("same work, more WAL: %+v", ans)
	}
	// Alike in both: the WAL family names one above the other in at most
	// its error rate of runs (5%; 8% bounds 400 runs' count at 99%).
	named, runs := 0, 400
	for seed := uint64(100); seed < uint64(100+runs); seed++ {
		a := Analyze(twoKeys(8, 0.2, 0.2, 1000, 1000, seed))
		if v := a.Groups[1].WAL.Versus(a.Groups[0].Key); v == nil || v.Significant {
			named++
		}
	}
	t.Logf("alike keys: the WAL family named a key in %d of %d runs", named, runs)
	if float64(named)/float64(runs) > 0.08 {
		t.Errorf("alike keys: the WAL family named a key in %d of %d runs, above its 5%% error rate", named, runs)
	}
}

// TestEachAgainstTheReference (issue 64): a question asked against a
// reference (ids: bigint) tests each key against it alone — no other pair
// is compared — anchors every ratio there, and answers against it: a key
// cheaper than the reference is chosen, a costlier one named "costlier
// than bigint".
func TestEachAgainstTheReference(t *testing.T) {
	order := []string{"uuidv4", "ulid", "uuidv7", "bigint"}
	res := verdicttest.KeysOf(8, map[string]float64{"uuidv4": 0.3, "ulid": 0.2, "uuidv7": 0.2, "bigint": 0.2}, order, 3)
	res.Plan.Against = "bigint"
	a := Analyze(res)
	sh := a.Shapes[0]
	if !sh.Against || sh.Least != "bigint" {
		t.Fatalf("the shape's anchor %q (against %v)", sh.Least, sh.Against)
	}
	for _, g := range a.Groups {
		want := 1
		if g.Key == "bigint" {
			want = len(order) - 1
		}
		if len(g.Compared) != want || len(g.Cost.Compared) != want {
			t.Errorf("%s compared with %d rates and %d works, want %d each", g.Key, len(g.Compared), len(g.Cost.Compared), want)
		}
	}
	if ans := a.Answer; !strings.Contains(ans.Text, "Choose bigint (the question's reference") || !strings.Contains(ans.Text, "Costlier than bigint: uuidv4 1.") {
		t.Errorf("the answer: %s", ans.Text)
	}
	res = verdicttest.KeysOf(8, map[string]float64{"uuidv4": 0.3, "ulid": 0.14, "uuidv7": 0.2, "bigint": 0.2}, order, 4)
	res.Plan.Against = "bigint"
	if ans := Analyze(res).Answer; ans.Choose[0] != "ulid" || !strings.Contains(ans.Text, "Choose ulid (less work than bigint, the question's reference: ulid 0.") {
		t.Errorf("a key cheaper than the reference: %s", ans.Text)
	}
}
