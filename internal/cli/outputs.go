package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/keybench/keybench/internal/results"
)

// What a command writes besides its results directory — its exports, its
// page, a directory of logs — is checked before it measures or reads
// anything: a path whose directory does not exist, a directory where a
// file goes, a path the command itself writes or reads (the run's own
// results.json, the results file being reported on), two outputs on one
// path, and a file already there (an earlier run's: --force replaces it)
// are refused with a usage error naming the flag and the path, so that no
// output is found bad after the run, and none eats the run.

// overwrite is --force on the commands that write files beside their
// answer (report, compare, project, advise); run has its own --force.
type overwrite struct {
	Force bool `name:"force" help:"Replace an existing --export or --html file (and, for advise, write --lab-out labs beside earlier ones)."`
}

// output is one file a command will write, and the flag that named it.
type output struct{ flag, path string }

// targets are the exports' files.
func (x exports) targets() []output {
	var out []output
	for _, s := range x.Export {
		if _, file, ok := strings.Cut(s, "="); ok && file != "" {
			out = append(out, output{"--export " + s, file})
		}
	}
	return out
}

// canonical is a path made absolute and clean, its directory's links
// resolved where it exists, so that two spellings of one file compare equal.
func canonical(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// checkOutputs refuses outputs that cannot or must not be written:
// protected are the files the command writes or reads itself.
func checkOutputs(outs []output, protected []string, force bool) error {
	taken := map[string]string{}
	for _, p := range protected {
		if p != "" {
			taken[canonical(p)] = "a file this command writes or reads"
		}
	}
	for _, o := range outs {
		c := canonical(o.path)
		if what, ok := taken[c]; ok {
			return usagef("%s: %s is %s; choose another path", o.flag, o.path, what)
		}
		taken[c] = "another output of this command (" + o.flag + ")"
		st, err := os.Stat(filepath.Dir(c))
		switch {
		case err != nil:
			return usagef("%s: %s does not exist", o.flag, filepath.Dir(o.path))
		case !st.IsDir():
			return usagef("%s: %s is not a directory", o.flag, filepath.Dir(o.path))
		}
		if err := results.CheckWritable(filepath.Dir(c)); err != nil {
			return usagef("%s: %s is not writable: %v", o.flag, filepath.Dir(o.path), err)
		}
		if st, err := os.Stat(c); err == nil {
			if st.IsDir() {
				return usagef("%s: %s is a directory", o.flag, o.path)
			}
			if !force {
				return usagef("%s: %s exists (an earlier run's?); --force replaces it", o.flag, o.path)
			}
		}
	}
	return nil
}

// checkLogDir refuses a directory for logs (--hist-file, --lab-out) that
// holds files already, unless force: a run's logs never mix with an
// earlier run's.
func checkLogDir(flag, dir string, force bool) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return usagef("%s %s: %v", flag, dir, err)
	case len(entries) > 0 && !force:
		return usagef("%s %s holds %s already (an earlier run's?); --force writes beside them, or give an empty directory", flag, dir, plural(len(entries), "file"))
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
