package diskprobe

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/testenv"
)

// TestProbe measures a file of its own in a temporary directory and leaves
// nothing behind.
func TestProbe(t *testing.T) {
	dir := t.TempDir()
	r, err := Probe(context.Background(), dir, Options{FileBytes: 4 << 20, Each: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.SeqWriteMBps <= 0 || r.RandomRead.N < 3 || r.Flush.N < 3 || r.RandomRead.P50MS <= 0 || r.RandomRead.P99MS < r.RandomRead.P50MS || r.Flush.PerS <= 0 {
		t.Errorf("%+v", r)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %d files", len(left))
	}
	if _, err := Probe(context.Background(), dir+"/missing", Options{}); err == nil {
		t.Error("a missing directory was probed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Probe(ctx, dir, Options{FileBytes: 4 << 20}); err == nil {
		t.Error("an interrupted probe succeeded")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("an interrupted probe left %d files", len(left))
	}
}

// TestProbeSaysMemory (issue 35): a directory on tmpfs (/dev/shm) is
// probed and said to be memory, not a disk; the test's own temporary
// directory, on the machine's disk, is not.
func TestProbeSaysMemory(t *testing.T) {
	if _, ok := fileSystem("/dev/shm"); !ok {
		testenv.Skip(t, "/dev/shm is not a tmpfs here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "keybench-probe-test-")
	if err != nil {
		testenv.Skip(t, "%v", err)
	}
	defer os.RemoveAll(dir)
	r, err := Probe(context.Background(), dir, Options{FileBytes: 1 << 20, Each: 20 * time.Millisecond})
	if err != nil {
		testenv.Skip(t, "direct IO on tmpfs: %v", err)
	}
	if !r.Memory || r.FileSystem != "tmpfs" {
		t.Errorf("a probe on /dev/shm: memory %v, file system %q", r.Memory, r.FileSystem)
	}
	if name, memory := fileSystem(t.TempDir()); memory && os.Getenv("TMPDIR") == "" {
		t.Logf("the temporary directory is on %s too", name)
	}
}
