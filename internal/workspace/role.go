package workspace

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// A user's script is vetted before it runs (package script), and then runs
// behind a second wall: a role of its own, made for the run, that may use
// keybench's schema and what the ledger records in it and nothing else of
// the database beyond what PUBLIC may. Whatever the vetting missed then
// runs without the rights of the role --dsn names: it cannot read or
// write your tables, nor create anything. The role logs in nowhere
// (NOLOGIN): the script's clients connect as --dsn's role and SET ROLE to
// it. It is recorded in the ledger as it is made and dropped at clean-up
// after keybench's tables (its rights on them go with them), its right to
// use the schema revoked first.

// scriptRolePrefix begins the name of a run's script role; the run's id ends it.
const scriptRolePrefix = "keybench_script_"

// ScriptRole makes and records the role a script's clients run as, with
// the right to use keybench's schema, and returns its name. Where the
// connected role may not create roles (neither superuser nor CREATEROLE),
// it makes none and says why: the script then runs as the connected role.
func (w *Workspace) ScriptRole(ctx context.Context, conn *pgx.Conn) (name, why string, err error) {
	var user string
	var super, create bool
	if err := conn.QueryRow(ctx, `SELECT rolname, rolsuper, rolcreaterole FROM pg_catalog.pg_roles WHERE rolname = current_user`).Scan(&user, &super, &create); err != nil {
		return "", "", fmt.Errorf("reading the connected role's rights: %w", err)
	}
	if !super && !create {
		return "", fmt.Sprintf("the role %s may not create roles (CREATEROLE), so the script ran as it", user), nil
	}
	o := Object{Kind: Role, Name: scriptRolePrefix + w.o.RunID}
	if _, _, exists, err := w.holder(ctx, conn, o); err != nil {
		return "", "", err
	} else if exists {
		return "", "", fmt.Errorf("a role named %s exists already: another run's id; run again", o.Name)
	}
	role := pgx.Identifier{o.Name}.Sanitize()
	o.SQL = []string{"CREATE ROLE " + role + " NOLOGIN NOINHERIT", "GRANT USAGE ON SCHEMA " + w.o.Schema + " TO " + role}
	if !super {
		// A role with CREATEROLE may SET ROLE only to a role it is a member of.
		o.SQL = append(o.SQL, "GRANT "+role+" TO "+pgx.Identifier{user}.Sanitize())
	}
	if err := w.Create(ctx, conn, o); err != nil {
		return "", "", fmt.Errorf("making the script's role: %w", err)
	}
	return o.Name, "", nil
}

// scriptRightsSQL lists the relations a script's role may use: those the
// ledger records (never the ledger itself) and what goes with them (a
// partition, an identity or serial sequence), each with its kind.
const scriptRightsSQL = `
WITH RECURSIVE ns AS (SELECT oid FROM pg_namespace WHERE nspname = $1),
led AS (SELECT catalog, objid FROM %s WHERE NOT (catalog = 'pg_class'::regclass AND name = $2)),
seed AS (SELECT 'pg_class'::regclass::oid AS cat, c.oid FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind IN ('r', 'p', 'S')),` + goesWithSQL + `
SELECT c.relname::text, c.relkind = 'S' FROM pg_class c JOIN owned ON owned.root_cat = 'pg_class'::regclass AND owned.root_oid = c.oid
ORDER BY c.relname`

// GrantScript gives role (ScriptRole's) what a script needs of what the
// ledger records now: reading and writing keybench's tables, using its
// sequences, calling its functions. Run before a cell's clients connect,
// it covers the tables the cell made.
func (w *Workspace) GrantScript(ctx context.Context, conn *pgx.Conn, role string) error {
	rows, err := conn.Query(ctx, fmt.Sprintf(scriptRightsSQL, w.ledger()), w.o.Schema, LedgerTable)
	if err != nil {
		return fmt.Errorf("listing keybench's tables for the script's role: %w", err)
	}
	type rel struct {
		name string
		seq  bool
	}
	rels, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (r rel, err error) { return r, row.Scan(&r.name, &r.seq) })
	if err != nil {
		return fmt.Errorf("listing keybench's tables for the script's role: %w", err)
	}
	grantee := pgx.Identifier{role}.Sanitize()
	var stmts []string
	for _, r := range rels {
		on := pgx.Identifier{w.o.Schema, r.name}.Sanitize()
		if r.seq {
			stmts = append(stmts, "GRANT USAGE, SELECT, UPDATE ON SEQUENCE "+on+" TO "+grantee)
		} else {
			stmts = append(stmts, "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "+on+" TO "+grantee)
		}
	}
	recs, err := w.Records(ctx, conn)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Kind == Function && r.Exists {
			stmts = append(stmts, fmt.Sprintf("GRANT EXECUTE ON FUNCTION %s.%s(%s) TO %s", w.o.Schema, r.Name, r.Args, grantee))
		}
	}
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// grantedSQL lists the rights on objects of this database that someone
// granted the role (pg_shdepend's ACL entries): each as the statement that
// revokes it (a kind it cannot name stays, and DROP ROLE says so).
const grantedSQL = `
SELECT CASE d.classid
  WHEN 'pg_catalog.pg_class'::pg_catalog.regclass THEN pg_catalog.format('REVOKE ALL ON TABLE %s FROM %I', d.objid::pg_catalog.regclass, $1::pg_catalog.text)
  WHEN 'pg_catalog.pg_namespace'::pg_catalog.regclass THEN pg_catalog.format('REVOKE ALL ON SCHEMA %I FROM %I', (SELECT nspname FROM pg_catalog.pg_namespace WHERE oid = d.objid), $1::pg_catalog.text)
  WHEN 'pg_catalog.pg_proc'::pg_catalog.regclass THEN pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM %I', d.objid::pg_catalog.regprocedure, $1::pg_catalog.text)
  WHEN 'pg_catalog.pg_type'::pg_catalog.regclass THEN pg_catalog.format('REVOKE ALL ON TYPE %s FROM %I', d.objid::pg_catalog.regtype, $1::pg_catalog.text)
  WHEN 'pg_catalog.pg_database'::pg_catalog.regclass THEN pg_catalog.format('REVOKE ALL ON DATABASE %I FROM %I', (SELECT datname FROM pg_catalog.pg_database WHERE oid = d.objid), $1::pg_catalog.text)
  END
FROM pg_catalog.pg_shdepend d JOIN pg_catalog.pg_roles r ON r.oid = d.refobjid
WHERE r.rolname = $1 AND d.deptype = 'a' AND d.dbid IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()))
  AND d.classid IN ('pg_catalog.pg_class'::pg_catalog.regclass, 'pg_catalog.pg_namespace'::pg_catalog.regclass, 'pg_catalog.pg_proc'::pg_catalog.regclass,
    'pg_catalog.pg_type'::pg_catalog.regclass, 'pg_catalog.pg_database'::pg_catalog.regclass)`

// revokeGranted revokes what someone granted the script's role on
// objects of this database while it existed, so that it can be dropped:
// the role's own rights go, the objects are left as they are.
func revokeGranted(ctx context.Context, tx pgx.Tx, role string) error {
	rows, err := tx.Query(ctx, grantedSQL, role)
	if err != nil {
		return fmt.Errorf("reading what was granted to %s: %w", role, err)
	}
	stmts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("reading what was granted to %s: %w", role, err)
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
