package keys_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gofrs/uuid/v5"
	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/testenv"
	"github.com/keybench/keybench/internal/workspace"
)

func TestMain(m *testing.M) { os.Exit(servertest.Main(m, server.Options{})) }

func connect(t *testing.T) *pgx.Conn { t.Helper(); return servertest.Connect(t) }

func parse(t *testing.T, raw string) *keys.Spec {
	t.Helper()
	s, err := keys.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServerReadsClientKeys has PostgreSQL read keybench's client-made keys
// back with its own functions: the version, and for v1 and v7 the timestamp.
func TestServerReadsClientKeys(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	for name, version := range map[string]int{"uuidv4": 4, "uuidv7": 7, "uuidv1": 1, "uuidv6": 6, "seq-uuid-time": 4, "comb": 4,
		"uuidv5": 5, "uuidv3": 3, "uuidv7:method=counter": 7, "uuidv7:method=random": 7, "typeid:as=uuid": 7} {
		s := parse(t, name)
		before := time.Now()
		raw := make([]byte, 16)
		s.NewGenerator().Stream().Next(raw)
		var gotVersion int
		var ts *time.Time
		err := c.QueryRow(ctx, "SELECT uuid_extract_version($1::uuid), uuid_extract_timestamp($1::uuid)", s.Format(raw)).Scan(&gotVersion, &ts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if gotVersion != version {
			t.Errorf("%s: server reads version %d, want %d", name, gotVersion, version)
		}
		if version == 1 || version == 7 {
			if ts == nil || ts.Before(before.Add(-time.Millisecond)) || ts.After(time.Now().Add(time.Millisecond)) {
				t.Errorf("%s: server reads timestamp %v, want about %v", name, ts, before)
			}
		}
	}
}

// TestServerSortsTimeOrderedKeys checks that PostgreSQL's uuid ordering agrees
// with generation order for the time-ordered strategies, and compares the
// client uuidv7 with the server's own uuidv7().
func TestServerSortsTimeOrderedKeys(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	for _, name := range []string{"uuidv7", "uuidv6", "ulid"} {
		s := parse(t, name)
		st := s.NewGenerator().Stream()
		vals := make([]string, 1000)
		raw := make([]byte, 16)
		for i := range vals {
			st.Next(raw)
			vals[i] = s.Format(raw)
		}
		var sorted bool
		if err := c.QueryRow(ctx, "SELECT array_agg(v ORDER BY v) = array_agg(v ORDER BY o) FROM unnest($1::uuid[]) WITH ORDINALITY AS u(v, o)", vals).Scan(&sorted); err != nil {
			t.Fatal(err)
		}
		if !sorted {
			t.Errorf("%s: PostgreSQL sorts the values in another order than they were made", name)
		}
	}
	// A client uuidv7 made between two server uuidv7() calls sorts between them.
	var a, b string
	s := parse(t, "uuidv7")
	raw := make([]byte, 16)
	if err := c.QueryRow(ctx, "SELECT uuidv7()::text").Scan(&a); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	s.NewGenerator().Stream().Next(raw)
	time.Sleep(2 * time.Millisecond)
	if err := c.QueryRow(ctx, "SELECT uuidv7()::text").Scan(&b); err != nil {
		t.Fatal(err)
	}
	if v := s.Format(raw); !(a < v && v < b) {
		t.Errorf("client uuidv7 %s does not sort between server uuidv7() values %s and %s", v, a, b)
	}
}

// TestStoredBytes checks the catalog's byte counts against pg_column_size.
func TestStoredBytes(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	for _, raw := range []string{"uuidv4", "uuidv4:as=text", "uuidv4:as=char32", "uuidv4:as=bytea", "ulid:as=text", "snowflake", "bigint:gen=client",
		"ksuid", "ksuid:as=bytea", "typeid", "typeid:as=uuid", "typeid:prefix=order_line", "nanoid", "cuid2", "objectid", "objectid:as=bytea",
		"xid", "xid:as=bytea", "uuidv5", "uuidv3:as=text", "sonyflake", "bigint:gen=random"} {
		s := parse(t, raw)
		v := make([]byte, s.Strategy.Width)
		s.NewGenerator().Stream().Next(v)
		var size int
		if err := c.QueryRow(ctx, "SELECT pg_column_size($1::"+s.ColumnType()+")", s.Format(v)).Scan(&size); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		// A datum alone carries a 4-byte varlena header; stored in a row it has a 1-byte one.
		if s.As == keys.AsText || s.As == keys.AsChar32 || s.As == keys.AsBytea {
			size -= 3
		}
		if size != s.StoredBytes() {
			t.Errorf("%s: pg_column_size says %d bytes, catalog %d", raw, size, s.StoredBytes())
		}
	}
}

// TestSeqUUIDServerTwin checks that the server-side sequential-uuid function
// puts the same prefix as the client generator.
func TestSeqUUIDServerTwin(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	s := parse(t, "seq-uuid-seq:block=10:count=256")
	sv := keys.Server{Major: 18, Schema: "public", Table: "t"}
	r, err := parse(t, "seq-uuid-seq:block=10:count=256:gen=server").Resolve(sv)
	if err != nil {
		t.Fatal(err)
	}
	createObjects(t, c, r.Setup(sv)[:1]) // the function; the sequence is per table
	st := s.NewGenerator().Stream()
	raw := make([]byte, 16)
	for i := int64(0); i < 300; i += 7 {
		for j := int64(0); j < 7; j++ {
			st.Next(raw)
		}
		var server []byte
		if err := c.QueryRow(ctx, "SELECT uuid_send(public.kb_seq_uuid($1, 10, 256))", i+6).Scan(&server); err != nil {
			t.Fatal(err)
		}
		if server[0] != raw[0] || server[6]>>4 != 4 || server[8]>>6 != 2 {
			t.Fatalf("value %d: server %x, client %x", i+6, server, raw)
		}
	}
}

// TestServerValuesAtAnotherTime: the server-made keys whose order depends on
// the clock (seq-uuid-time, uuidv7 on 18+) can be made for a time in the
// past, as a prefill that stands for a history makes them (issue 10, 8a).
func TestServerValuesAtAnotherTime(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	sv := keys.Server{Major: 18, Schema: "public", Table: "t"}
	at := time.Now().Add(-3 * time.Hour).Truncate(time.Second)
	epoch := fmt.Sprintf("%d", at.Unix())
	// uuidv7: the timestamp PostgreSQL reads back is the one asked for.
	r, err := parse(t, "uuidv7:gen=server").Resolve(sv)
	if err != nil {
		t.Fatal(err)
	}
	expr, ok := r.ServerValueAt(epoch)
	if !ok {
		t.Fatal("uuidv7 made by the server has no value at another time")
	}
	var ts time.Time
	if err := c.QueryRow(ctx, "SELECT uuid_extract_timestamp("+expr+")").Scan(&ts); err != nil {
		t.Fatal(err)
	}
	if d := ts.Sub(at); d < -time.Second || d > time.Second {
		t.Errorf("uuidv7 at %s has timestamp %s", at, ts)
	}
	// seq-uuid-time: the block prefix of that time, as the client generator makes it.
	r, err = parse(t, "seq-uuid-time:gen=server").Resolve(sv)
	if err != nil {
		t.Fatal(err)
	}
	createObjects(t, c, r.Setup(sv))
	expr, _ = r.ServerValueAt(epoch)
	var server []byte
	if err := c.QueryRow(ctx, "SELECT uuid_send("+expr+")").Scan(&server); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 16)
	parse(t, "seq-uuid-time").NewGeneratorAt(func() time.Time { return at }).Stream().Next(raw)
	if server[0] != raw[0] || server[1] != raw[1] {
		t.Errorf("seq-uuid-time at %s: server prefix %x, client %x", at, server[:2], raw[:2])
	}
	// Keys without a clock have none to move.
	if r, _ := parse(t, "bigint").Resolve(sv); r != nil {
		if _, ok := r.ServerValueAt(epoch); ok || parse(t, "bigint").UsesWallClock() || !parse(t, "uuidv7").UsesWallClock() || parse(t, "uuidv1:spacing=10").UsesWallClock() {
			t.Error("UsesWallClock or ServerValueAt wrong for bigint, uuidv7 or uuidv1 with spacing")
		}
	}
}

// createObjects makes a key's helper objects afresh.
func createObjects(t *testing.T, c *pgx.Conn, objs []workspace.Object) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objs {
		if o.Kind == workspace.Function {
			if _, err := c.Exec(ctx, fmt.Sprintf("DROP FUNCTION IF EXISTS public.%s(%s)", o.Name, o.Args)); err != nil {
				t.Fatal(err)
			}
		}
		for _, stmt := range o.SQL {
			if _, err := c.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestFillGeneratorContinuesTheServer: a prefill of server-made keys loads
// keybench's values by COPY, then moves the server's generator past them:
// the server's next value follows the prefill's last, as if it had made
// them all (bigint's identity, seq-uuid-seq's sequence).
func TestFillGeneratorContinuesTheServer(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	const rows = 1000
	for i, raw := range []string{"bigint", "int:cache=50", "seq-uuid-seq:block=10:count=256", "uuidv4", "uuidv7:as=text"} {
		// A table of its own per key: pgx caches what COPY into a table name sends.
		sv := keys.Server{Major: 18, Schema: "public", Table: fmt.Sprintf("fill_%d", i)}
		r, err := parse(t, raw+":gen=server").Resolve(sv)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+sv.Qualified()+"; DROP SEQUENCE IF EXISTS "+sv.Qualified()+keys.SequenceSuffix); err != nil {
			t.Fatal(err)
		}
		createObjects(t, c, r.Setup(sv))
		if _, err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (id %s %s, n int)", sv.Qualified(), r.ColumnType(), r.ColumnDefault)); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		// Resolved for another table, as a run resolves its keys once: the
		// statements after the fill name the table filled.
		r.Server.Table = "another"
		gen, after := r.FillGenerator(sv, time.Now, rows)
		st, v := gen.Stream(), make([]byte, r.Strategy.Width)
		var last any
		var batch [][]any
		for range rows {
			st.Next(v)
			last = r.Value(v)
			batch = append(batch, []any{last, 0})
		}
		if _, err := c.CopyFrom(ctx, pgx.Identifier{"public", sv.Table}, []string{"id", "n"}, pgx.CopyFromRows(batch)); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		for _, q := range after {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %s: %v", raw, q, err)
			}
		}
		// The server's next value sorts after the prefill's last (or, for
		// seq-uuid-seq, is in the block the prefill's counter reached), and
		// is new.
		var next string
		if err := c.QueryRow(ctx, "INSERT INTO "+sv.Qualified()+" (n) VALUES (1) RETURNING id::text").Scan(&next); err != nil {
			t.Fatalf("%s: the server's next value: %v", raw, err)
		}
		lastText := fmt.Sprint(last)
		if b, ok := last.([16]byte); ok {
			lastText = r.Format(b[:])
		}
		switch {
		case raw == "bigint" || raw == "int:cache=50":
			if next != fmt.Sprint(rows+1) {
				t.Errorf("%s: the server's next value is %s after %s client-made ones", raw, next, lastText)
			}
		case raw == "seq-uuid-seq:block=10:count=256":
			// value rows (0-based) is in block rows/10 = 100: prefix byte 100.
			if next[:2] != fmt.Sprintf("%02x", (rows/10)%256) {
				t.Errorf("%s: the server's next value %s is not in block %d", raw, next, rows/10)
			}
		}
		var dup int
		if err := c.QueryRow(ctx, "SELECT count(*) - count(DISTINCT id) FROM "+sv.Qualified()).Scan(&dup); err != nil || dup != 0 {
			t.Errorf("%s: %d duplicate keys (%v)", raw, dup, err)
		}
	}
}

// TestNameUUIDsAreTheServers: where the server has uuid-ossp, its
// uuid_generate_v3 and _v5 make keybench's name-based uuids of the same
// namespace and name.
func TestNameUUIDsAreTheServers(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	if _, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\""); err != nil {
		testenv.Skip(t, "uuid-ossp: %v", err)
	}
	defer c.Exec(ctx, "DROP EXTENSION \"uuid-ossp\"")
	for _, name := range []string{"keybench/00ff/1", "", "https://example.com/users/alice"} {
		var v3, v5 string
		if err := c.QueryRow(ctx, "SELECT uuid_generate_v3(uuid_ns_url(), $1)::text, uuid_generate_v5(uuid_ns_url(), $1)::text", name).Scan(&v3, &v5); err != nil {
			t.Fatal(err)
		}
		if got := keys.NameUUID(3, uuid.NamespaceURL, name).String(); got != v3 {
			t.Errorf("uuidv3 of %q: %s, the server %s", name, got, v3)
		}
		if got := keys.NameUUID(5, uuid.NamespaceURL, name).String(); got != v5 {
			t.Errorf("uuidv5 of %q: %s, the server %s", name, got, v5)
		}
	}
}
