package sqltree

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// JudgeRelation says why a relation of keybench's (name, in at.Schema),
// with its partitions and indexes, would run code that is not
// PostgreSQL's own when keybench writes or reads it ("" when none would):
// a trigger, rule or row-level security policy someone added, a default,
// CHECK, index or partition key expression, a table or index access
// method that is not PostgreSQL's own whose resolved tree calls
// anything else (defaults under rule Script: keybench's own key makers and
// sequences; the rest Immutable), an operator class that is not
// PostgreSQL's own, a column type that runs code of the user's. keybench
// makes its tables with its SQL bound to PostgreSQL's (Pin, names
// qualified); this reads what the server made of it, so that a default
// resolved to a user's function is refused whatever the path that led there.
func JudgeRelation(ctx context.Context, q Querier, at Scope, name string) (string, error) {
	rows, err := q.Query(ctx, `WITH RECURSIVE rel AS (
			SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2
			UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN rel ON rel.oid = i.inhparent),
		ix AS (SELECT i.* FROM pg_catalog.pg_index i WHERE i.indrelid IN (SELECT oid FROM rel))
		SELECT 'hook', pg_catalog.format('trigger %s', t.tgname) FROM pg_catalog.pg_trigger t WHERE t.tgrelid IN (SELECT oid FROM rel) AND NOT t.tgisinternal
		UNION ALL SELECT 'hook', pg_catalog.format('rule %s', r.rulename) FROM pg_catalog.pg_rewrite r WHERE r.ev_class IN (SELECT oid FROM rel)
		UNION ALL SELECT 'hook', pg_catalog.format('policy %s', p.polname) FROM pg_catalog.pg_policy p WHERE p.polrelid IN (SELECT oid FROM rel)
		UNION ALL SELECT 'hook', pg_catalog.format('statistics object %s (ANALYZE would compute it)', s.stxname) FROM pg_catalog.pg_statistic_ext s WHERE s.stxrelid IN (SELECT oid FROM rel)
		UNION ALL SELECT 'hook', 'row-level security' FROM pg_catalog.pg_class c WHERE c.oid IN (SELECT oid FROM rel) AND c.relrowsecurity
		UNION ALL SELECT 'hook', pg_catalog.format('operator class %s', o.opcname) FROM ix CROSS JOIN LATERAL pg_catalog.unnest(ix.indclass::pg_catalog.oid[]) k(oid)
			JOIN pg_catalog.pg_opclass o ON o.oid = k.oid WHERE o.oid >= $3 AND `+extOf("pg_opclass", "o.oid")+` <> ALL ($4)
		UNION ALL SELECT 'hook', pg_catalog.format('storage access method %s', a.amname) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_am a ON a.oid = c.relam
			WHERE (c.oid IN (SELECT oid FROM rel) OR c.oid IN (SELECT indexrelid FROM ix)) AND a.oid >= $3
		UNION ALL SELECT 'default', d.adbin::text FROM pg_catalog.pg_attrdef d WHERE d.adrelid IN (SELECT oid FROM rel)
		UNION ALL SELECT 'expr', c.conbin::text FROM pg_catalog.pg_constraint c WHERE c.conrelid IN (SELECT oid FROM rel) AND c.conbin IS NOT NULL
		UNION ALL SELECT 'expr', ix.indexprs::text FROM ix WHERE ix.indexprs IS NOT NULL
		UNION ALL SELECT 'expr', ix.indpred::text FROM ix WHERE ix.indpred IS NOT NULL
		UNION ALL SELECT 'expr', p.partexprs::text FROM pg_catalog.pg_partitioned_table p WHERE p.partrelid IN (SELECT oid FROM rel) AND p.partexprs IS NOT NULL
		UNION ALL SELECT 'type', a.atttypid::text FROM pg_catalog.pg_attribute a WHERE a.attrelid IN (SELECT oid FROM rel) AND a.attnum > 0 AND NOT a.attisdropped`,
		at.Schema, name, builtin, AllowedExtensions)
	if err != nil {
		return "", fmt.Errorf("reading %s.%s from the catalog: %w", at.Schema, name, err)
	}
	type part struct{ kind, text string }
	parts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (p part, err error) {
		return p, row.Scan(&p.kind, &p.text)
	})
	if err != nil {
		return "", fmt.Errorf("reading %s.%s from the catalog: %w", at.Schema, name, err)
	}
	defaults, exprs := newResolved(), newResolved()
	for _, p := range parts {
		var into *Resolved
		switch p.kind {
		case "hook":
			return fmt.Sprintf("it holds a %s that keybench did not make", EscapeControls(p.text)), nil
		case "type":
			var oid uint32
			if _, err := fmt.Sscan(p.text, &oid); err == nil {
				exprs.Types[oid] = true
			}
			continue
		case "default":
			into = defaults
		default:
			into = exprs
		}
		tree, err := ReadTree(p.text)
		if err != nil {
			return "its resolved expressions could not be read: " + err.Error(), nil
		}
		into.Add(tree)
	}
	why, err := Judge(ctx, q, defaults, Script, at)
	if why != "" || err != nil {
		return prefixed("a default", why), err
	}
	// A CHECK, an index's expression or predicate and a partition key read
	// the row alone: immutable, on types of PostgreSQL's own and keybench's.
	if why, err := judgeFuncs(ctx, q, maps(exprs.Funcs), Immutable, at); why != "" || err != nil {
		return prefixed("an expression", why), err
	}
	exprs.Funcs = map[uint32]bool{}
	why, err = Judge(ctx, q, exprs, Script, at)
	return prefixed("an expression or column", why), err
}

func prefixed(what, why string) string {
	if why == "" {
		return ""
	}
	return what + ": " + strings.TrimPrefix(why, "it ")
}
