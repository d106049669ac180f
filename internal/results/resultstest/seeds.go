// Package resultstest gives fuzz targets that read results files their
// seeds: results.json files of real quick runs of three presets kept in
// internal/results/testdata.
package resultstest

import (
	"compress/gzip"
	"io"
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

// ReadGzip is the content of a gzipped results file (the recorded full
// runs kept compressed beside the report's tests).
func ReadGzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}
