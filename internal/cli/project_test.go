package cli_test

import (
	"encoding/csv"
	"encoding/json"
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
	// Issue 62: the sizes at the user's rows in GiB, and the cache said to
	// be assumed from the RAM where --shared-buffers was not given.
	for _, want := range []string{"1,000,000,000 rows", "16.0 GiB (a quarter of --ram, assumed", "Sizes at 1,000,000,000 rows", "KEY INDEX", "uuidv4", "bigint", "CHECKED ERROR AT ITS DISTANCE", "WAL / DAY", "assumes"} {
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

// TestExportEveryAnswer (issue 40): compare and project write their answer
// with --export as they print it: Markdown tables, CSV that encoding/csv
// reads (its first record the console table's header), and JSON of the
// command's typed answer; a bad --export is refused before anything is read.
func TestExportEveryAnswer(t *testing.T) {
	path := growthRun(t)
	for _, c := range []struct {
		args   []string
		header string // the first column of the console's table
		json   string // a field of the typed answer
	}{
		{[]string{"compare", path, path}, "key", `"schema_version"`},
		{[]string{"project", path, "--rows", "1e9", "--ram", "64GB"}, "key", `"reference"`},
		{[]string{"project", path, "--against", "000"}, "000's key", `"published_tps"`},
	} {
		dir := t.TempDir()
		md, csvPath, js := filepath.Join(dir, "a.md"), filepath.Join(dir, "a.csv"), filepath.Join(dir, "a.json")
		args := append(c.args, "--export", "md="+md, "--export", "csv="+csvPath, "--export", "json="+js)
		if _, stderr, code := keybench(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		b, _ := os.ReadFile(md)
		if !strings.Contains(string(b), "| "+c.header+" |") || !strings.Contains(string(b), "|---") {
			t.Errorf("%v: the Markdown has no table:\n%s", c.args, b)
		}
		f, err := os.Open(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(f)
		r.FieldsPerRecord = -1
		records, err := r.ReadAll()
		f.Close()
		if err != nil || len(records) < 2 || records[0][0] != c.header {
			t.Errorf("%v: the CSV: %d records, %v", c.args, len(records), err)
		}
		j, _ := os.ReadFile(js)
		if !json.Valid(j) || !strings.Contains(string(j), c.json) {
			t.Errorf("%v: the JSON lacks %s: %.300s", c.args, c.json, j)
		}
		if _, stderr, code := keybench(t, append(c.args, "--export", "xml=a.xml")...); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v --export xml: exit %d: %s", c.args, code, stderr)
		}
	}
}

// TestProjectCheck (issue 50): project --check on the stored scale run
// projects its largest scale from the two smaller ones and exports a row
// per key and figure with key, figure, predicted, lo, hi and measured; a
// run of one scale is refused with exit 2.
func TestProjectCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "scale.json")
	if err := os.WriteFile(path, resultstest.ReadGzip(t, "../projection/testdata/scale.json.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "check.json")
	out, errOut, code := keybench(t, "project", path, "--check", "--export", "json="+file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "16,000,000 rows") || !strings.Contains(out, "checked figures held their measurement") {
		t.Errorf("the check does not show its scale and its coverage:\n%s", out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil || len(rows) != 22 { // work and rate of uuidv4 and uuidv7, six counts of each of three keys
		t.Fatalf("%d rows exported (%v):\n%s", len(rows), err, b)
	}
	for _, r := range rows {
		for _, k := range []string{"key", "figure", "predicted", "lo", "hi", "measured"} {
			if _, ok := r[k]; !ok {
				t.Errorf("an exported row lacks %q: %v", k, r)
			}
		}
	}
	if _, errOut, code := keybench(t, "project", growthRun(t), "--check", "--clients", "99"); code != 2 || strings.Contains(errOut, "goroutine") {
		t.Errorf("a check with nothing to check: exit %d: %s", code, errOut)
	}
}
