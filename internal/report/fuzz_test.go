package report

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

// FuzzRender renders the page and a comparison from truncated, corrupted
// and hostile results files: an error is fine, a panic is not.
func FuzzRender(f *testing.F) {
	files, _ := filepath.Glob("../results/testdata/*.json")
	if len(files) == 0 {
		f.Fatal("no seed results")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := results.Parse(b, "fuzz")
		if err != nil {
			return
		}
		_, _ = Render(r)
		rows, onlyA, onlyB := Compare(r, r)
		WriteComparison(io.Discard, "a", "b", rows, onlyA, onlyB)
		_, _ = RenderComparison("a", "b", rows, onlyA, onlyB)
	})
}

// TestRendersRealRuns renders the seed runs and checks each kind's own charts.
func TestRendersRealRuns(t *testing.T) {
	for name, want := range map[string]string{"war": "Throughput over time", "queue": "Queue backlog", "bulk": "Load rate per chunk"} {
		r, err := results.Read(filepath.Join("../results/testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Render(r)
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
