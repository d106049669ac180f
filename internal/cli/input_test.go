package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/cli/clitest"

	"github.com/keybench/keybench/internal/diskprobe"
)

// TestFiguresReadFromAFileAreChecked is issue 24's: project on an edited
// results file printed a NaN rate and a size of -9223372036854775808 B, and
// report printed negative rates as given. A file whose figures cannot be
// is refused (exit 2), naming the first bad one; sizes beyond any table
// are refused with the bound.
func TestFiguresReadFromAFileAreChecked(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("..", "results", "testdata", "war.json"))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) string {
		t.Helper()
		if !strings.Contains(string(good), from) {
			t.Fatalf("war.json has no %q", from)
		}
		p := filepath.Join(t.TempDir(), "results.json")
		if err := os.WriteFile(p, []byte(strings.Replace(string(good), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", edit(`"tps": `, `"tps": -`)}, "cells[0].tps is -"},
		{[]string{"project", edit(`"tps": `, `"tps": 1e300, "y": `), "--rows", "1e9", "--ram", "64GB"}, "cells[0].tps is 1e+300: beyond any figure"},
		{[]string{"project", edit(`"bloat_ratio": `, `"bloat_ratio": 1e300, "x": `), "--rows", "1e9", "--ram", "64GB"}, "cells[0].metrics.bloat_ratio is 1e+300: beyond any ratio"},
		{[]string{"project", edit(`"schema_version"`, `"schema_version"`), "--rows", "1e30", "--ram", "64GB"}, "too large: at most 1e+15"},
		{[]string{"project", edit(`"schema_version"`, `"schema_version"`), "--rows", "1e9", "--ram", "64GB", "--insert-rate", "NaN"}, "--insert-rate must be a positive number"},
		{[]string{"compare", edit(`"tps": `, `"tps": -`), edit(`"schema_version"`, `"schema_version"`)}, "is -"},
	} {
		_, stderr, code := keybench(t, tc.args...)
		if code != 2 || len(clitest.ErrorLines(stderr)) != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("keybench %s: exit %d: %s (want %q)", tc.args[0], code, stderr, tc.want)
		}
	}
}

// TestOutNeverOverwritesAnEarlierRun is issue 24's: --out onto an older
// run's directory silently replaced its results.json, samples.csv and
// report.html.
func TestOutNeverOverwritesAnEarlierRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "results.json"), []byte("an earlier run's"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := keybench(t, "run", "insert", "--quick", "--out", dir)
	if b, _ := os.ReadFile(filepath.Join(dir, "results.json")); code != 2 || !strings.Contains(stderr, "earlier run") || string(b) != "an earlier run's" {
		t.Errorf("exit %d: %s; results.json now %q", code, stderr, b)
	}
}

// TestDiskProbesAFileOfItsOwn: keybench disk measures the disk under a
// directory through a file it removes, and prints the three probes.
func TestDiskProbesAFileOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := keybench(t, "disk", dir, "--size", "2MB", "--each", "50ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r diskprobe.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.SeqWriteMBps <= 0 || r.RandomRead.N == 0 || r.Flush.N == 0 {
		t.Errorf("%v: %+v", err, r)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %d files", len(left))
	}
}
