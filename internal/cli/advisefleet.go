package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/advise"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/usage"
)

// MaxParallel bounds --parallel: a few sessions at a time on servers that
// are someone else's, not a load of their own.
const MaxParallel = 64

// DefaultLabTop is how many labs --lab runs over a fleet without --lab-top:
// each takes minutes.
const DefaultLabTop = 3

// maxDSNFile bounds --dsn-file: connection strings, not a data set.
const maxDSNFile = 4 << 20

// isFleet says whether advise reads a fleet: more than one --dsn, a
// --dsn-file or --all-databases. A fleet's output is the fleet's whatever
// the count of databases it turns out to hold, so that a script reads one
// shape; one --dsn alone is advise on one database.
func (a *adviseCmd) isFleet() bool {
	return len(a.DSN) > 1 || a.DSNFile != "" || a.AllDatabases
}

// dsnSource is one connection string of a fleet and where it was given,
// to name it in an error (the string itself may hold a password).
type dsnSource struct {
	dsn, from string
}

// runFleet reads a fleet of databases (advise.ReadFleet), ranks their
// paying tables in one list and prints it; some databases not read is a
// failure (exit 1) once the rest are printed, an interruption prints what
// was read.
func (a *adviseCmd) runFleet(e *env) error {
	if err := a.checkAll(); err != nil {
		return err
	}
	o, err := a.options()
	if err != nil {
		return err
	}
	dsns, err := a.dsns()
	if err != nil {
		return err
	}
	targets, err := a.fleetTargets(e, dsns)
	if err != nil {
		return err
	}
	f := advise.ReadFleet(e.ctx, targets, advise.FleetOptions{Each: o, Parallel: a.Parallel,
		Log:      func(format string, args ...any) { fleetLog(e, dsns, format, args...) },
		Progress: fleetProgress(e)})
	for i := range f.Databases {
		f.Databases[i].NotRead = redactAll(f.Databases[i].NotRead, dsns)
	}
	for _, x := range f.Tables {
		if t := f.Table(x); x.Class == advise.RunsOut && len(t.Verdict.Why) > 0 {
			fmt.Fprintf(&printable{w: e.stderr}, "advise: EMERGENCY: %s: %s: %s\n", f.Databases[x.Database].Label(), t.QualifiedName(), t.Verdict.Why[0])
		}
	}
	var labs error
	if a.Lab && f.Status != advise.FleetInterrupted {
		// Interrupted, the labs leave what they measured and the rest is printed.
		if labs = a.fleetLabs(e, f, targets, dsns); labs != nil && !errors.Is(labs, errInterrupted) {
			return labs
		}
	}
	if err := a.writeFleet(e, f); err != nil {
		return err
	}
	switch n := f.NotRead(); {
	case f.Status == advise.FleetInterrupted || labs != nil:
		return errInterrupted
	case n > 0:
		return fmt.Errorf("advise: %d of %d databases were not read, or not whole (each said above, with why)", n, len(f.Databases))
	}
	return nil
}

// writeFleet writes the fleet's advice: the page (--html), the exports,
// and --json or the summary on stdout.
func (a *adviseCmd) writeFleet(e *env, f *advise.Fleet) error {
	if a.HTML != "" {
		b, err := report.RenderFleet(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(a.HTML, b, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", a.HTML, err)
		}
	}
	return a.answer(e, report.FleetDoc(f), f)
}

// dsns are the fleet's connection strings: each --dsn, then each line of
// --dsn-file that is neither blank nor a comment; none given: the PG*
// variables' one database.
func (a *adviseCmd) dsns() ([]dsnSource, error) {
	var out []dsnSource
	for i, d := range a.DSN {
		out = append(out, dsnSource{d, fmt.Sprintf("--dsn %d", i+1)})
	}
	if a.DSNFile != "" {
		b, err := results.ReadFile(a.DSNFile, maxDSNFile, "a file of connection strings")
		if err != nil {
			return nil, usagef("--dsn-file: %v", err)
		}
		n := 0
		for i, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			out = append(out, dsnSource{line, fmt.Sprintf("--dsn-file %s line %d", a.DSNFile, i+1)})
			n++
		}
		if n == 0 {
			return nil, usagef("--dsn-file %s holds no connection string (one a line; '#' starts a comment line)", a.DSNFile)
		}
	}
	if len(out) == 0 {
		out = append(out, dsnSource{"", "the PG* variables"})
	}
	return out, nil
}

// fleetTargets are the databases the connection strings name, each once
// (by host, port and database): with --all-databases every database of
// each one's server its role may connect to. A string that does not parse
// is bad input (exit 2); a server whose databases cannot be listed is one
// database not read, with why.
func (a *adviseCmd) fleetTargets(e *env, dsns []dsnSource) ([]advise.Target, error) {
	var out []advise.Target
	seen := map[string]bool{}
	add := func(t advise.Target) {
		key := fmt.Sprint(t.Host, "\x00", t.Port, "\x00", t.Database)
		if seen[key] {
			fmt.Fprintf(&printable{w: e.stderr}, "advise: %s named again: read once\n", t.Name)
			return
		}
		seen[key] = true
		out = append(out, t)
	}
	for _, d := range dsns {
		cc, err := adviseConfig(d.dsn)
		if err != nil {
			return nil, usagef("%s: %v", d.from, err)
		}
		if !a.AllDatabases {
			add(fleetTarget(cc, d.dsn, nil))
			continue
		}
		names, err := listDatabases(e.ctx, cc, d.dsn)
		if e.ctx.Err() != nil {
			return nil, errInterrupted
		}
		if err != nil {
			add(fleetTarget(cc, d.dsn, fmt.Errorf("listing its server's databases (--all-databases): %s", usage.Redact(err.Error(), d.dsn))))
			continue
		}
		for _, name := range names {
			c := cc.Copy()
			c.Database = name
			add(fleetTarget(c, d.dsn, nil))
		}
	}
	return out, nil
}

// fleetTarget is the database cc names as a fleet's target; failed, when
// set, is why it cannot be read, said when it is connected to.
func fleetTarget(cc *pgx.ConnConfig, dsn string, failed error) advise.Target {
	return advise.Target{
		Name: usage.Describe(&cc.Config), Host: cc.Host, Port: cc.Port, Database: cc.Database,
		Server: net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))) + " " + cc.User,
		Connect: func(ctx context.Context) (*pgx.Conn, error) {
			if failed != nil {
				return nil, failed
			}
			return connectAdvise(ctx, cc.Copy(), dsn)
		},
	}
}

// listDatabases lists the databases of cc's server its role may connect to.
func listDatabases(ctx context.Context, cc *pgx.ConnConfig, dsn string) ([]string, error) {
	conn, err := connectAdvise(ctx, cc.Copy(), dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	return advise.Databases(ctx, conn)
}

// redactAll is msg with every secret any of the connection strings holds
// removed (usage.RedactEach).
func redactAll(msg string, dsns []dsnSource) string {
	strs := make([]string, len(dsns))
	for i, d := range dsns {
		strs[i] = d.dsn
	}
	return usage.RedactEach(msg, strs)
}

// fleetLog prints a line of the fleet's reading on stderr, redacted.
func fleetLog(e *env, dsns []dsnSource, format string, args ...any) {
	fmt.Fprintf(&printable{w: e.stderr}, "advise: %s\n", redactAll(fmt.Sprintf(format, args...), dsns))
}

// fleetProgress prints the fleet's progress on stderr: each step's
// databases done, at most once every 2 s and the last.
func fleetProgress(e *env) func(step string, done, total int) {
	step := ""
	var say advise.Progress
	return func(s string, done, total int) {
		if s != step {
			step = s
			say = progressEvery(2*time.Second, func(done, total int) {
				fmt.Fprintf(e.stderr, "advise: %d of %d databases: %s\n", done, total, s)
			})
		}
		say(done, total)
	}
}

// fleetLabs runs the labs of the fleet's --lab-top tables paying most
// (DefaultLabTop without it), has each class follow its lab, reads again
// the sequences of every database with a column that runs out (the labs
// took minutes), and ranks the fleet again.
func (a *adviseCmd) fleetLabs(e *env, f *advise.Fleet, targets []advise.Target, dsns []dsnSource) error {
	top := a.LabTop
	if top == 0 {
		top = DefaultLabTop
	}
	var labs []*advise.Table
	var titles, dirs []string
	labbed := map[int]bool{}
	for _, x := range f.Tables {
		t := f.Table(x)
		if !labbable(t) || len(labs) == top {
			continue
		}
		db := f.Databases[x.Database]
		labs, labbed[x.Database] = append(labs, t), true
		titles, dirs = append(titles, db.Label()+": "+t.QualifiedName()), append(dirs, db.Database+"-"+t.Name)
	}
	if len(labs) == 0 {
		f.LabsNote = fmt.Sprintf("--lab ran no lab: none of the %d tables listed has a lab keybench can run (each table's lines say why)", len(f.Tables))
		return nil
	}
	if err := a.labList(e, labs, titles, dirs); err != nil {
		return err
	}
	for i := range labbed {
		advise.FollowLab(f.Databases[i].Report.Tables)
	}
	for i, db := range f.Databases {
		if db.Report != nil && runsOutAnywhere(db.Report) {
			recheckFleet(e, targets[i], db.Report, dsns)
		}
	}
	f.Rank()
	return nil
}

// runsOutAnywhere says whether a database has a column a sequence feeds.
func runsOutAnywhere(rep *advise.Report) bool {
	for _, t := range rep.Tables {
		if len(t.RunsOut) > 0 {
			return true
		}
	}
	return false
}

// recheckFleet reads one database's sequences again after the labs (an
// error is said, the report goes on).
func recheckFleet(e *env, t advise.Target, rep *advise.Report, dsns []dsnSource) {
	err := func() error {
		conn, err := t.Connect(e.ctx)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		return advise.Recheck(e.ctx, conn, rep)
	}()
	if err != nil && e.ctx.Err() == nil {
		fleetLog(e, dsns, "%s: the sequences could not be read again after the labs: %s", t.Name, err)
	}
}
