package sqltree

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Rule is what a tree may call on a server keybench does not own.
type Rule int

const (
	// Immutable: a copied CHECK constraint or index predicate, run on every
	// row keybench writes: PostgreSQL's own immutable functions (a name with
	// an immutable overload and no volatile one), its own operators and
	// casts to its own types only.
	Immutable Rule = iota
	// Script: a user's script, run by every client: PostgreSQL's own
	// immutable and stable functions (less those that run SQL of their own
	// or read whole tables: the *_to_xml family), the volatile ones that
	// touch only the session (random, gen_random_uuid, clock_timestamp, …)
	// and the sequence functions on keybench's own sequences; operators of
	// PostgreSQL or written in C by an extension (hstore's, citext's), not
	// in SQL or a procedural language.
	Script
)

// builtin is the first OID initdb does not give (FirstNormalObjectId): an
// object with a smaller one is PostgreSQL's own, one made by CREATE
// FUNCTION, CREATE EXTENSION or CREATE TYPE has a larger one.
const builtin = 16384

// sessionOnly are the built-in volatile functions a script may call: they
// change nothing beyond the session's own state.
var sessionOnly = map[string]bool{
	"random": true, "random_normal": true, "setseed": true, "gen_random_uuid": true, "uuidv4": true, "uuidv7": true,
	"clock_timestamp": true, "timeofday": true,
}

// sequenceFuncs are allowed on keybench's own sequences alone.
var sequenceFuncs = map[string]bool{"nextval": true, "setval": true, "currval": true}

// readsTables are built-in stable functions that read relations named by
// a value (table_to_xml('public.t', …)) or run SQL of their own.
func readsTables(name string) bool {
	for _, p := range []string{"query_to_xml", "cursor_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Querier is what Vet reads the catalog through (a *pgx.Conn).
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Vet checks what refs name against the server's catalog under rule;
// schema is keybench's own. It returns why the first refused name is
// refused ("" when none is), or an error reading the catalog. Names are
// resolved as the session resolves them: unqualified through its search
// path (current_schemas), so a user function of the same name visible
// there refuses the call even where PostgreSQL's would win.
func Vet(ctx context.Context, q Querier, refs Refs, rule Rule, schema string) (string, error) {
	seen := map[string]bool{}
	for _, c := range refs.Calls {
		why, err := vetCall(ctx, q, c, rule, schema, seen)
		if why != "" || err != nil {
			return why, err
		}
	}
	for _, o := range refs.Ops {
		if seen["op "+o.String()] {
			continue
		}
		seen["op "+o.String()] = true
		why, err := vetOp(ctx, q, o, rule)
		if why != "" || err != nil {
			return why, err
		}
	}
	for _, t := range refs.Types {
		if seen["type "+t.String()] {
			continue
		}
		seen["type "+t.String()] = true
		why, err := vetType(ctx, q, t)
		if why != "" || err != nil {
			return why, err
		}
	}
	return "", nil
}

// candidate is one catalog object a name may resolve to.
type candidate struct {
	builtin    bool
	schema     string
	volatility string // i, s, v
	language   string
	signature  string
}

const inPath = `CASE WHEN $2 = '' THEN n.nspname = ANY (current_schemas(true)) ELSE n.nspname = $2 END`

func candidates(ctx context.Context, q Querier, sql string, n Name) ([]candidate, error) {
	rows, err := q.Query(ctx, sql, n.Name, n.Schema)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (candidate, error) {
		var c candidate
		err := r.Scan(&c.builtin, &c.schema, &c.volatility, &c.language, &c.signature)
		return c, err
	})
}

func vetCall(ctx context.Context, q Querier, c Call, rule Rule, schema string, seen map[string]bool) (string, error) {
	if sequenceFuncs[c.Name.Name] && (c.Schema == "" || c.Schema == "pg_catalog") && rule == Script {
		return vetSequence(ctx, q, c, schema)
	}
	if seen["call "+c.String()] {
		return "", nil
	}
	seen["call "+c.String()] = true
	cs, err := candidates(ctx, q, `SELECT p.oid < `+fmt.Sprint(builtin)+`, n.nspname::text, p.provolatile::text, l.lanname::text,
			format('%s.%s(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
		WHERE p.proname = $1 AND `+inPath+` ORDER BY 1, 5`, c.Name)
	if err != nil {
		return "", fmt.Errorf("reading the catalog for %s: %w", c, err)
	}
	if len(cs) == 0 {
		return fmt.Sprintf("it calls %s(), which this server does not have", c), nil
	}
	immutable := false
	for _, k := range cs {
		immutable = immutable || k.volatility == "i"
	}
	for _, k := range cs {
		switch {
		case !k.builtin:
			return fmt.Sprintf("it calls %s, a function that is not PostgreSQL's own", k.signature), nil
		case rule == Immutable && (k.volatility == "v" || !immutable):
			// Overloads are told apart by their arguments' types, which the
			// tree does not carry: an immutable one may be the one called
			// (length(text) beside length(bytea, name)), a volatile one never.
			return fmt.Sprintf("it calls %s, which is not immutable", k.signature), nil
		case rule == Script && readsTables(c.Name.Name):
			return fmt.Sprintf("it calls %s, which reads relations named by its arguments", k.signature), nil
		case rule == Script && k.volatility == "v" && !sessionOnly[c.Name.Name]:
			return fmt.Sprintf("it calls %s, a volatile function that acts beyond the session", k.signature), nil
		}
	}
	return "", nil
}

// vetSequence allows nextval, setval and currval on a sequence of
// keybench's schema, named by a constant.
func vetSequence(ctx context.Context, q Querier, c Call, schema string) (string, error) {
	seq, ok := StringArg(c, 0)
	if !ok {
		return fmt.Sprintf("it calls %s() on a sequence named by a value keybench cannot check before the run", c), nil
	}
	rows, err := q.Query(ctx, `SELECT n.nspname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`, seq)
	if err != nil {
		return "", fmt.Errorf("reading the catalog for %s: %w", seq, err)
	}
	at, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("reading the catalog for %s: %w", seq, err)
	}
	if len(at) == 0 || at[0] != schema {
		return fmt.Sprintf("it calls %s() on %s, a sequence outside keybench's schema %s", c, quoteSQL(seq), schema), nil
	}
	return "", nil
}

func vetOp(ctx context.Context, q Querier, o Name, rule Rule) (string, error) {
	cs, err := candidates(ctx, q, `SELECT o.oid < `+fmt.Sprint(builtin)+` AND p.oid < `+fmt.Sprint(builtin)+`, n.nspname::text, p.provolatile::text, l.lanname::text,
			format('operator %s.%s (%s)', n.nspname, o.oprname, p.oid::regprocedure)
		FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace JOIN pg_proc p ON p.oid = o.oprcode JOIN pg_language l ON l.oid = p.prolang
		WHERE o.oprname = $1 AND `+inPath+` ORDER BY 1, 5`, o)
	if err != nil {
		return "", fmt.Errorf("reading the catalog for operator %s: %w", o, err)
	}
	if len(cs) == 0 {
		return fmt.Sprintf("it applies operator %s, which this server does not have", o), nil
	}
	for _, k := range cs {
		switch {
		case k.builtin:
			// PostgreSQL's own: an operator's function touches nothing of the
			// user's (the stable ones compare dates with time zones).
		case rule == Script && (k.language == "c" || k.language == "internal") && k.volatility != "v":
			// An extension's operator written in C, as it declares itself.
		default:
			return fmt.Sprintf("it applies %s, which is not PostgreSQL's own", k.signature), nil
		}
	}
	return "", nil
}

func vetType(ctx context.Context, q Querier, t Name) (string, error) {
	if t.Schema == "pg_catalog" {
		// The grammar's own names (int, varchar, double precision) come
		// qualified so: PostgreSQL's types, whatever else is on the path.
		rows, err := q.Query(ctx, `SELECT t.oid < `+fmt.Sprint(builtin)+` FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typname = $1 AND n.nspname = 'pg_catalog'`, t.Name)
		if err != nil {
			return "", fmt.Errorf("reading the catalog for type %s: %w", t, err)
		}
		own, err := pgx.CollectRows(rows, pgx.RowTo[bool])
		if err != nil {
			return "", fmt.Errorf("reading the catalog for type %s: %w", t, err)
		}
		if len(own) == 1 && own[0] {
			return "", nil
		}
	}
	cs, err := candidates(ctx, q, `SELECT t.oid < `+fmt.Sprint(builtin)+`, n.nspname::text, '', '', format('type %s.%s', n.nspname, t.typname)
		FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typname = $1 AND `+inPath+` ORDER BY 1, 5`, t)
	if err != nil {
		return "", fmt.Errorf("reading the catalog for type %s: %w", t, err)
	}
	for _, k := range cs {
		if !k.builtin {
			return fmt.Sprintf("it casts to %s, which is not PostgreSQL's own (its input, its casts or its domain's checks run code of yours)", k.signature), nil
		}
	}
	return "", nil
}

func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
