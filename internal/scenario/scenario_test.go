package scenario

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/workload"
)

func TestPlanInterleavesRepeats(t *testing.T) {
	specs, _ := keys.ParseList("bigint,uuidv4")
	p := Params{Workload: "insert", Clients: []int{16, 32}, Rows: []int64{0}, Repeat: 2}
	var got []string
	tasks, err := p.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	cells, _ := cellsOf(p, tasks, specs)
	for _, c := range cells {
		got = append(got, c.Key.Raw+"/"+string(rune('0'+c.Repeat)))
	}
	want := "bigint/1 uuidv4/1 bigint/2 uuidv4/2 bigint/1 uuidv4/1 bigint/2 uuidv4/2"
	if strings.Join(got, " ") != want {
		t.Errorf("plan %v, want %s", got, want)
	}
}

func TestPresetsAreValid(t *testing.T) {
	for _, s := range All() {
		for _, quick := range []bool{false, true} {
			p := s.Params(quick)
			withFiles(t, &p)
			if err := p.Validate(); err != nil {
				t.Errorf("%s (quick %v): %v", s.Name, quick, err)
			}
			if _, err := keys.ParseList(strings.Join(p.Keys, ",")); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
		}
	}
	if _, err := Lookup("nosuch"); err == nil || !strings.Contains(err.Error(), "valid: war") {
		t.Errorf("Lookup(nosuch) = %v", err)
	}
}

func TestValidate(t *testing.T) {
	good := Params{Workload: "insert", Clients: []int{1}, Rows: []int64{0}, Duration: time.Second, Repeat: 1}
	for name, mutate := range map[string]func(*Params){
		"zero clients":      func(p *Params) { p.Clients = []int{0} },
		"negative duration": func(p *Params) { p.Duration = -time.Second },
		"negative rows":     func(p *Params) { p.Rows = []int64{5, -1} },
		"unknown workload":  func(p *Params) { p.Workload = "x" },
		"zero repeat":       func(p *Params) { p.Repeat = 0 },
	} {
		p := good
		p.Clients = append([]int(nil), good.Clients...)
		mutate(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
}

// TestTasksExpandReadVariants: a read workload runs in every query kind
// and read distribution asked for (its own, or the plan's lists), a query
// without a parameter in no distribution; an option no workload of the
// plan declares is refused, naming who declares it, and so is an item's
// option its workload lacks.
func TestTasksExpandReadVariants(t *testing.T) {
	for _, tc := range []struct {
		workload       string
		options        map[string]string
		want           string
		wantErrContain string
	}{
		{workload: "lookup", want: "lookup point uniform"},
		{workload: "lookup", options: map[string]string{"query": "point,latest", "read-dist": "uniform,recent"},
			want: "lookup point uniform|lookup point recent|lookup latest"},
		{workload: "lookup:query=range:read-dist=zipf,insert", options: map[string]string{"read-dist": "recent"}, want: "lookup range zipf|insert"},
		{workload: "insert-read:read-by=key", options: map[string]string{"read-dist": "recent"}, want: "insert-read recent"},
		{workload: "insert", options: map[string]string{"query": "point"}, wantErrContain: "--query: no workload of this plan (insert) has the option query (lookup have it)"},
		{workload: "lookup:sort=asc", wantErrContain: `lookup has no option "sort"`},
		{workload: "insert-read", options: map[string]string{"query": "point"}, wantErrContain: "has the option query"},
		{workload: "update", options: map[string]string{"update-indexed": "yes"}, wantErrContain: "true or false"},
		{workload: "insert", options: map[string]string{"batch": "2,3"}, wantErrContain: "takes one value"},
	} {
		p := Params{Workload: tc.workload, Options: tc.options, Clients: []int{1}, Rows: []int64{1000}}
		tasks, err := p.Tasks()
		if tc.wantErrContain != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErrContain) {
				t.Errorf("%s: error %v, want %q", tc.workload, err, tc.wantErrContain)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.workload, err)
		}
		var got []string
		for _, k := range tasks {
			got = append(got, k.Name())
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("%s %v: tasks %v, want %s", tc.workload, tc.options, got, tc.want)
		}
	}
}

// TestBareScenariosComeFromTheRegistry: every registered workload runs
// bare under its name unless a preset has it; a second scenario of one
// name panics at start-up.
func TestBareScenariosComeFromTheRegistry(t *testing.T) {
	for _, m := range workload.All() {
		if _, err := Lookup(m.Name); err != nil {
			t.Errorf("workload %s has no scenario: %v", m.Name, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a second scenario named war did not panic")
		}
	}()
	register(&Scenario{Name: "war"})
}

// TestEstimate: the estimate adds the phases of every cell; a window in
// transactions counts at the assumed rate.
func TestEstimate(t *testing.T) {
	specs, _ := keys.ParseList("bigint,uuidv4")
	p, err := Build(&Scenario{Name: "t"}, Params{Workload: "insert", Clients: []int{8}, Rows: []int64{120_000}, Warmup: 2 * time.Second,
		Duration: 10 * time.Second, Repeat: 1, Rounds: 5, RoundsGiven: true}, specs)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Estimate()
	// Per cell, two at once: a table's fill, its rows at the fill's rate; 10 s of windows after
	// a warm-up that ends once steady in each of 5 rounds, 5 round overheads; the evidence over
	// the rows before and the 30,000 the window adds at the assumed rate; the group's two restarts.
	rows, all := 120_000.0, 150_000.0
	fill := (estFillTable + time.Duration(rows/estFillRowsPerS*float64(time.Second))) / estTogether
	evidence := (estEvidence + time.Duration(all/estEvidenceRowsPerS*float64(time.Second))) / estTogether
	want := estServer + 3*estRestart + 2*(fill+10*time.Second+5*estSteady+5*estRoundOverhead+evidence)
	if e.Total != want || e.Cells != 2 {
		t.Errorf("estimate %v (%d cells), want %v", e.Total, e.Cells, want)
	}
	if !strings.Contains(p.Describe(), "2 cells: bigint, uuidv4 × insert") {
		t.Errorf("describe: %s", p.Describe())
	}
}

// TestEstimateAtTheMeasuredRate: once the run has measured its cells'
// rate, the windows in transactions ahead are counted at it and are not
// paced by the machine's share again (the rate was measured at that pace).
func TestEstimateAtTheMeasuredRate(t *testing.T) {
	specs, _ := keys.ParseList("bigint")
	p, err := Build(&Scenario{Name: "t"}, Params{Workload: "insert", Clients: []int{4}, Rows: []int64{100_000}, Warmup: 2 * time.Second,
		Txns: 3000, Repeat: 1, Rounds: 1, RoundsGiven: true}, specs)
	if err != nil {
		t.Fatal(err)
	}
	windows := func(rate, share float64) time.Duration {
		q := *p
		q.TxnsPerS, q.CPUShare = rate, share
		e := q.Estimate()
		return e.Windows - time.Duration(float64(estSteady+estRoundOverhead)/paceOf(share)) // the window alone
	}
	assumed, measured := windows(0, 0), windows(4*estTxnsPerS, 0)
	if r := float64(assumed) / float64(measured); math.Abs(r-4) > 0.01 {
		t.Errorf("windows at the assumed rate %v, at 4× it %v: %.2f×, want 4×", assumed, measured, r)
	}
	if busy := windows(4*estTxnsPerS, estCPUShare/2); busy != measured {
		t.Errorf("a measured rate paced again on a busy machine: %v, want %v", busy, measured)
	}
}

// TestFillRateFollowsTheKey: once a key has been filled, its next fill is
// expected at its own rate, carried along the power law through its last
// two sizes (scale's uuidv4: 164k rows/s at 250,000 rows, 105k at 4M: 84k
// at 16M, where it ran at 72k — the slowdown grows as the index outgrows
// the fills' cache, the estimate 17% short of it where 200k rows/s was
// 2.8× too fast); another key keeps the assumed rate.
func TestFillRateFollowsTheKey(t *testing.T) {
	p := &Experiment{FillRates: map[string][]FillRate{"uuidv4": {{Rows: 250_000, RowsPerS: 164_356}, {Rows: 4_000_000, RowsPerS: 105_254}}, "bigint": {{Rows: 250_000, RowsPerS: 325_563}}}}
	want := 105_254 * math.Pow(4, math.Log(105_254.0/164_356)/math.Log(16))
	if got := p.fillRate("uuidv4", 16_000_000); math.Abs(got/want-1) > 1e-9 || math.Abs(got/72_249-1) > 0.2 {
		t.Errorf("uuidv4 at 16M rows: %.0f rows/s expected, want %.0f (it ran at 72,249)", got, want)
	}
	if got := p.fillRate("bigint", 4_000_000); got != 325_563 {
		t.Errorf("bigint filled once at 325,563 rows/s: %.0f expected", got)
	}
	if got := p.fillRate("uuidv7", 4_000_000); got != estFillRowsPerS {
		t.Errorf("a key not filled yet: %.0f rows/s, want the assumed %d", got, estFillRowsPerS)
	}
}

// TestFillsBuffered: a fill restarts the server without direct IO from
// BufferedFillRows on, or when its rows outgrow the cache.
func TestFillsBuffered(t *testing.T) {
	for _, c := range []struct {
		rows, cache int64
		want        bool
	}{{BufferedFillRows, 0, true}, {62_500, 512 << 10, true}, {62_500, 0, false}, {62_500, 128 << 20, false}, {5_000, 512 << 10, false}} {
		if got := FillsBuffered(c.rows, c.cache); got != c.want {
			t.Errorf("FillsBuffered(%d rows, %d B) = %v, want %v", c.rows, c.cache, got, c.want)
		}
	}
}

// TestCachesAreTheOuterLoop: with --shared-buffers every cell runs at
// every cache, the cache changing least often (the server restarts once
// per size); sizes below PostgreSQL's 16 buffers are refused.
func TestCachesAreTheOuterLoop(t *testing.T) {
	specs, _ := keys.ParseList("bigint,uuidv4")
	p := Params{Workload: "insert", Clients: []int{8}, Rows: []int64{0, 1000}, Repeat: 1, Caches: []int64{1 << 20, 4 << 20}}
	tasks, err := p.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	cells, _ := cellsOf(p, tasks, specs)
	var got []string
	for _, c := range cells {
		got = append(got, fmt.Sprintf("%s/%d/%dM", c.Key.Raw, c.Rows, c.Cache>>20))
	}
	want := "bigint/0/1M uuidv4/0/1M bigint/1000/1M uuidv4/1000/1M bigint/0/4M uuidv4/0/4M bigint/1000/4M uuidv4/1000/4M"
	if strings.Join(got, " ") != want {
		t.Errorf("plan %v, want %s", got, want)
	}
	if n, ok := CountCells(p, len(specs)); n != "8" || !ok {
		t.Errorf("CountCells = %s", n)
	}
	good := Params{Workload: "insert", Clients: []int{1}, Rows: []int64{0}, Duration: time.Second, Repeat: 1, Caches: []int64{128 << 10, 1 << 30}}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]int64{{64 << 10}, {1<<20 + 1}} {
		p := good
		p.Caches = bad
		if err := p.Validate(); err == nil {
			t.Errorf("--shared-buffers %v accepted", bad)
		}
	}
}

// TestPresetLayoutsAreSimulated: every preset's verdict (and its --quick
// form's) has its layout — the keys of a task × the (most) rounds — among
// the layouts whose error rates and power internal/stats's tests simulate:
// stats.SequentialLayouts where its rounds stop early, stats.FixedLayouts
// for every round run (also with --sequential off).
func TestPresetLayoutsAreSimulated(t *testing.T) {
	have, fixed := map[[2]int]bool{}, map[[2]int]bool{}
	for _, l := range stats.SequentialLayouts {
		have[[2]int{l.Keys, l.Rounds}] = true
	}
	for _, l := range stats.FixedLayouts {
		fixed[[2]int{l.Keys, l.Rounds}] = true
	}
	for _, s := range All() {
		for _, quick := range []bool{false, true} {
			p := s.Params(quick)
			withFiles(t, &p)
			specs, err := keys.ParseList(strings.Join(p.Keys, ","))
			if err != nil {
				t.Fatal(err)
			}
			plan, err := Build(s, p, specs)
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			l := [2]int{len(specs), plan.Params.Rounds}
			if plan.Sequential != nil && !have[l] {
				t.Errorf("%s (quick %v): %d keys x %d rounds is not among stats.SequentialLayouts", s.Name, quick, l[0], l[1])
			}
			// Every verdict of MinBlocks rounds or more, also war's with --sequential off.
			if l[1] >= stats.MinBlocks && !fixed[l] {
				t.Errorf("%s (quick %v): %d keys x %d rounds is not among stats.FixedLayouts", s.Name, quick, l[0], l[1])
			}
		}
	}
}

// TestEveryFigureAPresetNamesExists (issue 37): each figure a preset's
// questions show beside the rates resolves to a column — its task's own
// workload's or an evidence column — so that a misspelt figure fails here,
// not as a blank column in a run's summary.
func TestEveryFigureAPresetNamesExists(t *testing.T) {
	for _, s := range All() {
		for _, q := range s.Questions {
			for _, part := range q.Parts {
				workload, _, _ := strings.Cut(part.Task, " ")
				for _, f := range part.Figures {
					if _, ok := report.FigureColumn(workload, f); !ok {
						t.Errorf("%s: question %q names the figure %q, which task %s has no column for", s.Name, q.Ask, f, part.Task)
					}
				}
			}
		}
	}
}

// withFiles gives every path option of the plan's workloads (a script's
// file) a file to read: a script on the keyed table.
func withFiles(t *testing.T, p *Params) {
	t.Helper()
	for _, item := range strings.Split(p.Workload, ",") {
		name, _, _ := strings.Cut(item, ":")
		for _, o := range workload.OptionsOf(name) {
			if o.Type != workload.OptPath {
				continue
			}
			f := filepath.Join(t.TempDir(), "script.sql")
			if err := os.WriteFile(f, []byte("INSERT INTO :table (id, data) VALUES (:key, 1);\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if p.Options == nil {
				p.Options = map[string]string{}
			}
			p.Options[o.Name] = f
		}
	}
}

// TestEstimateAtAFixedRate: a window of transactions at a fixed rate
// (--rate, as advise's labs run) lasts its transactions over the rate, not
// over the rate the estimate's machine reaches flat out.
func TestEstimateAtAFixedRate(t *testing.T) {
	specs, _ := keys.ParseList("bigint,uuidv4")
	params := func(rate float64) Params {
		return Params{Workload: "insert", Clients: []int{3}, Rows: []int64{0}, Warmup: 2 * time.Second,
			Txns: 3000, Repeat: 1, Rounds: 6, RoundsGiven: true, Rate: rate}
	}
	flat, err := Build(&Scenario{Name: "t"}, params(0), specs)
	if err != nil {
		t.Fatal(err)
	}
	paced, err := Build(&Scenario{Name: "t"}, params(300), specs)
	if err != nil {
		t.Fatal(err)
	}
	// 9,000 transactions a key at 300 a second: 30 s a key, 60 s for two.
	if d := paced.Estimate().Windows; d < 60*time.Second || d > 75*time.Second {
		t.Errorf("windows of 2 × 9000 transactions at 300/s estimated at %v", d)
	}
	if paced.Estimate().Windows <= flat.Estimate().Windows {
		t.Errorf("at 300/s %v, flat out %v", paced.Estimate().Windows, flat.Estimate().Windows)
	}
}
