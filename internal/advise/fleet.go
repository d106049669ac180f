package advise

import (
	"context"
	"errors"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/sqltree"
)

// A team looks after tens to hundreds of databases, on several servers:
// advise reads them as a fleet, a few at a time, each on connections of
// its own and as short and read-only as one, all over one sample window,
// and ranks every paying table of every database in one list, the columns
// that run out first. A database that cannot be read is said with why,
// and the rest are still read.

// Target is one database of a fleet: how it is named, the server it is
// on, and how advise connects to it.
type Target struct {
	// Name names it as advise prints it: host, port, user and database,
	// never a password (usage.Describe).
	Name     string
	Host     string
	Port     uint16
	Database string
	// Server groups the databases of one server (host, port and role):
	// one connection watches all of them during the window.
	Server string
	// Connect opens a session to it with advise's settings (Settings),
	// its search_path pinned; its error names the database, never a
	// password.
	Connect func(ctx context.Context) (*pgx.Conn, error)
}

// FleetOptions say how to read a fleet.
type FleetOptions struct {
	// Each is what to read of every database (its Log and Progress unused).
	Each Options
	// Parallel is how many databases are read at a time (at least 1).
	Parallel int
	// Log, when set, is told what the fleet starts and each database it
	// could not read.
	Log func(format string, a ...any)
	// Progress, when set, is told after each database's step: which step,
	// how many of how many.
	Progress func(step string, done, total int)
}

// Fleet statuses (Fleet.Status).
const (
	FleetOK          = "ok"
	FleetIncomplete  = "incomplete"
	FleetInterrupted = "interrupted"
)

// Fleet is what advise found across several databases: what each said
// (its own report) and one list of the tables that pay, ranked across
// them, each pointing into Databases.
type Fleet struct {
	// Status is "ok" (every database read whole), "incomplete" (some not
	// read, each saying why) or "interrupted".
	Status string `json:"status"`
	// SampleSeconds is the window every database's rates were measured
	// over, as asked; each report's sample says its own span.
	SampleSeconds float64 `json:"sample_seconds"`
	// Parallel is how many databases were read at a time.
	Parallel  int             `json:"parallel"`
	Databases []FleetDatabase `json:"databases"`
	// Tables are the listed tables of every database (Listed), most
	// paying first (the columns that run out first, soonest first).
	Tables []FleetTable `json:"tables"`
	// Others counts the tables read and not listed, by class.
	Others map[string]int `json:"others_by_class,omitempty"`
	// LabsNote says why --lab ran no lab ("" when it ran some, or was not asked).
	LabsNote string `json:"labs_note,omitempty"`
}

// FleetDatabase is one database of the fleet: where it is, and what it
// said or why it was not read.
type FleetDatabase struct {
	Name     string `json:"name"`
	Host     string `json:"host"`
	Port     uint16 `json:"port"`
	Database string `json:"database"`
	// Report is what advise read of it (absent: not read at all).
	Report *Report `json:"report,omitempty"`
	// NotRead is why it was not read, or not whole: with a report beside
	// it, what failed after its tables were read (its sample).
	NotRead string `json:"not_read,omitempty"`
}

// Label names the database as the fleet's list prints it: its name and
// its server's host and port.
func (d FleetDatabase) Label() string {
	return sqltree.Printable(d.Database) + " on " + sqltree.EscapeControls(net.JoinHostPort(d.Host, strconv.Itoa(int(d.Port))))
}

// FleetTable is one paying table of the fleet's list: its place, and
// where its figures are (Databases[Database].Report.Tables[Table]).
type FleetTable struct {
	Place    int    `json:"place"`
	Database int    `json:"database"`
	Table    int    `json:"table"`
	Class    string `json:"class"`
}

// Listed says whether a class puts a table on the fleet's list: a column
// that runs out, a key that pays (per insert or in size), or a random key
// inserted into now whose cost no figure read shows (its lab measures it).
func Listed(class string) bool {
	return class == RunsOut || class == Pays || class == PaysInSize || class == NotShown
}

// Table is the table a list entry points to.
func (f *Fleet) Table(e FleetTable) *Table {
	return &f.Databases[e.Database].Report.Tables[e.Table]
}

// Rank makes the fleet's list from its databases' reports: every listed
// table ranked as one database ranks its own (Before), across them all,
// and the rest counted by class. Run again after the labs change classes.
func (f *Fleet) Rank() {
	f.Tables, f.Others = []FleetTable{}, map[string]int{}
	for i, d := range f.Databases {
		if d.Report == nil {
			continue
		}
		for j, t := range d.Report.Tables {
			if Listed(t.Verdict.Class) {
				f.Tables = append(f.Tables, FleetTable{Database: i, Table: j, Class: t.Verdict.Class})
			} else {
				f.Others[t.Verdict.Class]++
			}
		}
	}
	sort.SliceStable(f.Tables, func(i, j int) bool { return Before(f.Table(f.Tables[i]), f.Table(f.Tables[j])) })
	for i := range f.Tables {
		f.Tables[i].Place = i + 1
	}
}

// NotRead counts the databases not read, or not whole.
func (f *Fleet) NotRead() int {
	n := 0
	for _, d := range f.Databases {
		if d.NotRead != "" {
			n++
		}
	}
	return n
}

// fleetReading is one database's reading in a fleet: when its window
// started (its first counters read), and why its sample was lost ("" while
// it goes on).
type fleetReading struct {
	rd    *Reading
	begun time.Time
	lost  string
}

// ReadFleet reads every target: each database's tables, a few at a
// time (Parallel), each on a connection of its own, closed when read;
// then the counters of each at the window's start, the window watched by
// one connection a server, and the counters again at its end, so that
// every database's rates are over the same window. A database that cannot
// be read is said with why; a context cancelled stops every connection,
// and what was read is returned, said interrupted.
func ReadFleet(ctx context.Context, targets []Target, o FleetOptions) *Fleet {
	f := &Fleet{Status: FleetOK, SampleSeconds: o.Each.Sample.Seconds(), Parallel: max(o.Parallel, 1), Databases: make([]FleetDatabase, len(targets))}
	for i, t := range targets {
		f.Databases[i] = FleetDatabase{Name: t.Name, Host: t.Host, Port: t.Port, Database: t.Database}
	}
	each := o.Each
	each.Log, each.Progress = nil, nil
	reads := make([]*fleetReading, len(targets))
	all := make([]int, len(targets))
	for i := range all {
		all[i] = i
	}
	for i, err := range f.step(ctx, "tables read", targets, all, o, func(i int, conn *pgx.Conn) error {
		rd, err := Prepare(ctx, conn, each)
		if err == nil {
			reads[i] = &fleetReading{rd: rd}
		}
		return err
	}) {
		f.Databases[i].NotRead = reason(ctx, err)
		logf(o.Log, "%s: not read: %s", targets[i].Name, f.Databases[i].NotRead)
	}
	if len(sampling(reads)) > 0 {
		logf(o.Log, "sampling the rates of %d databases over one window of %s", len(sampling(reads)), o.Each.Sample)
		f.sample(ctx, "the counters at the window's start", targets, reads, o, func(r *fleetReading, conn *pgx.Conn) error {
			err := r.rd.Begin(ctx, conn)
			r.begun = time.Now()
			return err
		})
		watchFleet(ctx, targets, reads, o.Each.Sample)
		f.sample(ctx, "the counters at the window's end", targets, reads, o, func(r *fleetReading, conn *pgx.Conn) error {
			return r.rd.End(ctx, conn, time.Since(r.begun))
		})
	}
	for i, r := range reads {
		if r != nil {
			f.Databases[i].Report = r.rd.Finish()
		}
	}
	switch {
	case ctx.Err() != nil:
		f.Status = FleetInterrupted
	case f.NotRead() > 0:
		f.Status = FleetIncomplete
	}
	f.Rank()
	return f
}

// sampling are the indexes of the readings whose sample goes on.
func sampling(reads []*fleetReading) []int {
	var out []int
	for i, r := range reads {
		if r != nil && r.lost == "" {
			out = append(out, i)
		}
	}
	return out
}

// sample runs a step of the sample window on every reading whose sample
// goes on; one whose step fails keeps the figures it read, its rates said
// unavailable with why (Unsampled), and leaves the window.
func (f *Fleet) sample(ctx context.Context, name string, targets []Target, reads []*fleetReading, o FleetOptions, do func(r *fleetReading, conn *pgx.Conn) error) {
	for i, err := range f.step(ctx, name, targets, sampling(reads), o, func(i int, conn *pgx.Conn) error { return do(reads[i], conn) }) {
		r := reads[i]
		r.lost = name + ": " + err.Error()
		if ctx.Err() != nil {
			r.lost = "interrupted before the sample window ended"
		}
		r.rd.Unsampled(r.lost)
		f.Databases[i].NotRead = "its tables were read, not their rates (" + r.lost + ")"
		logf(o.Log, "%s: %s", targets[i].Name, f.Databases[i].NotRead)
	}
}

// logf passes a line to log, when set.
func logf(log func(string, ...any), format string, a ...any) {
	if log != nil {
		log(format, a...)
	}
}

// step runs do on the targets at these indexes, Parallel at a time, each
// on a connection of its own, closed after, and returns each one's error
// by index. Once ctx is cancelled no connection opens.
func (f *Fleet) step(ctx context.Context, name string, targets []Target, at []int, o FleetOptions, do func(i int, conn *pgx.Conn) error) map[int]error {
	var mu sync.Mutex
	failed := map[int]error{}
	done := 0
	sem := make(chan struct{}, f.Parallel)
	var wg sync.WaitGroup
	for _, i := range at {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := connected(ctx, targets[i], func(conn *pgx.Conn) error { return do(i, conn) })
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[i] = err
			}
			done++
			if o.Progress != nil {
				o.Progress(name, done, len(at))
			}
		}()
	}
	wg.Wait()
	return failed
}

// connected runs do on a new connection to t, closed after.
func connected(ctx context.Context, t Target, do func(conn *pgx.Conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return do(conn)
}

// reason is why a database was not read: its error, or the interruption.
func reason(ctx context.Context, err error) string {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return "interrupted before it was read"
	}
	return err.Error()
}

// watchFleet waits out the sample window, one connection a server
// watching its databases' writing backends (Watch); where that connection
// cannot be opened, its databases' writers are said unavailable, with why.
func watchFleet(ctx context.Context, targets []Target, reads []*fleetReading, window time.Duration) {
	servers := map[string][]int{}
	for _, i := range sampling(reads) {
		servers[targets[i].Server] = append(servers[targets[i].Server], i)
	}
	var wg sync.WaitGroup
	for _, at := range servers {
		rds := make([]*Reading, len(at))
		for k, i := range at {
			rds[k] = reads[i].rd
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := connected(ctx, targets[at[0]], func(conn *pgx.Conn) error { return Watch(ctx, conn, window, rds) })
			if err != nil && ctx.Err() == nil {
				unwatched(ctx, window, rds, err)
			}
		}()
	}
	wg.Wait()
}

// unwatched waits out the window for readings no connection watched,
// their writers unavailable with why.
func unwatched(ctx context.Context, window time.Duration, rds []*Reading, err error) {
	for _, rd := range rds {
		rd.seen = newInserters(len(rd.tables))
		rd.seen.err = err
	}
	select {
	case <-ctx.Done():
	case <-time.After(window):
	}
}

// Databases lists the databases of conn's server that its role may
// connect to (datallowconn and the CONNECT privilege), templates left out:
// what advise --all-databases reads, by name.
func Databases(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, _ := conn.Query(ctx, `SELECT datname::text FROM pg_catalog.pg_database
		WHERE datallowconn AND NOT datistemplate AND pg_catalog.has_database_privilege(oid, 'CONNECT') ORDER BY 1`)
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
