package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results/resultstest"
)

// growthRun writes the growth preset's recorded run (report's seeds) to a
// file and returns its path.
func growthRun(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, resultstest.ReadGzip(t, "../report/testdata/runs/growth.json.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProject(t *testing.T) {
	path := growthRun(t)
	out, errOut, code := keybench(t, "project", path, "--rows", "1000000000", "--ram", "64GB", "--insert-rate", "2000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"1,000,000,000 rows", "16.0 GiB", "uuidv4", "bigint", "CHECKED ERROR AT ITS DISTANCE", "WAL / DAY", "assumes"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	// The cost model beside 000's published table: every cell with its error and what limits it.
	out, errOut, code = keybench(t, "project", path, "--against", "000")
	if code != 0 {
		t.Fatalf("--against 000: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"000 TPS", "MODEL TPS", "ERROR", "LIMITED BY", "100,000,000", "cells miss by more than 25%", "The model predicts too"} {
		if !strings.Contains(out, want) {
			t.Errorf("--against 000: no %q in:\n%s", want, out)
		}
	}
	page := filepath.Join(t.TempDir(), "scale.html")
	if _, errOut, code := keybench(t, "project", path, "--rows", "800M", "--ram", "32GB", "--shared-buffers", "8GB", "--html", page); code != 0 {
		t.Fatalf("--html: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "At your scale") || !strings.Contains(string(b), "800,000,000 rows") {
		t.Errorf("the page has no projection (%v)", err)
	}
	for _, bad := range [][]string{
		{"run", "--project-rows", "1e9"},
		{"run", "--project-ram", "64GB", "--project-insert-rate", "10"},
		{"run", "--project-rows", "1e9", "--project-ram", "lots"},
		{"project", path, "--rows", "lots", "--ram", "64GB"},
		{"project", path, "--rows", "1e9", "--ram", "64XB"},
		{"project", path, "--rows", "1e9", "--ram", "8GB", "--shared-buffers", "16GB"},
	} {
		if _, errOut, code := keybench(t, bad...); code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", bad, code, errOut)
		}
	}
}
