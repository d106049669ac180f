package workload_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/server/servertest"
	"github.com/keybench/keybench/internal/workload"
)

// TestTenantsShapeTheTable (--distribute-by tenant): the keyed table gets
// a tenant column the server fills, its key becomes the tenant's (the
// primary key on (tenant_id, id)), a distributed engine shards it on the
// tenant; the server's values follow the declared law: under zipf the
// largest tenant holds log(2)/log(N+1) of the rows (a Zipf law of exponent
// 1), under uniform 1/N, each within its sampling error.
func TestTenantsShapeTheTable(t *testing.T) {
	c := servertest.Connect(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE SCHEMA kbtenants"); err != nil {
		t.Fatal(err)
	}
	defer c.Exec(ctx, "DROP SCHEMA kbtenants CASCADE") // the test's own schema
	spec, err := keys.Parse("uuidv4")
	if err != nil {
		t.Fatal(err)
	}
	const rows, tenants = 40000, 100
	for i, skew := range workload.TenantSkews {
		at := workload.Place{Schema: "kbtenants", Table: "kb_cell" + string(rune('a'+i))}
		sv := keys.Server{Major: 18, Schema: at.Schema, Table: at.Table}
		key, err := spec.Resolve(sv)
		if err != nil {
			t.Fatal(err)
		}
		tb := workload.KeyedTable(at, key, workload.Setup{Rows: rows})
		tb.Tenants = &workload.Tenants{N: tenants, Skew: skew}
		if got, _ := workload.DistributeStatement(tb, 8); !strings.Contains(got, "'tenant_id'") {
			t.Errorf("%s: distributed on %q", skew, got)
		}
		for _, q := range workload.DDL(tb, sv) {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		gen, after := key.FillGenerator(sv, tb.History.Clock(), rows)
		if err := workload.Prefill(ctx, c, tb, gen, after, rows, nil); err != nil {
			t.Fatal(err)
		}
		var cols string
		if err := c.QueryRow(ctx, `SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM pg_index x CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY k(n, i)
			JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n WHERE x.indexrelid = $1::regclass`, workload.KeyIndexNames(tb)[0]).Scan(&cols); err != nil {
			t.Fatal(err)
		}
		if cols != "tenant_id,id" {
			t.Errorf("%s: the key index is on (%s), not the tenant's key", skew, cols)
		}
		var lo, hi, distinct, top int64
		if err := c.QueryRow(ctx, `SELECT min(tenant_id), max(tenant_id), count(DISTINCT tenant_id), (SELECT count(*) FROM `+tb.Qualified()+` WHERE tenant_id = 1) FROM `+tb.Qualified()).Scan(&lo, &hi, &distinct, &top); err != nil {
			t.Fatal(err)
		}
		want := 1.0 / tenants
		if skew == workload.TenantsZipf {
			want = math.Log(2) / math.Log(tenants+1)
		}
		share := float64(top) / rows
		se := math.Sqrt(want * (1 - want) / rows)
		if lo < 1 || hi > tenants || distinct < tenants*9/10 || math.Abs(share-want) > 5*se {
			t.Errorf("%s: tenants %d..%d (%d distinct), tenant 1 holds %.4f of the rows, want %.4f ± %.4f", skew, lo, hi, distinct, share, want, 5*se)
		}
	}
}
