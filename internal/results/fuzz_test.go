package results

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/keybench/keybench/internal/results/resultstest"
)

func seeds(f *testing.F) {
	resultstest.AddSeeds(f, "testdata")
	f.Add([]byte(`{"schema_version":1,"cells":[]}`))
	f.Add([]byte(`{"schema_version":1,"cells":[{"status":"ok","timeline":[{"t":1,"tps":1e308}],"metrics":{"queue":{"backlog":{}}}}]}`))
}

// FuzzParse reads truncated, corrupted and hostile results files as
// 'keybench report' and 'compare' do, and prints their summary: an error
// is fine, a panic is not.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b, "fuzz", nil)
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("a parsed file does not write back: %v", err)
		}
	})
}

func TestSeedsParse(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		r, err := Read(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Cells) == 0 {
			t.Errorf("%s: no cells", p)
		}
	}
}
