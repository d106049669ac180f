package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tempPrefix names the private directories of embedded servers.
const tempPrefix = "keybench-pg-"

// sweepStale removes the directories of embedded servers whose keybench was
// killed (SIGKILL leaves no chance to clean up): those whose postmaster.pid
// names a process that no longer exists, and those that never got a
// postmaster and are older than an hour. A directory of a live server, or of
// one being initialised right now, is left alone.
func sweepStale(logf func(string, ...any)) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid"))
		stale := false
		if err == nil {
			pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
			stale = pid > 0 && !running(pid)
		} else {
			stale = time.Since(st.ModTime()) > time.Hour
		}
		if stale && os.RemoveAll(d) == nil {
			logf("removed %s, left by a keybench that was killed", d)
		}
	}
}

// running reports whether pid is a live process (a zombie, which a container
// without an init that reaps may keep around, is not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
