package projection

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestCheckTheStoredScaleRun (issue 50): project --check on the stored
// scale run projects its largest scale (16M rows over 128 MB) from the two
// smaller ones alone: a row per key and figure (work and rate over
// bigint's, and each key's counts: WAL, images, blocks read, CPU, index
// bytes per row, leaf density), each with its interval and level and the
// measurement, and at least 80% of them hold the measurement; the work rows are the ones the
// projection itself prints (Project on the same subset).
func TestCheckTheStoredScaleRun(t *testing.T) {
	full, err := verdict.Parse(resultstest.ReadGzip(t, "testdata/scale.json.gz"), "scale", all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := CheckScales(full, 0, verdict.Analyze)
	if err != nil {
		t.Fatal(err)
	}
	inside, counted := 0, 0
	figures := map[string]int{}
	for _, r := range rows {
		t.Logf("%s rows: %s %s over %s: projected %.2f [%.2f–%.2f, %.3g] from %v; measured %.2f; inside %v %s",
			results.Thousands(r.Rows), r.Key, r.Figure, r.Against, r.Predicted, r.Lo, r.Hi, r.Level, r.From, r.Measured, r.Inside, r.Unavailable)
		if r.Rows != full.Plan.Rows[len(full.Plan.Rows)-1] || len(r.From) != 2 {
			t.Errorf("a row of %d rows projected from %v: the run's largest scale from its two smaller ones is the only check", r.Rows, r.From)
		}
		figures[r.Figure]++
		if r.Unavailable == "" {
			counted++
			if r.Inside {
				inside++
			}
		}
	}
	if figures["work"] != 2 || figures["rate"] != 2 {
		t.Errorf("checked figures %v, want work and rate for uuidv4 and uuidv7", figures)
	}
	for _, f := range countFigures {
		if figures[f.name] != 3 {
			t.Errorf("checked figures %v, want %s for each of the three keys", figures, f.name)
		}
	}
	if counted == 0 || float64(inside) < 0.8*float64(counted) {
		t.Errorf("%d of %d checked figures inside their interval, want at least 80%%", inside, counted)
	}
	if _, err := CheckScales(full, 999, verdict.Analyze); err == nil {
		t.Error("a check at a client count the run never measured passed")
	}
}

// TestPooledLevelCoverage (issue 50): the scale preset measures one index
// over cache at several scales, pooled into one level; simulated from a
// known level with the per-round noise the stored scale run measured
// (each scale's rounds of uuidv4's and uuidv7's work over bigint's), five
// rounds a scale and two scales pooled as a check pools them, the printed
// 95% interval holds the level in 93–97% of runs — its points' errors
// counted once, the scales' scatter not added a second time.
func TestPooledLevelCoverage(t *testing.T) {
	full, err := verdict.Parse(resultstest.ReadGzip(t, "testdata/scale.json.gz"), "scale", all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	// The measured noise: each scale's per-round log ratio's spread.
	var sigmas []float64
	work := func(c *results.Cell, round int) float64 {
		v, _ := verdict.WorkOf(c.Rounds[round].Cost, verdict.DeviceOf(full)).Get()
		return v
	}
	for _, key := range []string{"uuidv4", "uuidv7"} {
		for _, rows := range full.Plan.Rows {
			var mine, ref *results.Cell
			for i := range full.Cells {
				c := &full.Cells[i]
				if c.RowsBefore == rows && c.Key == key {
					mine = c
				}
				if c.RowsBefore == rows && c.Key == "bigint" {
					ref = c
				}
			}
			var logs []float64
			for r := range min(len(mine.Rounds), len(ref.Rounds)) {
				if a, b := work(mine, r), work(ref, r); a > 0 && b > 0 {
					logs = append(logs, math.Log(a/b))
				}
			}
			sigmas = append(sigmas, sd(logs))
		}
	}
	t.Logf("measured per-round noise of the work ratio: %.3f", sigmas)
	const trials, rounds = 4000, 5
	rng := rand.New(rand.NewPCG(50, 3))
	truth := math.Log(2.5)
	covered := 0
	q := stats.TQuantile(0.975, rounds-1)
	for range trials {
		var ps []Point
		for range 2 {
			sigma := sigmas[rng.IntN(len(sigmas))]
			xs := make([]float64, rounds)
			for j := range xs {
				xs[j] = truth + sigma*rng.NormFloat64()
			}
			m, se := mean(xs), sd(xs)/math.Sqrt(rounds)
			ps = append(ps, Point{Ratio: 4, Relative: math.Exp(m), Interval: stats.Interval{Lo: math.Exp(m - q*se), Hi: math.Exp(m + q*se), Level: 0.95}, se: se, df: rounds - 1})
		}
		p := pool(ps)
		if len(p) != 1 {
			t.Fatalf("two points at one ratio pooled into %d", len(p))
		}
		if p[0].Lo <= math.Exp(truth) && math.Exp(truth) <= p[0].Hi {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("the pooled level's 95%% interval held the level in %.1f%% of %d simulated scale runs", 100*rate, trials)
	if rate < 0.93 || rate > 0.97 {
		t.Errorf("coverage %.1f%%, want 93–97%%", 100*rate)
	}
	// Two scales that disagree far beyond their noise (2.0× and 3.0×,
	// each ±2%): the level is not known better than their disagreement,
	// and the interval holds both.
	two := []Point{{Ratio: 4, Relative: 2, se: 0.01, df: 4}, {Ratio: 4.2, Relative: 3, se: 0.01, df: 4}}
	if p := pool(two); p[0].Lo > 2 || p[0].Hi < 3 {
		t.Errorf("a drifting level pooled into [%.2f–%.2f], holding neither scale's measurement", p[0].Lo, p[0].Hi)
	}
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func sd(v []float64) float64 {
	m, s := mean(v), 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}

// TestPredictNewCoverage: a figure measured once a scale (the key index's
// bytes per row, its leaf density) is projected by the t prediction
// interval of one more scale from the smaller ones; drawn from a known
// distribution, two scales and three, the printed 95% holds the next
// scale's value 95% of the time (within 3 standard errors of 20,000 draws).
func TestPredictNewCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 2))
	const runs = 20_000
	for _, k := range []int{2, 3} {
		held := 0
		for range runs {
			logs := make([]float64, k)
			for i := range logs {
				logs[i] = math.Log(40) + 0.03*rng.NormFloat64()
			}
			_, lo, hi, why := predictNew(logs)
			if why != "" {
				t.Fatal(why)
			}
			if next := 40 * math.Exp(0.03*rng.NormFloat64()); next >= lo && next <= hi {
				held++
			}
		}
		got, se := float64(held)/runs, math.Sqrt(0.95*0.05/runs)
		t.Logf("%d scales: the printed 95%% held the next scale in %.2f%%", k, 100*got)
		if math.Abs(got-0.95) > 3*se {
			t.Errorf("%d scales: the printed 95%% held the next scale in %.2f%% of %d runs", k, 100*got, runs)
		}
	}
}

// TestCountLevelCoverage: a count measured in rounds at two smaller scales
// (five rounds each, each round's noise 12% as uuidv4's WAL per
// transaction in the stored scale run) and projected to a larger one
// through a model that holds: the printed 95% holds the level 95% of the
// time, and where a measurement there should fall holds that scale's own
// five-round mean 95% of the time (each within 3 standard errors).
func TestCountLevelCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 3))
	const runs, rounds, level, noise = 4000, 5, 0.11, 0.12
	cpu := countFigures[3]
	if cpu.name != "server_all_cpu_ms_per_txn" {
		t.Fatalf("figure 3 is %s", cpu.name)
	}
	scale := func(rows int64) countScale {
		c := &results.Cell{Key: "k", RowsBefore: rows}
		for range rounds {
			v := level * math.Exp(noise*rng.NormFloat64())
			c.Rounds = append(c.Rounds, results.Round{Cost: &results.RoundCost{ServerCPUMS: results.Of(v)}})
		}
		return countScale{rows: rows, cells: []*results.Cell{c}}
	}
	held, fell := 0, 0
	for range runs {
		to := scale(16_000_000)
		v, lo, hi, p, why := cpu.project([]countScale{scale(250_000), scale(4_000_000)}, to)
		if why != "" {
			t.Fatal(why)
		}
		if level >= lo && level <= hi {
			held++
		}
		mean, se, df, _ := cpu.measuredLevel(to)
		c := CheckRow{Predicted: v, Interval: stats.Interval{Lo: lo, Hi: hi, Level: 0.95}, Measured: mean}
		c.predict([]Point{p}, stats.Comparison{SE: se, DF: df})
		if c.settle().Inside {
			fell++
		}
	}
	for what, n := range map[string]int{"the level": held, "the larger scale's measurement": fell} {
		got, se := float64(n)/runs, math.Sqrt(0.95*0.05/runs)
		t.Logf("the printed 95%% held %s in %.1f%%", what, 100*got)
		if math.Abs(got-0.95) > 3*se {
			t.Errorf("the printed 95%% held %s in %.1f%% of %d runs", what, 100*got, runs)
		}
	}
}
