package metrics

import (
	"context"
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"

	"github.com/keybench/keybench/internal/results"
)

// resultSettings are recorded whatever their source, because they change results.
var resultSettings = []string{
	"shared_buffers", "effective_cache_size", "max_wal_size", "checkpoint_timeout", "full_page_writes",
	"wal_compression", "synchronous_commit", "fsync", "wal_level", "debug_io_direct", "io_method",
	"effective_io_concurrency", "work_mem", "maintenance_work_mem", "max_connections", "autovacuum",
}

// Settings returns every setting that is not at its built-in default, plus
// those that change results, as "value[unit]".
func Settings(ctx context.Context, conn *pgx.Conn) (map[string]string, error) {
	rows, err := conn.Query(ctx, `SELECT name, setting || coalesce(unit, '') FROM pg_settings
		WHERE (source NOT IN ('default', 'override') OR name = ANY($1))
		  AND name NOT IN ('application_name', 'client_encoding', 'DateStyle', 'TimeZone', 'lc_messages', 'lc_monetary', 'lc_numeric', 'lc_time', 'default_text_search_config')`,
		resultSettings)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
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
