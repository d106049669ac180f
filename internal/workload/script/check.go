package script

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/sqltree"
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
// nothing) must be in keybench's own schema. Before either, the functions,
// operators and types each statement names are read from its tree by
// PostgreSQL's own parser and checked against the catalog (vetCalls): what
// a function does inside is not in any plan, so a script calls only
// PostgreSQL's own functions that touch nothing of the user's. A statement
// refused is named with its line: a usage error, before any of the script
// has run (Vet, before the first cell).

// vetCalls reads the statement's tree (PostgreSQL's own parser) for the
// functions, operators and types it names and checks each against the
// server's catalog (sqltree.Script): before PREPARE and EXPLAIN, whose
// planning would fold a call of an immutable-declared function of the
// user's, running it.
func vetCalls(ctx context.Context, conn *pgx.Conn, st *statement, schema string) (string, error) {
	tree, err := sqltree.Parse(st.sql)
	if err != nil {
		return "PostgreSQL's parser does not read it: " + firstLine(err.Error()), nil
	}
	why, err := sqltree.Vet(ctx, conn, sqltree.RefsOf(tree), sqltree.Script, schema)
	if err != nil {
		return "", fmt.Errorf("script line %d: %w", st.line, err)
	}
	return why, nil
}

// Vet checks, before any cell, that every statement of the script calls
// only what a script may (sqltree.Script), schema being keybench's own:
// a usage error naming the statement's line otherwise.
func (l *scriptLoad) Vet(ctx context.Context, conn *pgx.Conn, schema string) error {
	sc, err := parse(strings.NewReader(l.text), placeholder)
	if err != nil {
		return err
	}
	for _, st := range sc.steps {
		if st.stmt == nil || control[strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(st.stmt.sql), ";")), " "))] {
			continue
		}
		why, err := vetCalls(ctx, conn, st.stmt, schema)
		if err != nil {
			return err
		}
		if why != "" {
			return usage.Errorf("script line %d is refused: %s (%s)", st.stmt.line, why, allowed)
		}
	}
	return nil
}

// allowed says what a script may do, with each refusal.
const allowed = "a script may read and write keybench's tables only, calling PostgreSQL's own immutable and stable functions, random(), gen_random_uuid(), clock_timestamp() and the sequence functions on keybench's own sequences: SELECT, INSERT, UPDATE, DELETE, MERGE, WITH, and BEGIN/COMMIT"

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
		return usage.Errorf("script line %d is refused: %s (%s)", st.line, why, allowed)
	}
	if why, err := vetCalls(ctx, conn, st, schema); why != "" || err != nil {
		if err != nil {
			return err
		}
		return refuse(why)
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
