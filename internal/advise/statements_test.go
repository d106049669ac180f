package advise

import (
	"reflect"
	"strings"
	"testing"
)

// TestStatementDoes: what a statement's text, as pg_stat_statements keeps
// it, does to one table — a CTE's inserts count for both its tables; a
// read is a point, a range or other by the key column; a table of a
// longer name, of another schema, or a column of the same name elsewhere
// is not the table.
func TestStatementDoes(t *testing.T) {
	for _, tc := range []struct {
		query, schema, name, key string
		want                     []string
	}{
		{`WITH c AS (INSERT INTO customers (id, email) VALUES ($1, $2) RETURNING id) INSERT INTO orders (customer_id) SELECT id FROM c`, "public", "customers", "id", []string{"insert"}},
		{`WITH c AS (INSERT INTO customers (id, email) VALUES ($1, $2) RETURNING id) INSERT INTO orders (customer_id) SELECT id FROM c`, "public", "orders", "id", []string{"insert"}},
		{`SELECT n FROM lookups WHERE id = $1::uuid`, "public", "lookups", "id", []string{"lookup"}},
		{`SELECT * FROM public.lookups WHERE id IN ($1, $2, $3)`, "public", "lookups", "id", []string{"lookup"}},
		{`SELECT * FROM "App"."Events" e WHERE e."Id" > $1 ORDER BY e."Id" LIMIT $2`, "App", "Events", "Id", []string{"range"}},
		{`SELECT * FROM events WHERE created_at >= $1 ORDER BY id`, "public", "events", "id", []string{"range"}},
		{`SELECT count(*) FROM customers WHERE email = $1`, "public", "customers", "id", []string{"other"}},
		{`SELECT n FROM lookups WHERE id = overlay(md5($1::text) placing $2 from $3)::uuid`, "public", "lookups", "id", []string{"lookup"}},
		{`SELECT * FROM orders WHERE customer_id = $1`, "public", "orders", "id", []string{"other"}},
		{`UPDATE customers SET email = $1 WHERE id = $2`, "public", "customers", "id", []string{"update"}},
		{`DELETE FROM sessions WHERE id = $1`, "public", "sessions", "id", []string{"delete"}},
		{`INSERT INTO t (k) VALUES ($1) ON CONFLICT (k) DO UPDATE SET n = t.n + $2`, "public", "t", "k", []string{"insert"}},
		{`INSERT INTO customers_archive SELECT * FROM customers_old`, "public", "customers", "id", nil},
		{`INSERT INTO other.customers (id) VALUES ($1)`, "public", "customers", "id", nil},
		{`SELECT o.* FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = $1`, "public", "customers", "id", []string{"lookup"}},
	} {
		if got, _, _ := StatementDoes(tc.query, tc.schema, tc.name, tc.key); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s on %s.%s: %v, want %v", tc.query, tc.schema, tc.name, got, tc.want)
		}
	}
}

// TestReplayedMixFromStatements: the mix a lab replays, from recorded
// pg_stat_statements rows of a 10 s window: each statement's calls per
// second by what it does to the table, a multi-row INSERT by its rows, a
// CTE's insert by its calls, reads by another column apart (not replayed).
func TestReplayedMixFromStatements(t *testing.T) {
	recorded := []StatementCalls{
		{Query: `WITH c AS (INSERT INTO customers (id, email) VALUES ($1, $2) RETURNING id) INSERT INTO orders (customer_id) SELECT id FROM c`, Calls: 2000, Rows: 2000},
		{Query: `INSERT INTO orders (customer_id) VALUES ($1), ($2), ($3)`, Calls: 100, Rows: 300},
		{Query: `SELECT * FROM customers WHERE id = $1`, Calls: 9000, Rows: 9000},
		{Query: `SELECT * FROM customers WHERE email = $1`, Calls: 500, Rows: 500},
		{Query: `UPDATE customers SET email = $1 WHERE id = $2`, Calls: 300, Rows: 300},
		{Query: `DELETE FROM orders WHERE id = $1`, Calls: 50, Rows: 50},
		{Query: `SELECT now()`, Calls: 100000, Rows: 100000},
	}
	c := MixOfStatements(recorded, "public", "customers", "id", 10)
	if want := map[string]float64{"insert": 200, "lookup": 900, "update": 30}; !reflect.DeepEqual(c.PerS, want) || c.OtherPerS != 50 || len(c.Statements) != 4 {
		t.Errorf("customers' mix: %v, other %v, %d statements; want %v, other 50, 4 statements", c.PerS, c.OtherPerS, len(c.Statements), want)
	}
	if got, want := c.Text(), "18% inserts, 80% reads by key, 2.7% updates by key (pg_stat_statements; not replayed: 4.2% of the table's statements, reads by another column or of the whole table)"; got != want {
		t.Errorf("customers' mix reads %q, want %q", got, want)
	}
	o := MixOfStatements(recorded, "public", "orders", "id", 10)
	if want := map[string]float64{"insert": 230, "delete": 5}; !reflect.DeepEqual(o.PerS, want) || o.InsertsOnly() {
		t.Errorf("orders' mix: %v, want %v", o.PerS, want)
	}
	if n := MixOfStatements(recorded, "public", "nobody", "id", 10); n.Total() != 0 || !n.InsertsOnly() || len(n.Statements) != 0 {
		t.Errorf("a table no statement names: %+v", n)
	}
	if s := c.Statements[0]; !strings.HasPrefix(s.Query, "SELECT * FROM customers WHERE id") || s.CallsPerS != 900 {
		t.Errorf("the statements are listed most called first: %+v", c.Statements)
	}
}

// TestStatementsReadByTheParser (issue 63): recorded pg_stat_statements
// texts with comments, a DO block, a subquery on another table's key, a
// CTE writing two tables and one the parser cannot read, each counted as
// its tree says — a comment is no statement, a DO block's body is not
// read (its statements are entries of their own with track = all), a
// condition on a subquery is not a read by the outer table's key.
func TestStatementsReadByTheParser(t *testing.T) {
	for _, tc := range []struct {
		query, name string
		want        []string
		top, parsed bool
	}{
		{"/* app=web */ INSERT INTO accounts (id) VALUES ($1) -- INSERT INTO accounts again", "accounts", []string{"insert"}, true, true},
		{"-- UPDATE accounts SET x = 1\nSELECT now()", "accounts", nil, false, true},
		{"DO $$ BEGIN INSERT INTO accounts (id) VALUES (1); UPDATE accounts SET n = 1; END $$", "accounts", nil, false, true},
		{"SELECT * FROM customers c WHERE c.name = (SELECT o.name FROM orders o WHERE o.id = $2)", "customers", []string{"other"}, false, true},
		{"SELECT * FROM customers c WHERE c.name = (SELECT o.name FROM orders o WHERE o.id = $2)", "orders", []string{"lookup"}, false, true},
		{"WITH a AS (INSERT INTO customers (id) VALUES ($1) RETURNING id), b AS (INSERT INTO audit (id) SELECT id FROM a RETURNING id) SELECT count(*) FROM b", "customers", []string{"insert"}, false, true},
		{"WITH a AS (INSERT INTO customers (id) VALUES ($1) RETURNING id), b AS (INSERT INTO audit (id) SELECT id FROM a RETURNING id) SELECT count(*) FROM b", "audit", []string{"insert"}, false, true},
		{"SELECT * FROM customers WHERE", "customers", nil, false, false},
	} {
		does, top, parsed := StatementDoes(tc.query, "public", tc.name, "id")
		if !reflect.DeepEqual(does, tc.want) || top != tc.top || parsed != tc.parsed {
			t.Errorf("%q on %s: %v, top-level insert %v, parsed %v; want %v, %v, %v", tc.query, tc.name, does, top, parsed, tc.want, tc.top, tc.parsed)
		}
	}
	m := MixOfStatements([]StatementCalls{
		{Query: "/* web */ INSERT INTO accounts (id) VALUES ($1)", Calls: 72, Rows: 72},
		{Query: "DO $$ BEGIN INSERT INTO accounts (id) VALUES (1); END $$", Calls: 40},
		{Query: "-- accounts\nSELECT 1", Calls: 1000},
		{Query: "SELECT * FROM accounts WHERE", Calls: 5},
	}, "public", "accounts", "id", 10)
	if want := map[string]float64{"insert": 7.2}; !reflect.DeepEqual(m.PerS, want) || m.UnparsedPerS != 0.5 {
		t.Errorf("accounts' mix %v (unparsed %v), want %v (unparsed 0.5)", m.PerS, m.UnparsedPerS, want)
	}
	if !strings.Contains(m.Text(), "the parser could not read") {
		t.Errorf("the mix does not say what was not parsed: %s", m.Text())
	}
}
