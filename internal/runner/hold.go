package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/workload"
)

// holdTables, for a cell running the user's own SQL, holds its tables
// through the round: a session of keybench's own takes ROW EXCLUSIVE on
// each, which the statements a script runs take too and which every
// statement that would add code to a table conflicts with (CREATE TRIGGER,
// CREATE RULE, CREATE POLICY, ALTER TABLE … SET DEFAULT): someone's session
// trying one waits until the round is over, and the next round's check
// (workspace.Judge, under the lock) finds it before any statement runs.
// A script runs no DDL, so nothing of the round waits for the lock; other
// workloads change their own tables in their windows and are not held.
// release ends the hold; it is a no-op for other cells.
func (cr *cellRun) holdTables(ctx context.Context) (release func(), err error) {
	if m, _ := workload.Lookup(cr.pc.Task.Workload); !m.UserSQL {
		return func() {}, nil
	}
	r := cr.r
	cc := r.conn.Copy()
	cc.RuntimeParams["application_name"] = "keybench hold " + r.runID
	// The hold is an open transaction between statements: the server's
	// idle timeout must not end it.
	cc.RuntimeParams["idle_in_transaction_session_timeout"] = "0"
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("holding keybench's tables: %w", err)
	}
	names := make([]string, len(cr.tables))
	for i, t := range cr.tables {
		names[i] = t.Qualified()
	}
	release = func() { _ = conn.Close(context.Background()) } // closing ends the transaction and its lock
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		release()
		return nil, fmt.Errorf("holding keybench's tables: %w", err)
	}
	if _, err := conn.Exec(ctx, "LOCK TABLE "+strings.Join(names, ", ")+" IN ROW EXCLUSIVE MODE"); err != nil {
		release()
		return nil, fmt.Errorf("holding keybench's tables: %w", err)
	}
	return release, nil
}
