package advise_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/advise"
	"github.com/keybench/keybench/internal/cli"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/workload/all"
)

// The test database: a table of each shape advise must tell apart, on the
// embedded server with one streaming standby. shared_buffers is 8 MB, so
// sessions' key index (about 10 MB) is beyond the cache; autovacuum is off,
// so that nothing but advise could write while "nothing written" is checked.
func TestMain(m *testing.M) {
	os.Exit(servertest.Main(m, server.Options{Replicas: 1, Settings: []server.Setting{
		{Name: "shared_buffers", Value: "8MB"}, {Name: "autovacuum", Value: "off"},
		{Name: "shared_preload_libraries", Value: "pg_stat_statements"},
	}}))
}

var (
	setupOnce sync.Once
	setupErr  error
)

const schemaSQL = `
CREATE EXTENSION pgstattuple; CREATE EXTENSION pg_buffercache; CREATE EXTENSION pg_walinspect; CREATE EXTENSION pg_stat_statements;
CREATE TABLE lookups (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int NOT NULL);
INSERT INTO lookups (n) SELECT g FROM generate_series(1, 20000) g;
CREATE TABLE users (id text PRIMARY KEY DEFAULT gen_random_uuid()::text, name text NOT NULL);
CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, user_id text NOT NULL REFERENCES users, amount int NOT NULL);
CREATE INDEX orders_user_id ON orders (user_id);
CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuidv7(), kind int NOT NULL);
CREATE TABLE sessions (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), data text NOT NULL,
  email text NOT NULL UNIQUE DEFAULT md5(random()::text), created_at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE INDEX sessions_created_at_idx ON sessions (created_at);
CREATE TABLE countries (code int PRIMARY KEY, name text NOT NULL);
CREATE TABLE logs (at timestamptz NOT NULL, line text NOT NULL);
CREATE TABLE mixed (id uuid PRIMARY KEY, v int NOT NULL, hex text, key text, value text, t int, s int, k int, n int); -- columns named like advise's aliases (issue 63)
CREATE TABLE labbed (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int NOT NULL);
INSERT INTO labbed (n) SELECT g FROM generate_series(1, 40000) g;
INSERT INTO mixed SELECT gen_random_uuid(), g FROM generate_series(1, 30000) g;
INSERT INTO mixed SELECT uuidv7(), g FROM generate_series(1, 20000) g;
INSERT INTO users (name) SELECT 'user ' || g FROM generate_series(1, 60000) g;
INSERT INTO orders (user_id, amount) SELECT id, 1 FROM users;
INSERT INTO events (kind) SELECT g FROM generate_series(1, 100000) g;
INSERT INTO sessions (data) SELECT repeat('s', 40) FROM generate_series(1, 250000) g;
INSERT INTO countries SELECT g, 'country ' || g FROM generate_series(1, 200) g;
INSERT INTO logs SELECT now(), 'line ' || g FROM generate_series(1, 1000) g;
CREATE TABLE audit (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, event uuid NOT NULL);
INSERT INTO audit (event) SELECT id FROM events LIMIT 1000;
CREATE FUNCTION audit_event() RETURNS trigger LANGUAGE plpgsql AS
  $$BEGIN INSERT INTO audit (event) VALUES (NEW.id); PERFORM pg_sleep(0.01); RETURN NEW; END$$;
CREATE TRIGGER audit_event AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION audit_event();
CREATE ROLE connect_only LOGIN;
CREATE ROLE monitor LOGIN IN ROLE pg_monitor;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO monitor;`

func setup(t *testing.T) *pgx.Conn {
	t.Helper()
	c := servertest.Connect(t)
	setupOnce.Do(func() {
		for _, q := range []string{schemaSQL, "VACUUM ANALYZE", "CHECKPOINT"} {
			if _, setupErr = c.Exec(context.Background(), q); setupErr != nil {
				return
			}
		}
	})
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	waitReplayed(t, c)
	return c
}

// waitReplayed waits until the standby has replayed all the primary wrote.
func waitReplayed(t *testing.T, c *pgx.Conn) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var lag int64
		if err := c.QueryRow(context.Background(), `SELECT coalesce(pg_current_wal_lsn() - replay_lsn, -1)::int8 FROM pg_stat_replication`).Scan(&lag); err != nil {
			t.Fatal(err)
		}
		if lag == 0 {
			return
		}
	}
	t.Fatal("the standby did not catch up in 60 s")
}

// writers insert into users, sessions, events (and, by its trigger, audit)
// and orders (with users, in one statement's CTE) from 3
// connections until stop is called: the application advise watches.
func writers(t *testing.T) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		c, err := pgx.Connect(ctx, servertest.Server.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close(context.Background())
			for ctx.Err() == nil {
				for _, q := range []string{
					// Each holds its table's lock for 10 ms or more, as an
					// application's transaction does: the window's looks
					// every 100 ms catch every writer.
					`INSERT INTO sessions (data) SELECT 'new session' FROM pg_sleep(0.01)`,
					`INSERT INTO events (kind) VALUES (7)`,
					`WITH u AS (INSERT INTO users (name) SELECT 'new user' FROM pg_sleep(0.01) RETURNING id) INSERT INTO orders (user_id, amount) SELECT id, 2 FROM u`,
				} {
					if _, err := c.Exec(ctx, q); err != nil && ctx.Err() == nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	// A reader of lookups by its key, nothing else: the table's lab
	// replays reads (issue 51).
	c, err := pgx.Connect(ctx, servertest.Server.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	rows, _ := c.Query(ctx, `SELECT id::text FROM lookups TABLESAMPLE BERNOULLI (5)`)
	ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(ids) == 0 {
		t.Fatalf("lookups' keys: %v", err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer c.Close(context.Background())
		for i := 0; ctx.Err() == nil; i++ {
			var n int
			if err := c.QueryRow(ctx, `SELECT n FROM lookups WHERE id = $1::uuid`, ids[i%len(ids)]).Scan(&n); err != nil && ctx.Err() == nil {
				t.Error(err)
				return
			}
			time.Sleep(2 * time.Millisecond) // a reader, not a busy loop beside the writers on a small machine

		}
	}()
	return func() { cancel(); wg.Wait() }
}

// runAdvise runs `keybench advise ARGS --json` and reads its report.
func runAdvise(t *testing.T, dsn string, args ...string) *advise.Report {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(append([]string{"advise", "--dsn", dsn, "--json"}, args...), &out, &errOut)
	if code != 0 {
		t.Fatalf("advise %v: exit %d: %s", args, code, errOut.String())
	}
	var rep advise.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("advise --json: %v\n%s", err, out.String())
	}
	return &rep
}

func byName(t *testing.T, rep *advise.Report) map[string]advise.Table {
	t.Helper()
	m := map[string]advise.Table{}
	for _, tb := range rep.Tables {
		m[tb.Name] = tb
	}
	for _, n := range []string{"users", "orders", "events", "sessions", "countries", "logs"} {
		if _, ok := m[n]; !ok {
			t.Fatalf("advise did not report table %s: %v", n, names(rep))
		}
	}
	return m
}

func names(rep *advise.Report) []string {
	var out []string
	for _, t := range rep.Tables {
		out = append(out, t.QualifiedName())
	}
	return out
}

// checkShapes checks what advise says of each table's key, on the primary
// or the standby alike.
func checkShapes(t *testing.T, tables map[string]advise.Table) {
	t.Helper()
	for _, want := range []struct {
		table, typ, made, order, class string
		text                           bool
	}{
		{"users", "text", "gen_random_uuid()", advise.Random, advise.Pays, true},
		{"sessions", "uuid", "gen_random_uuid()", advise.Random, advise.Pays, false},
		{"events", "uuid", "uuidv7()", advise.Ordered, advise.DoesNotPay, false},
		{"orders", "bigint", "identity", advise.Ordered, advise.DoesNotPay, false},
	} {
		tb := tables[want.table]
		k := tb.Key
		if k == nil {
			t.Errorf("%s: no key", want.table)
			continue
		}
		if k.Type != want.typ || k.Made != want.made || k.Order != want.order || k.UUIDText != want.text || tb.Verdict.Class != want.class {
			t.Errorf("%s: key %s made by %s, %s, uuid as text %v, %q; want %s made by %s, %s, %v, %q\n%s",
				want.table, k.Type, k.Made, k.Order, k.UUIDText, tb.Verdict.Class, want.typ, want.made, want.order, want.text, want.class, strings.Join(tb.Verdict.Why, "\n"))
		}
		if paying := tb.Verdict.Rank > 0; paying != (want.class == advise.Pays) {
			t.Errorf("%s: rank %d", want.table, tb.Verdict.Rank)
		}
	}
	if tables["logs"].Key != nil || tables["logs"].Verdict.Class != advise.NoKey {
		t.Errorf("logs has no key, advise says %+v", tables["logs"].Key)
	}
	if s := tables["sessions"]; s.KeyIndexOverCache <= 1 {
		t.Errorf("sessions' key index is beyond the 8 MB cache, advise says %.2f of it", s.KeyIndexOverCache)
	}
	if v := tables["events"].Key.Reveals; v != "creation time" {
		t.Errorf("events' uuidv7 reveals its creation time, advise says %q", v)
	}
	// orders' index holds a copy of users' 37-byte text key per row (issue 39).
	if u := tables["users"]; len(u.ReferencedBy) == 1 && u.ReferencedBy[0].Rows == 60000 {
		if b, ok := u.ReferencedBy[0].KeyBytes.Get(); !ok || b < 60000*30 || b > 60000*40 {
			t.Errorf("the key's bytes in orders' index: %v (%s)", b, u.ReferencedBy[0].KeyBytes.Reason())
		}
	} else {
		t.Errorf("users is referenced by orders' 60,000 rows, advise says %+v", u.ReferencedBy)
	}
	// mixed holds v4 and v7 values, 3:2 (issue 39); a sample of its bounds
	// says so, read on its pages though its columns are named like the
	// aliases of advise's own queries (issue 63: a column v made the
	// sample's query ambiguous, and the mix fell back to the bounds).
	if m := tables["mixed"].Key; m == nil || m.UUIDVersions["v4"] == 0 || m.UUIDVersions["v7"] == 0 || m.UUIDVersion != 0 {
		t.Errorf("mixed's uuid versions: %+v", m)
	} else if len(m.UUIDMix) != 2 || m.UUIDMix[0].Version != "v4" || m.UUIDMix[0].Lo > 0.6 || m.UUIDMix[0].Hi < 0.6 {
		// Read on the table's pages (issue 51), not on points in the
		// key's value order: 60% v4 lies inside the interval.
		t.Errorf("mixed's uuid version mix (%s): %+v", m.UUIDMixRead, m.UUIDMix)
	}
	if u := tables["users"]; len(u.ReferencedBy) != 1 || u.ReferencedBy[0].Table != "public.orders" || !u.ReferencedBy[0].Indexed {
		t.Errorf("users is referenced by orders' indexed foreign key, advise says %+v", u.ReferencedBy)
	}
}

// TestAdvisePrimary: on the primary, with an application inserting, advise
// names each key, its order and storage, ranks sessions and users as
// paying, and its figures are the catalog's.
func TestAdvisePrimary(t *testing.T) {
	c := setup(t)
	stop := writers(t)
	rep := runAdvise(t, servertest.Server.ConnString(), "--sample", "3s", "--ram", "1GB")
	stop()
	tables := byName(t, rep)
	checkShapes(t, tables)
	if rep.Server.Standby || rep.Server.SharedBuffers != 8<<20 {
		t.Errorf("server: standby %v, shared_buffers %d", rep.Server.Standby, rep.Server.SharedBuffers)
	}
	if _, ok := rep.Sample.FPIPerS.Get(); !ok {
		t.Errorf("full-page images per second unavailable on the primary: %s", rep.Sample.FPIPerS.Reason())
	}
	ctx := context.Background()
	for _, name := range []string{"users", "sessions", "events", "orders"} {
		tb := tables[name]
		// Re-derived from the catalog: the key index's size (the writers
		// have stopped; the size can only have grown since advise read it),
		// reltuples, and the ratio to shared_buffers.
		var size int64
		var reltuples float64
		if err := c.QueryRow(ctx, `SELECT pg_relation_size(i.indexrelid), c.reltuples FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
			WHERE i.indrelid = $1::regclass AND i.indisprimary`, name).Scan(&size, &reltuples); err != nil {
			t.Fatal(err)
		}
		if tb.KeyIndexBytes > size || float64(tb.KeyIndexBytes) < 0.9*float64(size) {
			t.Errorf("%s: key index %d bytes, the catalog says %d now", name, tb.KeyIndexBytes, size)
		}
		if rows, _ := tb.Rows.Get(); rows != int64(reltuples) {
			t.Errorf("%s: %d rows, reltuples %v", name, rows, reltuples)
		}
		if r := float64(tb.KeyIndexBytes) / float64(8<<20); math.Abs(tb.KeyIndexOverCache-r) > 1e-9 {
			t.Errorf("%s: key index over cache %v, want %v", name, tb.KeyIndexOverCache, r)
		}
		if ins, ok := tb.InsertsPerS.Get(); !ok || ins <= 0 {
			t.Errorf("%s: inserts/s %v (%s) while the writers ran", name, ins, tb.InsertsPerS.Reason())
		}
		if d, ok := tb.LeafDensity.Get(); !ok || tb.DensityMethod != "pgstatindex" || d <= 0.5 || d > 1 {
			t.Errorf("%s: leaf density %v by %q (%s)", name, d, tb.DensityMethod, tb.LeafDensity.Reason())
		}
		if n, ok := tb.Inserters.Get(); !ok || n != 3 {
			t.Errorf("%s: %d writing backends (%s); 3 writers ran", name, n, tb.Inserters.Reason())
		}
		if _, ok := tb.CacheShare.Get(); !ok {
			t.Errorf("%s: cache share unavailable: %s", name, tb.CacheShare.Reason())
		}
	}
	// audit is written only by a trigger on events, which its writers'
	// statements never name: its lock counts them (issue 51).
	if n, ok := tables["audit"].Inserters.Get(); !ok || n != 3 {
		t.Errorf("audit, written by a trigger: %d writing backends (%s); 3 writers ran", n, tables["audit"].Inserters.Reason())
	}
	checkMixes(t, tables)
	if s, u := tables["sessions"], tables["users"]; s.Verdict.Rank < 1 || u.Verdict.Rank < 1 {
		t.Errorf("ranks: sessions %d, users %d", s.Verdict.Rank, u.Verdict.Rank)
	}
	if l := tables["users"].Lab; l == nil || !strings.Contains(l.Command, "--keys uuidv4:as=text,") {
		t.Errorf("users' lab: %+v", l)
	}
	if m := tables["users"].Migrate; !strings.Contains(m, "uuidv7:as=text:prefill=uuidv4") {
		t.Errorf("users' migrate command: %q", m)
	}
	// What a switch costs: users' text uuid to the uuid type rewrites it
	// and its referencing orders; sessions' new rows to uuidv7 rewrite
	// nothing; an identity key has no switch to make.
	u := tables["users"].Switches
	if len(u) != 2 || u[0].How != "default" || u[1].How != "type" || u[1].RewriteBytes < tables["users"].TableBytes ||
		len(u[1].Rebuilt) != 1 || !strings.HasPrefix(u[1].Rebuilt[0], "public.orders ") || len(u[1].Locks) != 2 {
		t.Errorf("users' switches: %+v", u)
	}
	if s := tables["sessions"].Switches; len(s) != 1 || s[0].How != "default" || s[0].RewriteBytes != 0 || s[0].Measure != tables["sessions"].Migrate {
		t.Errorf("sessions' switches: %+v", s)
	}
	if o := tables["orders"].Switches; len(o) != 0 {
		t.Errorf("orders' switches: %+v", o)
	}
	for _, name := range []string{"users", "sessions"} {
		if l := tables[name].Lab; l.PgVersion != strconv.Itoa(rep.Server.VersionNum/10000) || !strings.Contains(l.Command, "--pg-version "+l.PgVersion) ||
			!strings.Contains(l.Command, "--rounds 6 -t ") {
			t.Errorf("%s's lab is not on the server's major, in rounds, with a window: %s", name, l.Command)
		}
	}
}

// TestAdviseLab (issue 39): advise --lab runs a paying table's lab on the
// embedded server of the server's own major and carries its measured
// verdict — the key's server time per insert and its rate against the
// cheapest ordered key's, each with its interval — beside the table's
// classification, in --json and on the console.
func TestAdviseLab(t *testing.T) {
	setup(t)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	args := []string{"advise", "--dsn", servertest.Server.ConnString(), "--sample", "1s", "--table", "public.labbed", "--lab", "--lab-out", dir}
	if code := cli.Main(append(args, "--json"), &out, &errOut); code != 0 {
		t.Fatalf("advise --lab: exit %d: %s", code, errOut.String())
	}
	var rep advise.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("advise --lab --json: %v\n%s", err, out.String())
	}
	if len(rep.Tables) != 1 || rep.Tables[0].LabResult == nil {
		t.Fatalf("advise --lab: no lab result: %s", out.String())
	}
	tb := rep.Tables[0]
	r := tb.LabResult
	if r.Unavailable != "" || r.Key != "uuidv4" || (r.Against != "bigint" && r.Against != "uuidv7") || r.Cost == nil {
		t.Fatalf("labbed's lab result: %+v (the lab: %s)", r, tb.Lab.Command)
	}
	if c := r.Cost; !(c.Lo < c.Ratio && c.Ratio < c.Hi) || c.Level < 0.95 || c.Significant != (c.Lo > 1 || c.Hi < 1) {
		t.Errorf("the lab's cost ratio: %+v", c)
	}
	if _, err := results.Read(r.Results, all.Kinds()); err != nil {
		t.Errorf("the lab's results: %v", err)
	}
	// The class follows the lab (issue 51): it still pays (now or in size)
	// only when the lab found the key's work larger, or (issue 63) its WAL
	// — what every standby and archive carries — "measured: no
	// difference" otherwise.
	paying := tb.Verdict.Class == advise.Pays || tb.Verdict.Class == advise.PaysInSize
	moreWAL := r.WAL != nil && r.WAL.Significant && r.WAL.Lo > 1
	if paid := r.Cost.Significant && r.Cost.Lo > 1 || moreWAL; paid != paying || !paid && tb.Verdict.Class != advise.NoDifference {
		t.Errorf("labbed's class %q after a lab of %+v", tb.Verdict.Class, r.Cost)
	}
	if !strings.Contains(errOut.String(), "advise: lab 1 of 1, public.labbed") {
		t.Errorf("no progress of the lab on stderr:\n%s", errOut.String())
	}
	t.Logf("labbed (%s): %s costs %.2f× %s's [%.2f–%.2f], significant %v", tb.Verdict.Class, r.Key, r.Cost.Ratio, r.Against, r.Cost.Lo, r.Cost.Hi, r.Cost.Significant)
}

// TestAdviseStandby: on the hot standby, read-only by nature, advise
// reports the same tables, its insert rates from the heap's growth.
func TestAdviseStandby(t *testing.T) {
	setup(t)
	stop := writers(t)
	defer stop()
	rep := runAdvise(t, servertest.Server.Standbys[0].ConnString(), "--sample", "3s")
	if !rep.Server.Standby {
		t.Fatal("advise did not see a standby")
	}
	tables := byName(t, rep)
	checkShapes(t, tables)
	// A standby's statistics count nothing the primary did: the rates are
	// the rows the replayed WAL's heap records changed.
	for _, name := range []string{"sessions", "users", "events", "orders"} {
		tb := tables[name]
		if ins, ok := tb.InsertsPerS.Get(); !ok || ins <= 0 || !strings.Contains(tb.InsertsFrom, "pg_walinspect") {
			t.Errorf("%s on the standby: %v inserts/s from %q (%s)", name, ins, tb.InsertsFrom, tb.InsertsPerS.Reason())
		}
	}
	if _, ok := rep.Sample.WALBytesPerS.Get(); !ok {
		t.Errorf("WAL/s on the standby (replayed): %s", rep.Sample.WALBytesPerS.Reason())
	}
}

// TestAdviseConnectOnly: a role with CONNECT and nothing else gets exit 0;
// each figure it cannot read says why and which grant gives it.
func TestAdviseConnectOnly(t *testing.T) {
	setup(t)
	dsn := strings.Replace(servertest.Server.ConnString(), "user="+server.DBUser, "user=connect_only", 1)
	if dsn == servertest.Server.ConnString() {
		t.Fatalf("cannot make a connect_only DSN of %s", dsn)
	}
	rep := runAdvise(t, dsn, "--sample", "1s")
	tables := byName(t, rep)
	for _, name := range []string{"users", "sessions", "events", "orders"} {
		tb := tables[name]
		if tb.Key == nil || tb.KeyIndexBytes <= 0 {
			t.Errorf("%s: the key and its size are in the catalog, readable by every role: %+v", name, tb.Key)
			continue
		}
		for fig, reason := range map[string]string{"correlation": tb.Key.Correlation.Reason(), "leaf order": tb.Key.LeafOrder.Reason()} {
			if !strings.Contains(reason, "GRANT SELECT ON public."+name+" TO connect_only") {
				t.Errorf("%s: %s: %q does not name the grant", name, fig, reason)
			}
		}
		if r := tb.CacheShare.Reason(); !strings.Contains(r, "GRANT pg_monitor TO connect_only") {
			t.Errorf("%s: cache share: %q", name, r)
		}
		if tb.DensityMethod == "pgstatindex" {
			t.Errorf("%s: pgstatindex ran for a role without pg_stat_scan_tables", name)
		}
		if r := tb.LeafDensity.Reason() + tb.DensityNote; !strings.Contains(r, "GRANT pg_stat_scan_tables TO connect_only") {
			t.Errorf("%s: leaf density: %q", name, r)
		}
	}
	if k := tables["users"].Key; !k.UUIDText || tables["users"].Lab == nil {
		t.Errorf("users' text key is made by gen_random_uuid(): uuids as text, sampled or not: %+v", k)
	}
	// A random uuid key is still known by its default, said to be expected, not measured.
	if k := tables["sessions"].Key; k.Order != advise.Random || !strings.Contains(strings.Join(tables["sessions"].Verdict.Why, " "), "expected, not measured") {
		t.Errorf("sessions for connect_only: %s, %v", k.Order, tables["sessions"].Verdict.Why)
	}
}

// TestAdviseMonitorRole: a role with pg_monitor and SELECT on the tables
// reads every figure advise shows on a primary.
func TestAdviseMonitorRole(t *testing.T) {
	setup(t)
	dsn := strings.Replace(servertest.Server.ConnString(), "user="+server.DBUser, "user=monitor", 1)
	rep := runAdvise(t, dsn, "--sample", "1s")
	for name, tb := range byName(t, rep) {
		if tb.Key == nil {
			continue
		}
		if u := unavailable(tb); len(u) > 0 {
			t.Errorf("%s: unavailable to pg_monitor with SELECT: %v", name, u)
		}
	}
}

// unavailable lists a table's figures advise could not read.
func unavailable(tb advise.Table) []string {
	var out []string
	for name, r := range map[string]string{"rows": tb.Rows.Reason(), "row width": tb.RowBytes.Reason(), "inserts": tb.InsertsPerS.Reason(),
		"inserters": tb.Inserters.Reason(), "correlation": tb.Key.Correlation.Reason(), "leaf order": tb.Key.LeafOrder.Reason(),
		"leaf density": tb.LeafDensity.Reason() + tb.DensityNote, "cache share": tb.CacheShare.Reason()} {
		if r != "" && !strings.Contains(r, "pg_stats has no correlation") {
			out = append(out, name+": "+r)
		}
	}
	return out
}

// TestAdviseWritesNothing: the primary's WAL position moves by nothing but
// the server's own background records, no transaction id is assigned, and
// the database dumps the same before and after.
func TestAdviseWritesNothing(t *testing.T) {
	c := setup(t)
	ctx := context.Background()
	state := func() (lsn string, xmax int64, dump string) {
		// The dump first: reading every row lets PostgreSQL prune dead row
		// versions on the pages read (WAL of any first reader), the
		// writers' aborted inserts here; advise must add nothing after it.
		dump = servertest.Dump(t, c)
		if err := c.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text, pg_snapshot_xmax(pg_current_snapshot())::text::int8`).Scan(&lsn, &xmax); err != nil {
			t.Fatal(err)
		}
		return lsn, xmax, dump
	}
	lsn0, xmax0, dump0 := state()
	runAdvise(t, servertest.Server.ConnString(), "--sample", "1s")
	runAdvise(t, servertest.Server.Standbys[0].ConnString(), "--sample", "1s")
	lsn1, xmax1, dump1 := state()
	if xmax1 != xmax0 { // the next transaction id to assign: none was
		t.Errorf("transaction ids were assigned: xmax %d -> %d", xmax0, xmax1)
	}
	if dump1 != dump0 {
		t.Errorf("the database changed:\n%s", firstDiff(dump0, dump1))
	}
	rows, err := c.Query(ctx, `SELECT resource_manager, record_type FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)`, lsn0, lsn1)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var rm, typ string
		if err := rows.Scan(&rm, &typ); err != nil {
			t.Fatal(err)
		}
		if rm != "Standby" && rm != "XLOG" {
			t.Errorf("WAL record %s %s written while advise ran (%s..%s)", rm, typ, lsn0, lsn1)
		}
	}
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "- " + la[i] + "\n+ " + lb[i]
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

// TestLabMatchesTheTable: the lab command advise prints for sessions, run
// on the embedded server, builds a key index whose ratio to the cache is
// within 25% of sessions' own.
func TestLabMatchesTheTable(t *testing.T) {
	setup(t)
	rep := runAdvise(t, servertest.Server.ConnString(), "--sample", "1s", "--table", "public.sessions")
	if len(rep.Tables) != 1 || rep.Tables[0].Lab == nil {
		t.Fatalf("advise --table public.sessions: %v", names(rep))
	}
	s := rep.Tables[0]
	out := t.TempDir()
	args := append(strings.Fields(strings.TrimPrefix(s.Lab.Command, "keybench ")), "-t", "100", "--warmup", "0", "--rounds", "1", "--out", out)
	var stdout, stderr bytes.Buffer
	if code := cli.Main(args, &stdout, &stderr); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
	res, err := results.Read(filepath.Join(out, "results.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	// sessions' two secondary indexes, a time-ordered one and a random
	// unique one of its email's width, are the lab table's too.
	if len(s.Secondary) != 2 || s.Secondary[0].Order != advise.Ordered || s.Secondary[1].Order != advise.Random || !s.Secondary[1].Unique || s.Secondary[1].Width != 33 {
		t.Errorf("sessions' secondary indexes: %+v", s.Secondary)
	}
	if s.Lab.Secondary != "time,random:33" || !strings.Contains(s.Lab.Command, "--secondary time,random:33") {
		t.Errorf("the lab's secondary indexes %q in %s", s.Lab.Secondary, s.Lab.Command)
	}
	for _, cell := range res.Cells {
		if cell.Key != s.Lab.Key {
			continue
		}
		ddl := strings.Join(cell.DDL, ";")
		if !strings.Contains(ddl, "sec1 timestamptz") || !strings.Contains(ddl, "sec2 text NOT NULL DEFAULT pg_catalog.left(pg_catalog.repeat(pg_catalog.md5(pg_catalog.random()::pg_catalog.text), 2), 33)") ||
			!strings.Contains(ddl, "CREATE INDEX kb_cell_sec1_idx") || !strings.Contains(ddl, "CREATE UNIQUE INDEX kb_cell_sec2_idx") {
			t.Errorf("the lab table's DDL lacks sessions' secondary indexes: %s", ddl)
		}
		kb, ok := cell.Metrics.KeyIndexBytes.Get()
		if !ok {
			t.Fatalf("the lab's key index size: %s", cell.Metrics.KeyIndexBytes.Reason())
		}
		ratio := float64(kb) / float64(s.Lab.SharedBuffers)
		if off := ratio/s.KeyIndexOverCache - 1; math.Abs(off) > 0.25 {
			t.Errorf("the lab's key index is %.2f× its cache, sessions' %.2f× (%+.0f%%)", ratio, s.KeyIndexOverCache, off*100)
		}
		t.Logf("sessions: key index %.3f× the cache; the lab's (%s, %d rows, %d MB): %.3f×", s.KeyIndexOverCache, s.Lab.Key, s.Lab.Rows, s.Lab.SharedBuffers>>20, ratio)
		return
	}
	t.Fatalf("no cell of %s in the lab's results", s.Lab.Key)
}

// TestAdviseBadInput: one line on stderr and exit 2.
func TestAdviseBadInput(t *testing.T) {
	setup(t)
	dsn := servertest.Server.ConnString()
	for name, args := range map[string][]string{
		"unreachable":      {"advise", "--dsn", "host=/nonexistent port=1 user=x dbname=x connect_timeout=2", "--sample", "1s"},
		"no such table":    {"advise", "--dsn", dsn, "--sample", "1s", "--table", "public.nope"},
		"sample 0":         {"advise", "--dsn", dsn, "--sample", "0"},
		"curves of a war":  {"advise", "--dsn", dsn, "--sample", "1s", "--curves", "../results/testdata/war.json"},
		"not a table":      {"advise", "--dsn", dsn, "--sample", "1s", "--table", "users_pkey"},
		"password in dsn":  {"advise", "--dsn", "postgres://u:secret@127.0.0.1:1/x?connect_timeout=2", "--sample", "1s"},
		"negative sample":  {"advise", "--dsn", dsn, "--sample", "-3"},
		"ram not a size":   {"advise", "--dsn", dsn, "--ram", "lots"},
		"curves not found": {"advise", "--dsn", dsn, "--curves", "/nonexistent.json"},
		// Issue 35: a port nothing listens on (pgx's attempts with and
		// without TLS said once), a role the server refuses, no --dsn.
		"refused port":  {"advise", "--dsn", "host=127.0.0.1 port=1 user=x dbname=x connect_timeout=2", "--sample", "1s"},
		"unknown role":  {"advise", "--dsn", strings.Replace(dsn, "user="+server.DBUser, "user=nosuchrole", 1), "--sample", "1s"},
		"no dsn at all": {"advise", "--sample", "1s"},
	} {
		var out, errOut bytes.Buffer
		code := cli.Main(args, &out, &errOut)
		msg := strings.TrimRight(errOut.String(), "\n")
		if code != 2 || strings.Count(msg, "\n") > 0 || msg == "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, msg)
		}
		if strings.Contains(msg+out.String(), "secret") {
			t.Errorf("%s: the password was printed: %q", name, msg)
		}
		if strings.Count(msg, "connection refused") > 1 || strings.Contains(msg, "<dsn>") {
			t.Errorf("%s: %q", name, msg)
		}
	}
}

// checkMixes (issue 51): each table's traffic as pg_stat_statements counted
// it during the sample — the CTE's inserts for both its tables, lookups'
// reads by key alone — and the lab that replays it: a mix of reads for
// lookups, inserts for the CTE's tables with one client per writer.
func checkMixes(t *testing.T, tables map[string]advise.Table) {
	t.Helper()
	// countries has no traffic: advise's own reads of it (its leaf-order
	// walk through the key index) are no part of its mix.
	if m := tables["countries"].Mix; m == nil || m.Total() != 0 || m.OtherPerS != 0 {
		t.Errorf("countries, untouched during the sample: its mix is %+v", m)
	}
	for _, name := range []string{"users", "orders", "sessions", "lookups"} {
		m := tables[name].Mix
		if m == nil || m.From != advise.MixFromStatements {
			t.Errorf("%s: the mix is %+v, not read from pg_stat_statements", name, m)
			continue
		}
		ins, look := m.PerS["insert"], m.PerS["lookup"]
		if name == "lookups" {
			if look <= 0 || ins != 0 {
				t.Errorf("lookups, read by key only: %+v", m)
			}
			l := tables[name].Lab
			if l == nil || !strings.HasPrefix(l.Workload, "mix --mix-insert 0 --mix-lookup ") || !strings.Contains(l.Command, "run mix ") || !strings.Contains(l.Mix, "100% reads by key") {
				t.Errorf("lookups' lab does not replay its reads: %+v", l)
			}
			continue
		}
		if ins <= 0 || look != 0 || len(m.Statements) == 0 {
			t.Errorf("%s: inserted only, its mix says %+v", name, m)
		}
		if l := tables[name].Lab; l != nil && (l.Workload != "insert" || l.Clients != 3) {
			t.Errorf("%s: its lab runs %s with %d clients, not inserts from 3", name, l.Workload, l.Clients)
		}
	}
}
