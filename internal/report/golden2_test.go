package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
)

// TestSchemaTwoSummaries: the recorded schema-2 runs of the last round
// read into today's structs and print the summaries they printed then
// (issue 25: the options redesign moved no figure).
func TestSchemaTwoSummaries(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join("testdata", "runs", "*.json.gz"))
	for _, path := range runs {
		name := strings.TrimSuffix(filepath.Base(path), ".json.gz")
		r, err := results.Parse(resultstest.ReadGzip(t, path), path)
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		WriteSummary(&got, r, 0)
		golden := filepath.Join("testdata", "runs", name+".summary.txt")
		if os.Getenv("KEYBENCH_UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := squeeze(got.String()), squeeze(string(want)); g != w {
			t.Errorf("%s: the summary changed:\n--- got\n%s\n--- want\n%s", name, got.String(), want)
		}
	}
}
