// Package cli is keybench's command line: it parses and checks what the user
// asked for, then hands a plan to the runner. Bad usage exits 2 with one
// line; a failed run exits 1; an interrupted one 130.
package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/usage"
)

// Exit codes.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
	// ExitUndecided is compare --fail-on's answer when a measure it gates
	// could be neither shown to regress nor cleared: a gate that cannot
	// decide does not pass.
	ExitUndecided   = 3
	ExitInterrupted = 130
)

// Version is keybench's version.
var Version = "0.1.0-dev"

type cli struct {
	Run       runCmd       `cmd:"" help:"Run a scenario (a preset or a bare workload); default: war."`
	Keys      keysCmd      `cmd:"" help:"List the key strategies."`
	Workloads workloadsCmd `cmd:"" help:"List the workloads with their options, defaults and bounds."`
	Gen       genCmd       `cmd:"" help:"Print N keys of a key spec, one per line, as the database stores them."`
	Scenarios scenariosCmd `cmd:"" help:"List the scenarios."`
	Report    reportCmd    `cmd:"" help:"Re-render the console summary and report.html from a saved results.json."`
	Compare   compareCmd   `cmd:"" help:"Compare two results.json side by side; differences within noise are marked ~."`
	Project   projectCmd   `cmd:"" help:"Carry a run's keys to your scale: sizes, index over cache, the insert rate to expect, WAL per day, each with its interval and the error checked at its distance from the measurements."`
	Advise    adviseCmd    `cmd:"" help:"Read your own database (read-only) and say which tables pay for their key, how much, and the keybench run that reproduces each one's shape."`
	Disk      diskCmd      `cmd:"" help:"Probe the disk under a directory as PostgreSQL uses it (random 8 kB reads, sequential writes, flushes; direct IO), for a projection to your disk."`
	Server    serverCmd    `cmd:"" help:"Start the embedded server, print its DSN, stop on Ctrl-C."`
	Version   versionFlag  `name:"version" help:"Print the version and exit."`
	Wide      bool         `name:"wide" help:"Print tables whole, however wide (by default they fit the terminal: wrapped or split, nothing cut)."`
}

type versionFlag bool

func (versionFlag) BeforeApply(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, "keybench", fullVersion())
	app.Exit(0)
	return nil
}

func fullVersion() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// env carries the process's streams and signal context to the commands.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	args           []string
	wide           bool // --wide: tables whole
}

// width is the width the tables printed on w fit: a terminal's, else
// $COLUMNS when set, else 0 (whole: a file or pipe keeps every column on
// one line); 0 with --wide.
func (e *env) width(w io.Writer) int {
	if e.wide {
		return 0
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

func usagef(format string, a ...any) error { return usage.Errorf(format, a...) }

// signals is keybench's answer to SIGINT and SIGTERM: the first stops it in
// order (the servers it started stopped, its objects on --dsn dropped, the
// results kept: exit 130); a second says that it is cleaning up and goes
// on doing so; a third exits 130 at once, saying what may be left and how
// it goes (the exit codes are docs/run.md's).
func signals(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-ch:
			case <-done:
				return
			}
			switch n++; n {
			case 1:
				cancel()
			case 2:
				fmt.Fprintln(stderr, "keybench: stopping in order: the servers it started, its objects on --dsn, the results so far; a third signal exits at once and leaves them to the next run")
			default:
				fmt.Fprintln(stderr, "keybench: interrupted before its clean-up ended: an embedded server dies with keybench and the next keybench removes its directory (keybench-pg-* under the temporary directory); on --dsn, its schema and what it recorded creating stay until a run with the same --dsn and --schema drops them")
				results.RemoveTemps()
				os.Exit(ExitInterrupted)
			}
		}
	}()
	return ctx, func() { signal.Stop(ch); close(done); cancel() }
}

// Main runs keybench with args (without the program name) and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signals(stderr)
	defer stop()
	results.AllowTemps()
	// A reader that goes away (keybench run | head) must not kill keybench
	// before its files are written: writes to a closed pipe fail instead.
	signal.Ignore(syscall.SIGPIPE)
	kctx, c, exitCode, err := parse(args, stdout, stderr)
	if exitCode >= 0 { // --help or --version
		return exitCode
	}
	if err != nil {
		fmt.Fprintln(stderr, "keybench: error:", oneLine(err.Error()))
		return ExitUsage
	}
	if path := os.Getenv("KEYBENCH_CPUPROFILE"); path != "" { // for profiling keybench itself
		if f, err := os.Create(path); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, args: append([]string{"keybench"}, args...), wide: c.Wide}
	err = kctx.Run(e)
	code := exitFor(err, stderr)
	if code == ExitInterrupted {
		// A command an interrupt returned early may have left a write
		// under way in another goroutine: its temporary file goes now.
		results.RemoveTemps()
	}
	return code
}

// parse reads keybench's command line: the command to run, the flags it
// was given, or the exit code --help and --version set (-1 otherwise).
func parse(args []string, stdout, stderr io.Writer) (*kong.Context, *cli, int, error) {
	var c cli
	exitCode := -1
	parser, err := kong.New(&c, kong.Name("keybench"),
		kong.Description("Which primary key should this PostgreSQL table use, and what will it cost at my scale?"),
		kong.Writers(stdout, stderr), kong.UsageOnError(), kong.Exit(func(code int) {
			if exitCode < 0 {
				exitCode = code
			}
		}),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}), helpVars())
	if err != nil {
		return nil, nil, -1, fmt.Errorf("internal error: %w", err)
	}
	rest, options := workloadFlags(args, runFlag(parser))
	kctx, err := parser.Parse(negativeValues(rest))
	c.Run.options = options
	return kctx, &c, exitCode, err
}

// runNested runs a keybench command line inside this one (advise --lab
// runs each table's lab), in its context, printing to stdout and stderr.
func runNested(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	kctx, c, exitCode, err := parse(args, stdout, stderr)
	switch {
	case err != nil:
		return usagef("%v", err)
	case exitCode >= 0:
		return fmt.Errorf("%s exited %d", strings.Join(args, " "), exitCode)
	}
	return kctx.Run(&env{ctx: ctx, stdout: stdout, stderr: stderr, args: append([]string{"keybench"}, args...), wide: c.Wide})
}

func exitFor(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ue *usage.Error
	switch {
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "keybench: interrupted")
		return ExitInterrupted
	case errors.As(err, new(errUndecided)):
		fmt.Fprintln(stderr, "keybench: undecided:", oneLine(err.Error()))
		return ExitUndecided
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "keybench: error:", oneLine(err.Error()))
		return ExitUsage
	default:
		fmt.Fprintln(stderr, "keybench: failed:", oneLine(err.Error()))
		return ExitFailed
	}
}

var errInterrupted = errors.New("interrupted")

// errUndecided is compare's gate undecided (ExitUndecided).
type errUndecided struct{ what string }

func (e errUndecided) Error() string { return e.what }

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func bufferedOut(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 64<<10) }

// interruptible runs f, a command that only reads and renders, and returns
// errInterrupted as soon as a signal arrives: it has nothing to clean up.
func interruptible(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errInterrupted
	}
}

// printable passes text to w without control characters: the console
// output prints names and messages read from results files and servers,
// and an escape sequence among them must not reach the terminal. It decodes
// UTF-8 (a rune split between two writes waits for its end): newlines and
// tabs pass, other C0 controls, DEL and C1 controls are dropped, and a byte
// that is not UTF-8 becomes U+FFFD, so that no control can be formed from
// the bytes around a dropped one.
type printable struct {
	w       io.Writer
	pending []byte // the start of a rune whose end has not been written yet
}

func (p *printable) Write(b []byte) (int, error) {
	n := len(b)
	buf := append(p.pending, b...)
	p.pending = nil
	out := make([]byte, 0, len(buf))
	for len(buf) > 0 {
		if !utf8.FullRune(buf) {
			p.pending = append([]byte(nil), buf...)
			break
		}
		r, size := utf8.DecodeRune(buf)
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, "\uFFFD"...)
		case r == '\n' || r == '\t':
			out = append(out, byte(r))
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		default:
			out = append(out, buf[:size]...)
		}
		buf = buf[size:]
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// helpVars are the names --help lists (the presets and bare workloads).
func helpVars() kong.Vars {
	return kong.Vars{"presets": strings.Join(scenario.Presets(), ", "), "workloads": strings.Join(scenario.Bare(), ", ")}
}

// runFlag says whether a name is one of run's own flags (they win over a
// workload option of the same name).
func runFlag(parser *kong.Kong) func(string) bool {
	own := map[string]bool{}
	for _, n := range parser.Model.Children {
		if n.Name != "run" {
			continue
		}
		for _, f := range n.Flags {
			own[f.Name] = true
		}
	}
	return func(name string) bool { return own[name] }
}

// negativeValues joins a flag and a value that starts with a minus and a
// digit (-c -4, --rows -1) into one argument (-c=-4), so that the value's
// check says what is wrong with it instead of taking it for a flag.
func negativeValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && len(a) > 1 && i+1 < len(args) {
			next := args[i+1]
			if len(next) > 1 && next[0] == '-' && next[1] >= '0' && next[1] <= '9' {
				if strings.HasPrefix(a, "--") {
					out = append(out, a+"="+next)
				} else {
					out = append(out, a+next) // a short flag takes its value attached: -c-4
				}
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// printJSON prints v on stdout as indented JSON (the --json of the commands).
func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
