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
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Name is a possibly qualified name as written (Schema empty when not).
type Name struct{ Schema, Name string }

// String is the name as SQL writes it.
func (n Name) String() string {
	if n.Schema == "" {
		return n.Name
	}
	return n.Schema + "." + n.Name
}

// Call is a function call as written.
type Call struct {
	Name
	Args []*pg.Node
	// Pos is its byte offset in the text parsed.
	Pos int
}

// Refs are what a tree names that runs code on the server: function
// calls, operators and the types values are cast to.
type Refs struct {
	Calls []Call
	Ops   []Name
	Types []Name
}

// Parse parses sql (one or more statements).
func Parse(sql string) (*pg.ParseResult, error) { return pg.Parse(sql) }

// RefsOf is everything tree names that runs code.
func RefsOf(tree *pg.ParseResult) Refs {
	var r Refs
	walk(tree.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.FuncCall:
			r.Calls = append(r.Calls, Call{Name: nameOf(x.Funcname), Args: x.Args, Pos: int(x.Location)})
		case *pg.A_Expr:
			switch x.Kind {
			case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
				// Its name is the syntax's; the comparisons it makes are < and >.
			default:
				r.Ops = append(r.Ops, nameOf(x.Name))
			}
		case *pg.TypeName:
			r.Types = append(r.Types, nameOf(x.Names))
		}
	})
	sort.SliceStable(r.Calls, func(i, j int) bool { return r.Calls[i].Pos < r.Calls[j].Pos })
	return r
}

// ExprRefs parses one SQL expression (a CHECK's, an index predicate's).
func ExprRefs(expr string) (Refs, error) {
	tree, err := Parse("SELECT " + expr)
	if err != nil {
		return Refs{}, err
	}
	return RefsOf(tree), nil
}

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
func nameOf(parts []*pg.Node) Name {
	var s []string
	for _, p := range parts {
		if str := p.GetString_(); str != nil {
			s = append(s, str.Sval)
		}
	}
	switch len(s) {
	case 0:
		return Name{}
	case 1:
		return Name{Name: s[0]}
	}
	return Name{Schema: s[len(s)-2], Name: s[len(s)-1]}
}

// StringArg is a call's argument i when it is a string constant (or one
// cast to a type: 'seq'::regclass), as a sequence function's is.
func StringArg(c Call, i int) (string, bool) {
	if i >= len(c.Args) {
		return "", false
	}
	n := c.Args[i]
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	if k := n.GetAConst(); k != nil {
		if s := k.GetSval(); s != nil {
			return s.Sval, true
		}
	}
	return "", false
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
