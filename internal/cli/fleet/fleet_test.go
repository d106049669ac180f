// Package fleet_test is issue 79's acceptance of advise over a fleet, on
// real servers as a team has them: five databases on one PostgreSQL 15
// (Debian's, else the embedded 15), one on another, and a DSN that reaches
// nothing, its password in it — read as one fleet by the keybench binary.
package fleet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/cli/clitest"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
)

var bin string

// pg15 are the options of the fleet's servers: a PostgreSQL 15 on loopback TCP.
func pg15() server.Options {
	o := servertest.PG15()
	o.TCP = true
	return o
}

// The second server, started by the first test that needs it and stopped
// when the package's tests end.
var (
	otherOnce sync.Once
	other     *server.Embedded
	otherErr  error
)

func TestMain(m *testing.M) {
	code := clitest.MainWith(m, &bin, pg15())
	if other != nil {
		_ = other.Stop()
	}
	os.Exit(code)
}

// otherServer is the second server.
func otherServer(t *testing.T) *server.Embedded {
	t.Helper()
	otherOnce.Do(func() { other, otherErr = server.Start(context.Background(), pg15()) })
	if otherErr != nil {
		t.Fatal(otherErr)
	}
	return other
}

// dsnOf is the URL of database db on server s, as role with password.
func dsnOf(s *server.Embedded, db, role, password string) string {
	u, _ := url.Parse(s.TCPURL())
	u.Path = "/" + db
	if role != "" {
		u.User = url.UserPassword(role, password)
	}
	return u.String()
}

// connect opens a superuser's connection to db on s for the test.
func connect(t *testing.T, s *server.Embedded, db string) *pgx.Conn {
	t.Helper()
	return clitest.ConnectAs(t, dsnOf(s, db, "", ""))
}

// makeDB makes database db on s (dropped first when there), runs sql in
// it, and returns the superuser's connection to it.
func makeDB(t *testing.T, s *server.Embedded, db string, sql ...string) *pgx.Conn {
	t.Helper()
	clitest.Exec(t, connect(t, s, "postgres"), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "CREATE DATABASE "+db)
	c := connect(t, s, db)
	clitest.Exec(t, c, sql...)
	return c
}

// shape is what every database of the fleet holds: a random uuid key
// filled (it pays in size), a bigint identity (ordered), and a lookup
// table.
var shape = []string{
	"CREATE TABLE sessions (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text)",
	"INSERT INTO sessions (note) SELECT 'session ' || g FROM generate_series(1, 60000) g",
	"CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text)",
	"INSERT INTO orders (note) SELECT 'order ' || g FROM generate_series(1, 5000) g",
	"CREATE TABLE kinds (id int PRIMARY KEY, name text)",
	"INSERT INTO kinds VALUES (1, 'a'), (2, 'b')",
}

// nearEnd is a table whose int4 serial key is left values from its end.
func nearEnd(table string, left int) []string {
	return []string{
		fmt.Sprintf("CREATE TABLE %s (id serial PRIMARY KEY, note text)", table),
		fmt.Sprintf("INSERT INTO %s (note) SELECT 'row ' || g FROM generate_series(1, 1000) g", table),
		fmt.Sprintf("SELECT setval('%s_id_seq', %d)", table, 2147483647-left),
		"ANALYZE",
	}
}

// writer inserts into table of dsn's database every 20 ms until stopped,
// and returns how many rows it inserted.
func writer(t *testing.T, dsn, table string) (stop func() int64) {
	t.Helper()
	c := clitest.ConnectAs(t, dsn)
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// Not ctx: an insert under way when stopped ends, and is counted.
				if _, err := c.Exec(context.Background(), "INSERT INTO "+table+" (note) VALUES ('written during the sample')"); err == nil {
					n.Add(1)
				}
			}
		}
	}()
	return func() int64 { cancel(); <-done; return n.Load() }
}

// state is a database's dump with its written tables' lines left out,
// and those tables' row counts.
func state(t *testing.T, c *pgx.Conn, written ...string) (dump string, rows map[string]int64) {
	t.Helper()
	rows = map[string]int64{}
	for _, w := range written {
		var n int64
		if err := c.QueryRow(context.Background(), "SELECT count(*) FROM "+w).Scan(&n); err != nil {
			t.Fatal(err)
		}
		rows[w] = n
	}
	return servertest.DumpWithout(t, c, written...), rows
}

// fleetJSON is the part of advise's fleet JSON the tests read.
type fleetJSON struct {
	Status    string `json:"status"`
	Databases []struct {
		Name     string `json:"name"`
		Database string `json:"database"`
		Port     int    `json:"port"`
		NotRead  string `json:"not_read"`
		Report   *struct {
			Sample struct {
				Seconds float64 `json:"seconds"`
			} `json:"sample"`
			Tables []struct {
				Schema  string `json:"schema"`
				Name    string `json:"name"`
				Verdict struct {
					Class string `json:"class"`
				} `json:"verdict"`
			} `json:"tables"`
		} `json:"report"`
	} `json:"databases"`
	Tables []struct {
		Place    int    `json:"place"`
		Database int    `json:"database"`
		Table    int    `json:"table"`
		Class    string `json:"class"`
	} `json:"tables"`
}

// listed names the fleet list's entry i as database.table.
func (f *fleetJSON) listed(i int) string {
	e := f.Tables[i]
	d := f.Databases[e.Database]
	return d.Database + "." + d.Report.Tables[e.Table].Name
}

// TestFleetAcceptance is issue 79's check: seven --dsn — five databases
// on one PostgreSQL 15, one on another, one unreachable with a password —
// read as one fleet. The advice names every reachable database, ranks
// app3's int4 key that runs out first (a writer inserting into it during
// the sample, its sequence 60,000 values from its end; app6's on the
// other server runs out later, app5's int4 near its end has no writer and
// does not run out), says the unreachable one with its reason and no
// password, exits 1, and changes no database (each dump equal but for the
// written tables, whose rows are the writers' more).
func TestFleetAcceptance(t *testing.T) {
	a, b := servertest.Server, otherServer(t)
	var conns []*pgx.Conn
	var dsns []string
	for i := 1; i <= 5; i++ {
		sql := shape
		switch i {
		case 3:
			sql = append(append([]string{}, shape...), nearEnd("tickets", 60000)...)
		case 5:
			sql = append(append([]string{}, shape...), nearEnd("idle_ids", 60000)...)
		}
		conns = append(conns, makeDB(t, a, fmt.Sprintf("app%d", i), sql...))
		dsns = append(dsns, dsnOf(a, fmt.Sprintf("app%d", i), server.DBUser, a.Password))
	}
	conns = append(conns, makeDB(t, b, "app6", append(append([]string{}, shape...), nearEnd("counters", 3000000)...)...))
	dsns = append(dsns, dsnOf(b, "app6", server.DBUser, b.Password))
	const secret = "n0t-th1s-s3cret"
	dsns = append(dsns, fmt.Sprintf("postgres://fleet:%s@127.0.0.1:1/app7?connect_timeout=5", secret))
	written := [][]string{nil, nil, {"tickets"}, nil, nil, {"counters"}}
	var dumps []string
	var counts []map[string]int64
	for i, c := range conns {
		d, n := state(t, c, written[i]...)
		dumps, counts = append(dumps, d), append(counts, n)
	}

	stopTickets := writer(t, dsns[2], "tickets")
	stopCounters := writer(t, dsns[5], "counters")
	dir := t.TempDir()
	md, page := filepath.Join(dir, "advice.md"), filepath.Join(dir, "advice.html")
	args := []string{"advise", "--sample", "5s", "--json", "--export", "md=" + md, "--html", page}
	for _, d := range dsns {
		args = append(args, "--dsn", d)
	}
	start := time.Now()
	stdout, stderr, code := clitest.Run(t, bin, args...)
	t.Logf("advise over 7 databases: %s", time.Since(start).Round(time.Millisecond))
	added := map[string]int64{"tickets": stopTickets(), "counters": stopCounters()}

	if code != 1 {
		t.Errorf("exit %d, want 1 (a database not read):\n%s", code, stderr)
	}
	var f fleetJSON
	if err := json.Unmarshal([]byte(stdout), &f); err != nil {
		t.Fatalf("%v:\n%s\n%s", err, stdout, stderr)
	}
	text := clitest.Outputs(stdout, stderr, dir)
	for name, out := range text {
		for _, pw := range []string{secret, a.Password, b.Password} {
			if strings.Contains(out, pw) {
				t.Errorf("%s holds a password", name)
			}
		}
	}
	if f.Status != "incomplete" || len(f.Databases) != 7 {
		t.Fatalf("status %q, %d databases, want incomplete, 7:\n%s", f.Status, len(f.Databases), stderr)
	}
	for i, d := range f.Databases[:6] {
		want := fmt.Sprintf("app%d", i+1)
		if d.Database != want || d.Report == nil || d.NotRead != "" {
			t.Errorf("database %d: %s read %v, not read %q", i, d.Database, d.Report != nil, d.NotRead)
		}
		if label := fmt.Sprintf("%s on 127.0.0.1:%d", want, d.Port); !strings.Contains(text["advice.md"], label) || !strings.Contains(text["advice.html"], label) {
			t.Errorf("%s is not named in the advice", label)
		}
	}
	if d := f.Databases[6]; d.Report != nil || !strings.Contains(d.NotRead, "cannot connect to host=127.0.0.1 port=1 user=fleet dbname=app7") || !strings.Contains(d.NotRead, "refused") {
		t.Errorf("the unreachable database: %+v", d)
	}
	if !strings.Contains(text["advice.md"], "Not read: host=127.0.0.1 port=1 user=fleet dbname=app7") {
		t.Errorf("the advice does not say the unreachable database:\n%s", text["advice.md"])
	}
	if len(f.Tables) < 2 || f.listed(0) != "app3.tickets" || f.Tables[0].Class != "runs out" || f.listed(1) != "app6.counters" || f.Tables[1].Class != "runs out" {
		t.Errorf("the list does not lead with app3's int4 key, then app6's: %s", stdout[:min(len(stdout), 600)])
	}
	for i := range f.Tables {
		if f.Tables[i].Place != i+1 || f.Tables[i].Class == "runs out" && i > 1 {
			t.Errorf("entry %d: %+v (%s)", i, f.Tables[i], f.listed(i))
		}
	}
	if !strings.Contains(text["advice.md"], "RUNS OUT: app3 on 127.0.0.1") {
		t.Errorf("the emergency is not said first:\n%s", text["advice.md"])
	}
	for i, c := range conns {
		d, n := state(t, c, written[i]...)
		if d != dumps[i] {
			t.Errorf("app%d changed:\nbefore:\n%s\nafter:\n%s", i+1, dumps[i], d)
		}
		for w, rows := range n {
			if rows != counts[i][w]+added[w] {
				t.Errorf("app%d.%s: %d rows, want %d before and %d the writer's", i+1, w, rows, counts[i][w], added[w])
			}
		}
	}
}

// TestFleetAllDatabases: --all-databases reads every database of the
// server the role may connect to, and no other: not one whose CONNECT is
// revoked, not one that allows no connection, no template. A database
// given by name that the role may not connect to is not read, said with
// PostgreSQL's reason (exit 1), and the rest are; a database named twice
// (--dsn and --dsn-file, whose comments and blank lines are skipped) is
// read once.
func TestFleetAllDatabases(t *testing.T) {
	s := otherServer(t)
	admin := connect(t, s, "postgres")
	clitest.Exec(t, admin, "DROP ROLE IF EXISTS fleetrole", "CREATE ROLE fleetrole LOGIN PASSWORD 'fleet-pw-1' IN ROLE pg_monitor")
	for _, db := range []string{"b_one", "b_two", "b_closed", "b_off"} {
		makeDB(t, s, db, shape...)
	}
	clitest.Exec(t, admin, "REVOKE CONNECT ON DATABASE b_closed FROM PUBLIC", "ALTER DATABASE b_off ALLOW_CONNECTIONS false")
	t.Cleanup(func() { clitest.Exec(t, connect(t, s, "postgres"), "ALTER DATABASE b_off ALLOW_CONNECTIONS true") })

	stdout, stderr, code := clitest.Run(t, bin, "advise", "--all-databases", "--dsn", dsnOf(s, "postgres", "fleetrole", "fleet-pw-1"), "--sample", "1s", "--json")
	var f fleetJSON
	if err := json.Unmarshal([]byte(stdout), &f); code != 0 || err != nil {
		t.Fatalf("exit %d (%v):\n%s", code, err, stderr)
	}
	read := map[string]bool{}
	for _, d := range f.Databases {
		read[d.Database] = d.Report != nil
	}
	for db, want := range map[string]bool{"postgres": true, "b_one": true, "b_two": true, "b_closed": false, "b_off": false, "template0": false, "template1": false} {
		if _, listed := read[db]; listed != want || want && !read[db] {
			t.Errorf("%s: listed %v, read %v; want listed and read %v", db, listed, read[db], want)
		}
	}

	file := filepath.Join(t.TempDir(), "fleet.txt")
	lines := "# the team's databases\n\n" + dsnOf(s, "b_one", "fleetrole", "fleet-pw-1") + "\n  # b_two is given with --dsn\n" +
		dsnOf(s, "b_closed", "fleetrole", "fleet-pw-1") + "\n" + dsnOf(s, "b_one", "fleetrole", "fleet-pw-1") + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = clitest.Run(t, bin, "advise", "--dsn", dsnOf(s, "b_two", "fleetrole", "fleet-pw-1"), "--dsn-file", file, "--sample", "1s", "--json")
	f = fleetJSON{}
	if err := json.Unmarshal([]byte(stdout), &f); code != 1 || err != nil || len(f.Databases) != 3 {
		t.Fatalf("exit %d (%v), %d databases:\n%s", code, err, len(f.Databases), stderr)
	}
	for i, want := range []string{"b_two", "b_one", "b_closed"} {
		if d := f.Databases[i]; d.Database != want || (d.Report == nil) != (want == "b_closed") {
			t.Errorf("database %d: %s read %v, not read %q", i, d.Database, d.Report != nil, d.NotRead)
		}
	}
	if why := f.Databases[2].NotRead; !strings.Contains(why, "permission denied for database") {
		t.Errorf("b_closed: %q", why)
	}
	if !strings.Contains(stderr, "dbname=b_one named again: read once") || strings.Contains(stdout+stderr, "fleet-pw-1") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestFleetBadInput: what advise cannot read as a fleet is bad input,
// refused before any database is read with one line and exit 2, a
// connection string never quoted.
func TestFleetBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := file("bad.txt", "# ok\npostgres://kb@127.0.0.1/a\npostgres://kb:pa@ss-w0rd@127.0.0.1/b\n")
	empty := file("empty.txt", "# nothing but comments\n\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dsn-file", filepath.Join(dir, "missing.txt")}, "--dsn-file:"},
		{[]string{"--dsn-file", dir}, "is not a regular file"},
		{[]string{"--dsn-file", bad}, "line 3: --dsn is not a valid connection string"},
		{[]string{"--dsn-file", empty}, "holds no connection string"},
		{[]string{"--dsn", "host=a", "--dsn", "host=b", "--parallel", "0"}, "--parallel must be from 1 to 64, not 0"},
		{[]string{"--dsn", "host=a", "--dsn", "host=b", "--parallel", "65"}, "--parallel must be from 1 to 64, not 65"},
		{[]string{"--dsn", "host=a", "--dsn", "host=b", "--lab-top", "2"}, "--lab-top goes with --lab"},
		{[]string{"--dsn", "host=a", "--dsn", "host=b", "--lab", "--lab-top", "-1"}, "--lab-top must be 1 or more"},
	} {
		_, stderr, code := clitest.Run(t, bin, append([]string{"advise", "--sample", "1s"}, tc.args...)...)
		if code != 2 || len(clitest.ErrorLines(stderr)) != 1 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "w0rd") {
			t.Errorf("advise %v: exit %d, want 2 saying %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// TestFleetInterrupted: a Ctrl-C during the sample window stops every
// connection advise holds (none is left on the server once it exits) and
// prints what was read — each database's tables, their rates said not
// read — exiting 130.
func TestFleetInterrupted(t *testing.T) {
	a := servertest.Server
	var dsns []string
	for _, db := range []string{"int_one", "int_two", "int_three"} {
		makeDB(t, a, db, shape...)
		dsns = append(dsns, "--dsn", dsnOf(a, db, server.DBUser, a.Password))
	}
	cmd := exec.Command(bin, append([]string{"advise", "--sample", "10m", "--parallel", "2"}, dsns...)...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	lines := bufio.NewScanner(errPipe)
	for lines.Scan() {
		stderr.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "over one window") {
			break
		}
	}
	admin := connect(t, a, "postgres")
	if n := sessions(t, admin); n == 0 {
		t.Errorf("no session of advise's open during its window:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(errPipe)
	stderr.Write(rest)
	if code, _ := clitest.ExitOf(cmd, time.Now()); code != 130 {
		t.Errorf("exit %d, want 130:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, db := range []string{"int_one", "int_two", "int_three"} {
		if !strings.Contains(out, db+" on 127.0.0.1") || !strings.Contains(out, "dbname="+db+": its tables were read, not their rates (interrupted") {
			t.Errorf("%s is not said as read before the interruption:\n%s", db, out)
		}
	}
	if !strings.Contains(out, "interrupted: what was read before") {
		t.Errorf("the advice does not say it was interrupted:\n%s", out)
	}
	// A backend ends a moment after its client goes: wait for it, a while at most.
	for i := 0; i < 100 && sessions(t, admin) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if n := sessions(t, admin); n > 0 {
		t.Errorf("%d sessions of advise left on the server after it exited", n)
	}
}

// sessions counts advise's sessions on the server.
func sessions(t *testing.T, c *pgx.Conn) int {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'keybench advise'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
