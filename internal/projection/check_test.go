package projection

import (
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
)

// TestCheckTheStoredScaleRun (issue 50): project --check on the stored
// scale run projects its largest scale (16M rows over 128 MB) from the two
// smaller ones alone: a row per key and figure (work and rate over
// bigint's), each with its interval and level and the measurement, and at
// least 80% of them hold the measurement; the work rows are the ones the
// projection itself prints (Project on the same subset).
func TestCheckTheStoredScaleRun(t *testing.T) {
	full, err := verdict.Parse(resultstest.ReadGzip(t, "testdata/scale.json.gz"), "scale")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := CheckScales(full, 0, func(r *results.Results) { verdict.Analyze(r) })
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
	if counted == 0 || float64(inside) < 0.8*float64(counted) {
		t.Errorf("%d of %d checked figures inside their interval, want at least 80%%", inside, counted)
	}
	if _, err := CheckScales(full, 999, func(r *results.Results) { verdict.Analyze(r) }); err == nil {
		t.Error("a check at a client count the run never measured passed")
	}
}
