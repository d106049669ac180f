package metrics

import (
	"context"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/usage"
)

// resultSettings is the allow-list of server settings recorded with the
// results: those that change what keybench measures (memory, WAL and
// checkpoints, IO, durability, vacuum, planner costs, parallelism). Nothing
// else is recorded, because a results file is shared: a setting such as
// primary_conninfo can hold a password, and the names of other settings
// say nothing about the figures.
var resultSettings = []string{
	"server_version", "block_size", "wal_block_size", "wal_segment_size", "data_checksums", "data_directory_mode",
	"shared_buffers", "effective_cache_size", "huge_pages", "work_mem", "maintenance_work_mem", "temp_buffers",
	"max_connections", "max_worker_processes", "max_parallel_workers", "max_parallel_workers_per_gather", "max_parallel_maintenance_workers",
	"max_wal_size", "min_wal_size", "checkpoint_timeout", "checkpoint_completion_target", "full_page_writes",
	"wal_compression", "wal_level", "wal_buffers", "wal_writer_delay", "wal_writer_flush_after", "wal_sync_method", "wal_log_hints",
	"synchronous_commit", "synchronous_standby_names", "commit_delay", "commit_siblings", "fsync",
	"debug_io_direct", "io_method", "io_workers", "effective_io_concurrency", "maintenance_io_concurrency", "io_combine_limit",
	"bgwriter_delay", "bgwriter_lru_maxpages", "bgwriter_lru_multiplier", "backend_flush_after", "checkpoint_flush_after",
	"autovacuum", "autovacuum_naptime", "autovacuum_max_workers", "autovacuum_vacuum_cost_delay", "autovacuum_vacuum_cost_limit",
	"autovacuum_vacuum_scale_factor", "autovacuum_vacuum_threshold", "autovacuum_vacuum_insert_scale_factor",
	"autovacuum_vacuum_insert_threshold", "autovacuum_analyze_scale_factor", "vacuum_cost_delay", "vacuum_cost_limit",
	"random_page_cost", "seq_page_cost", "jit", "default_toast_compression", "track_io_timing", "track_wal_io_timing",
	"shared_preload_libraries", "default_statistics_target", "enable_seqscan", "enable_indexscan", "enable_bitmapscan",
}

// Settings returns the allow-listed settings (resultSettings) as
// PostgreSQL shows them, secrets redacted all the same.
func Settings(ctx context.Context, conn *pgx.Conn) (map[string]string, error) {
	// current_setting gives the value as a user writes it ("1GB"); setting
	// and unit concatenated read "1310728kB" for 131072 pages of 8kB.
	rows, _ := conn.Query(ctx, `SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1)`, resultSettings)
	out := map[string]string{}
	var k, v string
	_, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error { out[k] = usage.RedactSecrets(v); return nil })
	return out, err
}

// HostInfo describes this machine from /proc and uname.
func HostInfo() results.Host {
	h := results.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		var b strings.Builder
		for _, c := range u.Release {
			if c == 0 {
				break
			}
			b.WriteByte(byte(c))
		}
		h.Kernel = b.String()
	}
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if cpus, err := fs.CPUInfo(); err == nil && len(cpus) > 0 {
			h.CPUModel = cpus[0].ModelName
		}
		if mi, err := fs.Meminfo(); err == nil && mi.MemTotal != nil {
			h.MemBytes = *mi.MemTotal * 1024
		}
	}
	return h
}

// LoadAvg reads the machine's load averages (1, 5, 15 minutes).
func LoadAvg() ([3]float64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return [3]float64{}, err
	}
	l, err := fs.LoadAvg()
	if err != nil {
		return [3]float64{}, err
	}
	return [3]float64{l.Load1, l.Load5, l.Load15}, nil
}

// CPUShare is the share of the machine's CPUs a busy process gets now: one
// goroutine per CPU spins for d, and the process's CPU time over d times
// the CPUs is the share (1: the machine is keybench's; 2/3 on two CPUs
// beside one busy loop). The first estimate of a run scales by it
// (scenario.Experiment.Speed): the run's clients and server are busy
// processes as well.
func CPUShare(d time.Duration) (float64, error) {
	var r0, r1 syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r0); err != nil {
		return 0, err
	}
	n := runtime.NumCPU()
	t0 := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for time.Since(t0) < d {
			}
		})
	}
	wg.Wait()
	wall := time.Since(t0)
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r1); err != nil {
		return 0, err
	}
	cpu := time.Duration(r1.Utime.Nano()+r1.Stime.Nano()-r0.Utime.Nano()-r0.Stime.Nano()) * time.Nanosecond
	return math.Min(1, cpu.Seconds()/(float64(n)*wall.Seconds())), nil
}
