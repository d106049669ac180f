package workload

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/usage"
)

// A user's table's shape (run --script FILE --like SCHEMA.TABLE on --dsn):
// its definition read from the catalogs, never its rows, copied into each
// cell's keyed table in keybench's own schema. Its key column keeps its
// name and takes the cell's key type; every other column keeps its name,
// type and NOT NULL, with a volatile default that makes a value of its
// type and width (pg_stats' average where the server has one) for the rows
// the prefill and a script's INSERT leave it out of; its indexes (by
// column, with their predicates) and CHECK constraints are copied, its
// foreign keys, triggers, defaults, expression and exclusion indexes are
// not (each named in Skipped). Nothing of the user's is referenced by the
// copy: a column of a type of the user's own (an enum, a domain) takes its
// base type. Reading it only reads the catalogs.

// Like is a user's table's definition as keybench copies it.
type Like struct {
	// Source is the table as the user named it (schema.table).
	Source string
	// KeyColumn is its primary key's one column; KeyType the type it has there.
	KeyColumn, KeyType string
	Columns            []LikeColumn
	Indexes            []LikeIndex
	// Checks are its CHECK constraints (pg_get_constraintdef's text).
	Checks []string
	// Skipped says what of the definition was not copied, and why.
	Skipped []string
	// DataCol and PayloadCol name keybench's own columns in the copy
	// (data, payload; kb_data, kb_payload where the user's table has a
	// column of that name of another type, which the copy keeps as theirs).
	DataCol, PayloadCol string
}

// LikeColumn is one column other than the key.
type LikeColumn struct {
	Name, Type string
	NotNull    bool
	// Fill is the SQL expression its default makes a value with.
	Fill string

	text    bool // a string type: its fill's width is pg_stats'
	retyped bool // copied as text (an enum's, a type of the user's)
}

// LikeIndex is an index of the table other than its primary key's.
type LikeIndex struct {
	Unique  bool
	Method  string
	Columns []string
	Where   string

	name string
	pred string // the predicate as the server resolved it (pg_index.indpred)
}

// keybench's keyed table writes these two columns itself (the prefill's
// data values and payload): a table of the user's that has them must
// have them of these types.
var likeOwn = map[string]string{"data": "bigint", "payload": "text"}

// ReadLike reads the definition of the table name (schema.table) on conn.
func ReadLike(ctx context.Context, conn *pgx.Conn, name string) (*Like, error) {
	schema, table, ok := SplitQualified(name)
	if !ok {
		return nil, usage.Errorf("--like takes SCHEMA.TABLE (each part quoted as SQL quotes it where it needs to be), not %q", name)
	}
	var oid uint32
	var partitionedBy string
	err := conn.QueryRow(ctx, `SELECT c.oid, CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) ELSE '' END FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')`, schema, table).Scan(&oid, &partitionedBy)
	if err == pgx.ErrNoRows {
		return nil, usage.Errorf("--like %s: no such table on the server", name)
	} else if err != nil {
		return nil, fmt.Errorf("--like %s: reading the catalog: %w", name, err)
	}
	l := &Like{Source: sqltree.EscapeControls(name), DataCol: "data", PayloadCol: "payload"}
	if partitionedBy != "" {
		l.Skipped = append(l.Skipped, fmt.Sprintf("it is partitioned (%s): copied as one plain table, its partitions' own indexes and constraints not", partitionedBy))
	}
	if err := l.readKey(ctx, conn, oid); err != nil {
		return nil, err
	}
	if err := l.readColumns(ctx, conn, oid, schema, table); err != nil {
		return nil, err
	}
	if n := l.width(); n > maxColumns {
		return nil, usage.Errorf("--like %s: its copy would have %d columns (its %d and keybench's own), past PostgreSQL's limit of %d: give a table of fewer columns", name, n, len(l.Columns)+1, maxColumns)
	}
	if err := l.readIndexes(ctx, conn, oid); err != nil {
		return nil, err
	}
	l.uniqueText()
	if err := l.readHooks(ctx, conn, oid); err != nil {
		return nil, err
	}
	return l, l.readConstraints(ctx, conn, oid)
}

// readHooks names what runs on the table's rows beside its columns —
// triggers, rules, row-level security policies — none of which keybench
// copies (each would be code of the user's on keybench's rows).
func (l *Like) readHooks(ctx context.Context, conn *pgx.Conn, oid uint32) error {
	rows, _ := conn.Query(ctx, `SELECT format('trigger %s (%s)', t.tgname, pg_catalog.pg_get_triggerdef(t.oid)) FROM pg_catalog.pg_trigger t WHERE t.tgrelid = $1 AND NOT t.tgisinternal
		UNION ALL SELECT format('rule %s', r.rulename) FROM pg_catalog.pg_rewrite r WHERE r.ev_class = $1 AND r.rulename <> '_RETURN'
		UNION ALL SELECT format('row-level security policy %s', p.polname) FROM pg_catalog.pg_policy p WHERE p.polrelid = $1
		ORDER BY 1`, oid)
	hooks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("--like %s: reading its triggers, rules and policies: %w", l.Source, err)
	}
	for _, h := range hooks {
		l.Skipped = append(l.Skipped, sqltree.EscapeControls(h)+": not copied (it would run code of yours on keybench's rows)")
	}
	return nil
}

// maxColumns is PostgreSQL's limit on a table's columns (MaxHeapAttributeNumber).
const maxColumns = 1600

// width is how many columns the keyed table copied from l has: its key,
// its other columns, and keybench's data and payload where it has none.
func (l *Like) width() int {
	n := 1 + len(l.Columns)
	for _, own := range []string{l.DataCol, l.PayloadCol} {
		have := false
		for _, c := range l.Columns {
			have = have || c.Name == own
		}
		if !have {
			n++
		}
	}
	return n
}

// SplitQualified reads schema.table as SQL does: a part in double quotes
// as written ("" a quote in it), an unquoted part folded to lower case.
func SplitQualified(name string) (schema, table string, ok bool) {
	var parts []string
	for rest := name; ; {
		var part string
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(rest); i++ {
				if rest[i] == '"' {
					if i+1 < len(rest) && rest[i+1] == '"' {
						b.WriteByte('"')
						i++
						continue
					}
					break
				}
				b.WriteByte(rest[i])
			}
			if i >= len(rest) {
				return "", "", false // no closing quote
			}
			part, rest = b.String(), rest[i+1:]
		} else {
			end := strings.IndexByte(rest, '.')
			if end < 0 {
				end = len(rest)
			}
			part, rest = strings.ToLower(rest[:end]), rest[end:]
		}
		if part == "" {
			return "", "", false
		}
		parts = append(parts, part)
		if rest == "" {
			break
		}
		if rest[0] != '.' {
			return "", "", false
		}
		rest = rest[1:]
	}
	if len(parts) != 2 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

func (l *Like) readKey(ctx context.Context, conn *pgx.Conn, oid uint32) error {
	var cols []string
	err := conn.QueryRow(ctx, `SELECT array_agg(a.attname::text ORDER BY k.n), coalesce(min(format_type(a.atttypid, a.atttypmod)), '')
		FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY k(attnum, n)
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
		WHERE c.conrelid = $1 AND c.contype = 'p'`, oid).Scan(&cols, &l.KeyType)
	switch {
	case err != nil:
		return fmt.Errorf("--like %s: reading its primary key: %w", l.Source, err)
	case len(cols) == 0:
		return usage.Errorf("--like %s: the table has no primary key: keybench puts each key in its primary key's column", l.Source)
	case len(cols) > 1:
		return usage.Errorf("--like %s: its primary key has %d columns (%s): keybench compares keys of one column", l.Source, len(cols), strings.Join(cols, ", "))
	}
	l.KeyColumn = cols[0]
	return nil
}

func (l *Like) readColumns(ctx context.Context, conn *pgx.Conn, oid uint32, schema, table string) error {
	rows, err := conn.Query(ctx, `SELECT a.attname::text, a.attnotnull, a.attgenerated <> '', a.attidentity <> '',
			format_type(b.oid, CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END), b.typname::text, b.typcategory::text,
			tn.nspname = 'pg_catalog', t.typtype = 'e',
			coalesce((SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid), '{}'),
			coalesce((SELECT s.avg_width FROM pg_stats s WHERE s.schemaname = $2 AND s.tablename = $3 AND s.attname = a.attname), 0)
		FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
		JOIN pg_type b ON b.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
		JOIN pg_namespace tn ON tn.oid = b.typnamespace
		WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, oid, schema, table)
	if err != nil {
		return fmt.Errorf("--like %s: reading its columns: %w", l.Source, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c LikeColumn
		var generated, identity, builtin, enum bool
		var typname, category string
		var labels []string
		var width int32
		if err := rows.Scan(&c.Name, &c.NotNull, &generated, &identity, &c.Type, &typname, &category, &builtin, &enum, &labels, &width); err != nil {
			return fmt.Errorf("--like %s: reading its columns: %w", l.Source, err)
		}
		switch {
		case c.Name == l.KeyColumn:
			continue
		case generated:
			l.Skipped = append(l.Skipped, fmt.Sprintf("column %s is generated: copied as a plain column filled like its type", sqltree.Printable(c.Name)))
		case identity:
			l.Skipped = append(l.Skipped, fmt.Sprintf("column %s is an identity: copied as a plain column filled like its type", sqltree.Printable(c.Name)))
		}
		if want, own := likeOwn[c.Name]; own && c.Type != want {
			// keybench's own column of that name goes by another (named
			// once every column is read): the user's keeps its name and type.
			if c.Name == "data" {
				l.DataCol = ""
			} else {
				l.PayloadCol = ""
			}
			defer func() {
				l.Skipped = append(l.Skipped, fmt.Sprintf("your column %s is %s: copied as yours; keybench's own %s %s is %s", sqltree.Printable(c.Name), c.Type, want, c.Name, l.ownName(c.Name)))
			}()
		}
		switch {
		case enum:
			fill, err := enumFill(conn, labels)
			if err != nil {
				return fmt.Errorf("--like %s: quoting column %s's labels: %w", l.Source, sqltree.Printable(c.Name), err)
			}
			c.Type, c.Fill, c.retyped = "text", fill, true
			l.Skipped = append(l.Skipped, fmt.Sprintf("column %s is of your enum type: copied as text holding its labels", sqltree.Printable(c.Name)))
		case !builtin:
			if c.NotNull {
				return usage.Errorf("--like %s: column %s is of type %s, not PostgreSQL's own: keybench cannot make its values", l.Source, sqltree.Printable(c.Name), c.Type)
			}
			l.Skipped = append(l.Skipped, fmt.Sprintf("column %s is of type %s, not PostgreSQL's own: copied as text, left NULL", sqltree.Printable(c.Name), c.Type))
			c.Type, c.Fill, c.retyped = "text", "NULL", true
		default:
			c.Fill, c.text = fillFor(typname, category, c.Type, width), category == "S"
		}
		if c.Fill == "" {
			if c.NotNull {
				return usage.Errorf("--like %s: column %s is of type %s: keybench cannot make its values", l.Source, sqltree.Printable(c.Name), c.Type)
			}
			c.Fill = "NULL"
			l.Skipped = append(l.Skipped, fmt.Sprintf("column %s (%s) is left NULL: keybench makes no values of its type", sqltree.Printable(c.Name), c.Type))
		}
		l.Columns = append(l.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if l.DataCol == "" {
		l.DataCol = l.freeName("data")
	}
	if l.PayloadCol == "" {
		l.PayloadCol = l.freeName("payload")
	}
	return nil
}

// freeName is a name for keybench's own column own where the user's table
// has a column of that name: kb_own, or kb_own_2, … if the table has that too.
func (l *Like) freeName(own string) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(l.Columns, func(c LikeColumn) bool { return c.Name == n }) || n == l.KeyColumn
	}
	name := "kb_" + own
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("kb_%s_%d", own, i)
	}
	return name
}

// ownName is the name keybench's own column own (data, payload) goes by.
func (l *Like) ownName(own string) string {
	if own == "data" {
		return l.DataCol
	}
	return l.PayloadCol
}

// numericTypmod reads numeric(p[,s]).
var numericTypmod = regexp.MustCompile(`^numeric\((\d+)(?:,(\d+))?\)$`)

// fillFor is an expression making a value of a built-in type: random
// numbers in the type's range, text of the column's average width,
// times within the last year.
func fillFor(typname, category, typ string, width int32) string {
	switch typname {
	case "int2":
		return "(pg_catalog.random() * 32767)::int2"
	case "int4":
		return "(pg_catalog.random() * 2147483647)::int4"
	case "int8":
		return "(pg_catalog.random() * 1e15)::int8"
	case "float4", "float8":
		return "(pg_catalog.random() * 1e6)::" + typname
	case "numeric":
		// Within its precision: numeric(p,s) holds p-s digits before the point.
		if m := numericTypmod.FindStringSubmatch(typ); m != nil {
			p, _ := strconv.Atoi(m[1])
			sc := 0
			if m[2] != "" {
				sc, _ = strconv.Atoi(m[2])
			}
			return fmt.Sprintf("pg_catalog.round((pg_catalog.random() * 0.9 * 1e%d)::numeric, %d)::%s", p-sc, sc, typ)
		}
		return "pg_catalog.round((pg_catalog.random() * 1e6)::numeric, 2)::" + typ
	case "money":
		return "pg_catalog.round((pg_catalog.random() * 1e6)::numeric, 2)::" + typ
	case "bit", "varbit": // an int4's bits, cut or padded to the column's length
		return "(pg_catalog.random() * 2147483647)::int4::bit(32)::" + typ
	case "xml":
		return "('<v>' || pg_catalog.md5(pg_catalog.random()::text) || '</v>')::xml"
	case "tsvector", "tsquery":
		return "pg_catalog.md5(pg_catalog.random()::text)::" + typname
	case "point":
		return "pg_catalog.point(pg_catalog.random(), pg_catalog.random())"
	case "macaddr", "macaddr8":
		return fmt.Sprintf("pg_catalog.substr(pg_catalog.md5(pg_catalog.random()::text), 1, %d)::%s", map[string]int{"macaddr": 12, "macaddr8": 16}[typname], typname)
	case "int4range", "int8range", "numrange":
		return fmt.Sprintf("pg_catalog.%s((pg_catalog.random() * 1e6)::int4, (pg_catalog.random() * 1e6)::int4 + 1000001)", typname)
	case "pg_lsn":
		return "('0/' || pg_catalog.to_hex((pg_catalog.random() * 2147483647)::int4))::pg_lsn"
	case "char":
		return `pg_catalog.chr(97 + (pg_catalog.random() * 25)::int4)::"char"`
	case "bool":
		return "pg_catalog.random() < 0.5"
	case "uuid":
		return "pg_catalog.md5(pg_catalog.random()::text)::uuid"
	case "date", "timestamp", "timestamptz":
		return "(pg_catalog.now() - pg_catalog.random() * interval '365 days')::" + typname
	case "time", "timetz":
		return "(pg_catalog.now() - pg_catalog.random() * interval '1 day')::" + typname
	case "interval":
		return "pg_catalog.random() * interval '1 day'"
	case "json", "jsonb":
		return "pg_catalog.json_build_object('v', pg_catalog.md5(pg_catalog.random()::text))::" + typname
	case "bytea":
		return "pg_catalog.decode(pg_catalog.md5(pg_catalog.random()::text), 'hex')"
	case "inet", "cidr":
		return "('10.' || (pg_catalog.random() * 255)::int || '.' || (pg_catalog.random() * 255)::int || '.' || (pg_catalog.random() * 255)::int)::" + typname
	}
	if category == "A" { // an array: an empty one of its type
		return "'{}'::" + typ
	}
	if category == "S" { // text, varchar(n), char(n), name
		n := int(width) - 1 // pg_stats' width holds the varlena header
		if n <= 0 {
			n = 16
		}
		return fmt.Sprintf("pg_catalog.left(pg_catalog.repeat(pg_catalog.md5(pg_catalog.random()::text), %d), %d)::%s", int(math.Ceil(float64(n)/32)), n, typ)
	}
	return ""
}

// uniqueText gives a string column under a unique index a fill that
// does not repeat (a 32-digit random hex, cut to the type's length):
// text of its average width would, in a column of short values.
func (l *Like) uniqueText() {
	unique := map[string]bool{}
	for _, ix := range l.Indexes {
		if ix.Unique {
			for _, c := range ix.Columns {
				unique[c] = true
			}
		}
	}
	for i := range l.Columns {
		if c := &l.Columns[i]; c.text && unique[c.Name] {
			c.Fill = "pg_catalog.md5(pg_catalog.random()::pg_catalog.text || pg_catalog.clock_timestamp()::pg_catalog.text)::" + c.Type
		}
	}
}

// enumFill picks one of an enum's labels, each quoted by the driver for
// conn's session (sqltree.Quote: standard_conforming_strings on).
func enumFill(conn *pgx.Conn, labels []string) (string, error) {
	if len(labels) == 0 {
		return "NULL", nil
	}
	quoted := make([]string, len(labels))
	for i, s := range labels {
		q, err := sqltree.Quote(conn.PgConn(), s)
		if err != nil {
			return "", err
		}
		quoted[i] = q
	}
	return fmt.Sprintf("(ARRAY[%s]::pg_catalog.text[])[1 + pg_catalog.floor(pg_catalog.random() * %d)::pg_catalog.int4]", strings.Join(quoted, ", "), len(labels)), nil
}

func (l *Like) readIndexes(ctx context.Context, conn *pgx.Conn, oid uint32) error {
	rows, _ := conn.Query(ctx, `SELECT ic.relname::text, i.indisunique, am.amname::text, i.indexprs IS NOT NULL,
			EXISTS (SELECT 1 FROM pg_constraint x WHERE x.conindid = i.indexrelid AND x.contype = 'x')
				OR EXISTS (SELECT 1 FROM unnest(i.indclass) c(oid) JOIN pg_opclass o ON o.oid = c.oid WHERE NOT o.opcdefault),
			coalesce((SELECT string_agg(format('%s.%s', n.nspname, o.opcname), ', ') FROM unnest(i.indclass) c(oid) JOIN pg_opclass o ON o.oid = c.oid
				JOIN pg_namespace n ON n.oid = o.opcnamespace WHERE o.oid >= 16384), ''),
			coalesce(pg_get_expr(i.indpred, i.indrelid), ''), coalesce(i.indpred::text, ''),
			ARRAY(SELECT a.attname::text FROM unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, n)
				JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n)
		FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
		WHERE i.indrelid = $1 AND NOT i.indisprimary ORDER BY ic.relname`, oid)
	var name, userClass string
	var ix LikeIndex
	var expr, exclusion bool
	if _, err := pgx.ForEachRow(rows, []any{&name, &ix.Unique, &ix.Method, &expr, &exclusion, &userClass, &ix.Where, &ix.pred, &ix.Columns}, func() error {
		switch {
		case expr:
			l.Skipped = append(l.Skipped, fmt.Sprintf("index %s is on an expression: not copied", sqltree.Printable(name)))
		case userClass != "":
			l.Skipped = append(l.Skipped, fmt.Sprintf("index %s: not copied, its operator class %s is not PostgreSQL's own (its functions are code of yours)", sqltree.Printable(name), sqltree.EscapeControls(userClass)))
		case exclusion:
			l.Skipped = append(l.Skipped, fmt.Sprintf("index %s holds an exclusion constraint or an operator class of its own: not copied", sqltree.Printable(name)))
		default:
			ix.name = name
			l.Indexes = append(l.Indexes, ix)
		}
		ix = LikeIndex{} // the next row's columns in a slice of their own
		return nil
	}); err != nil {
		return fmt.Errorf("--like %s: reading its indexes: %w", l.Source, err)
	}
	kept := l.Indexes[:0]
	for _, ix := range l.Indexes {
		// A column copied as text takes text's operator classes: btree's
		// and hash's; an index of another method on it has none to copy.
		if ix.Method != "btree" && ix.Method != "hash" && slices.ContainsFunc(l.Columns, func(c LikeColumn) bool { return c.retyped && slices.Contains(ix.Columns, c.Name) }) {
			l.Skipped = append(l.Skipped, fmt.Sprintf("index %s (%s) is on a column copied as text: not copied", sqltree.Printable(ix.name), ix.Method))
			continue
		}
		if ix.pred != "" {
			why, err := vetExpr(ctx, conn, ix.pred)
			if err != nil {
				return fmt.Errorf("--like %s: reading index %s: %w", l.Source, sqltree.Printable(ix.name), err)
			}
			if why != "" {
				l.Skipped = append(l.Skipped, fmt.Sprintf("index %s: not copied, its predicate: %s", sqltree.Printable(ix.name), why))
				continue
			}
		}
		kept = append(kept, ix)
	}
	l.Indexes = kept
	return nil
}

func (l *Like) readConstraints(ctx context.Context, conn *pgx.Conn, oid uint32) error {
	rows, _ := conn.Query(ctx, `SELECT c.conname::text, c.contype::text, pg_get_constraintdef(c.oid), coalesce(c.conbin::text, '')
		FROM pg_constraint c WHERE c.conrelid = $1 AND c.contype IN ('c', 'f') ORDER BY c.conname`, oid)
	type check struct{ name, def, tree string }
	var checks []check
	var c check
	var kind string
	if _, err := pgx.ForEachRow(rows, []any{&c.name, &kind, &c.def, &c.tree}, func() error {
		if kind == "f" {
			l.Skipped = append(l.Skipped, fmt.Sprintf("foreign key %s: not copied (it would reference your table)", sqltree.Printable(c.name)))
		} else {
			checks = append(checks, c)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("--like %s: reading its constraints: %w", l.Source, err)
	}
	for _, c := range checks {
		why, err := vetExpr(ctx, conn, c.tree)
		if err != nil {
			return fmt.Errorf("--like %s: reading CHECK %s: %w", l.Source, sqltree.Printable(c.name), err)
		}
		if why != "" {
			l.Skipped = append(l.Skipped, fmt.Sprintf("CHECK %s: not copied, %s (keybench writes its own rows under no code of yours)", sqltree.Printable(c.name), why))
			continue
		}
		l.Checks = append(l.Checks, c.def)
	}
	return nil
}

// vetExpr says why a copied expression (a CHECK's, an index predicate's)
// may not run on the rows keybench writes: it calls anything but
// PostgreSQL's own immutable functions and operators on PostgreSQL's own
// types (sqltree.Immutable), as the server resolved it when the user made
// it (tree: pg_constraint.conbin, pg_index.indpred); "" when it may.
// keybench's copy is judged again once made (workspace.Create).
func vetExpr(ctx context.Context, conn *pgx.Conn, tree string) (string, error) {
	res, err := sqltree.ReadTree(tree)
	if err != nil {
		return "its resolved tree could not be read: " + err.Error(), nil
	}
	return sqltree.Judge(ctx, conn, res, sqltree.Immutable, sqltree.Scope{})
}

// Describe says what was copied, in one line.
func (l *Like) Describe() string {
	return fmt.Sprintf("the shape of %s copied: its key column %s (%s) takes each key; %d other columns, %d indexes, %d CHECK constraints; never its rows",
		l.Source, sqltree.Printable(l.KeyColumn), l.KeyType, len(l.Columns), len(l.Indexes), len(l.Checks))
}

// NotCopied says what of the shape was not copied, or changed, in one
// line ("" when all was): what the run's first screen says under its answer.
func (l *Like) NotCopied() string {
	if len(l.Skipped) == 0 {
		return ""
	}
	return fmt.Sprintf("of %s's shape, not as it is: %s", l.Source, strings.Join(l.Skipped, "; "))
}

// likeColumns are the keyed table's columns after its key: the user's, and
// keybench's data and payload where the user's table has none.
func (l *Like) likeColumns() string {
	var b strings.Builder
	have := map[string]bool{}
	for _, c := range l.Columns {
		have[c.Name] = true
		fmt.Fprintf(&b, ", %s %s", pgx.Identifier{c.Name}.Sanitize(), c.Type)
		if c.Name == l.DataCol || c.Name == l.PayloadCol {
			// keybench's own columns: written by the prefill as always.
			if c.NotNull {
				b.WriteString(" NOT NULL")
			}
			if c.Name == l.DataCol {
				b.WriteString(" DEFAULT " + c.Fill)
			}
			continue
		}
		if c.NotNull {
			b.WriteString(" NOT NULL")
		}
		if c.Fill != "NULL" {
			b.WriteString(" DEFAULT " + c.Fill)
		}
	}
	if !have[l.DataCol] {
		b.WriteString(", " + pgx.Identifier{l.DataCol}.Sanitize() + " bigint NOT NULL DEFAULT (pg_catalog.random() * 1e15)::pg_catalog.int8")
	}
	if !have[l.PayloadCol] {
		b.WriteString(", " + pgx.Identifier{l.PayloadCol}.Sanitize() + " text")
	}
	for _, c := range l.Checks {
		b.WriteString(", " + c)
	}
	return b.String()
}

// indexStatements create the user's indexes on t.
func (l *Like) indexStatements(t *Table) []string {
	var out []string
	for i, ix := range l.Indexes {
		cols := make([]string, len(ix.Columns))
		for k, c := range ix.Columns {
			cols[k] = pgx.Identifier{c}.Sanitize()
		}
		unique := ""
		if ix.Unique {
			unique = "UNIQUE "
		}
		stmt := fmt.Sprintf("CREATE %sINDEX %s_like%d ON %s USING %s (%s)", unique, t.Name, i+1, t.Qualified(), ix.Method, strings.Join(cols, ", "))
		if ix.Where != "" {
			stmt += " WHERE " + ix.Where
		}
		out = append(out, stmt)
	}
	return out
}
