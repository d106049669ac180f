package runner

import (
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// The false-winner simulation of the program itself (issue 48): a run of
// equal keys is made of noise resampled from stored runs, and decided by
// the runner's own early stop (run.decide) and then verdict.Analyze, as a
// real run is; a false winner is any pair the analysis names different,
// on the rates or on the work.
//
// The noise is what this project's stored runs measured (testdata/noise:
// war alone, beside a CPU busy loop and beside an IO hog, an A/A of four
// bigint tables): each key's per-round residuals of log rate and log work
// after the key's and the round's effects are taken out, scaled back to
// the noise they stand for (a residual of k keys × b rounds has
// (k−1)(b−1)/(kb) of it). A simulated key draws one stored key's
// residuals, in their order from a random start (their carry-over from one
// round to the next kept), its rate's and its work's from the same round
// (their correlation kept); a simulated round draws one stored round's
// effect on every key's rate and work.

// keyNoise is one stored key's residuals, round by round: log rate and
// log work.
type keyNoise struct{ rate, work []float64 }

// storedNoise reads the stored runs' residuals and round effects.
type storedNoise struct {
	keys   []keyNoise
	rounds [][2]float64 // a round's effect on every key's log rate and log work
	corr   float64      // the residuals' correlation of rate and work
}

func readNoise(t *testing.T) *storedNoise {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "noise", "*.json.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no stored runs in testdata/noise: %v", err)
	}
	n := &storedNoise{}
	for _, f := range files {
		res := readStored(t, f)
		byTask := map[string][]int{}
		for i, c := range res.Cells {
			if c.Status == results.StatusOK && len(c.Rounds) >= stats.MinBlocks {
				byTask[c.Task()] = append(byTask[c.Task()], i)
			}
		}
		for _, idx := range byTask {
			rates, costs := verdict.Layouts(res.Cells, idx, len(res.Cells[idx[0]].Rounds), verdict.DeviceOf(res))
			if len(idx) < 2 || rates == nil || costs == nil {
				continue
			}
			n.add(rates, costs)
		}
	}
	if len(n.keys) < 6 {
		t.Fatalf("the stored runs give %d keys' residuals, want 6 or more", len(n.keys))
	}
	var rs, ws []float64
	for _, k := range n.keys {
		rs, ws = append(rs, k.rate...), append(ws, k.work...)
	}
	n.corr = pearson(rs, ws)
	return n
}

func readStored(t *testing.T, path string) *results.Results {
	t.Helper()
	res, err := results.Parse(resultstest.ReadGzip(t, path), path, all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// add takes a task's two-way residuals (log scale) and round effects.
func (n *storedNoise) add(rates, costs [][]float64) {
	lr, lw := logs(rates), logs(costs)
	er, rr := twoWay(lr)
	ew, rw := twoWay(lw)
	for i := range er {
		n.keys = append(n.keys, keyNoise{rate: er[i], work: ew[i]})
	}
	for j := range rr {
		n.rounds = append(n.rounds, [2]float64{rr[j], rw[j]})
	}
}

func logs(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for i := range x {
		for _, v := range x[i] {
			out[i] = append(out[i], math.Log(v))
		}
	}
	return out
}

// twoWay splits y[key][round] into residuals (scaled to the noise of one
// figure) and the rounds' effects.
func twoWay(y [][]float64) (res [][]float64, round []float64) {
	k, b := len(y), len(y[0])
	grand, keyMean, roundMean := 0.0, make([]float64, k), make([]float64, b)
	for i := range y {
		for j, v := range y[i] {
			keyMean[i] += v / float64(b)
			roundMean[j] += v / float64(k)
			grand += v / float64(k*b)
		}
	}
	scale := math.Sqrt(float64(k*b) / float64((k-1)*(b-1)))
	res = make([][]float64, k)
	for i := range y {
		for j, v := range y[i] {
			res[i] = append(res[i], scale*(v-keyMean[i]-roundMean[j]+grand))
		}
	}
	for j := range roundMean {
		round = append(round, roundMean[j]-grand)
	}
	return res, round
}

func pearson(x, y []float64) float64 {
	mx, my := mean(x), mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// cells are k keys' rounds of a simulated run, key 0's work ×(1+more)
// and its rate ÷(1+more), every key at 1,000 transactions a second and
// 0.5 ms of work per transaction before the noise.
func (n *storedNoise) cells(rng *rand.Rand, k, rounds int, more float64) []results.Cell {
	effect := make([][2]float64, rounds)
	for j := range effect {
		effect[j] = n.rounds[rng.IntN(len(n.rounds))]
	}
	out := make([]results.Cell, k)
	for i := range out {
		src := n.keys[rng.IntN(len(n.keys))]
		start := rng.IntN(len(src.rate))
		shift := 0.0
		if i == 0 {
			shift = math.Log1p(more)
		}
		c := results.Cell{Key: keyName(i), Workload: "insert", Clients: 8, Status: results.StatusOK}
		for j := range rounds {
			at := (start + j) % len(src.rate)
			rate := 1000 * math.Exp(effect[j][0]+src.rate[at]-shift)
			work := 0.5 * math.Exp(effect[j][1]+src.work[at]+shift)
			c.Rounds = append(c.Rounds, results.Round{Round: j + 1, Rate: rate, Txns: int64(rate * 10),
				Cost: &results.RoundCost{Txns: int64(rate * 10), ServerAllCPUMS: results.Of(work)}})
		}
		out[i] = c
	}
	return out
}

func keyName(i int) string { return string(rune('a'+i%26)) + string(rune('0'+i/26)) }

// decideRun runs a simulated run through the runner's early stop (when
// the layout has its designs) and the analysis, and says whether any pair
// was named different and whether key 0 was named costlier on work than
// every other.
func decideRun(all []results.Cell, plan *scenario.Experiment, rounds int) (anyWinner, found bool) {
	a := analyzeRun(all, plan, rounds)
	found = true
	// What the family asks of the costlier key 0: costlier than every other
	// key (every pair), or than the least (each key against the least).
	least, leastMean := plan.Against, 0.0
	if plan.CostSequential != nil && plan.CostSequential.Family == stats.FamilyBest {
		for _, g := range a.Groups {
			if g.Cost != nil && g.Key != keyName(0) && (least == "" || g.Cost.Mean < leastMean) {
				least, leastMean = g.Key, g.Cost.Mean
			}
		}
	}
	for _, g := range a.Groups {
		for _, v := range g.Compared {
			anyWinner = anyWinner || v.Comparison.Significant
		}
		if g.Cost == nil {
			found = false
			continue
		}
		for _, v := range g.Cost.Compared {
			anyWinner = anyWinner || v.Comparison.Significant
			if g.Key == keyName(0) && (least == "" || v.Key == least) && !(v.Comparison.Significant && v.Comparison.Effect > 1) {
				found = false
			}
		}
	}
	return anyWinner, found
}

// analyzeRun is a simulated run's analysis after the runner's early stop.
func analyzeRun(all []results.Cell, plan *scenario.Experiment, rounds int) *results.Analysis {
	done := rounds
	if plan.Sequential != nil {
		r := &run{cfg: Config{Plan: plan}, ui: NewUI(io.Discard), res: &results.Results{}}
		most := plan.CostSequential.MaxRounds
		crs := make([]*cellRun, len(all))
		for i := range crs {
			crs[i] = &cellRun{}
		}
		for done = 1; done <= most; done++ {
			cs := upTo(all, done)
			if !r.decide(crs, cs, make([]error, len(cs)), done, rounds, map[string]bool{}, time.Now()) {
				break
			}
		}
		done = min(done, most)
	}
	res := &results.Results{Cells: upTo(all, done), Plan: results.Plan{Rounds: rounds, Sequential: plan.Sequential, CostSequential: plan.CostSequential, Against: plan.Against}}
	return verdict.Analyze(res)
}

// upTo is the cells with their first n rounds.
func upTo(all []results.Cell, n int) []results.Cell {
	out := make([]results.Cell, len(all))
	for i, c := range all {
		c.Rounds = c.Rounds[:n]
		out[i] = c
	}
	return out
}

// TestTheProgramKeepsItsFalseWinnerRate (issue 48): every layout a preset
// decides — stats.FixedLayouts (ids' 22 keys × 5 rounds among them) with
// Holm over the rates and the work, stats.SequentialLayouts with the
// rates' and the work's designs stopping the rounds — names a winner among
// equal keys in at most 5.0% of runs, the estimate itself at or below 5%
// (its standard error is printed, not added); with the power to find a
// key doing 10% and 25% more work than every other printed beside it.
func TestTheProgramKeepsItsFalseWinnerRate(t *testing.T) {
	n := readNoise(t)
	t.Logf("noise from %d stored keys, %d rounds: rate and work residuals correlated %.2f", len(n.keys), len(n.rounds), n.corr)
	trials := 1000
	if testing.Short() {
		trials = 300
	}
	type layout struct {
		keys, rounds int
		plan         *scenario.Experiment
	}
	var layouts []layout
	for _, l := range stats.FixedLayouts {
		layouts = append(layouts, layout{l.Keys, l.Rounds, &scenario.Experiment{Budget: time.Hour}})
		// Each against a reference (ids, growth, scale: bigint), the last key.
		layouts = append(layouts, layout{l.Keys, l.Rounds, &scenario.Experiment{Budget: time.Hour, Against: keyName(l.Keys - 1)}})
	}
	for _, l := range stats.SequentialLayouts {
		for _, family := range []string{stats.FamilyBest, stats.FamilyPairs} { // the default, and --pairs all
			rate, cost := stats.NewRateDesign(l.Rounds, scenario.DefaultMinEffect), stats.NewCostDesign(l.Rounds, scenario.DefaultMinEffect, family)
			layouts = append(layouts, layout{l.Keys, l.Rounds, &scenario.Experiment{Sequential: &rate, CostSequential: &cost, Budget: time.Hour}})
		}
	}
	for li, l := range layouts {
		rng := rand.New(rand.NewPCG(48, uint64(li)))
		most := l.rounds
		if l.plan.CostSequential != nil {
			most = l.plan.CostSequential.MaxRounds
		}
		rate := func(trials int, more float64) (anyWinner, found float64) {
			var na, nf int
			for range trials {
				a, f := decideRun(n.cells(rng, l.keys, most, more), l.plan, l.rounds)
				if a {
					na++
				}
				if f {
					nf++
				}
			}
			return float64(na) / float64(trials), float64(nf) / float64(trials)
		}
		fw, _ := rate(trials, 0)
		_, p10 := rate(trials/5, 0.10)
		_, p25 := rate(trials/5, 0.25)
		design := "fixed, Holm over both families"
		if l.plan.Against != "" {
			design = "fixed, each against a reference"
		}
		if l.plan.Sequential != nil {
			design = "sequential, pairs: all"
			if l.plan.CostSequential.Family == stats.FamilyBest {
				design = "sequential, pairs: least"
			}
		}
		se := math.Sqrt(stats.Alpha * (1 - stats.Alpha) / float64(trials))
		t.Logf("%-30s %2d keys x %2d rounds: false winners %5.2f%% (±%.2f%%); 10%% more work found in %3.0f%%, 25%% in %3.0f%%",
			design, l.keys, l.rounds, 100*fw, 100*se, 100*p10, 100*p25)
		if fw > stats.Alpha {
			t.Errorf("%s, %d keys x %d rounds: false winners in %.2f%% of runs, above 5%%", design, l.keys, l.rounds, 100*fw)
		}
	}
}

// TestTheAnswerChoosesOnlyWhatWasDecided (issue 74): war's layout (six
// keys, eight rounds, the default designs), five keys alike and key 0
// doing 25% more work, on the stored noise: the answer never chooses key
// 0, and where one key's key index is the smallest by a tenth (as bigint's
// is) it chooses that key in every run, whichever key's work came out
// least; where the indexes are alike it chooses none.
func TestTheAnswerChoosesOnlyWhatWasDecided(t *testing.T) {
	n := readNoise(t)
	rate, cost := stats.NewRateDesign(8, scenario.DefaultMinEffect), stats.NewCostDesign(8, scenario.DefaultMinEffect, stats.FamilyBest)
	plan := &scenario.Experiment{Sequential: &rate, CostSequential: &cost, Budget: time.Hour}
	trials := 300
	if testing.Short() {
		trials = 100
	}
	for _, smallest := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(74, 1))
		chosen, leasts := map[string]int{}, map[string]int{}
		for range trials {
			cells := n.cells(rng, 6, cost.MaxRounds, 0.25)
			for i := range cells {
				per := 30.0
				if i == 1 && smallest {
					per = 21
				}
				cells[i].RowsBefore = 1_000_000
				cells[i].Metrics.KeyIndexBytes = results.Of(int64(per * 1_000_000))
			}
			a := analyzeRun(cells, plan, 8)
			ans := a.Answer
			if ans == nil {
				t.Fatal("no answer")
			}
			chosen[ans.Choose]++
			leasts[a.Shapes[0].Least]++
			if ans.Choose == keyName(0) {
				t.Errorf("the answer chose the costlier key: %s", ans.Text)
			}
		}
		t.Logf("smallest index %v: chosen %v; the least work came out at %v", smallest, chosen, leasts)
		want := ""
		if smallest {
			want = keyName(1)
		}
		if chosen[want] != trials {
			t.Errorf("smallest index %v: chose %v over %d runs, want %q in each", smallest, chosen, trials, want)
		}
	}
}

// TestTheSimulationCanFail: the same runs decided without a correction
// (every pair at 5%) name false winners among 22 keys far above 5%: the
// simulation tells a broken correction.
func TestTheSimulationCanFail(t *testing.T) {
	n := readNoise(t)
	rng := rand.New(rand.NewPCG(48, 99))
	named := 0
	const trials = 200
	for range trials {
		rates, _ := verdict.Layouts(n.cells(rng, 22, 5, 0), seq(22), 5, results.Device{})
		if l, ok := stats.NewBlocks(rates); ok && anyUncorrected(l, 22) {
			named++
		}
	}
	if named < trials/4 {
		t.Errorf("without a correction, 22 keys named a false winner in %d of %d runs; the simulation cannot tell a broken correction", named, trials)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// anyUncorrected says whether any pair of k keys differs at 5%, uncorrected.
func anyUncorrected(l *stats.Blocks, k int) bool {
	for a := range k {
		for b := a + 1; b < k; b++ {
			if l.Compare(a, b).P < stats.Alpha {
				return true
			}
		}
	}
	return false
}
