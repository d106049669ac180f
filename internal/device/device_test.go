package device

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/diskprobe"
	"github.com/keybench/keybench/internal/results"
)

// TestUnitCostsFromAProbe (issue 48): a probe prices each operation at its
// mean time one at a time (1,000 ms over its rate), the writes at the
// probe's sequential rate; a probe of the disk is kept and reused while
// younger than MaxAge, taken again when older or asked (reprobe); a probe
// of a memory file system says its figures are memory's.
func TestUnitCostsFromAProbe(t *testing.T) {
	d := fromProbe(&diskprobe.Result{Dir: "/data", SeqWriteMBps: 500, RandomRead: diskprobe.Latency{N: 100, PerS: 4000}, Flush: diskprobe.Latency{N: 50, PerS: 1000}})
	if d.ReadMS != 0.25 || d.FlushMS != 1 || d.WriteMBps != 500 {
		t.Errorf("priced %+v, want a read 0.25 ms, a flush 1 ms, 500 MB/s", d)
	}
	if m := fromProbe(&diskprobe.Result{Dir: "/dev/shm", SeqWriteMBps: 5000, RandomRead: diskprobe.Latency{PerS: 1e5}, Flush: diskprobe.Latency{PerS: 1e5}, FileSystem: "tmpfs", Memory: true}); !strings.Contains(m.Source, "memory's figures") {
		t.Errorf("a probe of tmpfs: %q", m.Source)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	keep, err := keptPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	fresh := time.Now().UTC()
	kept := results.Device{Name: "kept", Source: "a probe", ReadMS: 7, WriteMBps: 70, FlushMS: 0.7, ProbedAt: &fresh}
	if err := save(keep, kept); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(context.Background(), "probe", dir)
	if err != nil || got.ReadMS != 7 || got.FlushMS != 0.7 {
		t.Fatalf("a fresh kept probe is not reused: %+v, %v", got, err)
	}
	old := fresh.Add(-MaxAge - time.Hour)
	kept.ProbedAt = &old
	if err := save(keep, kept); err != nil {
		t.Fatal(err)
	}
	asked := time.Now().Add(-time.Second) // the probe's stamp is truncated to the second
	for _, name := range []string{"probe", "reprobe"} {
		if name == "reprobe" {
			kept.ProbedAt = &fresh
			_ = save(keep, kept)
		}
		got, err = Resolve(context.Background(), name, dir)
		if err != nil {
			t.Fatal(err)
		}
		if got.ReadMS == 7 || got.ReadMS <= 0 || got.WriteMBps <= 0 || got.FlushMS <= 0 || got.ProbedAt == nil || got.ProbedAt.Before(asked) {
			t.Errorf("%s: a stale or refused kept probe was not taken again: %+v", name, got)
		}
	}
	b, _ := os.ReadFile(keep)
	var again results.Device
	if json.Unmarshal(b, &again) != nil || again.ReadMS != got.ReadMS {
		t.Errorf("the new probe is not kept: %s", b)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Errorf("the probe left %v", files)
	}
}

// TestDevicesByName: the profiles, a file of figures, keybench disk's
// output, and a refusal naming what --device takes.
func TestDevicesByName(t *testing.T) {
	ctx := context.Background()
	for name, want := range Profiles {
		got, err := Resolve(ctx, name, "")
		if err != nil || got != want || !strings.HasPrefix(got.Source, "profile:") {
			t.Errorf("%s: %+v, %v", name, got, err)
		}
	}
	dir := t.TempDir()
	own := filepath.Join(dir, "mine.json")
	os.WriteFile(own, []byte(`{"random_read_ms": 0.2, "write_mbps": 300, "flush_ms": 2}`), 0o644)
	if d, err := Resolve(ctx, own, ""); err != nil || d.ReadMS != 0.2 || d.Name != "mine.json" {
		t.Errorf("the user's figures: %+v, %v", d, err)
	}
	probe := filepath.Join(dir, "disk.json")
	b, _ := json.Marshal(diskprobe.Result{Dir: "/srv", SeqWriteMBps: 200, RandomRead: diskprobe.Latency{N: 10, PerS: 100}, Flush: diskprobe.Latency{N: 10, PerS: 50}})
	os.WriteFile(probe, b, 0o644)
	if d, err := Resolve(ctx, probe, ""); err != nil || d.ReadMS != 10 || d.FlushMS != 20 || d.WriteMBps != 200 {
		t.Errorf("keybench disk's output: %+v, %v", d, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"random_read_ms": 0}`), 0o644)
	if _, err := Resolve(ctx, bad, ""); err == nil {
		t.Error("a file without figures accepted")
	}
	if _, err := Resolve(ctx, "floppy", ""); err == nil || !strings.Contains(err.Error(), "nvme") {
		t.Errorf("an unknown device: %v", err)
	}
}
