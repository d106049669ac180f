package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestCSVCarriesEveryFigure (issue 47): the CSV export carries what each
// cell records — every figure of its metrics object that was measured (a
// column of its own, or its members' columns) — for every stored quick
// run; a figure the collectors declare but the CSV leaves out fails it
// (the hand-listed CSV carried 11 of a quick run's 40).
func TestCSVCarriesEveryFigure(t *testing.T) {
	paths, _ := filepath.Glob("testdata/runs/quick-*.json.gz")
	if len(paths) == 0 {
		t.Fatal("no stored quick runs")
	}
	for _, path := range paths {
		r, err := verdict.Parse(resultstest.ReadGzip(t, path), path, all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		b, err := CSV(r)
		if err != nil {
			t.Fatal(err)
		}
		header, err := csv.NewReader(bytes.NewReader(b)).Read()
		if err != nil {
			t.Fatal(err)
		}
		recorded, carried := map[string]bool{}, 0
		for _, c := range r.Cells {
			raw, _ := json.Marshal(c.Metrics)
			var m map[string]json.RawMessage
			_ = json.Unmarshal(raw, &m)
			for name, v := range m {
				if !strings.HasPrefix(string(v), `{"unavailable"`) {
					recorded[name] = true
				}
			}
		}
		for name := range recorded {
			for _, col := range header {
				if col == name || strings.HasPrefix(col, name+".") {
					carried++
					break
				}
			}
		}
		if len(recorded) == 0 || carried < len(recorded) {
			var missing []string
			for name := range recorded {
				found := false
				for _, col := range header {
					found = found || col == name || strings.HasPrefix(col, name+".")
				}
				if !found {
					missing = append(missing, name)
				}
			}
			t.Errorf("%s: the CSV carries %d of the %d figures its cells record; missing %v", filepath.Base(path), carried, len(recorded), missing)
		}
		for _, want := range []string{"cost.server_cpu_ms_per_txn", "p99_ms"} {
			if !strings.Contains(strings.Join(header, ","), want) && strings.Contains(path, "war") {
				t.Errorf("%s: no column %s", filepath.Base(path), want)
			}
		}
	}
}

// TestDocsNameTheMDsFigures (issue 61): docs/report.md names every round
// figure the MD export shows, by its header, and no other.
func TestDocsNameTheMDsFigures(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	for _, f := range results.WorkCounts() {
		if !strings.Contains(doc, "`"+f.Header+"`") {
			t.Errorf("docs/report.md does not name the MD's figure %q", f.Header)
		}
	}
	for _, f := range results.RoundFigures() {
		if !f.Work && strings.Contains(doc, "`"+f.Header+"`") {
			t.Errorf("docs/report.md names %q, which the MD does not show", f.Header)
		}
	}
}
