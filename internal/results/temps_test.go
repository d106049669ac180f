package results

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveTempsLeavesNothing (issue 60): a write still under way when
// keybench exits (an interrupt returned its command before the write's
// goroutine ended) has its temporary file removed, and no write begins
// after.
func TestRemoveTempsLeavesNothing(t *testing.T) {
	defer AllowTemps()
	dir := t.TempDir()
	filling, exit := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- writeAtomicFunc(filepath.Join(dir, "F.json"), func(w io.Writer) error {
			close(filling)
			<-exit
			_, err := w.Write([]byte("{}"))
			return err
		})
	}()
	<-filling
	RemoveTemps()
	left, _ := os.ReadDir(dir)
	close(exit)
	<-done // its rename fails: the file it renames is gone
	if len(left) != 0 {
		t.Errorf("left after RemoveTemps: %v", left)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "G.json"), []byte("{}")); err == nil {
		t.Error("a write began after RemoveTemps")
	}
	if after, _ := os.ReadDir(dir); len(after) != 0 {
		t.Errorf("left at the end: %v", after)
	}
}
