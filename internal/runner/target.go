package runner

// The kinds of server a run can have (the embedded one, or someone
// else's), behind one interface the runner asks instead of asking which
// it has.

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/workspace"
)

// target is the server a run measures: the embedded server keybench
// started (and may do anything with), or someone else's reached by --dsn
// (where keybench works only in its own schema, may lack rights, and
// cannot see the server's processes and disks). The runner asks the target
// instead of asking which kind of server it has.
type target interface {
	// connConfig is how to connect (without keybench's runtime parameters).
	connConfig() *pgx.ConnConfig
	// describe fills in the environment's server kind and cache mode.
	describe(env *results.Environment)
	// process is the postmaster's pid and data directory, when keybench
	// can see them (0 and "" otherwise).
	process() (pid int, dataDir string)
	// cores is the cores the server shares with keybench (0: unknown, it runs elsewhere).
	cores(host results.Host) int
	// ownsCheckpoints says that a CHECKPOINT which fails is a failure; on
	// someone else's server a role may lack the right, and the run goes on.
	ownsCheckpoints() bool
	// exited is closed when the server exits (nil: keybench cannot tell).
	exited() <-chan struct{}
	// trouble is what the server's log says went wrong ("" when unknown).
	trouble() string
	// openWorkspace makes (or checks) keybench's schema on the server and its ledger.
	openWorkspace(ctx context.Context, admin *pgx.Conn, o workspace.Options) (*workspace.Workspace, error)
	// standbys are the standbys keybench started (their names), and why
	// there are none ("" when the server's own may stream elsewhere).
	standbys() (names []string, noneWhy string)
	// useCache restarts the server with shared_buffers of the given
	// bytes (--shared-buffers): only a server keybench started can.
	useCache(ctx context.Context, bytes int64) error
	// directIO says the server writes its data files with direct IO (the
	// embedded cold cache); bufferedWrites restarts it without (on) or
	// with it again (off): the fills' writes then go through the OS, some
	// twice as fast, and the rounds read as the cold cache asks. A
	// restart for the fills (fills) may also run the server at wal_level
	// minimal (server.MinimalWAL), which it answers (walSkipped).
	directIO() bool
	bufferedWrites(ctx context.Context, on, fills bool) (walSkipped bool, err error)
	// close stops what keybench started.
	close() error
}

// embeddedTarget is the server keybench started; it is thrown away at the end.
type embeddedTarget struct {
	e      *server.Embedded
	binDir bool // started from --pg-bin
	cc     *pgx.ConnConfig
	// cache is the shared_buffers a restart keeps (useCache), none: the start's.
	cache []server.Setting
}

func startEmbedded(ctx context.Context, o server.Options) (*embeddedTarget, error) {
	e, err := server.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	cc, err := pgx.ParseConfig(e.ConnString())
	if err != nil {
		_ = e.Stop()
		return nil, err
	}
	return &embeddedTarget{e: e, binDir: o.BinDir != "", cc: cc}, nil
}

func (t *embeddedTarget) connConfig() *pgx.ConnConfig { return t.cc }

func (t *embeddedTarget) describe(env *results.Environment) {
	env.ServerKind, env.ServerBinDir, env.ServerUser, env.CacheMode = "embedded", t.e.BinDir, t.e.User, t.e.CacheMode
	if t.binDir {
		env.ServerKind = "pg-bin"
	}
}

func (t *embeddedTarget) process() (int, string)   { return t.e.PID(), t.e.DataDir }
func (t *embeddedTarget) cores(h results.Host) int { return h.CPUs }
func (t *embeddedTarget) ownsCheckpoints() bool    { return true }
func (t *embeddedTarget) exited() <-chan struct{}  { return t.e.Exited() }
func (t *embeddedTarget) trouble() string          { return t.e.Trouble() }
func (t *embeddedTarget) close() error             { return t.e.Stop() }
func (t *embeddedTarget) standbys() ([]string, string) {
	var names []string
	for i := range t.e.Standbys {
		names = append(names, server.StandbyName(i+1))
	}
	return names, "no standby: the embedded server ran without --replicas"
}
func (t *embeddedTarget) useCache(ctx context.Context, bytes int64) error {
	t.cache = []server.Setting{{Name: "shared_buffers", Value: fmt.Sprintf("%dkB", bytes>>10)}}
	return t.e.Restart(ctx, t.cache)
}
func (t *embeddedTarget) directIO() bool { return t.e.DirectIO }
func (t *embeddedTarget) bufferedWrites(ctx context.Context, on, fills bool) (bool, error) {
	extra := t.cache
	skip := on && fills && t.e.WALSkippable()
	if on {
		// Between the measured rounds (fills, evidence) the cache is no
		// figure: a large one lets a prefill grow an index in place (--fill
		// indexed: random leaves split as inserts split them) at COPY's
		// speed, where the rounds' small cache would write every leaf out
		// again as the next insert evicts it.
		extra = append(append([]server.Setting(nil), t.cache...), server.Setting{Name: "debug_io_direct", Value: ""},
			server.Setting{Name: "shared_buffers", Value: fillSharedBuffers})
	}
	if skip {
		extra = append(extra, server.MinimalWAL...)
	}
	return skip, t.e.Restart(ctx, extra)
}

// fillSharedBuffers is the cache of the embedded server between the rounds.
const fillSharedBuffers = "512MB"

// openWorkspace: the whole server goes at the end, and the workspace with it.
func (t *embeddedTarget) openWorkspace(ctx context.Context, admin *pgx.Conn, o workspace.Options) (*workspace.Workspace, error) {
	o.Disposable = true
	return workspace.Open(ctx, admin, o)
}

// dsnTarget is someone else's server (--dsn).
type dsnTarget struct{ cc *pgx.ConnConfig }

func (t *dsnTarget) connConfig() *pgx.ConnConfig { return t.cc }
func (t *dsnTarget) describe(env *results.Environment) {
	env.ServerKind, env.CacheMode = "dsn", "as configured by the server's owner"
}
func (t *dsnTarget) process() (int, string)       { return 0, "" }
func (t *dsnTarget) cores(results.Host) int       { return 0 }
func (t *dsnTarget) ownsCheckpoints() bool        { return false }
func (t *dsnTarget) exited() <-chan struct{}      { return nil }
func (t *dsnTarget) trouble() string              { return "" }
func (t *dsnTarget) close() error                 { return nil }
func (t *dsnTarget) standbys() ([]string, string) { return nil, "" }
func (t *dsnTarget) directIO() bool               { return false }
func (t *dsnTarget) bufferedWrites(context.Context, bool, bool) (bool, error) {
	return false, errors.New("keybench does not restart someone else's server")
}
func (t *dsnTarget) useCache(context.Context, int64) error {
	return errors.New("keybench cannot restart someone else's server with another shared_buffers (--shared-buffers is for the embedded server)")
}
func (t *dsnTarget) openWorkspace(ctx context.Context, admin *pgx.Conn, o workspace.Options) (*workspace.Workspace, error) {
	return workspace.Open(ctx, admin, o)
}
