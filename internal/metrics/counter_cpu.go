package metrics

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"github.com/keybench/keybench/internal/results"
)

// cpuCounter: keybench's own CPU (getrusage) and, for the embedded server,
// the postmaster's and all its children's, exited ones included.
type cpuCounter struct{}

type cpuSnap struct {
	at             time.Time
	client, server float64
	serverErr      error
}

func (cpuCounter) read(_ context.Context, env *Env) (snapshot, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nil, err
	}
	s := cpuSnap{at: time.Now(), client: tv(ru.Utime) + tv(ru.Stime)}
	if env.ServerPID == 0 {
		s.serverErr = env.noProcess()
	} else {
		s.server, s.serverErr = treeCPU(env.ServerPID)
	}
	return s, nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// processStats is every process's /proc/PID/stat, by PID (a process that
// ends while they are read is left out).
func processStats() (map[int]procfs.ProcStat, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, err
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, err
	}
	out := make(map[int]procfs.ProcStat, len(procs))
	for _, p := range procs {
		if st, err := p.Stat(); err == nil {
			out[st.PID] = st
		}
	}
	return out, nil
}

// treeCPU is the CPU seconds of pid and its descendants, living and reaped.
func treeCPU(pid int) (float64, error) {
	stats, err := processStats()
	if err != nil {
		return 0, err
	}
	children := map[int][]procfs.ProcStat{}
	var root *procfs.ProcStat
	for _, st := range stats {
		if st.PID == pid {
			r := st
			root = &r
		}
		children[st.PPID] = append(children[st.PPID], st)
	}
	if root == nil {
		return 0, fmt.Errorf("server process %d not found", pid)
	}
	hz := 100.0 // USER_HZ on Linux
	total := float64(root.UTime+root.STime) + float64(root.CUTime+root.CSTime)
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			total += float64(c.UTime + c.STime)
			walk(c.PID)
		}
	}
	walk(pid)
	return total / hz, nil
}

// figures: keybench's CPU stands anywhere (the server's is unavailable elsewhere by itself).
func (cpuCounter) figures() []declared {
	return []declared{merged(func(m *results.Metrics) *results.M[results.CPU] { return &m.CPU }, fromClients, mergeCPU)}
}

func (cpuCounter) report(b, a snapshot, _ time.Duration, into *results.Metrics) {
	before, after := b.(cpuSnap), a.(cpuSnap)
	secs := after.at.Sub(before.at).Seconds()
	out := results.CPU{ElapsedS: secs, ClientS: after.client - before.client, ClientCores: (after.client - before.client) / secs}
	if before.serverErr != nil || after.serverErr != nil {
		out.ServerS = results.Unavailable[float64](firstErr(before.serverErr, after.serverErr).Error())
	} else {
		out.ServerS = results.Of(after.server - before.server)
		out.ServerCores = results.Of((after.server - before.server) / secs)
	}
	into.CPU = results.Of(out)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (cpuCounter) unavailable(reason string, into *results.Metrics) {
	into.CPU = results.Unavailable[results.CPU](reason)
}
