package advise_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/advise"
	"github.com/keybench/keybench/internal/cli"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
)

// hostileTables is how many tables the hostile catalog holds: a large
// production catalog, which advise must read in bounded time.
const hostileTables = 3000

// hostileNames are the name stems a hostile catalog's tables take: a
// newline, quotes, a semicolon, spaces, upper case, a terminal escape,
// non-ASCII letters, backslashes.
var hostileNames = []string{"plain", "new\nLINEHALF", `quo"ted`, "semi;colon", "with space", "UPPER", "esc\x1b[31mred", "ünïcödé", "🔑key", "back\\slash", "it's", "per%cent"}

var (
	hostileOnce sync.Once
	hostileErr  error
)

// hostileDSN builds, once, a database of its own on the package's server:
// hostileTables tables with hostile names in schema s (each a bigint
// identity key, every tenth with rows), a schema the public may not use,
// and tables whose statistics have been known to mislead: a composite key,
// a partitioned table, a table whose rows are all dead, statistics forged
// far beyond the table's size, a table never analysed. JIT is on with
// every threshold at zero in that database, so any query advise left
// costed high would be compiled.
func hostileDSN(t *testing.T) string {
	t.Helper()
	admin := servertest.Connect(t)
	ctx := context.Background()
	hostileOnce.Do(func() {
		// Its own database and roles: the trial runs on any major
		// (KEYBENCH_TEST_PG_BIN=/usr/lib/postgresql/15/bin runs it on a
		// PostgreSQL 15 with JIT), without the package's PostgreSQL 18 schema.
		for _, q := range []string{`CREATE DATABASE hostile`,
			`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'connect_only') THEN CREATE ROLE connect_only LOGIN; END IF; END $$`} {
			if _, hostileErr = admin.Exec(ctx, q); hostileErr != nil {
				return
			}
		}
		var c *pgx.Conn
		if c, hostileErr = pgx.Connect(ctx, dbDSN("hostile", "")); hostileErr != nil {
			return
		}
		defer c.Close(ctx)
		steps := []string{
			`ALTER DATABASE hostile SET jit = on`, `ALTER DATABASE hostile SET jit_above_cost = 0`,
			`CREATE SCHEMA s`, `CREATE SCHEMA zz`, `CREATE SCHEMA locked`, `CREATE EXTENSION pgstattuple`,
			`CREATE TABLE locked.hidden (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY)`,
			`CREATE TABLE zz.dropme (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY)`,
			`CREATE TABLE zz.composite (a int, b int, PRIMARY KEY (a, b))`,
			`INSERT INTO zz.composite SELECT g, g FROM generate_series(1, 2000) g`,
			`CREATE TABLE zz.parted (id bigint NOT NULL, at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)`,
			`CREATE TABLE zz.parted_1 PARTITION OF zz.parted FOR VALUES FROM ('2026-01-01') TO ('2026-02-01')`,
			`INSERT INTO zz.parted SELECT g, '2026-01-15' FROM generate_series(1, 2000) g`,
			`CREATE TABLE zz.all_dead (id bigint PRIMARY KEY, v text)`,
			`INSERT INTO zz.all_dead SELECT g, 'x' FROM generate_series(1, 2000) g`, `DELETE FROM zz.all_dead`,
			`CREATE TABLE zz.forged (id bigint PRIMARY KEY, v text)`,
			`INSERT INTO zz.forged SELECT g, 'x' FROM generate_series(1, 100) g`,
			`CREATE TABLE zz.unanalysed (id bigint PRIMARY KEY, v text)`,
			`INSERT INTO zz.unanalysed SELECT g, repeat('x', 50) FROM generate_series(1, 3000) g`,
			`CREATE TABLE zz.near_limit (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v int)`,
			`SELECT setval(pg_get_serial_sequence('zz.near_limit', 'id'), 2147000000)`,
			`INSERT INTO zz.near_limit (v) VALUES (1)`,
			`ANALYZE zz.composite, zz.parted, zz.all_dead, zz.forged`,
			`UPDATE pg_class SET reltuples = 2e9 WHERE oid = 'zz.forged'::regclass`,
		}
		for _, q := range steps {
			if _, hostileErr = c.Exec(ctx, q); hostileErr != nil {
				hostileErr = fmt.Errorf("%s: %w", q, hostileErr)
				return
			}
		}
		// The tables, a hundred a transaction (one transaction would need a
		// lock for each table, index and sequence at once).
		stems, _ := json.Marshal(hostileNames)
		for from := 1; from <= hostileTables; from += 100 {
			if _, hostileErr = c.Exec(ctx, fmt.Sprintf(`DO $$
				DECLARE stems text[] := ARRAY(SELECT json_array_elements_text(%s::json)); name text;
				BEGIN
					FOR g IN %d..%d LOOP
						name := stems[1 + g %% cardinality(stems)] || ' ' || g;
						EXECUTE format('CREATE TABLE s.%%I (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v int)', name);
						IF g %% 10 = 0 THEN EXECUTE format('INSERT INTO s.%%I (v) SELECT x FROM generate_series(1, 50) x', name); END IF;
					END LOOP;
				END $$`, quoteLiteral(string(stems)), from, from+99)); hostileErr != nil {
				return
			}
		}
	})
	if hostileErr != nil {
		t.Fatal(hostileErr)
	}
	return dbDSN("hostile", "")
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// dbDSN is the package server's DSN for another database and, when given, another role.
func dbDSN(db, user string) string {
	dsn := strings.Replace(servertest.Server.ConnString(), "dbname=postgres", "dbname="+db, 1)
	if user != "" {
		dsn = strings.Replace(dsn, "user="+server.DBUser, "user="+user, 1)
	}
	return dsn
}

// lineWriter calls fn with each line written to it.
type lineWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	all bytes.Buffer
	fn  func(string)
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(b)
	w.buf.Write(b)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(b), nil
		}
		w.fn(strings.TrimSuffix(line, "\n"))
	}
}

var progressRE = regexp.MustCompile(`^advise: (\d+) of (\d+) tables read`)

// TestAdviseHostileCatalog is the trial of a production primary: 3,000
// tables with hostile names, JIT on. advise exits 0 within 60 s; no
// transaction of it lives 5 s; an ALTER TABLE of a table it has read goes
// through under lock_timeout=1s while it runs; a table dropped while it
// runs is skipped with its reason; every figure is measured or says why
// (never an empty reason); statistics the relation's size contradicts are
// not believed; a name with a newline prints on one line.
func TestAdviseHostileCatalog(t *testing.T) {
	dsn := hostileDSN(t)
	ctx := context.Background()
	watch, err := pgx.Connect(ctx, dbDSN("hostile", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	ddl, err := pgx.Connect(ctx, dbDSN("hostile", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer ddl.Close(ctx)
	if _, err := ddl.Exec(ctx, `SET lock_timeout = '1s'`); err != nil {
		t.Fatal(err)
	}
	var first string // the table advise reads first: schema s, by name
	if err := ddl.QueryRow(ctx, `SELECT relname FROM pg_class WHERE relnamespace = 's'::regnamespace AND relkind = 'r' ORDER BY relname LIMIT 1`).Scan(&first); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var events []string
	altered, dropped := make(chan error, 1), make(chan error, 1)
	var once1, once2 sync.Once
	stderr := &lineWriter{fn: func(line string) {
		if strings.HasPrefix(line, "advise: reading") {
			// listed, not yet read: drop the table advise will read last
			once1.Do(func() {
				_, err := ddl.Exec(ctx, `DROP TABLE zz.dropme`)
				dropped <- err
			})
		}
		if m := progressRE.FindStringSubmatch(line); m != nil {
			if n, _ := strconv.Atoi(m[1]); n > 0 {
				once2.Do(func() {
					_, err := ddl.Exec(ctx, `ALTER TABLE s.`+pgx.Identifier{first}.Sanitize()+` ADD COLUMN added int`)
					altered <- err
				})
			}
		}
		mu.Lock()
		events = append(events, line)
		mu.Unlock()
	}}
	done := make(chan struct{})
	var oldest time.Duration
	var mostLocks int
	go func() { // advise's sessions seen from outside, every 100 ms
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			var age float64
			var locks int
			if err := watch.QueryRow(ctx, `SELECT coalesce(max(extract(epoch FROM now() - a.xact_start)), 0)::float8,
					(SELECT count(*) FROM pg_locks l JOIN pg_stat_activity b ON b.pid = l.pid WHERE b.application_name = 'keybench advise' AND l.locktype = 'relation')::int
				FROM pg_stat_activity a WHERE a.application_name = 'keybench advise' AND a.xact_start IS NOT NULL`).Scan(&age, &locks); err != nil {
				t.Error(err)
				return
			}
			oldest = max(oldest, time.Duration(age*float64(time.Second)))
			mostLocks = max(mostLocks, locks)
		}
	}()
	var out bytes.Buffer
	start := time.Now()
	code := cli.Main([]string{"advise", "--dsn", dsn, "--json", "--sample", "1s"}, &out, stderr)
	took := time.Since(start)
	close(done)
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, stderr.all.String())
	}
	t.Logf("advise read %d tables in %s; its oldest transaction seen: %s; most relation locks held at once: %d", hostileTables, took.Round(time.Millisecond), oldest.Round(time.Millisecond), mostLocks)
	// What advise did, not how long it took: each table read in short
	// transactions of its own holds that table's relations' locks at
	// most (here a table, its TOAST, its index and the catalog's few).
	if mostLocks > 64 {
		t.Errorf("advise held %d relation locks at once: more than one table's", mostLocks)
	}
	for name, ch := range map[string]chan error{"ALTER TABLE of a table advise had read": altered, "DROP TABLE": dropped} {
		select {
		case err := <-ch:
			if err != nil {
				t.Errorf("%s under lock_timeout=1s while advise ran: %v", name, err)
			}
		default:
			t.Errorf("%s never ran: advise's progress was not seen (%q)", name, events)
		}
	}
	if strings.Contains(out.String(), `"unavailable":""`) || strings.Contains(out.String(), `"unavailable": ""`) {
		t.Errorf("a figure is unavailable with no reason")
	}
	var rep advise.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	tables := map[string]advise.Table{}
	for _, tb := range rep.Tables {
		tables[tb.Schema+"."+tb.Name] = tb
	}
	if n := len(rep.Tables); n < hostileTables {
		t.Fatalf("advise reported %d tables of %d", n, hostileTables)
	}
	if d := tables["zz.dropme"]; d.Verdict.Class != advise.Skipped || !strings.Contains(d.Skipped, "dropped") {
		t.Errorf("the table dropped while advise ran: %q, %q", d.Verdict.Class, d.Skipped)
	}
	read := 0
	for _, tb := range rep.Tables {
		if tb.Schema == "s" && tb.Key != nil && tb.KeyIndexBytes > 0 {
			read++
		}
	}
	if read != hostileTables {
		t.Errorf("%d of schema s's %d tables read with their key", read, hostileTables)
	}
	for name, tb := range tables {
		if strings.HasPrefix(name, "zz.") && name != "zz.dropme" && tb.Skipped != "" {
			t.Errorf("%s skipped: %s", name, tb.Skipped)
		}
	}
	for _, name := range []string{"zz.composite", "zz.parted_1", "zz.all_dead"} {
		tb := tables[name]
		b, _ := json.Marshal(tb)
		if strings.Contains(string(b), "never analysed") || strings.Contains(string(b), "never analyzed") {
			t.Errorf("%s was analysed, advise says never: %s", name, b)
		}
	}
	if r := tables["zz.all_dead"].RowBytes.Reason(); !strings.Contains(r, "no live row") {
		t.Errorf("zz.all_dead's row width: %q", r)
	}
	forged := tables["zz.forged"]
	if _, ok := forged.Rows.Get(); ok || !strings.Contains(forged.Rows.Reason(), "not believed") {
		t.Errorf("zz.forged's 2e9 rows in %d bytes of key index were believed: %v %q", forged.KeyIndexBytes, forged.Rows.Value(), forged.Rows.Reason())
	}
	if d, ok := forged.LeafDensity.Get(); ok && forged.DensityMethod != "pgstatindex" {
		t.Errorf("zz.forged's leaf density estimated from forged statistics: %v", d)
	}
	// An int4 identity near its limit: where its sequence stands (issue 39);
	// nothing inserted during the sample, so no date, said why.
	if ro := tables["zz.near_limit"].RunsOut; len(ro) != 1 || ro[0].Limit != 2147483647 || ro[0].Last.Value() != 2147000001 || ro[0].FedBy != "identity" {
		t.Errorf("zz.near_limit's sequence: %+v", ro)
	} else if r := ro[0].RunsOutInS.Reason(); !strings.Contains(r, "gave no value") {
		t.Errorf("zz.near_limit's time left: %v, %q", ro[0].RunsOutInS.Value(), r)
	}
	if w, ok := tables["zz.unanalysed"].RowBytes.Get(); ok && w <= 0 {
		t.Errorf("zz.unanalysed's row width measured as %v", w)
	}
	// The console: a name with a newline on one line, the rest of the name beside it.
	var console bytes.Buffer
	report.AdviceDoc(&rep, true).Write(&console, 200)
	for _, line := range strings.Split(console.String(), "\n") {
		if strings.Contains(line, "LINEHALF") && !strings.Contains(line, `new\nLINEHALF`) {
			t.Fatalf("a table name's newline split a console line: %q", line)
		}
		if strings.Contains(line, "\x1b") {
			t.Fatalf("a table name's terminal escape reached the console: %q", line)
		}
	}
	// --export: the same names in a Markdown table row each, and the JSON
	// read back into the report it was written from.
	md, err := report.ExportDoc(report.AdviceDoc(&rep, true), &rep, report.ExportMarkdown)
	if err != nil || !strings.Contains(string(md), "|---") || strings.Contains(string(md), "\x1b") {
		t.Errorf("advise --export md (%v):\n%s", err, md)
	}
	js, err := report.ExportDoc(report.AdviceDoc(&rep, true), &rep, report.ExportJSON)
	var back advise.Report
	if err != nil || json.Unmarshal(js, &back) != nil || len(back.Tables) != len(rep.Tables) {
		t.Errorf("advise --export json does not read back (%v): %d tables of %d", err, len(back.Tables), len(rep.Tables))
	}
}

// TestAdviseNoUsageOnOneSchema: a CONNECT-only role, which may not use
// schema locked, still gets every other table's key and sizes.
func TestAdviseNoUsageOnOneSchema(t *testing.T) {
	hostileDSN(t)
	rep := runAdvise(t, dbDSN("hostile", "connect_only"), "--sample", "1s")
	read := 0
	for _, tb := range rep.Tables {
		if tb.Schema == "s" && tb.Key != nil && tb.KeyIndexBytes > 0 {
			read++
		}
	}
	if read < hostileTables {
		t.Errorf("connect_only got the key and sizes of %d of schema s's %d tables", read, hostileTables)
	}
}

// TestAdviseLeavesNoPlannerSetting: after advise has read a table's leaf
// order (the walk that forbids scans and sorts), its session plans as
// before, and holds no transaction.
func TestAdviseLeavesNoPlannerSetting(t *testing.T) {
	hostileDSN(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dbDSN("hostile", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := advise.Inspect(ctx, c, advise.Options{Sample: 100 * time.Millisecond, Tables: []string{"zz.composite", "zz.forged"}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"} {
		var v string
		if err := c.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != "on" {
			t.Errorf("%s is %s after advise", name, v)
		}
	}
	var jit string
	if err := c.QueryRow(ctx, "SELECT current_setting('jit')").Scan(&jit); err != nil || jit != "off" {
		t.Errorf("advise's session reads with jit %q (%v), not off", jit, err)
	}
	if s := c.PgConn().TxStatus(); s != 'I' {
		t.Errorf("advise left its connection in a transaction (%c)", s)
	}
}

// TestAdvisePausedStandby: a standby whose replay is paused replays
// nothing; its WAL rate and each table's rates say so, never 0 B/s.
func TestAdvisePausedStandby(t *testing.T) {
	setup(t)
	ctx := context.Background()
	sc, err := pgx.Connect(ctx, servertest.Server.Standbys[0].ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	if _, err := sc.Exec(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	defer sc.Exec(ctx, `SELECT pg_wal_replay_resume()`)
	rep := runAdvise(t, servertest.Server.Standbys[0].ConnString(), "--sample", "1s", "--table", "public.sessions")
	if v, ok := rep.Sample.WALBytesPerS.Get(); ok || !strings.Contains(rep.Sample.WALBytesPerS.Reason(), "paused") {
		t.Errorf("a paused standby's WAL rate: %v B/s, %q", v, rep.Sample.WALBytesPerS.Reason())
	}
	if s := rep.Tables[0]; !strings.Contains(s.InsertsPerS.Reason(), "paused") {
		t.Errorf("sessions' inserts on a paused standby: %v, %q", s.InsertsPerS.Value(), s.InsertsPerS.Reason())
	}
}
