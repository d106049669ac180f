package results

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() *Results {
	return &Results{SchemaVersion: SchemaVersion, Status: StatusOK, Scenario: "war",
		Environment: Environment{ServerVersion: "18.6", Settings: map[string]string{"shared_buffers": "2048"}},
		Cells: []Cell{
			{Key: "uuidv4", Workload: "insert", Clients: 8, Status: StatusOK, TPS: 1000, DurationS: 10, Txns: 10000,
				Timeline: seconds(1000, 990, 1010, 1005, 995, 1000), Metrics: Metrics{TotalBytes: Of[int64](2000)}},
			{Key: "bigint", Workload: "insert", Clients: 8, Status: StatusOK, TPS: 1500, DurationS: 10, Txns: 15000,
				Timeline: seconds(1500, 1490, 1510, 1505, 1495, 1500), Metrics: Metrics{TotalBytes: Of[int64](1000), IO: Unavailable[IO]("no permission")}},
			{Key: "uuidv7", Workload: "insert", Clients: 8, Status: StatusOK, TPS: 1500, DurationS: 10, Txns: 15000,
				Timeline: seconds(1490, 1510, 1500, 1495, 1505, 1500), Metrics: Metrics{TotalBytes: Of[int64](1000)}},
		}}
}

func seconds(tps ...float64) []Second {
	var out []Second
	for i, v := range tps {
		out = append(out, Second{T: i + 1, TPS: v, Txns: int64(v)})
	}
	return out
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := sample().Write(dir); err != nil {
		t.Fatal(err)
	}
	r, err := Read(filepath.Join(dir, "results.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 3 || r.Cells[1].Metrics.IO.Reason() != "no permission" || r.Cells[0].Metrics.TotalBytes.Value() != 2000 {
		t.Errorf("read back %+v", r.Cells)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "samples.csv"))
	if !strings.Contains(string(b), "0,uuidv4,insert,8,0,1,1000.000,0.000,0.000,0") {
		t.Errorf("samples.csv:\n%s", b)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 2 {
		t.Errorf("temporary files left: %v", files)
	}
}

func TestReadRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.json": "{", "b.json": `{"schema_version": 99, "cells": []}`, "c.json": `{"schema_version": 1}`} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Read(p, nil); err == nil {
			t.Errorf("%s accepted", body)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestWriteSurvivesNaN: a figure JSON cannot hold is replaced by its reason,
// and the results file is still written.
func TestWriteSurvivesNaN(t *testing.T) {
	r := &Results{SchemaVersion: SchemaVersion, Cells: []Cell{{Key: "k", Status: StatusOK, Metrics: Metrics{
		LeafDensity: Of(math.NaN()), BloatRatio: Of(1.5), CPU: Of(CPU{ClientCores: math.Inf(1)})}}}}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Read(filepath.Join(dir, "results.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := back.Cells[0].Metrics
	if m.LeafDensity.Reason() == "" || m.BloatRatio.Value() != 1.5 {
		t.Errorf("metrics written as %+v", m)
	}
	if m.CPU.Reason() == "" {
		t.Errorf("nested infinity written as %+v", m.CPU)
	}
}

// TestReadRefusesImpossibleFigures (issue 35): a figure no measurement can
// give is refused when the file is read, naming the field: a density
// above 1 (5000%), a ratio of two sizes of 1e14, a negative size.
func TestReadRefusesImpossibleFigures(t *testing.T) {
	orig, err := os.ReadFile("testdata/war.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		value any
		want  string
	}{
		{"leaf_density", 50.0, "cells[0].metrics.leaf_density is 50: a share of a whole"},
		{"key_index_cache_ratio", 1e14, "cells[0].metrics.key_index_cache_ratio is 1e+14: beyond any ratio"},
		{"table_bytes", -8192, "cells[0].metrics.table_bytes is -8192: a figure keybench measures is never negative"},
	} {
		var doc map[string]any
		if err := json.Unmarshal(orig, &doc); err != nil {
			t.Fatal(err)
		}
		doc["cells"].([]any)[0].(map[string]any)["metrics"].(map[string]any)[tc.field] = tc.value
		b, _ := json.Marshal(doc)
		path := filepath.Join(t.TempDir(), "results.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(path, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %v: %v, want an error with %q", tc.field, tc.value, err, tc.want)
		}
	}
	// The file as recorded reads.
	if _, err := Read("testdata/war.json", nil); err != nil {
		t.Fatal(err)
	}
}
