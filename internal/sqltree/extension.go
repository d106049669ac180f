package sqltree

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// An extension keybench reads through (pg_buffercache, pgstattuple,
// pg_walinspect, pg_stat_statements) is found by name in pg_extension, and
// what keybench then calls is whatever its schema holds under the names it
// uses: a member someone replaced in place (CREATE OR REPLACE VIEW
// public.pg_buffercache … WHERE their_function()), dropped from the
// extension and made again in a procedural language, or an object of the
// same name beside the members would run their code at every read. The
// extension is used only when every member function is C (or internal),
// every member view's rule uses nothing but PostgreSQL's own objects and the
// extension's members, and every function and relation of its schema named
// as keybench calls it is a member; otherwise its figures are unavailable
// with the reason.

// ExtensionUses are the functions and views of each extension keybench
// (run's collectors, advise, a workload) calls, by name: what Extension
// judges before any is called.
var ExtensionUses = map[string][]string{
	"pg_buffercache":     {"pg_buffercache", "pg_buffercache_pages", "pg_buffercache_usage_counts"},
	"pgstattuple":        {"pgstatindex"},
	"pg_walinspect":      {"pg_get_wal_block_info", "pg_get_wal_records_info"},
	"pg_stat_statements": {"pg_stat_statements"},
}

// extensionSQL lists what is wrong with extension $1 for calling the
// names $2 in its schema (no rows: nothing).
const extensionSQL = `
WITH e AS (SELECT oid, extnamespace FROM pg_catalog.pg_extension WHERE extname = $1),
m AS (SELECT d.classid, d.objid FROM pg_catalog.pg_depend d JOIN e ON d.refobjid = e.oid
      WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'),
mp AS (SELECT objid FROM m WHERE classid = 'pg_catalog.pg_proc'::pg_catalog.regclass),
mc AS (SELECT objid FROM m WHERE classid = 'pg_catalog.pg_class'::pg_catalog.regclass)
SELECT pg_catalog.format('its function %s is in %s', p.oid::pg_catalog.regprocedure, l.lanname)
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
  WHERE (p.oid IN (SELECT objid FROM mp) OR p.pronamespace = (SELECT extnamespace FROM e) AND p.proname = ANY($2))
    AND l.lanname NOT IN ('c', 'internal')
UNION ALL
SELECT pg_catalog.format('%s is not its own', p.oid::pg_catalog.regprocedure)
  FROM pg_catalog.pg_proc p WHERE p.pronamespace = (SELECT extnamespace FROM e) AND p.proname = ANY($2) AND p.oid NOT IN (SELECT objid FROM mp)
UNION ALL
SELECT pg_catalog.format('%s is not its own', c.oid::pg_catalog.regclass)
  FROM pg_catalog.pg_class c WHERE c.relnamespace = (SELECT extnamespace FROM e) AND c.relname = ANY($2) AND c.oid NOT IN (SELECT objid FROM mc)
UNION ALL
SELECT pg_catalog.format('its view %s uses %s', r.ev_class::pg_catalog.regclass, pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0))
  FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid
  WHERE r.ev_class IN (SELECT objid FROM mc) AND d.refobjid >= 16384 AND d.refobjid <> r.ev_class
    AND NOT EXISTS (SELECT 1 FROM m WHERE m.classid = d.refclassid AND m.objid = d.refobjid)
UNION ALL
SELECT pg_catalog.format('its view %s calls %s, which runs SQL of its argument''s', r.ev_class::pg_catalog.regclass, d.refobjid::pg_catalog.regprocedure)
  FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid
  WHERE r.ev_class IN (SELECT objid FROM mc) AND d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
    AND (SELECT p.proname FROM pg_catalog.pg_proc p WHERE p.oid = d.refobjid) OPERATOR(pg_catalog.~~) ANY ($3)
LIMIT 3`

// Extension finds extension name and judges it for calling uses (the
// functions and views keybench reads through, unqualified) in its schema:
// schema is where it is ("" when it is not installed); why, when not
// empty, says why keybench must not call it.
func Extension(ctx context.Context, q interface {
	Querier
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, name string, uses ...string) (schema, why string, err error) {
	err = q.QueryRow(ctx, `SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1`, name).Scan(&schema)
	if err == pgx.ErrNoRows {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("finding extension %s: %w", name, err)
	}
	rows, err := q.Query(ctx, extensionSQL, name, uses, runsSQLPatterns())
	if err != nil {
		return "", "", fmt.Errorf("reading extension %s's members: %w", name, err)
	}
	wrong, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", "", fmt.Errorf("reading extension %s's members: %w", name, err)
	}
	trees, members, err := storedTrees(ctx, q, name)
	if err != nil {
		return "", "", fmt.Errorf("reading extension %s's views: %w", name, err)
	}
	for _, t := range trees {
		bad, err := treeCalls(ctx, q, t[1], members)
		if err != nil {
			return "", "", err
		}
		for _, b := range bad {
			wrong = append(wrong, t[0]+": "+b)
		}
	}
	if len(wrong) > 0 {
		why = fmt.Sprintf("extension %s is not as it was installed (%s): keybench calls no code of yours", name, strings.Join(wrong, "; "))
	}
	return schema, why, nil
}

// treeCalls reads a stored tree (a view's rule, a function's BEGIN ATOMIC
// body: nodeToString's text, which names PostgreSQL's own pinned objects
// that pg_depend does not record) and says what it calls that keybench
// must not run: a function or operator that is not PostgreSQL's own nor
// in members, or one of PostgreSQL's own that runs SQL text (runsSQL).
func treeCalls(ctx context.Context, q Querier, tree string, members []uint32) ([]string, error) {
	r, err := ReadTree(tree)
	if err != nil {
		return []string{"a tree keybench does not read"}, nil
	}
	if len(r.Unknown) > 0 {
		return []string{"a tree holding " + strings.Join(r.Unknown, ", ")}, nil
	}
	rows, err := q.Query(ctx, `SELECT p.oid::pg_catalog.regprocedure::pg_catalog.text, p.proname::pg_catalog.text, p.oid < $3 OR coalesce(p.oid = ANY ($4), false)
		FROM pg_catalog.pg_proc p WHERE p.oid = ANY ($1) OR p.oid IN (SELECT o.oprcode FROM pg_catalog.pg_operator o WHERE o.oid = ANY ($2))`,
		maps(r.Funcs), maps(r.Ops), builtin, members)
	if err != nil {
		return nil, fmt.Errorf("reading what a stored tree calls: %w", err)
	}
	var bad []string
	var sig, name string
	var ok bool
	_, err = pgx.ForEachRow(rows, []any{&sig, &name, &ok}, func() error {
		switch {
		case !ok:
			bad = append(bad, "it calls "+sig)
		case readsTables(name):
			bad = append(bad, "it calls "+sig+", which runs SQL of its argument's")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading what a stored tree calls: %w", err)
	}
	return bad, nil
}

// storedTrees are the stored trees of extension ext's member views'
// rules, each with what it belongs to, and its members' OIDs.
func storedTrees(ctx context.Context, q Querier, ext string) (trees [][2]string, members []uint32, err error) {
	rows, err := q.Query(ctx, `SELECT d.objid FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
		WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e' AND e.extname = $1`, ext)
	if err != nil {
		return nil, nil, err
	}
	if members, err = pgx.CollectRows(rows, pgx.RowTo[uint32]); err != nil {
		return nil, nil, err
	}
	rows, err = q.Query(ctx, `SELECT pg_catalog.format('its view %s', r.ev_class::pg_catalog.regclass), r.ev_action::pg_catalog.text
		FROM pg_catalog.pg_rewrite r WHERE r.ev_class = ANY ($1)`, members)
	if err != nil {
		return nil, nil, err
	}
	trees, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (t [2]string, err error) { return t, row.Scan(&t[0], &t[1]) })
	return trees, members, err
}
