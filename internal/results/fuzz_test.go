package results

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// seeds are results.json files of real quick runs (war, queue, bulk).
func seeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		f.Fatal("no seed results in testdata")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schema_version":1,"cells":[]}`))
	f.Add([]byte(`{"schema_version":1,"cells":[{"status":"ok","timeline":[{"t":1,"tps":1e308}],"metrics":{"queue":{"backlog":{}}}}]}`))
}

// FuzzParse reads truncated, corrupted and hostile results files as
// 'keybench report' and 'compare' do, and prints their summary: an error
// is fine, a panic is not.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b, "fuzz")
		if err != nil {
			return
		}
		r.BuildGroups()
		r.WriteSummary(io.Discard)
	})
}

func TestSeedsParse(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		r, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.BuildGroups()) == 0 {
			t.Errorf("%s: no groups", p)
		}
	}
}
