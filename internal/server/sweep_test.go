package server

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSweepSparesALockedDirectory: a server directory whose owner's pid
// this process cannot see (a keybench in another PID namespace, here a pid
// that does not run) is left while its lock is held, and swept once the
// lock is let go.
func TestSweepSparesALockedDirectory(t *testing.T) {
	dir, err := os.MkdirTemp("", tempPrefix+"*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	lock, err := writeOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte("2147483000 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sweepStale(t.Logf, uint32(os.Getuid()))
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("a directory whose lock is held was swept: %v", err)
	}
	lock.unlock()
	sweepStale(t.Logf, uint32(os.Getuid()))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a directory whose owner is gone was left: %v", err)
	}
}
