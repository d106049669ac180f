// Package sqltree reads SQL the way PostgreSQL does — by its own parser,
// libpg_query, through pganalyze's pg_query_go — and says what a
// statement or expression names: the functions it calls, the operators
// it applies and the types it casts to. keybench runs SQL it did not
// write on servers it does not own (a user's script, a copied table's
// CHECK constraints and index predicates); what that SQL may call is
// decided from its tree and the server's catalog (Vet), never from its
// text.
//
// pg_query_go (cgo) over its WebAssembly build (wasilibs/go-pgquery): the
// same parser and the same tree types, but a parse costs microseconds
// rather than a runtime's compile of over a second in each process, and a
// fresh build of either takes about as long here.
package sqltree

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Parse parses sql (one or more statements).
func Parse(sql string) (*pg.ParseResult, error) { return pg.Parse(sql) }

// walk calls f on m and on every message below it.
func walk(m protoreflect.Message, f func(protoreflect.Message)) {
	f(m)
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind || fd.IsMap() || !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walk(l.Get(i).Message(), f)
			}
			continue
		}
		walk(v.Message(), f)
	}
}

// nameOf reads a name list ([schema,] name) of String nodes.
func nameOf(parts []*pg.Node) (schema, name string) {
	var s []string
	for _, p := range parts {
		if str := p.GetString_(); str != nil {
			s = append(s, str.Sval)
		}
	}
	switch len(s) {
	case 0:
		return "", ""
	case 1:
		return "", s[0]
	}
	return s[len(s)-2], s[len(s)-1]
}

// ScriptStatement checks one statement of a user's script by PostgreSQL's
// own parser alone, before anything of it reaches a server: it must be
// exactly one statement, and that one a query — SELECT, VALUES, TABLE,
// INSERT, UPDATE, DELETE or MERGE, each with its WITH, no SELECT INTO — or
// the transaction control a script may hold (BEGIN, START TRANSACTION,
// COMMIT, END, ROLLBACK). control says it is the latter; why says why it
// is refused ("" when it is not).
func ScriptStatement(sql string) (control bool, why string) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return false, "PostgreSQL's parser does not read it: " + FirstLine(err.Error())
	}
	switch len(tree.Stmts) {
	case 0:
		return false, "it holds no statement"
	case 1:
	default:
		return false, fmt.Sprintf("it holds %d statements; a script runs one statement a command, each ending with ';' at the end of its line", len(tree.Stmts))
	}
	n := tree.Stmts[0].GetStmt()
	switch {
	case n.GetTransactionStmt() != nil:
		switch n.GetTransactionStmt().Kind {
		case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START, pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			if len(n.GetTransactionStmt().Options) == 0 && !n.GetTransactionStmt().Chain {
				return true, ""
			}
		}
		return false, "a script's transaction control is BEGIN, COMMIT or ROLLBACK alone"
	case n.GetSelectStmt() != nil, n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil, n.GetDeleteStmt() != nil, n.GetMergeStmt() != nil:
	default:
		return false, "it is not a query (SELECT, INSERT, UPDATE, DELETE, MERGE): a script runs no other statement"
	}
	why = ""
	walk(tree.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.SelectStmt:
			if x.IntoClause != nil {
				why = "SELECT INTO creates a table: a script runs no other statement than a query"
			}
		case *pg.TypeName:
			// The server reads a literal of a type as it parses, running the
			// type's input (a domain's CHECK, a composite's columns'): only
			// PostgreSQL's own types, found by the session's pinned path, may
			// be named; a name of an object's reference type other than
			// regclass would run a lookup no tree shows.
			// A type of another schema is judged by the server's catalog
			// (JudgeNamedTypes) before the statement is parsed there: an
			// allowed extension's type passes, anything else is refused. Its
			// typmod would run the type's typmod input as it parses.
			schema, name := nameOf(x.Names)
			switch {
			case schema != "" && schema != "pg_catalog" && len(x.Typmods) > 0:
				why = fmt.Sprintf("it gives the type %s.%s a modifier, which that type's own code reads: a script gives modifiers to PostgreSQL's own types alone", schema, name)
			case refTypeNames[name]:
				why = fmt.Sprintf("it casts to %s, a reference to a catalog object whose lookup no statement shows", name)
			}
		}
	})
	return false, why
}

// ScriptTypes are the types sql names in a schema other than pg_catalog,
// each as [schema, name]: what JudgeNamedTypes judges before the server
// parses sql (and reads a literal of the type with its input function).
// A call of a qualified name is one too, marked by a third element "call":
// where no function has that name the server takes it for a cast to the
// type of that name (public.a_range('[a,b]')), read as it parses.
func ScriptTypes(sql string) [][3]string {
	tree, err := pg.Parse(sql)
	if err != nil {
		return nil
	}
	var out [][3]string
	walk(tree.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.TypeName:
			if schema, name := nameOf(x.Names); schema != "" && schema != "pg_catalog" {
				out = append(out, [3]string{schema, name, ""})
			}
		case *pg.FuncCall:
			if schema, name := nameOf(x.Funcname); schema != "" && schema != "pg_catalog" {
				out = append(out, [3]string{schema, name, "call"})
			}
		}
	})
	return out
}

// JudgeNamedTypes judges the types named (ScriptTypes) by the catalog
// alone, before anything is parsed on the server: each must be a type the
// rule allows (Judge: an allowed extension's type for a script; never a
// domain or a type of the user's). A name no type holds is refused, but
// for a call's (a function's, judged once the server resolved it).
func JudgeNamedTypes(ctx context.Context, q Querier, names [][3]string, rule Rule, at Scope) (string, error) {
	r := newResolved()
	for _, n := range names {
		rows, err := q.Query(ctx, `SELECT t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace s ON s.oid = t.typnamespace WHERE s.nspname = $1 AND t.typname = $2`, n[0], n[1])
		if err != nil {
			return "", fmt.Errorf("reading the catalog's types: %w", err)
		}
		oids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
		if err != nil {
			return "", fmt.Errorf("reading the catalog's types: %w", err)
		}
		if len(oids) == 0 && n[2] == "" {
			return fmt.Sprintf("it names the type %s.%s, which this database does not have", n[0], n[1]), nil
		}
		for _, o := range oids {
			r.Types[o] = true
		}
	}
	if len(r.Types) == 0 {
		return "", nil
	}
	return Judge(ctx, q, r, rule, at)
}

// refTypeNames are the types whose values name catalog objects (regclass
// aside: a sequence function's argument).
var refTypeNames = map[string]bool{"regtype": true, "regproc": true, "regprocedure": true, "regoper": true, "regoperator": true,
	"regconfig": true, "regdictionary": true, "regnamespace": true, "regrole": true, "regcollation": true}

// FirstLine is the first line of s (a server's or parser's message).
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// NeedsQuoting says whether a name must be quoted to be read as itself:
// anything but lower-case letters, digits and _, or a keyword PostgreSQL
// reserves in some position, as its own scanner reads it.
func NeedsQuoting(name string) bool {
	if name == "" {
		return true
	}
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return true
		}
	}
	scan, err := pg.Scan(name)
	if err != nil || len(scan.Tokens) != 1 {
		return true
	}
	k := scan.Tokens[0].KeywordKind
	return k != pg.KeywordKind_NO_KEYWORD && k != pg.KeywordKind_UNRESERVED_KEYWORD
}

// Printable is a name of the user's catalog as a message prints it: as SQL
// quotes it where it needs quoting, and any control character in it (a
// newline in a table's name) escaped (EscapeControls), so that a name
// never breaks a line or moves a terminal's cursor.
func Printable(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if !plain {
		name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return EscapeControls(name)
}

// EscapeControls writes a control character in s (a newline, a terminal
// escape, a line separator) as its escape, for text of the user's (a name
// the server already quoted) printed in a message.
func EscapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// EndsStatement says whether text, as PostgreSQL's own scanner reads it,
// ends a statement: its last token but comments is a semicolon outside
// any quote or comment ("SELECT 1; -- done" does; "SELECT ';" and an
// unclosed $$ body do not).
func EndsStatement(text string) bool {
	scan, err := pg.Scan(text)
	if err != nil {
		return false
	}
	for i := len(scan.Tokens) - 1; i >= 0; i-- {
		switch scan.Tokens[i].Token {
		case pg.Token_SQL_COMMENT, pg.Token_C_COMMENT:
			continue
		case pg.Token_ASCII_59:
			return true
		}
		return false
	}
	return false
}
