package script

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/usage"
)

// A script runs on the user's server (--dsn) with keybench's rights, so
// before a cell runs it, every statement is checked by the server itself,
// parsed and planned, never pattern-matched: it must be one PostgreSQL can
// prepare with the SQL PREPARE command (SELECT, INSERT, UPDATE, DELETE,
// MERGE, VALUES, each with WITH: no DDL, no COPY, no SET ROLE, no DO, no
// GRANT, no VACUUM), or the transaction control a script may hold (BEGIN,
// COMMIT, END, ROLLBACK); and every relation its plan reads or writes
// (EXPLAIN (VERBOSE, FORMAT JSON) of the prepared statement, which runs
// nothing) must be in keybench's own schema. A statement refused is named
// with its line: a usage error, before any of the script has run. What a
// function the script calls does inside is not seen by the plan: a script
// is the user's own SQL, checked against slips (DROP TABLE public.precious
// left in from another test), not a sandbox for someone else's.

// transaction control a script may hold, as PREPARE refuses it.
var control = map[string]bool{"begin": true, "commit": true, "end": true, "rollback": true, "start transaction": true}

// checkStatements checks each statement of sc on conn, keybench's own
// schema being schema.
func checkStatements(ctx context.Context, conn *pgx.Conn, sc *script, schema string) error {
	for _, st := range sc.steps {
		if st.stmt == nil {
			continue
		}
		if control[strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(st.stmt.sql), ";")), " "))] {
			continue
		}
		if err := checkStatement(ctx, conn, st.stmt, schema); err != nil {
			return err
		}
	}
	return nil
}

// checkStatement prepares one statement with SQL's PREPARE and reads the
// relations of its plan.
func checkStatement(ctx context.Context, conn *pgx.Conn, st *statement, schema string) error {
	text := strings.TrimSuffix(strings.TrimSpace(st.sql), ";")
	refuse := func(why string) error {
		return usage.Errorf("script line %d is refused: %s (a script may read and write keybench's tables only: SELECT, INSERT, UPDATE, DELETE, MERGE, WITH, and BEGIN/COMMIT)", st.line, why)
	}
	if _, err := conn.Exec(ctx, "PREPARE kb_script_check AS "+text); err != nil {
		return refuse("PostgreSQL does not prepare it as a query: " + firstLine(err.Error()))
	}
	defer func() { _, _ = conn.Exec(ctx, "DEALLOCATE kb_script_check") }() // a failed one leaves a name the session ends with
	args := make([]string, len(st.params))
	for i := range args {
		args[i] = "NULL"
	}
	call := "EXECUTE kb_script_check"
	if len(args) > 0 {
		call += "(" + strings.Join(args, ", ") + ")"
	}
	var plan []byte
	if err := conn.QueryRow(ctx, "EXPLAIN (VERBOSE, FORMAT JSON) "+call).Scan(&plan); err != nil {
		return refuse("its plan could not be read: " + firstLine(err.Error()))
	}
	var tree any
	if err := json.Unmarshal(plan, &tree); err != nil {
		return refuse("its plan could not be read: " + err.Error())
	}
	for _, rel := range relations(tree) {
		if rel.schema != schema {
			return refuse(fmt.Sprintf("it reaches %s.%s, outside keybench's schema %s", rel.schema, rel.name, schema))
		}
	}
	return nil
}

type relation struct{ schema, name string }

// relations are every relation an EXPLAIN (VERBOSE, FORMAT JSON) plan
// names: its nodes' "Schema" with "Relation Name" (scans, and the target of
// an INSERT, UPDATE, DELETE or MERGE).
func relations(v any) []relation {
	var out []relation
	switch x := v.(type) {
	case map[string]any:
		if name, ok := x["Relation Name"].(string); ok {
			s, _ := x["Schema"].(string)
			out = append(out, relation{s, name})
		}
		for _, c := range x {
			out = append(out, relations(c)...)
		}
	case []any:
		for _, c := range x {
			out = append(out, relations(c)...)
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
