package sqltree

import (
	"context"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Rule is what a resolved tree may call on a server keybench does not own.
type Rule int

const (
	// Immutable: a copied CHECK constraint, index predicate or index
	// expression, run on every row keybench writes: PostgreSQL's own
	// immutable functions and operators, on its own types, reading no
	// relation.
	Immutable Rule = iota
	// Script: a user's script, run by every client: PostgreSQL's own
	// immutable and stable functions (less those that run SQL of their own
	// or read relations named by a value: the *_to_xml family), the
	// volatile ones that touch only the session (random, gen_random_uuid,
	// clock_timestamp, …) and the sequence functions on keybench's own
	// sequences; an extension's C functions where the extension is one of
	// AllowedExtensions; relations of keybench's schema alone.
	Script
	// ReadOnly: advise's own reads of a user's table: PostgreSQL's own
	// immutable and stable functions and operators on PostgreSQL's own types
	// alone, reading any relation — no volatile function, nothing of an
	// extension, nothing of keybench's, and no row-level security policy
	// (its expressions are in the rewritten tree, judged like the rest).
	ReadOnly
)

// builtin is the first OID initdb does not give (FirstNormalObjectId): an
// object with a smaller one is PostgreSQL's own, one made by CREATE
// FUNCTION, CREATE EXTENSION or CREATE TYPE has a larger one.
const builtin = 16384

// sessionOnly are the volatile functions a script may call: they change
// nothing beyond the session's own state.
var sessionOnly = map[string]bool{
	"random": true, "random_normal": true, "setseed": true, "gen_random_uuid": true, "uuidv4": true, "uuidv7": true,
	"clock_timestamp": true, "timeofday": true,
	// uuid-ossp's and pgcrypto's generators
	"uuid_generate_v1": true, "uuid_generate_v1mc": true, "uuid_generate_v4": true, "gen_random_bytes": true, "gen_salt": true,
}

// tablesample are PostgreSQL's TABLESAMPLE methods' handlers (volatile,
// they return the method's callbacks; a query cannot call them itself).
var tablesample = map[string]bool{"system": true, "bernoulli": true}

// objectRefTypes are the types by which a value names a catalog object or
// carries a type's raw input: oid, the reg* types, cstring, internal. A
// function taking or giving one reaches code no tree shows.
var objectRefTypes = []uint32{26, 24, 2202, 2203, 2204, 2205, 2206, 3734, 3769, 4089, 4096, 4191, 2275, 2281}

// sequenceNames are the sequence functions: on keybench's own sequences alone.
var sequenceNames = map[string]bool{"nextval": true, "setval": true, "currval": true}

// AllowedExtensions are the extensions whose functions written in C a
// script may call, whose types it may use and whose operator classes and
// casts do not refuse a type: each ships with PostgreSQL (contrib) and
// runs no SQL of its own.
var AllowedExtensions = []string{"citext", "hstore", "pg_trgm", "pgcrypto", "uuid-ossp", "btree_gin", "btree_gist", "ltree", "intarray", "cube", "isn"}

// runsSQL are the names (prefixes) of PostgreSQL's own functions that read
// relations named by a value (table_to_xml('public.t', …)) or run SQL text
// of their own (query_to_xml('SELECT their_function()', …), ts_stat): a
// call of one runs whatever its argument says.
var runsSQL = []string{"query_to_xml", "cursor_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml", "ts_stat", "ts_rewrite"}

// runsSQLPatterns are runsSQL as LIKE patterns.
func runsSQLPatterns() []string {
	out := make([]string, len(runsSQL))
	for i, p := range runsSQL {
		out[i] = p + "%"
	}
	return out
}

// readsTables says whether name is one of runsSQL's.
func readsTables(name string) bool {
	for _, p := range runsSQL {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Querier is what Judge reads the catalog through (a *pgx.Conn).
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// extOf is an expression naming the extension an object of catalog cat
// (its OID in column col) belongs to, ” for none.
func extOf(cat, col string) string {
	return `coalesce((SELECT e.extname::text FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
		WHERE d.classid = 'pg_catalog.` + cat + `'::pg_catalog.regclass AND d.objid = ` + col + ` AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e' LIMIT 1), '')`
}

// Scope is where keybench works on a server: its schema, and the ledger
// in it that records what keybench created (workspace.LedgerTable,
// qualified): a function it records in the schema is keybench's own (a
// key's maker, called by its table's default). The zero Scope is none: an
// expression copied from a user's table.
type Scope struct{ Schema, Ledger string }

// Judge says why what r refers to may not run under rule ("" when it
// may), or an error reading the catalog; at is keybench's own place. Every
// object is judged by its OID, as the server resolved it: a function by
// its volatility and language, an operator by its function, a type by
// what it is (a domain's CHECK and a type's own functions are code), a
// relation by its schema. Where what runs is chosen only when it runs —
// the operator class a comparison of arrays or rows looks up, a cast a
// type's value is turned to json by — a class, an operator family member
// or a cast that is not PostgreSQL's own on a type the tree uses refuses
// it too.
func Judge(ctx context.Context, q Querier, r *Resolved, rule Rule, at Scope) (string, error) {
	if len(r.Unknown) > 0 {
		return fmt.Sprintf("its resolved tree holds %s, which keybench does not read", strings.Join(r.Unknown, ", ")), nil
	}
	if r.Unbound {
		return "it gives a sequence function a sequence named by a value keybench cannot check before the run", nil
	}
	funcs := maps(r.Funcs)
	if len(r.Ops) > 0 {
		rows, err := q.Query(ctx, `SELECT o.oid < $2, o.oprcode::pg_catalog.oid, pg_catalog.format('operator %s.%s (%s, %s)', n.nspname, o.oprname, pg_catalog.format_type(o.oprleft, NULL), pg_catalog.format_type(o.oprright, NULL)), `+extOf("pg_operator", "o.oid")+`
			FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace WHERE o.oid = ANY ($1)`, maps(r.Ops), builtin)
		if err != nil {
			return "", fmt.Errorf("reading the catalog's operators: %w", err)
		}
		type op struct {
			own  bool
			code uint32
			sig  string
			ext  string
		}
		ops, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (o op, err error) {
			return o, row.Scan(&o.own, &o.code, &o.sig, &o.ext)
		})
		if err != nil {
			return "", fmt.Errorf("reading the catalog's operators: %w", err)
		}
		for _, o := range ops {
			if !o.own && !(rule == Script && slices.Contains(AllowedExtensions, o.ext)) {
				return fmt.Sprintf("it applies %s, which is not PostgreSQL's own", o.sig), nil
			}
			funcs = append(funcs, o.code)
		}
	}
	slices.Sort(funcs)
	if why, err := judgeFuncs(ctx, q, slices.Compact(funcs), rule, at); why != "" || err != nil {
		return why, err
	}
	ledger := ""
	if rule == Script {
		ledger = at.Ledger
	}
	if why, err := judgeRels(ctx, q, r, rule, at.Schema, ledger); why != "" || err != nil {
		return why, err
	}
	used, why, err := judgeTypes(ctx, q, maps(r.Types), rule, at.Schema)
	if why != "" || err != nil {
		return why, err
	}
	return Lookups(ctx, q, used)
}

func maps(m map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func judgeFuncs(ctx context.Context, q Querier, funcs []uint32, rule Rule, at Scope) (string, error) {
	if len(funcs) == 0 {
		return "", nil
	}
	ours, args := "false", []any{funcs, builtin, objectRefTypes}
	if at.Ledger != "" {
		args = append(args, at.Schema)
		ours = `p.pronamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $4) AND EXISTS (SELECT 1 FROM ` + at.Ledger + ` l
			WHERE l.catalog = 'pg_catalog.pg_proc'::pg_catalog.regclass AND l.objid = p.oid AND l.name = p.proname::text)`
	}
	rows, err := q.Query(ctx, `SELECT p.oid < $2, `+ours+`, p.proname::text, p.provolatile::text, l.lanname::text, pg_catalog.format('%s.%s(%s)', n.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid)), `+extOf("pg_proc", "p.oid")+`,
			p.prorettype = ANY ($3) OR p.proargtypes::pg_catalog.oid[] && $3::pg_catalog.oid[]
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = ANY ($1) ORDER BY p.oid`, args...)
	if err != nil {
		return "", fmt.Errorf("reading the catalog's functions: %w", err)
	}
	type fn struct {
		own, ours                       bool
		name, volatility, language, sig string
		ext                             string
		refs                            bool
	}
	fns, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (f fn, err error) {
		return f, row.Scan(&f.own, &f.ours, &f.name, &f.volatility, &f.language, &f.sig, &f.ext, &f.refs)
	})
	if err != nil {
		return "", fmt.Errorf("reading the catalog's functions: %w", err)
	}
	if len(fns) != len(funcs) {
		return "it calls a function the catalog no longer holds", nil
	}
	for _, f := range fns {
		extension := !f.own && rule == Script && f.language == "c" && slices.Contains(AllowedExtensions, f.ext)
		switch {
		case f.ours && rule != ReadOnly:
			// keybench's own (a key's maker), recorded in its ledger.
		case !f.own && !extension:
			return fmt.Sprintf("it calls %s, a function that is not PostgreSQL's own", f.sig), nil
		case f.own && f.language != "internal" && f.language != "c" && f.language != "sql":
			// PostgreSQL's own are internal, C or SQL: one in another language
			// was replaced (CREATE OR REPLACE FUNCTION pg_catalog.…).
			return fmt.Sprintf("it calls %s, written in %s: PostgreSQL's own function replaced by someone", f.sig, f.language), nil
		case rule == Immutable && f.volatility != "i":
			return fmt.Sprintf("it calls %s, which is not immutable", f.sig), nil
		case rule != Immutable && readsTables(f.name):
			return fmt.Sprintf("it calls %s, which reads relations named by its arguments", f.sig), nil
		case f.refs && !(f.own && sequenceNames[f.name] && rule == Script) && !(f.own && tablesample[f.name]):
			// An object named by a value (record_in('…', 'x.t'::regtype),
			// satisfies_hash_partition(oid, …)) reaches that object's own
			// code — a domain's CHECK, a type's input, a partition key's
			// operator class — which no tree shows.
			return fmt.Sprintf("it calls %s, which takes or gives an object by reference (an oid, regclass, regtype, cstring or internal): what it reaches is not in the statement", f.sig), nil
		case f.own && tablesample[f.name] && rule != Immutable:
		case rule == ReadOnly && f.volatility == "v":
			return fmt.Sprintf("it calls %s, a volatile function", f.sig), nil
		case rule == Script && f.volatility == "v" && !sessionOnly[f.name] && !(f.own && sequenceNames[f.name]):
			return fmt.Sprintf("it calls %s, a volatile function that acts beyond the session", f.sig), nil
		}
	}
	return "", nil
}

// judgeRels refuses a relation or sequence outside keybench's schema (an
// expression reads none), and, with keybench's ledger, any that is not a
// table or sequence the ledger records or one that goes with such a table
// (its partition, its identity or owned sequence): never the ledger itself.
func judgeRels(ctx context.Context, q Querier, r *Resolved, rule Rule, schema, ledger string) (string, error) {
	rels := maps(r.Rels)
	for s := range r.Sequences {
		rels = append(rels, s)
	}
	if len(rels) == 0 {
		return "", nil
	}
	if rule == Immutable {
		return "it reads a relation", nil
	}
	if rule == ReadOnly {
		return "", nil
	}
	rows, err := q.Query(ctx, `SELECT c.oid, n.nspname::text, c.relname::text, c.relkind::text FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ANY ($1)`, rels)
	if err != nil {
		return "", fmt.Errorf("reading the catalog's relations: %w", err)
	}
	type rel struct {
		oid                uint32
		schema, name, kind string
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (x rel, err error) {
		return x, row.Scan(&x.oid, &x.schema, &x.name, &x.kind)
	})
	if err != nil {
		return "", fmt.Errorf("reading the catalog's relations: %w", err)
	}
	found := map[uint32]bool{}
	for _, x := range got {
		found[x.oid] = true
	}
	recorded := map[uint32]bool{}
	if ledger != "" {
		rows, err := q.Query(ctx, `SELECT c.oid FROM pg_catalog.pg_class c WHERE c.oid = ANY ($1) AND c.oid <> `+pgLiteral(ledger)+`::pg_catalog.regclass AND (
				EXISTS (SELECT 1 FROM `+ledger+` l WHERE l.catalog = 'pg_catalog.pg_class'::pg_catalog.regclass AND l.objid = c.oid AND l.name = c.relname::text)
				OR EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i JOIN `+ledger+` l ON l.objid = i.inhparent WHERE i.inhrelid = c.oid)
				OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN `+ledger+` l ON l.objid = d.refobjid
					WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))`, rels)
		if err != nil {
			return "", fmt.Errorf("reading keybench's ledger: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
		if err != nil {
			return "", fmt.Errorf("reading keybench's ledger: %w", err)
		}
		for _, id := range ids {
			recorded[id] = true
		}
	}
	for _, oid := range rels {
		if !found[oid] {
			return fmt.Sprintf("it reaches relation %d, which the catalog does not hold", oid), nil
		}
	}
	for _, x := range got {
		if x.schema != schema {
			return fmt.Sprintf("it reaches %s.%s, outside keybench's schema %s", Printable(x.schema), Printable(x.name), Printable(schema)), nil
		}
		if ledger != "" && !recorded[x.oid] {
			// keybench's ledger, or an object of someone else's in its schema:
			// a script reads and writes the cell's own tables alone.
			return fmt.Sprintf("it reaches %s.%s, which is not one of the tables keybench made for the run", Printable(x.schema), Printable(x.name)), nil
		}
		if r.Sequences[x.oid] && x.kind != "S" {
			return fmt.Sprintf("it gives a sequence function %s, which is no sequence", Printable(x.name)), nil
		}
	}
	return "", nil
}

// judgeTypes refuses a type that runs code of the user's — a domain (its
// CHECK), a base, enum or range type made by CREATE TYPE — and returns the
// types the tree uses, through arrays to their elements and through
// keybench's own tables' row types to their columns.
func judgeTypes(ctx context.Context, q Querier, types []uint32, rule Rule, schema string) ([]uint32, string, error) {
	seen := map[uint32]bool{}
	var used []uint32
	for len(types) > 0 {
		rows, err := q.Query(ctx, `SELECT t.oid, t.oid < $2, t.typtype::text, pg_catalog.format_type(t.oid, NULL), t.typelem, t.typbasetype,
				coalesce(c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $3), false),
				ARRAY(SELECT a.atttypid FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped),
				coalesce((SELECT e.typarray = t.oid FROM pg_catalog.pg_type e WHERE e.oid = t.typelem), false),
				`+extOf("pg_type", "t.oid")+`
			FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_class c ON c.oid = t.typrelid WHERE t.oid = ANY ($1)`, types, builtin, schema)
		if err != nil {
			return nil, "", fmt.Errorf("reading the catalog's types: %w", err)
		}
		type typ struct {
			oid        uint32
			own        bool
			kind, name string
			elem, base uint32
			ours       bool
			cols       []uint32
			array      bool
			ext        string
		}
		got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (x typ, err error) {
			return x, row.Scan(&x.oid, &x.own, &x.kind, &x.name, &x.elem, &x.base, &x.ours, &x.cols, &x.array, &x.ext)
		})
		if err != nil {
			return nil, "", fmt.Errorf("reading the catalog's types: %w", err)
		}
		for _, t := range types {
			seen[t] = true
		}
		types = nil
		for _, x := range got {
			used = append(used, x.oid)
			next := append([]uint32{x.elem}, x.cols...)
			switch {
			case x.own:
			case x.kind == "c" && x.ours && rule == Script:
				// A row of keybench's own table: its columns are judged.
			case x.array && rule == Script:
				// An array of its element's (typarray): the element is judged.
			case x.kind == "d":
				return nil, fmt.Sprintf("it uses the domain %s, which is not PostgreSQL's own (its CHECK runs code of yours)", x.name), nil
			case slices.Contains(AllowedExtensions, x.ext) && rule == Script && x.kind != "c":
			default:
				return nil, fmt.Sprintf("it uses the type %s, which is not PostgreSQL's own (its functions run code of yours)", x.name), nil
			}
			for _, n := range next {
				if n != 0 && !seen[n] {
					seen[n] = true
					types = append(types, n)
				}
			}
		}
	}
	return used, "", nil
}

// Lookups says why a value of the types used may reach code of the
// user's that the server looks up only when it runs ("" when none can): a
// default btree or hash operator class (what compares arrays and rows,
// hashes a GROUP BY), a btree or hash operator family's member, or a cast
// (to_json's of a row) that is not PostgreSQL's own nor an allowed
// extension's written in C, on one of the types or on a polymorphic type
// that stands for any. Other access methods' classes (bloom's, gin's) are
// reached only by an index that names them, judged apart.
func Lookups(ctx context.Context, q Querier, used []uint32) (string, error) {
	if len(used) == 0 {
		return "", nil
	}
	// An allowed extension's object passes only where all its code is C or
	// internal: its owner may adopt a function of any language into it
	// (ALTER EXTENSION … ADD), which membership alone would let through.
	const native = `(SELECT nl.lanname FROM pg_catalog.pg_proc np JOIN pg_catalog.pg_language nl ON nl.oid = np.prolang WHERE np.oid = %s) IN ('c', 'internal')`
	ext := func(cat, col string) string { return extOf(cat, col) + ` = ANY ($3)` }
	rows, err := q.Query(ctx, `WITH used AS (SELECT pg_catalog.unnest($1::pg_catalog.oid[]) AS oid
			UNION SELECT oid FROM pg_catalog.pg_type WHERE typtype = 'p'),
		am AS (SELECT oid FROM pg_catalog.pg_am WHERE amname IN ('btree', 'hash'))
		SELECT pg_catalog.format('operator class %s for %s', oc.opcname, pg_catalog.format_type(oc.opcintype, NULL)) FROM pg_catalog.pg_opclass oc
			WHERE oc.oid >= $2 AND oc.opcdefault AND oc.opcmethod IN (SELECT oid FROM am) AND oc.opcintype IN (SELECT oid FROM used)
				AND NOT (`+ext("pg_opclass", "oc.oid")+` AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_amproc p WHERE p.amprocfamily = oc.opcfamily AND NOT `+fmt.Sprintf(native, "p.amproc")+`))
		UNION ALL
		SELECT pg_catalog.format('operator %s in family %s', o.amopopr::pg_catalog.regoperator, f.opfname) FROM pg_catalog.pg_amop o JOIN pg_catalog.pg_opfamily f ON f.oid = o.amopfamily
			WHERE o.oid >= $2 AND f.opfmethod IN (SELECT oid FROM am) AND (o.amoplefttype IN (SELECT oid FROM used) OR o.amoprighttype IN (SELECT oid FROM used))
				AND NOT (`+ext("pg_opfamily", "f.oid")+` AND `+fmt.Sprintf(native, "(SELECT oprcode FROM pg_catalog.pg_operator WHERE oid = o.amopopr)")+`)
		UNION ALL
		SELECT pg_catalog.format('support function %s in family %s', p.amproc::pg_catalog.regprocedure, f.opfname) FROM pg_catalog.pg_amproc p JOIN pg_catalog.pg_opfamily f ON f.oid = p.amprocfamily
			WHERE p.oid >= $2 AND f.opfmethod IN (SELECT oid FROM am) AND (p.amproclefttype IN (SELECT oid FROM used) OR p.amprocrighttype IN (SELECT oid FROM used))
				AND NOT (`+ext("pg_opfamily", "f.oid")+` AND `+fmt.Sprintf(native, "p.amproc")+`)
		UNION ALL
		SELECT pg_catalog.format('cast from %s to %s', pg_catalog.format_type(c.castsource, NULL), pg_catalog.format_type(c.casttarget, NULL)) FROM pg_catalog.pg_cast c
			WHERE c.oid >= $2 AND (c.castsource IN (SELECT oid FROM used WHERE oid >= $2) OR c.casttarget IN (SELECT oid FROM used WHERE oid >= $2))
				AND NOT (`+ext("pg_cast", "c.oid")+` AND (c.castfunc = 0 OR `+fmt.Sprintf(native, "c.castfunc")+`))
		LIMIT 1`, used, builtin, AllowedExtensions)
	if err != nil {
		return "", fmt.Errorf("reading the catalog's operator classes and casts: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("reading the catalog's operator classes and casts: %w", err)
	}
	if len(found) > 0 {
		return fmt.Sprintf("a value it uses may reach the %s, which is not PostgreSQL's own and is looked up only as it runs", found[0]), nil
	}
	return "", nil
}

// Tampered are what someone changed of PostgreSQL's own, which would
// make any query of keybench's run code of theirs: a cast between two of
// PostgreSQL's own types that is not PostgreSQL's own (CREATE CAST (bigint
// AS text) WITH FUNCTION …: every bigint::text of any query runs it), an
// object added to pg_catalog (a pg_catalog.pg_relation_size(oid) of
// someone's, found before PostgreSQL's own), or a function of PostgreSQL's
// replaced by one in a procedural language (CREATE OR REPLACE FUNCTION
// pg_catalog.lpad …; PostgreSQL's own are internal, C or SQL). Each is a
// superuser's doing; keybench and advise refuse such a server rather than
// audit every statement of their own.
func Tampered(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT pg_catalog.format('cast %s AS %s', pg_catalog.format_type(c.castsource, NULL), pg_catalog.format_type(c.casttarget, NULL))
			FROM pg_catalog.pg_cast c WHERE c.oid >= $1 AND c.castsource < $1 AND c.casttarget < $1
		UNION ALL SELECT pg_catalog.format('function %s added to pg_catalog', p.oid::pg_catalog.regprocedure) FROM pg_catalog.pg_proc p
			WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace AND p.oid >= $1
		UNION ALL SELECT pg_catalog.format('operator %s added to pg_catalog', o.oid::pg_catalog.regoperator) FROM pg_catalog.pg_operator o
			WHERE o.oprnamespace = 'pg_catalog'::pg_catalog.regnamespace AND o.oid >= $1
		UNION ALL SELECT pg_catalog.format('type %s added to pg_catalog', t.typname) FROM pg_catalog.pg_type t
			WHERE t.typnamespace = 'pg_catalog'::pg_catalog.regnamespace AND t.oid >= $1
		UNION ALL SELECT pg_catalog.format('function %s replaced (now in %s)', p.oid::pg_catalog.regprocedure, l.lanname) FROM pg_catalog.pg_proc p
			JOIN pg_catalog.pg_language l ON l.oid = p.prolang WHERE p.oid < $1 AND l.lanname NOT IN ('internal', 'c', 'sql')
		UNION ALL SELECT pg_catalog.format('function %s replaced (it uses %s)', p.oid::pg_catalog.regprocedure, pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0))
			FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid
			WHERE p.oid < $1 AND (d.refobjid >= $1 OR d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
				AND (SELECT r.proname FROM pg_catalog.pg_proc r WHERE r.oid = d.refobjid) OPERATOR(pg_catalog.~~) ANY ($2))
		ORDER BY 1 LIMIT 10`, builtin, runsSQLPatterns())
	if err != nil {
		return nil, fmt.Errorf("reading the server's casts and catalog: %w", err)
	}
	changed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("reading the server's casts and catalog: %w", err)
	}
	// PostgreSQL's own functions in SQL: one replaced in place would run
	// what its body calls. A string body is read by the parser (PostgreSQL's
	// own name only their own schemas' objects), a BEGIN ATOMIC one as its
	// stored tree (which names pinned objects pg_depend does not record);
	// neither may call what runs SQL text.
	body := "''" // BEGIN ATOMIC bodies came with PostgreSQL 14
	if rows, err := q.Query(ctx, `SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND attname = 'prosqlbody'`); err == nil {
		if n, err := pgx.CollectRows(rows, pgx.RowTo[int32]); err == nil && len(n) > 0 {
			body = "coalesce(p.prosqlbody::pg_catalog.text, '')"
		}
	}
	rows, err = q.Query(ctx, `SELECT p.oid::pg_catalog.regprocedure::pg_catalog.text, p.prosrc, `+body+`
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang WHERE p.oid < $1 AND l.lanname = 'sql' ORDER BY 1`, builtin)
	if err != nil {
		return nil, fmt.Errorf("reading PostgreSQL's own SQL functions: %w", err)
	}
	type sqlFn struct{ sig, src, body string }
	fns, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (f sqlFn, err error) { return f, row.Scan(&f.sig, &f.src, &f.body) })
	if err != nil {
		return nil, fmt.Errorf("reading PostgreSQL's own SQL functions: %w", err)
	}
	for _, f := range fns {
		var names []string
		if f.body != "" {
			if names, err = treeCalls(ctx, q, f.body, nil); err != nil {
				return nil, err
			}
		} else {
			names = foreignNames(f.src)
		}
		if len(names) > 0 {
			changed = append(changed, fmt.Sprintf("function %s replaced (%s)", f.sig, strings.Join(names, ", ")))
		}
	}
	return changed, nil
}

// foreignNames are the qualified names of functions, operators, types and
// relations sql names in a schema other than PostgreSQL's own (pg_catalog,
// information_schema); a body the parser cannot read is named as such.
func foreignNames(sql string) []string {
	tree, err := pg.Parse(sql)
	if err != nil {
		return []string{"its body is not read by PostgreSQL's parser"}
	}
	var found []string
	note := func(schema, name string) {
		if schema != "" && schema != "pg_catalog" && schema != "information_schema" {
			found = append(found, "it names "+schema+"."+name)
		}
	}
	walk(tree.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.FuncCall:
			schema, name := nameOf(x.Funcname)
			note(schema, name)
			if readsTables(name) {
				found = append(found, "it calls "+name+", which runs SQL of its argument's")
			}
		case *pg.A_Expr:
			note(nameOf(x.Name))
		case *pg.TypeName:
			note(nameOf(x.Names))
		case *pg.RangeVar:
			note(x.Schemaname, x.Relname)
		}
	})
	return found
}

// pgLiteral is s as an SQL literal for keybench's own names (a session
// whose standard_conforming_strings Pin set on).
func pgLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
