package workload_test

import (
	"context"
	"testing"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/workload"
)

// TestCreatedAtAgreesWithTheKey: a prefilled table's created_at is the
// history time of each row, the time its time-ordered key encodes (read
// back by the server's uuid_extract_timestamp), for keybench's generator
// (COPY) and the server's own values; the indexed column gets its index,
// named for the collectors.
func TestCreatedAtAgreesWithTheKey(t *testing.T) {
	c := servertest.Connect(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE SCHEMA kbcreated"); err != nil {
		t.Fatal(err)
	}
	defer c.Exec(ctx, "DROP SCHEMA kbcreated CASCADE") // the test's own schema
	for i, raw := range []string{"uuidv7:gen=client", "uuidv7"} {
		spec, err := keys.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		at := workload.Place{Schema: "kbcreated", Table: "kb_cell" + string(rune('a'+i))}
		key, err := spec.Resolve(keys.Server{Major: 18, Schema: at.Schema, Table: at.Table})
		if err != nil {
			t.Fatal(err)
		}
		const rows = 5000
		spec.CreatedAt = workload.CreatedAtIndexed
		tb := workload.KeyedTable(at, key, workload.Setup{Rows: rows})
		for _, q := range workload.DDL(tb, keys.Server{Major: 18, Schema: at.Schema, Table: at.Table}) {
			if q == workload.IndexStatements(tb)[0] {
				break // indexes after the fill
			}
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		hist := tb.History
		gen, after := key.FillGenerator(keys.Server{Major: 18, Schema: at.Schema, Table: at.Table}, hist.Clock(), rows)
		if err := workload.Prefill(ctx, c, tb, gen, after, rows, nil); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := workload.BuildIndexes(ctx, c, tb); err != nil {
			t.Fatal(err)
		}
		var n, agree int64
		if err := c.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE abs(extract(epoch FROM created_at - uuid_extract_timestamp(id))) < 0.001) FROM `+tb.Qualified()).Scan(&n, &agree); err != nil {
			t.Fatal(err)
		}
		if n != rows || agree != rows {
			t.Errorf("%s: %d rows, %d with created_at within 1 ms of the key's time", raw, n, agree)
		}
		var idx string
		if err := c.QueryRow(ctx, `SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = $1::regclass AND NOT indisprimary`, tb.Qualified()).Scan(&idx); err != nil {
			t.Fatal(err)
		}
		if role := workload.Relations([]*workload.Table{tb})[at.Table+"_created_at_idx"]; idx != "kbcreated."+at.Table+"_created_at_idx" || role != workload.RoleCreatedAtIndex {
			t.Errorf("the created_at index: %s, role %q", idx, role)
		}
	}
}
