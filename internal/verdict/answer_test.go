package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
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
	if ans == nil || ans.Choose != "bigint" || ans.Rule != "only" || ans.Costliest != "uuidv4" || ans.Work == nil || ans.Work.Ratio < 1.3 {
		t.Fatalf("answer %+v", ans)
	}
	if len(ans.WALMore) != 1 || ans.WALMore[0].Key != "uuidv4" || ans.WALMore[0].Ratio.Ratio < 8 || ans.WALLeast != "bigint" {
		t.Errorf("the WAL family: %+v", ans.WALMore)
	}
	for _, want := range []string{"Choose bigint: every other key was shown to do more work.", "Avoid: uuidv4 1.", "More WAL: uuidv4 "} {
		if !strings.Contains(ans.Text, want) {
			t.Errorf("the answer %q lacks %q", ans.Text, want)
		}
	}
	// The same work, nine times the WAL: the two are one group on work,
	// and the WAL, a fact measured apart, chooses bigint, said as such.
	ans = Analyze(twoKeys(8, 0.2, 0.2, 1000, 9000, 2)).Answer
	if ans == nil || ans.Costliest != "" || len(ans.WALMore) != 1 || !strings.Contains(ans.Text, "bigint and uuidv4: no difference in work found") ||
		ans.Choose != "bigint" || ans.Rule != "wal_bytes_per_txn" || !strings.Contains(ans.Text, "Choose bigint: its WAL is the least (") {
		t.Errorf("same work, more WAL: %+v", ans)
	}
	// The same work and WAL: one group, no key chosen, nothing avoided.
	ans = Analyze(twoKeys(8, 0.2, 0.2, 1000, 1000, 3)).Answer
	if ans == nil || ans.Choose != "" || len(ans.Group) != 2 || strings.Contains(ans.Text, "Choose") || strings.Contains(ans.Text, "Avoid") {
		t.Errorf("alike keys: %+v", ans)
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
	if ans := a.Answer; !strings.Contains(ans.Text, "ulid, uuidv7 and bigint: ") || !strings.Contains(ans.Text, "of bigint's, the question's reference") ||
		!strings.Contains(ans.Text, "Costlier than bigint: uuidv4 1.") || ans.Choose != "" {
		t.Errorf("the answer: %s", ans.Text)
	}
	res = verdicttest.KeysOf(8, map[string]float64{"uuidv4": 0.3, "ulid": 0.14, "uuidv7": 0.2, "bigint": 0.2}, order, 4)
	res.Plan.Against = "bigint"
	if ans := Analyze(res).Answer; ans.Choose != "ulid" || !strings.Contains(ans.Text, "Choose ulid: it does less work than bigint, the question's reference (0.") {
		t.Errorf("a key cheaper than the reference: %s", ans.Text)
	}
}

// keysNoisy is KeysOf with noise of its own (a share a round) and each
// key's key index bytes per row after its rounds (none where 0).
func keysNoisy(n int, work map[string]float64, order []string, noise float64, indexPerRow map[string]float64, seed uint64) *results.Results {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := &results.Results{SchemaVersion: results.SchemaVersion, Status: results.StatusOK, Environment: results.Environment{ServerVersion: "18.6"}}
	for _, key := range order {
		c := results.Cell{Key: key, Workload: "insert", Clients: 8, RowsBefore: 1_000_000, Status: results.StatusOK, Txns: 1000, DurationS: 1}
		if b := indexPerRow[key]; b > 0 {
			c.Metrics.KeyIndexBytes = results.Of(int64(b * 1_000_000))
		}
		for i := 0; i < n; i++ {
			f := func() float64 { return 1 + noise*rng.NormFloat64() }
			c.Rounds = append(c.Rounds, results.Round{Round: i + 1, Rate: 1000 * f(), Txns: 1000,
				Cost: &results.RoundCost{Txns: 1000, ServerAllCPUMS: results.Of(work[key] * f()), WALBytes: results.Of(1000 * f())}})
		}
		r.Cells = append(r.Cells, c)
	}
	return r
}

// TestAGroupIsSaidAsAGroup (issue 74): keys the rounds could not tell
// apart are one group, said together with the span of their intervals,
// never the least of them alone; the key index per row, a fact measured
// apart, chooses bigint among them (said as that fact), whichever key's
// work came out least; keys shown costlier are what to avoid.
func TestAGroupIsSaidAsAGroup(t *testing.T) {
	order := []string{"uuidv4", "uuidv7", "ulid", "bigint"}
	work := map[string]float64{"uuidv4": 0.3, "uuidv7": 0.2, "ulid": 0.2, "bigint": 0.2}
	index := map[string]float64{"uuidv4": 40, "uuidv7": 30, "ulid": 30.5, "bigint": 21}
	leasts := map[string]int{}
	for seed := uint64(1); seed <= 30; seed++ {
		a := Analyze(keysNoisy(8, work, order, 0.05, index, seed))
		ans := a.Answer
		leasts[a.Shapes[0].Least]++
		if ans.Choose != "bigint" || ans.Rule != "key_index_bytes_per_row" {
			t.Fatalf("seed %d: chose %q by %q: %s", seed, ans.Choose, ans.Rule, ans.Text)
		}
		if !strings.Contains(ans.Text, "Choose bigint: its key index is the smallest (20.0 vs 28.6–29.1 MiB a million rows)") ||
			!strings.Contains(ans.Text, "Avoid: uuidv4 ") || strings.Contains(ans.Text, "(least work)") {
			t.Errorf("seed %d: %s", seed, ans.Text)
		}
		for _, k := range ans.Group {
			if k.Key == "uuidv4" {
				t.Errorf("seed %d: the costlier key in the group: %s", seed, ans.Text)
			}
		}
	}
	t.Logf("the least work came out at %v over 30 runs; the answer chose bigint in each", leasts)
	// Alike index sizes: no fact sets a key apart, none is chosen, the
	// group is said with the facts that did not.
	ans := Analyze(keysNoisy(8, work, order, 0.05, map[string]float64{"uuidv4": 40, "uuidv7": 30, "ulid": 30.5, "bigint": 29}, 1)).Answer
	if ans.Choose != "" || ans.Rule != "none" || !strings.Contains(ans.Text, "No measured fact sets one of them apart (their key indexes 27.7–29.1 MiB; their WAL") {
		t.Errorf("alike indexes: %+v", ans)
	}
}

// TestTheSameInPractice (issue 74): a difference shown whose interval lies
// inside the ±5% margin is the same in practice: never "costlier", never a
// reason to choose.
func TestTheSameInPractice(t *testing.T) {
	res := keysNoisy(8, map[string]float64{"a": 1, "b": 1.02}, []string{"a", "b"}, 0.002, nil, 5)
	a := Analyze(res)
	v := a.Groups[1].Cost.Versus("a")
	if v == nil || v.Significant || !v.Equivalent() || v.Margin != 0.05 {
		t.Fatalf("b's work over a's: %+v", v)
	}
	ans := a.Answer
	if len(ans.Costlier) != 0 || len(ans.Group) != 2 || ans.Choose != "" || !strings.Contains(ans.Text, "the same in practice (within 5%)") {
		t.Errorf("the answer: %+v", ans)
	}
}

// TestAnIntervalThatSaysNothing (issue 74): an interval spanning a
// hundredfold or more is said in words, in the answer and wherever a ratio's
// interval is written.
func TestAnIntervalThatSaysNothing(t *testing.T) {
	i := stats.Interval{Lo: 0.0004, Hi: 6222, Level: 0.999}
	if got := i.RatioText(); strings.Contains(got, "6,222") || !strings.Contains(got, "undecided: spans") {
		t.Errorf("an interval of 0.0004–6,222: %q", got)
	}
	res := keysNoisy(3, map[string]float64{"a": 1, "b": 1}, []string{"a", "b"}, 2.5, nil, 9)
	for i := range res.Cells {
		for j := range res.Cells[i].Rounds {
			c := res.Cells[i].Rounds[j].Cost
			v, _ := c.ServerAllCPUMS.Get()
			c.ServerAllCPUMS = results.Of(max(0.001, v))
		}
	}
	ans := Analyze(res).Answer
	if ans != nil && ans.Span != nil && ans.Span.Uninformative() && (!strings.Contains(ans.Text, "varied too much to say") || strings.Contains(ans.Text, "each within")) {
		t.Errorf("a span that says nothing: %s", ans.Text)
	}
}

// TestABudgetThatEndsTheRoundsSaysSo (issue 74): a budget that ended the
// rounds before the planned ones, with pairs open, leads the answer.
func TestABudgetThatEndsTheRoundsSaysSo(t *testing.T) {
	res := keysNoisy(3, map[string]float64{"a": 0.2, "b": 0.22}, []string{"a", "b"}, 0.1, nil, 11)
	for i := range res.Cells {
		res.Cells[i].BudgetStop = &results.BudgetStop{Rounds: 3, Planned: 8, Most: 16, RoundS: 13, BudgetS: 106}
	}
	ans := Analyze(res).Answer
	if !strings.HasPrefix(ans.Text, "Undecided: the budget of 1m46s ended the rounds at 3 of the design's 16 (a round of every key took 13s on this machine); --budget 4m") {
		t.Errorf("the answer: %s", ans.Text)
	}
}

// TestAnAATestNamesNothing (issue 74): four tables of one key: nothing
// costlier, no key chosen, over many runs.
func TestAnAATestNamesNothing(t *testing.T) {
	order := []string{"bigint", "bigint#2", "bigint#3", "bigint#4"}
	work := map[string]float64{"bigint": 0.2, "bigint#2": 0.2, "bigint#3": 0.2, "bigint#4": 0.2}
	index := map[string]float64{"bigint": 21, "bigint#2": 21.2, "bigint#3": 20.9, "bigint#4": 21.1}
	named := 0
	for seed := uint64(1); seed <= 200; seed++ {
		ans := Analyze(keysNoisy(8, work, order, 0.05, index, seed)).Answer
		if len(ans.Costlier) > 0 || ans.Choose != "" {
			named++
		}
	}
	if named > 12 { // 5% of 200, and its noise
		t.Errorf("an A/A run named a key in %d of 200", named)
	}
}
