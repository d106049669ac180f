package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/advise"
	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/usage"
)

type adviseCmd struct {
	DSN          []string   `name:"dsn" sep:"none" help:"The database to read (URL or key=value; libpq PG* variables fill the rest); repeat it to read several as a fleet. Read-only: safe on a primary or a hot standby; a role with pg_monitor reads everything advise shows, less is said."`
	DSNFile      string     `name:"dsn-file" placeholder:"FILE" help:"Read the connection strings of a fleet's databases from FILE, one a line ('#' starts a comment line), beside any --dsn."`
	AllDatabases bool       `name:"all-databases" help:"Read every database of each --dsn's server that its role may connect to (templates left out), as a fleet."`
	Parallel     int        `name:"parallel" default:"4" placeholder:"N" help:"Over several databases: how many are read at a time, each on a connection of its own (the sample window is one for all)."`
	LabTop       int        `name:"lab-top" placeholder:"N" help:"With --lab: the labs of the N tables paying most only (default: 3 over several databases, every paying table of one)."`
	Sample       pgDuration `default:"60s" placeholder:"SECONDS" help:"Window over which inserts, updates, deletes and WAL per second are measured (seconds or a duration)."`
	Table        []string   `name:"table" placeholder:"SCHEMA.NAME" help:"Look at this table only (repeatable); default: every user table."`
	RAM          string     `name:"ram" help:"The server's memory, e.g. 64GB, to set each key index against it as well as against shared_buffers."`
	Curves       string     `name:"curves" type:"existingfile" placeholder:"RESULTS.json" help:"A keybench run with measured curves (a growth run): what each paying table's key costs at its own rows and cache."`
	JSON         bool       `name:"json" help:"Print the advice as JSON (schema: docs/advise.md)."`
	HTML         string     `name:"html" placeholder:"FILE" help:"Also write the advice as an HTML page."`
	Lab          bool       `name:"lab" help:"Run each paying table's lab (its command, printed per table) on the embedded server, one after another, and put its measured verdict beside the table's: its key's work per insert (the server's CPU and IO counted) and rate against the least working ordered key's, each with its interval."`
	LabOut       string     `name:"lab-out" placeholder:"DIR" help:"With --lab: where the labs write their results, a directory each (default: keybench-results/advise-lab-TIME)."`
	exports      `embed:""`
	overwrite    `embed:""`
}

// MaxSample bounds --sample: a look, not a monitoring session.
const MaxSample = time.Hour

func (a *adviseCmd) Run(e *env) error {
	if a.isFleet() {
		return a.runFleet(e)
	}
	if a.Lab {
		// The labs start servers of their own: a signal stops the lab under
		// way, which stops its server and removes its directory, before
		// advise returns (not at once, as a command that only reads does).
		err := a.run(e)
		if e.ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	return interruptible(e.ctx, func() error { return a.run(e) })
}

func (a *adviseCmd) run(e *env) error {
	if err := a.checkAll(); err != nil {
		return err
	}
	o, err := a.options()
	if err != nil {
		return err
	}
	conn, err := a.connect(e)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	o.Log = func(format string, args ...any) {
		fmt.Fprintf(&printable{w: e.stderr}, "advise: "+format+"\n", args...)
	}
	o.Progress = progressEvery(2*time.Second, func(done, total int) {
		fmt.Fprintf(e.stderr, "advise: %d of %d tables read\n", done, total)
	})
	rep, err := advise.Inspect(e.ctx, conn, o)
	if err != nil {
		if _, ok := errors.AsType[*usage.Error](err); ok || e.ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("advise: %s", usage.Redact(err.Error(), a.dsn()))
	}
	// An emergency is said the moment it is known, before any lab runs
	// (a key may run out while they do).
	for _, t := range rep.Tables {
		if t.Verdict.Class == advise.RunsOut && len(t.Verdict.Why) > 0 {
			fmt.Fprintf(&printable{w: e.stderr}, "advise: EMERGENCY: %s: %s\n", t.QualifiedName(), t.Verdict.Why[0])
		}
	}
	if a.HTML != "" {
		b, err := report.RenderAdvice(rep)
		if err != nil {
			return err
		}
		if err := os.WriteFile(a.HTML, b, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", a.HTML, err)
		}
	}
	if a.Lab {
		if err := a.runLabs(e, rep); err != nil {
			return err
		}
		if err := a.recheck(e, conn, rep); err != nil {
			return err
		}
	}
	return a.answer(e, report.AdviceDoc(rep, true), rep)
}

// answer writes the advice, d as the console shows it and value as its
// JSON: the exports, then --json or d on stdout, and names the page.
func (a *adviseCmd) answer(e *env, d *report.Doc, value any) error {
	if err := a.writeDoc(e, d, value); err != nil {
		return err
	}
	if a.JSON {
		return printJSON(e, value)
	}
	d.Write(&printable{w: e.stdout}, e.width(e.stdout))
	if a.HTML != "" {
		fmt.Fprintf(e.stderr, "report: %s\n", a.HTML)
	}
	return nil
}

// options are what the flags ask of advise.Inspect: the sample, the
// tables, the server's memory and a growth run's curves.
func (a *adviseCmd) options() (advise.Options, error) {
	o := advise.Options{Sample: time.Duration(a.Sample), Tables: a.Table}
	if o.Sample <= 0 || o.Sample > MaxSample {
		return o, usagef("--sample must be above 0 and at most %s, not %s", MaxSample, time.Duration(a.Sample))
	}
	if a.RAM != "" {
		ram, err := projection.ParseBytes(a.RAM)
		if err != nil {
			return o, usagef("--ram %v", err)
		}
		o.RAM = ram
	}
	if a.Curves != "" {
		res, err := readResults(a.Curves)
		if err != nil {
			return o, usagef("--curves %v", err)
		}
		if err := advise.CheckCurves(res); err != nil {
			return o, usagef("--curves %s: %v", a.Curves, err)
		}
		o.Curves, o.CurvesFile = res, a.Curves
	}
	return o, nil
}

// recheck reads the sequences again after the labs, minutes later: a key
// may have run out meanwhile (an error is said, the report goes on).
func (a *adviseCmd) recheck(e *env, conn *pgx.Conn, rep *advise.Report) error {
	if err := advise.Recheck(e.ctx, conn, rep); err != nil {
		if e.ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(&printable{w: e.stderr}, "advise: the sequences could not be read again after the labs: %s\n", usage.Redact(err.Error(), a.dsn()))
	}
	return nil
}

// connect opens advise's session to its one database.
func (a *adviseCmd) connect(e *env) (*pgx.Conn, error) {
	cc, err := adviseConfig(a.dsn())
	if err != nil {
		return nil, err
	}
	return connectAdvise(e.ctx, cc, a.dsn())
}

// dsn is the one database's connection string ("": the PG* variables').
func (a *adviseCmd) dsn() string {
	if len(a.DSN) == 0 {
		return ""
	}
	return a.DSN[0]
}

// adviseConfig is the connection advise opens to dsn: read-only
// settings, its search_path pinned, a connect timeout.
func adviseConfig(dsn string) (*pgx.ConnConfig, error) {
	cc, err := usage.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	for k, v := range advise.Settings(0) {
		cc.RuntimeParams[k] = v
	}
	sqltree.Pin(cc, "")
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = 10 * time.Second
	}
	return cc, nil
}

// connectAdvise opens a session of cc, a password never printed in its error.
func connectAdvise(ctx context.Context, cc *pgx.ConnConfig, dsn string) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, usage.Connect(err, cc, dsn)
	}
	return conn, nil
}

// progressEvery passes progress on at most once every d, and the last.
func progressEvery(d time.Duration, say func(done, total int)) advise.Progress {
	last := time.Now()
	return func(done, total int) {
		if now := time.Now(); now.Sub(last) >= d || done == total && total > 0 && now.Sub(last) >= d/4 {
			last = now
			say(done, total)
		}
	}
}

// runLabs runs the lab of every paying table (the first --lab-top of
// them, when given), and has each table's class follow what its lab
// measured.
func (a *adviseCmd) runLabs(e *env, rep *advise.Report) error {
	var labs []*advise.Table
	for i := range rep.Tables {
		if t := &rep.Tables[i]; labbable(t) {
			labs = append(labs, t)
		}
	}
	if len(labs) == 0 {
		// Said where the advice is read (stdout, --json, the page), with why.
		rep.LabsNote = "--lab ran no lab: " + advise.WhyNoLab(rep)
		return nil
	}
	if a.LabTop > 0 && len(labs) > a.LabTop {
		labs = labs[:a.LabTop]
	}
	titles, dirs := make([]string, len(labs)), make([]string, len(labs))
	for i, t := range labs {
		titles[i], dirs[i] = t.QualifiedName(), t.Name
	}
	if err := a.labList(e, labs, titles, dirs); err != nil {
		return err
	}
	advise.FollowLab(rep.Tables)
	return nil
}

// labbable says whether --lab runs a table's lab: it has one, and its key
// pays or its cost is not shown.
func labbable(t *advise.Table) bool {
	c := t.Verdict.Class
	return t.Lab != nil && (c == advise.Pays || c == advise.PaysInSize || c == advise.NotShown)
}

// labList runs the labs of these tables, one after another, on the
// embedded server (each prints its plan and estimate, its progress and
// its first screen on stderr), and records what each measured beside the
// table's classification; titles name them in the progress lines, dirs
// in their results' directories.
func (a *adviseCmd) labList(e *env, labs []*advise.Table, titles, dirs []string) error {
	dir := a.LabOut
	var err error
	if dir == "" {
		dir, err = runner.MkUniqueOut("keybench-results", "advise-lab-"+time.Now().Format("20060102-150405"))
	} else {
		err = runner.MkOut(dir)
	}
	if err != nil {
		return usagef("--lab-out: cannot make a directory for the labs: %v", err)
	}
	fmt.Fprintf(e.stderr, "advise: --lab runs %d labs on the embedded server, one after another; results under %s\n", len(labs), dir)
	for i, t := range labs {
		out := filepath.Join(dir, fmt.Sprintf("%02d-%s", i+1, labDirName(dirs[i])))
		args := append(strings.Fields(t.Lab.Command)[1:], "--out", out)
		fmt.Fprintf(&printable{w: e.stderr}, "advise: lab %d of %d, %s: %s\n", i+1, len(labs), titles[i], t.Lab.Command)
		err := runNested(e.ctx, args, e.stderr, e.stderr)
		if e.ctx.Err() != nil {
			return errInterrupted
		}
		t.LabResult = advise.Measured(filepath.Join(out, "results.json"), t.Lab, err)
		if !advise.NeedsFlatOut(t) {
			continue
		}
		// No difference at the table's rate: the same lab flat out says
		// whether a busier table would pay.
		flat := append(withoutRate(strings.Fields(t.Lab.Command)[1:]), "--out", out+"-flat-out")
		fmt.Fprintf(&printable{w: e.stderr}, "advise: lab %d of %d, %s, found no difference at its rate: the same lab flat out\n", i+1, len(labs), titles[i])
		err = runNested(e.ctx, flat, e.stderr, e.stderr)
		if e.ctx.Err() != nil {
			return errInterrupted
		}
		t.LabFlatOut = advise.Measured(filepath.Join(out+"-flat-out", "results.json"), t.Lab, err)
	}
	return nil
}

// withoutRate is a lab's arguments without its -R/--rate (flat out).
func withoutRate(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-R" || a == "--rate":
			i++ // and its value
		case strings.HasPrefix(a, "--rate=") || strings.HasPrefix(a, "-R="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// labDirName is a table's name as a directory name: its letters, digits
// and '_' kept, anything else '-'.
func labDirName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '-'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

// checkAll checks the flags before any database is read: the exports'
// formats, the fleet's flags, and the files advise writes.
func (a *adviseCmd) checkAll() error {
	if err := a.check(); err != nil {
		return err
	}
	if a.Parallel < 1 || a.Parallel > MaxParallel {
		return usagef("--parallel must be from 1 to %d, not %d", MaxParallel, a.Parallel)
	}
	switch {
	case a.LabTop < 0:
		return usagef("--lab-top must be 1 or more, not %d", a.LabTop)
	case a.LabTop > 0 && !a.Lab:
		return usagef("--lab-top goes with --lab (it is how many labs run)")
	}
	return a.checkOutputs()
}

// checkOutputs checks, before the database is read, what advise writes:
// its exports and page, and its labs' directory (--lab-out, with --lab only).
func (a *adviseCmd) checkOutputs() error {
	if a.LabOut != "" && !a.Lab {
		return usagef("--lab-out goes with --lab (it is where the labs write their results)")
	}
	outs := a.targets()
	if a.HTML != "" {
		outs = append(outs, output{"--html", a.HTML})
	}
	if err := checkOutputs(outs, []string{a.Curves}, a.Force); err != nil {
		return err
	}
	return checkLogDir("--lab-out", a.LabOut, a.Force)
}
