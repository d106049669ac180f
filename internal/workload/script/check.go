package script

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workspace"
)

// A script runs on the user's server (--dsn) with keybench's rights, so
// nothing of it reaches a server before it is checked, and then only one
// statement at a time, never as a string of the simple protocol:
//
//   - Locally, before any connection (parse, from Configure): each
//     command must be exactly one statement by PostgreSQL's own parser, a
//     query (SELECT, VALUES, TABLE, INSERT, UPDATE, DELETE, MERGE, each with
//     WITH) or BEGIN/COMMIT/ROLLBACK (sqltree.ScriptStatement).
//   - On the server, before a client prepares it (checkStatements, on the
//     cell's table): the server parses and analyses each statement, planning
//     nothing and running nothing of it, and shows what it resolved it to
//     (sqltree.Resolver); every function, operator, cast, type and relation
//     of that tree is judged by its OID (sqltree.Judge, rule Script): only
//     PostgreSQL's own, touching nothing beyond the session, on keybench's
//     own tables and sequences.
//
// A statement refused is named with its line: a usage error, before any of
// the script has run.

// allowed says what a script may do, with each refusal.
const allowed = "a script may read and write keybench's tables only, calling PostgreSQL's own immutable and stable functions, random(), gen_random_uuid(), clock_timestamp() and the sequence functions on keybench's own sequences: SELECT, INSERT, UPDATE, DELETE, MERGE, WITH, and BEGIN/COMMIT"

// checkStatements has the server resolve each statement of sc (conn's
// session settings; keybench's own schema being schema; :key's type
// keyOID, declared where the server would not read the statement without)
// and judges what it would call.
func checkStatements(ctx context.Context, conn *pgx.Conn, sc *script, schema string, keyOID uint32) error {
	var res *sqltree.Resolver
	defer func() {
		if res != nil {
			_ = res.Close(context.Background())
		}
	}()
	for _, st := range sc.steps {
		if st.stmt == nil || st.stmt.control {
			continue
		}
		if res == nil {
			var err error
			if res, err = sqltree.NewResolver(ctx, conn.Config()); err != nil {
				return fmt.Errorf("checking the script: %w", err)
			}
		}
		// The types it names in other schemas, judged before the server
		// parses it (and reads a literal of one with the type's input).
		why, err := sqltree.JudgeNamedTypes(ctx, conn, sqltree.ScriptTypes(st.stmt.sql), sqltree.Script, workspace.ScopeOf(schema))
		if err != nil {
			return fmt.Errorf("checking script line %d: %w", st.stmt.line, err)
		}
		if why != "" {
			return usage.Errorf("script line %d is refused: %s (%s)", st.stmt.line, why, allowed)
		}
		tree, why, err := res.Resolve(ctx, st.stmt.sql)
		if err == nil && why != "" && keyOID != 0 && slices.Contains(st.stmt.params, varKey) {
			// Read again with :key declared of the key's type (MERGE …
			// USING (SELECT :key AS k) would take it for text).
			if t2, why2, err2 := res.Resolve(ctx, st.stmt.sql, st.stmt.paramOIDs(keyOID)...); err2 == nil && why2 == "" {
				tree, why = t2, ""
			}
		}
		if err != nil {
			return fmt.Errorf("checking script line %d: %w", st.stmt.line, err)
		}
		if why == "" {
			if why, err = sqltree.Judge(ctx, conn, tree, sqltree.Script, workspace.ScopeOf(schema)); err != nil {
				return fmt.Errorf("checking script line %d: %w", st.stmt.line, err)
			}
		}
		if why != "" {
			return usage.Errorf("script line %d is refused: %s (%s)", st.stmt.line, why, allowed)
		}
	}
	return nil
}

// paramOIDs are the statement's parameters' types as declared to the
// server: :key's keyOID, the others left to the server.
func (st *statement) paramOIDs(keyOID uint32) []uint32 {
	oids := make([]uint32, len(st.params))
	for i, p := range st.params {
		if p == varKey {
			oids[i] = keyOID
		}
	}
	return oids
}
