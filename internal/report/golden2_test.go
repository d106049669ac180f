package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestSchemaTwoSummaries: the recorded runs read into today's structs and
// print the summaries they printed then (issue 25: the options redesign
// moved no figure), and their first screens (issue 37: each preset's
// --quick run, recorded as quick-PRESET, ends as it did).
func TestSchemaTwoSummaries(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join("testdata", "runs", "*.json.gz"))
	for _, path := range runs {
		name := strings.TrimSuffix(filepath.Base(path), ".json.gz")
		r, err := verdict.Parse(resultstest.ReadGzip(t, path), path, all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		var summary, brief strings.Builder
		WriteSummary(&summary, r, 0)
		Brief(r).Write(&brief, BriefWidth)
		for _, out := range []struct{ what, got, file string }{
			{"summary", summary.String(), name + ".summary.txt"},
			{"first screen", brief.String(), name + ".brief.txt"},
		} {
			golden := filepath.Join("testdata", "runs", out.file)
			if os.Getenv("KEYBENCH_UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(golden, []byte(out.got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := squeeze(out.got), squeeze(string(want)); g != w {
				t.Errorf("%s: the %s changed:\n--- got\n%s\n--- want\n%s", name, out.what, out.got, want)
			}
		}
	}
}
