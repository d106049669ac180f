package report

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// FuzzRender renders the page and a comparison from truncated, corrupted
// and hostile results files: an error is fine, a panic is not.
func FuzzRender(f *testing.F) {
	resultstest.AddSeeds(f, "../results/testdata")
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := verdict.Parse(b, "fuzz", all.Kinds())
		if err != nil {
			return
		}
		_, _ = Render(r, nil)
		c := verdict.Compare("a", "b", r, r)
		WriteSummary(io.Discard, r, 60)
		CompareDoc(c).Write(io.Discard, 50)
		_, _ = RenderComparison(c)
	})
}

// TestRendersRealRuns renders the seed runs and checks each kind's own charts.
func TestRendersRealRuns(t *testing.T) {
	for name, want := range map[string]string{"war": "Throughput over time", "queue": "Queue backlog", "bulk": "Load rate per chunk"} {
		r, err := verdict.Read(filepath.Join("../results/testdata", name+".json"), all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		b, err := Render(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !containsAll(string(b), want, "<svg") {
			t.Errorf("%s: the report lacks %q", name, want)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
