package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// tempPrefix names the private directories of embedded servers.
const tempPrefix = "keybench-pg-"

// ownerFile, in a server's private directory, names the keybench process
// that made it (its pid and start time, so that a reused pid does not pass
// for it).
const ownerFile = "keybench.pid"

// lockFile, in a server's private directory, is held locked (flock) by the
// keybench that made it for as long as it runs: the kernel lets it go when
// that process ends, however it ends, and whichever PID namespace looks (a
// keybench in another namespace cannot see its owner's pid, and would take
// a live server's directory for a killed one's).
const ownerLock = "keybench.lock"

// writeOwner records this process as the owner of dir and locks it; the
// lock is held until the returned file is closed.
func writeOwner(dir string) (*fileLock, error) {
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(fmt.Sprintf("%d %d\n", os.Getpid(), startTime(os.Getpid()))), 0o644); err != nil {
		return nil, err
	}
	return lockFile(context.Background(), filepath.Join(dir, ownerLock)) // a new file: no wait
}

// lockHeld says whether dir's lock is held by a running keybench; known is
// false when dir has no lock file (made by an older keybench).
func lockHeld(dir string) (held, known bool) {
	f, err := os.OpenFile(filepath.Join(dir, ownerLock), os.O_RDWR, 0)
	if err != nil {
		return false, false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true, true
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false, true
}

// ownerAlive reports whether the keybench that made dir still runs; known
// is false when dir names no owner (made by an older keybench).
func ownerAlive(dir string) (alive, known bool) {
	if held, known := lockHeld(dir); known {
		return held, true
	}
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false, false
	}
	var pid int
	var start uint64
	if _, err := fmt.Sscan(string(b), &pid, &start); err != nil || pid <= 0 {
		return false, true
	}
	return running(pid) && startTime(pid) == start, true
}

// startTime is a process's start time in clock ticks since boot (0 when unknown).
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// sweepStale removes the directories of embedded servers whose keybench was
// killed (SIGKILL leaves no chance to clean up): those whose keybench is
// gone, whatever stage it died in (initdb included); for directories of
// older keybench versions, those whose postmaster.pid names a process that
// no longer exists, and those that never got a postmaster and are older
// than an hour. It then removes the System V shared memory segments that
// the killed servers of uid left behind.
func sweepStale(logf func(string, ...any), uid uint32) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			continue
		}
		stale := false
		if alive, known := ownerAlive(d); known {
			stale = !alive
		} else if b, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid")); err == nil {
			pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
			stale = pid > 0 && !running(pid)
		} else {
			stale = time.Since(st.ModTime()) > time.Hour
		}
		if stale && os.RemoveAll(d) == nil {
			logf("removed %s, left by a keybench that was killed", d)
		}
	}
	if n := sweepSharedMemory(uid); n > 0 {
		logf("removed %d shared memory segments left by killed servers", n)
	}
}

// sweepSharedMemory removes System V shared memory segments of uid that no
// process is attached to and whose creator is gone: the small segment a
// PostgreSQL server keeps is left behind when it is killed. A live server
// stays attached to its own.
func sweepSharedMemory(uid uint32) int {
	b, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		return 0
	}
	n := 0
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 8 {
			continue
		}
		id, err1 := strconv.Atoi(f[1])
		cpid, err2 := strconv.Atoi(f[4])
		nattch, err3 := strconv.Atoi(f[6])
		owner, err4 := strconv.ParseUint(f[7], 10, 32)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || uint32(owner) != uid || nattch != 0 || running(cpid) {
			continue
		}
		if _, err := unix.SysvShmCtl(id, unix.IPC_RMID, nil); err == nil {
			n++
		}
	}
	return n
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
