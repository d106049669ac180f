package runner

// The results directory: a new one of its own for every run, or the one
// the user named when it holds no earlier run's files.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MkUniqueOut creates a results directory of its own under parent, named
// base, or base-2, base-3, … when a run started in the same second has
// taken that name: each directory is created exclusively, so two runs never
// share one.
func MkUniqueOut(parent, base string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= 1000; i++ {
		dir := filepath.Join(parent, base)
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", dir, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, MkOut(dir)
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free name for %s under %s", base, parent)
}

// MkOut makes the results directory and checks it is writable.
func MkOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(filepath.Join(dir, filepath.Base(f.Name())))
}

// EarlierRun names the files of an earlier run in dir (results.json,
// samples.csv, report.html), "" when it holds none: a run never writes over
// another's measurement.
func EarlierRun(dir string) string {
	var held []string
	for _, name := range []string{"results.json", "samples.csv", "report.html"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			held = append(held, name)
		}
	}
	return strings.Join(held, ", ")
}
