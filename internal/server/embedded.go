package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/usage"
)

// Setting is one postgresql.conf parameter, applied with -c at start.
type Setting struct{ Name, Value string }

// launcherOwned are the settings the launcher chooses itself: where the
// server listens and keeps its files. A --pg-conf of one of them would
// move the server from where keybench waits for it (a port of the user's
// choice leaves the readiness check waiting on another socket).
var launcherOwned = map[string]string{
	"port": "keybench picks a free port (--tcp listens on 127.0.0.1 at it)", "listen_addresses": "keybench listens on its private socket, and on 127.0.0.1 with --tcp",
	"unix_socket_directories": "keybench's socket is in its private directory", "unix_socket_group": "keybench's socket is private",
	"unix_socket_permissions": "keybench's socket is private", "data_directory": "keybench makes a data directory of its own",
	"config_file": "keybench's server takes its settings with -c", "hba_file": "keybench writes its own authentication",
	"ident_file": "keybench writes its own authentication", "external_pid_file": "keybench watches the server it started",
}

// ParseSettings reads --pg-conf's key=value pairs, refusing one that is
// not key=value and one that the launcher owns (a usage error naming it).
func ParseSettings(pairs []string) ([]Setting, error) {
	var out []Setting
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usage.Errorf("--pg-conf must be key=value, not %q", kv)
		}
		if why, owned := launcherOwned[strings.ToLower(k)]; owned {
			return nil, usage.Errorf("--pg-conf %s: %s", k, why)
		}
		out = append(out, Setting{Name: k, Value: strings.TrimSpace(v)})
	}
	return out, nil
}

// Options configure an embedded server.
type Options struct {
	// Version is a major ("18") or full ("18.6.0") release of the zonky binaries.
	Version string
	// BinDir, when set, is an installed PostgreSQL's bin directory (or its parent) used instead of a download.
	BinDir string
	// Settings are applied in order; later ones win.
	Settings []Setting
	// TCP makes the server also listen on 127.0.0.1, with a generated password.
	TCP bool
	// ColdCache makes cache misses reach the disk, as on the machines of the
	// source benchmarks: a small shared_buffers and, on PostgreSQL 16+, direct
	// IO for data files so the OS page cache cannot hide the misses.
	ColdCache bool
	// ColdCacheMB is shared_buffers in cold-cache mode (0: ColdSharedBuffersMB).
	ColdCacheMB int
	// Replicas is the number of streaming standbys to start beside the
	// server, each with its settings (standby.go).
	Replicas int
	// Logf reports slow steps; nil is silent.
	Logf func(string, ...any)
	// Progress shows the download of the binaries; nil shows nothing.
	Progress Progress
}

// Embedded is a running private PostgreSQL, a child of this process.
type Embedded struct {
	// Version is the server's version string (e.g. "18.6").
	Version string
	// BinDir is the bin directory the server runs from.
	BinDir string
	// DataDir and SocketDir live in a private temporary directory removed at Stop.
	DataDir, SocketDir string
	// Port is the port number (the socket file's suffix; the TCP port with Options.TCP).
	Port int
	// User is the operating-system user the server runs as.
	User string
	// Password is set only with Options.TCP, for loopback TCP clients.
	Password string
	// TCP reports whether the server listens on 127.0.0.1.
	TCP bool
	// CacheMode describes the cache mode the server runs in.
	CacheMode string
	// DirectIO says the server reads and writes its data files with
	// direct IO (the cold cache on 16+, unless a setting turned it off).
	DirectIO bool
	// Standbys are the streaming standbys of this server (Options.Replicas).
	Standbys []*Embedded

	dir     string
	logPath string
	// lock is dir's lock, held while this process runs the server (writeOwner).
	lock *fileLock
	// run is the user the postmaster runs as; args its command line
	// (Restart starts it again with them), conf the settings in it.
	run     *runAs
	args    []string
	conf    []string
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// walKeeping are the settings that say how the server keeps its WAL (for
// standbys, archives, summaries): a server whose user set one keeps it so
// for every phase of the run (WALSkippable).
var walKeeping = map[string]bool{"wal_level": true, "archive_mode": true, "archive_command": true, "archive_library": true,
	"max_wal_senders": true, "summarize_wal": true, "max_replication_slots": true}

// WALSkippable says whether a restart may run the server at wal_level
// minimal (MinimalWAL): neither a standby replays its WAL nor did the
// user say how its WAL is kept (--pg-conf).
func (e *Embedded) WALSkippable() bool {
	if len(e.Standbys) > 0 {
		return false
	}
	for i := 1; i < len(e.conf); i += 2 {
		name, _, _ := strings.Cut(e.conf[i], "=")
		if walKeeping[strings.ToLower(strings.TrimSpace(name))] {
			return false
		}
	}
	return true
}

// MinimalWAL are the settings of a server that writes no WAL for a table
// made or emptied in the transaction that fills it: PostgreSQL writes the
// table's pages at commit instead (fsynced, or logged whole under
// wal_skip_threshold), the pages the same inserts make with WAL. A fill
// runs under them; the rounds never do (their WAL is a figure).
var MinimalWAL = []Setting{{"wal_level", "minimal"}, {"max_wal_senders", "0"}}

// ColdMB is the cold-cache mode's shared_buffers in MB.
func (o Options) ColdMB() int {
	if o.ColdCacheMB > 0 {
		return o.ColdCacheMB
	}
	return ColdSharedBuffersMB
}

// ColdSharedBuffers is shared_buffers in cold-cache mode: small enough that
// the indexes of the presets' tables outgrow it within minutes.
const ColdSharedBuffersMB = 16

// major parses the major version of "18.6" or "15.18 (Debian ...)".
// Major is the server's major version (18).
func (e *Embedded) Major() int { return major(e.Version) }

func major(version string) int {
	n := 0
	for _, c := range version {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// DBUser is the superuser initdb creates in the embedded server.
const DBUser = "keybench"

// Start initialises a fresh cluster in a private temporary directory and
// starts the postmaster. The caller must call Stop.
func Start(ctx context.Context, o Options) (_ *Embedded, err error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	bin, err := binDir(ctx, o, logf)
	if err != nil {
		return nil, err
	}
	run, err := serverUser()
	if err != nil {
		return nil, err
	}
	if err := run.canReach(filepath.Join(bin, "postgres")); err != nil {
		return nil, err
	}
	sweepStale(logf, run.uid)
	e := &Embedded{BinDir: bin, User: run.name, Port: 5432, TCP: o.TCP}
	e.dir, err = os.MkdirTemp("", tempPrefix+"*")
	if err != nil {
		return nil, err
	}
	if e.lock, err = writeOwner(e.dir); err != nil {
		os.RemoveAll(e.dir)
		return nil, err
	}
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()
	e.DataDir, e.SocketDir, e.logPath = filepath.Join(e.dir, "data"), filepath.Join(e.dir, "sock"), filepath.Join(e.dir, "postgres.log")
	for _, d := range []string{e.SocketDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	if err := run.own(e.dir, e.SocketDir); err != nil {
		return nil, err
	}
	if e.Version, err = serverVersion(bin); err != nil {
		return nil, err
	}
	if err := e.initdb(ctx, run, o.TCP); err != nil {
		return nil, err
	}
	args := []string{"-D", e.DataDir, "-k", e.SocketDir, "-p", fmt.Sprint(e.Port), "-c", "listen_addresses=" + map[bool]string{true: "127.0.0.1"}[o.TCP]}
	e.configure(o)
	e.run, e.args = run, append(args, e.conf...)
	var standbyDirs []string
	if o.Replicas > 0 {
		if standbyDirs, err = e.copyForStandbys(ctx, o.Replicas); err != nil {
			return nil, err
		}
	}
	if err := e.launch(ctx, nil); err != nil {
		return nil, err
	}
	if err := e.startStandbys(ctx, standbyDirs); err != nil {
		return nil, err
	}
	return e, nil
}

// initdb makes the server's data directory as run's user: local trust on
// the private socket, and with tcp a password (scram) on a free port.
func (e *Embedded) initdb(ctx context.Context, run *runAs, tcp bool) error {
	initArgs := []string{"-D", e.DataDir, "-U", DBUser, "-E", "UTF8", "--locale=C", "--no-sync", "--auth-local=trust"}
	if tcp {
		e.Password = randomToken()
		pw := filepath.Join(e.dir, "pwfile")
		if err := os.WriteFile(pw, []byte(e.Password+"\n"), 0o600); err != nil {
			return err
		}
		if err := run.own(pw); err != nil {
			return err
		}
		initArgs = append(initArgs, "--auth-host=scram-sha-256", "--pwfile="+pw)
		var err error
		if e.Port, err = freePort(); err != nil {
			return err
		}
	} else {
		initArgs = append(initArgs, "--auth-host=reject")
	}
	initdb := run.command(ctx, filepath.Join(e.BinDir, "initdb"), initArgs...)
	tieToParent(initdb.SysProcAttr) // a killed keybench takes its initdb along
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb failed: %v: %s", err, lastLines(out, 5))
	}
	return nil
}

// configure sets the server's settings (e.conf): IO timing on, the cold
// cache when asked (a small shared_buffers, direct IO on 16+), then the
// user's, later ones winning; and says the cache mode it runs in.
func (e *Embedded) configure(o Options) {
	// track_io_timing and track_wal_io_timing: what a read from outside the
	// cache, a write and a WAL flush cost on this server (pg_stat_io's and
	// pg_stat_wal's times), inputs of the projection's cost model and of
	// each round's work per transaction.
	settings := append([]Setting{{"track_io_timing", "on"}, {"track_wal_io_timing", "on"}}, o.Settings...)
	e.CacheMode = "warm"
	if o.ColdCache {
		sb := fmt.Sprintf("%dMB", o.ColdMB())
		cold := []Setting{{"shared_buffers", sb}}
		e.CacheMode = "cold: shared_buffers=" + sb
		if major(e.Version) >= 16 {
			cold = append(cold, Setting{"debug_io_direct", "data"})
			e.CacheMode += ", direct IO for data files"
		} else {
			e.CacheMode += " (no direct IO before PostgreSQL 16: the OS page cache still serves misses)"
		}
		settings = append(cold, settings...)
	}
	for _, s := range settings {
		if s.Name == "shared_buffers" && o.ColdCache { // a later setting wins: say the one the server runs with
			e.CacheMode = strings.Replace(e.CacheMode, "shared_buffers="+fmt.Sprintf("%dMB", o.ColdMB()), "shared_buffers="+s.Value, 1)
		}
	}
	for _, s := range settings {
		e.conf = append(e.conf, "-c", s.Name+"="+s.Value)
		if s.Name == "debug_io_direct" {
			e.DirectIO = strings.Contains(s.Value, "data")
		}
	}
}

// launch starts the postmaster with the server's arguments and extra
// settings after them (later settings win), and waits until it accepts
// connections.
func (e *Embedded) launch(ctx context.Context, extra []Setting) error {
	args := append([]string(nil), e.args...)
	for _, s := range extra {
		args = append(args, "-c", s.Name+"="+s.Value)
	}
	logFile, err := os.OpenFile(e.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := e.run.command(context.Background(), filepath.Join(e.BinDir, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	tieToParent(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	exited := make(chan struct{})
	e.cmd, e.exited = cmd, exited
	go func() {
		e.waitErr = cmd.Wait()
		close(exited)
	}()
	return e.waitReady(ctx, 60*time.Second)
}

// Restart stops the postmaster (a fast shutdown: its data stays) and
// starts it again on the same data directory with extra settings after
// the ones it started with: a setting that needs a restart
// (shared_buffers) changes without a new cluster. Exited answers a new
// channel afterwards.
func (e *Embedded) Restart(ctx context.Context, extra []Setting) error {
	if e.cmd == nil || e.dir == "" {
		return errors.New("the server is not running")
	}
	e.signalUntilExit()
	if err := e.launch(ctx, extra); err != nil || len(e.Standbys) == 0 {
		return err
	}
	conn, err := pgx.Connect(ctx, e.ConnString())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return e.waitStreaming(ctx, conn)
}

func binDir(ctx context.Context, o Options, logf func(string, ...any)) (string, error) {
	if o.BinDir != "" {
		d, _, err := CheckBinDir(o.BinDir)
		return d, err
	}
	version, err := ResolveVersion(o.Version)
	if err != nil {
		return "", err
	}
	dir, err := Binaries(ctx, version, logf, o.Progress)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "bin"), nil
}

// CheckBinDir finds postgres and initdb in dir or its bin/ and returns that
// directory and the server's version: --pg-bin is checked before anything starts.
func CheckBinDir(dir string) (bin, version string, err error) {
	for _, d := range []string{dir, filepath.Join(dir, "bin")} {
		if st, err := os.Stat(filepath.Join(d, "postgres")); err == nil && !st.IsDir() {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				v, err := serverVersion(d)
				return d, v, err
			}
		}
	}
	return "", "", fmt.Errorf("--pg-bin %s: no postgres and initdb there (nor in its bin/)", dir)
}

func serverVersion(bin string) (string, error) {
	out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s/postgres --version: %w", bin, err)
	}
	// "postgres (PostgreSQL) 18.6" or "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return "", fmt.Errorf("unexpected postgres --version output %q", out)
	}
	return f[2], nil
}

// waitReady polls the socket until the server accepts connections or the postmaster exits.
func (e *Embedded) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := pgconn.Connect(cctx, e.ConnString())
		cancel()
		if err == nil {
			return c.Close(ctx)
		}
		select {
		case <-e.exited:
			tail := e.LogTail(5)
			if strings.Contains(tail, "configuration parameter") || strings.Contains(tail, "invalid value for parameter") {
				// A setting (--pg-conf) PostgreSQL refused is bad input, not a failure.
				return usage.Errorf("the server rejected a setting: %s", tail)
			}
			return fmt.Errorf("postgres exited during start-up: %s", tail)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within %s: %s", limit, e.LogTail(5))
		}
	}
}

// ConnString is a libpq keyword/value string for the superuser over the private socket.
func (e *Embedded) ConnString() string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable", e.SocketDir, e.Port, DBUser)
}

// TCPURL is a URL for loopback TCP clients (with the password), or "" without Options.TCP.
func (e *Embedded) TCPURL() string {
	if !e.TCP {
		return ""
	}
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=disable", DBUser, e.Password, e.Port)
}

// PID is the postmaster's process id.
func (e *Embedded) PID() int {
	if e.cmd == nil || e.cmd.Process == nil {
		return 0
	}
	return e.cmd.Process.Pid
}

// Exited is closed when the postmaster has exited, for whatever reason.
func (e *Embedded) Exited() <-chan struct{} { return e.exited }

// Log is the server's log, whole: what a test reads to see that nothing
// of a user's code ran (each planted function logs a word of its own).
func (e *Embedded) Log() string {
	b, _ := os.ReadFile(e.logPath)
	return string(b)
}

// LogTail returns the last n lines of the server log, on one line.
func (e *Embedded) LogTail(n int) string {
	b, _ := os.ReadFile(e.logPath)
	return lastLines(b, n)
}

// Trouble returns the server log's most telling recent line: the last
// PANIC, else the last FATAL, else its last two lines. It explains why the
// server went away (a full disk, a killed postmaster).
func (e *Embedded) Trouble() string {
	b, _ := os.ReadFile(e.logPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 200 {
		lines = lines[len(lines)-200:]
	}
	for _, level := range []string{"PANIC:", "FATAL:"} {
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], level) {
				return strings.TrimSpace(lines[i])
			}
		}
	}
	return lastLines(b, 2)
}

// Stop shuts the server down (fast shutdown, then immediate, then SIGKILL
// to its whole process group) and removes its directory. It is safe to call
// more than once and on a server that failed to start.
func (e *Embedded) Stop() error {
	// The standbys first: they would only retry their primary.
	for _, s := range e.Standbys {
		if s.cmd != nil && s.cmd.Process != nil {
			s.signalUntilExit()
		}
	}
	if e.cmd != nil && e.cmd.Process != nil {
		e.signalUntilExit()
	}
	if e.dir != "" {
		err := os.RemoveAll(e.dir)
		e.dir = ""
		if e.lock != nil {
			e.lock.unlock()
			e.lock = nil
		}
		return err
	}
	return nil
}

func (e *Embedded) signalUntilExit() {
	pid := e.cmd.Process.Pid
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, 20 * time.Second}, {syscall.SIGQUIT, 5 * time.Second}} {
		select {
		case <-e.exited:
			return
		default:
		}
		_ = syscall.Kill(pid, step.sig)
		select {
		case <-e.exited:
			return
		case <-time.After(step.wait):
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL) // the postmaster leads its own process group
	<-e.exited
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomToken() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var errNoUser = errors.New("no unprivileged user to run PostgreSQL as")
