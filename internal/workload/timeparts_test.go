package workload_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/workload"
)

// filledTable makes and fills a keyed table of raw's key in schema, as the
// runner does (its objects, the prefill by the key's history, its
// indexes), and returns it.
func filledTable(t *testing.T, c *pgx.Conn, schema, name, raw string, rows int64, history time.Duration) *workload.Table {
	t.Helper()
	ctx := context.Background()
	spec, err := keys.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.ApplyLayout("", keys.Partitioning{}); err != nil {
		t.Fatal(err)
	}
	sv := keys.Server{Major: servertest.Server.Major(), Schema: schema, Table: name}
	key, err := spec.Resolve(sv)
	if err != nil {
		t.Fatal(err)
	}
	tb := workload.KeyedTable(workload.Place{Schema: schema, Table: name}, key, workload.Setup{Rows: rows, History: history})
	for _, o := range workload.Objects(tb, sv) {
		for _, q := range o.SQL {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %s: %v", raw, q, err)
			}
		}
	}
	gen, after := key.FillGenerator(sv, tb.History.Clock(), rows)
	if gen == nil {
		tb.ServerAtHistory = true
	}
	if err := workload.Prefill(ctx, c, tb, gen, after, rows, nil); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if err := workload.BuildIndexes(ctx, c, tb); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return tb
}

// rawOf is a stored key's raw bytes from its text form (uuid, bigint).
func rawOf(t *testing.T, s *keys.Spec, text string) []byte {
	if s.As == keys.AsBigint {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return binary.BigEndian.AppendUint64(nil, uint64(n))
	}
	b, err := hex.DecodeString(strings.ReplaceAll(text, "-", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTimePartitionsHoldTheirRows (issue 29): a table partitioned by time
// puts every prefilled row in the partition whose bounds hold the row's
// time, read back three ways: keybench's decoder of the key's time
// (keys.Spec.TimeOf), the server's own uuid_extract_timestamp for uuidv7
// (PostgreSQL 17+), and the row's created_at; a counter's values run
// through its partitions in order. Every row is in a partition; the key
// index is one per partition, named for the collectors.
func TestTimePartitionsHoldTheirRows(t *testing.T) {
	c := servertest.Connect(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE SCHEMA kbparts"); err != nil {
		t.Fatal(err)
	}
	defer c.Exec(ctx, "DROP SCHEMA kbparts CASCADE") // the test's own schema
	const rows = 24_000
	for i, raw := range []string{"uuidv7:partition=1h:created-at=column", "uuidv7:gen=client:partition=1h", "ulid:partition=1h",
		"snowflake:partition=1h", "bigint:partition=1h:created-at=column", "uuidv4:created-at=indexed:partition=1h", "uuidv7:partition=2000rows"} {
		tb := filledTable(t, c, "kbparts", "kb_cell"+string(rune('a'+i)), raw, rows, 24*time.Hour)
		parts := tb.TimeParts()
		if len(parts) < 12 || !parts[len(parts)-1].Open() {
			t.Fatalf("%s: %d partitions, the last open: %v", raw, len(parts), parts[len(parts)-1].Open())
		}
		var total int64
		for _, p := range parts {
			rs, err := c.Query(ctx, "SELECT id::text, created_at FROM kbparts."+p.Name)
			if err != nil && strings.Contains(err.Error(), "created_at") {
				rs, err = c.Query(ctx, "SELECT id::text, NULL::timestamptz FROM kbparts."+p.Name)
			}
			if err != nil {
				t.Fatal(err)
			}
			for rs.Next() {
				var id string
				var born *time.Time
				if err := rs.Scan(&id, &born); err != nil {
					t.Fatal(err)
				}
				total++
				var at time.Time
				switch {
				case tb.Key.HasTimeBound():
					at, err = tb.Key.TimeOf(rawOf(t, tb.Key.Spec, id))
					if err != nil {
						t.Fatal(err)
					}
				case tb.Key.Counts():
					n, _ := strconv.ParseInt(id, 10, 64)
					if n < p.FirstRow || n >= p.EndRow && !p.Open() {
						t.Fatalf("%s: %s holds %d, outside [%d, %d)", raw, p.Name, n, p.FirstRow, p.EndRow)
					}
					at = tb.History.At(n)
				default:
					at = *born
				}
				if born != nil && (at.Sub(*born) > time.Millisecond || born.Sub(at) > time.Millisecond) {
					t.Fatalf("%s: row %s made at %s, created_at %s", raw, id, at, born)
				}
				if at.Before(p.From.Truncate(time.Millisecond)) || !p.Open() && !at.Before(p.To) {
					t.Fatalf("%s: %s [%s, %s) holds %s made at %s", raw, p.Name, p.From, p.To, id, at)
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
		}
		if total != rows {
			t.Errorf("%s: %d rows in its partitions, want %d", raw, total, rows)
		}
		if tb.Key.Strategy.Name == "uuidv7" && servertest.Server.Major() >= 17 {
			for _, p := range parts {
				cond := "uuid_extract_timestamp(id) < $1"
				args := []any{p.From.Truncate(time.Millisecond)}
				if !p.Open() {
					cond += " OR uuid_extract_timestamp(id) >= $2"
					args = append(args, p.To)
				}
				var outside int64
				if err := c.QueryRow(ctx, "SELECT count(*) FROM kbparts."+p.Name+" WHERE "+cond, args...).Scan(&outside); err != nil || outside != 0 {
					t.Errorf("%s: %s holds %d rows the server's uuid_extract_timestamp puts outside it (%v)", raw, p.Name, outside, err)
				}
			}
		}
		names := workload.KeyIndexNames(tb)
		if len(names) != len(parts) {
			t.Errorf("%s: %d key index names for %d partitions", raw, len(names), len(parts))
		}
		for _, n := range names {
			var found bool
			if err := c.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", n).Scan(&found); err != nil || !found {
				t.Errorf("%s: no index %s (%v)", raw, n, err)
			}
		}
	}
}

// TestTimePartitionLayouts: the bounds a table partitioned by time is made
// with, without a server: days start at midnight UTC, one whole span past
// the history's end, a counter's partitions hold the history's rows of
// their span and its later rows the open one, and a key that does not
// order by time is partitioned on created_at.
func TestTimePartitionLayouts(t *testing.T) {
	end := time.Date(2026, 11, 25, 6, 30, 0, 0, time.UTC)
	table := func(raw string, rows int64, span time.Duration) *workload.Table {
		s, err := keys.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := s.Resolve(keys.Server{Major: 18, Schema: "kb", Table: "kb_cell"})
		tb := workload.KeyedTable(workload.Place{Schema: "kb", Table: "kb_cell"}, r, workload.Setup{Rows: rows})
		tb.History = workload.NewHistory(rows, span, end)
		return tb
	}
	days := table("uuidv7:partition=1d", 100_000, 10*24*time.Hour).TimeParts()
	// 2026-11-15 06:30 to 11-25 06:30: 11-15 .. 11-26 (one day past the end), then the open one.
	if len(days) != 13 || !days[0].From.Equal(time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)) || !days[11].To.Equal(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)) || !days[12].Open() {
		t.Errorf("days: %d partitions, %s .. %s", len(days), days[0].From, days[len(days)-1].From)
	}
	if !strings.Contains(days[1].FromSQL, "'::uuid") || days[12].ToSQL != "MAXVALUE" {
		t.Errorf("bounds %s .. %s", days[1].FromSQL, days[12].ToSQL)
	}
	counter := table("bigint:partition=1d", 100_000, 10*24*time.Hour).TimeParts()
	last := counter[len(counter)-1]
	if !last.Open() || last.FromSQL != "100001" || counter[0].FromSQL != "1" || counter[len(counter)-2].EndRow != 100_001 {
		t.Errorf("counter: %d partitions, the open one from %s", len(counter), last.FromSQL)
	}
	for i := 1; i < len(counter); i++ {
		if counter[i].FromSQL != counter[i-1].ToSQL {
			t.Errorf("counter partitions %d and %d do not meet: %s, %s", i-1, i, counter[i-1].ToSQL, counter[i].FromSQL)
		}
	}
	if p := table("uuidv4:created-at=indexed:partition=6h", 100_000, 2*24*time.Hour).TimeParts(); p[0].FromSQL != "'2026-11-23 06:00:00+00'::timestamptz" {
		t.Errorf("created_at partitions start at %s", p[0].FromSQL)
	}
	stmts := workload.IndexStatements(table("uuidv4:created-at=indexed:partition=6h", 1000, time.Hour))
	if !strings.Contains(stmts[0], "PRIMARY KEY (id, created_at)") {
		t.Errorf("a table partitioned on created_at: %s", stmts[0])
	}
	if n := workload.TimePartitionCount(100_000, 10*24*time.Hour, keys.Partitioning{Every: time.Hour}); n != 243 {
		t.Errorf("TimePartitionCount = %d", n)
	}
}
