// Package resultstest gives fuzz targets that read results files their
// seeds: results.json files of real quick runs of three presets kept in
// internal/results/testdata.
package resultstest

import (
	"os"
	"path/filepath"
	"testing"
)

// AddSeeds adds every results file in dir to f's seed corpus.
func AddSeeds(f *testing.F, dir string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		f.Fatalf("no seed results in %s", dir)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}
