package sqltree

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Verb is what a statement does to a table.
type Verb int

// The verbs.
const (
	Insert Verb = iota
	Update
	Delete
	Read
)

// By is how a read finds the table's rows: by its key's value (a point:
// key = …, key IN …, a join on the key), by a range of its key (key < …,
// BETWEEN, ORDER BY key), or otherwise (another column, the whole table).
type By int

// How a read finds its rows.
const (
	ByOther By = iota
	ByRange
	ByPoint
)

// Use is one thing a statement does to a table: its verb, for a read how
// it finds the rows, and whether it is the statement itself (an INSERT at
// the top, whose rows are the statement's) rather than part of it (a CTE's).
type Use struct {
	Verb     Verb
	By       By
	TopLevel bool
}

// Uses is what the statements of tree do to the table schema.name whose
// key column is key, as their trees say: each INSERT, UPDATE and DELETE
// whose target is the table, and each SELECT (a CTE's, a subquery's, an
// INSERT's source) that reads it in its FROM, by how its conditions and
// order use the key. A name without a schema is taken for the table; a DO
// block's body is not read (pg_stat_statements counts its statements apart
// with track = all).
func Uses(tree *pg.ParseResult, schema, name, key string) []Use {
	var out []Use
	top := map[*pg.InsertStmt]bool{}
	for _, s := range tree.Stmts {
		if n := s.GetStmt(); n != nil {
			if ins := n.GetInsertStmt(); ins != nil {
				top[ins] = true
			}
		}
	}
	walk(tree.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.InsertStmt:
			if names(x.Relation, schema, name) {
				out = append(out, Use{Verb: Insert, TopLevel: top[x]})
			}
		case *pg.UpdateStmt:
			if names(x.Relation, schema, name) {
				out = append(out, Use{Verb: Update})
			}
		case *pg.DeleteStmt:
			if names(x.Relation, schema, name) {
				out = append(out, Use{Verb: Delete})
			}
		case *pg.SelectStmt:
			aliases := map[string]bool{}
			var quals []*pg.Node
			for _, f := range x.FromClause {
				from(f, schema, name, aliases, &quals)
			}
			if len(aliases) > 0 {
				out = append(out, Use{Verb: Read, By: readBy(x, aliases, quals, key)})
			}
		}
	})
	return out
}

// names says whether a relation named in a statement is the table.
func names(r *pg.RangeVar, schema, name string) bool {
	return r != nil && r.Relname == name && (r.Schemaname == "" || r.Schemaname == schema)
}

// from collects, from one item of a FROM clause, the names the table goes
// by there (its alias, or its name) and the join conditions around it; a
// subquery in it is a SELECT of its own.
func from(n *pg.Node, schema, name string, aliases map[string]bool, quals *[]*pg.Node) {
	switch {
	case n.GetRangeVar() != nil:
		if r := n.GetRangeVar(); names(r, schema, name) {
			if r.Alias != nil && r.Alias.Aliasname != "" {
				aliases[r.Alias.Aliasname] = true
			} else {
				aliases[r.Relname] = true
			}
		}
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		from(j.Larg, schema, name, aliases, quals)
		from(j.Rarg, schema, name, aliases, quals)
		if j.Quals != nil {
			*quals = append(*quals, j.Quals)
		}
	}
}

// readBy is how a SELECT that reads the table (by the names in aliases)
// finds its rows: a point where a condition sets the key equal to
// something (or IN a list), a range where one compares it or the rows are
// ordered by it, else other. A subquery's own conditions are its own.
func readBy(sel *pg.SelectStmt, aliases map[string]bool, quals []*pg.Node, key string) By {
	by := ByOther
	if sel.WhereClause != nil {
		quals = append(quals, sel.WhereClause)
	}
	for _, q := range quals {
		conditions(q, func(e *pg.A_Expr) {
			if !isKey(e.Lexpr, aliases, key) && !isKey(e.Rexpr, aliases, key) {
				return
			}
			_, op := nameOf(e.Name)
			switch e.Kind {
			case pg.A_Expr_Kind_AEXPR_OP:
				switch op {
				case "=":
					by = max(by, ByPoint)
				case "<", ">", "<=", ">=":
					by = max(by, ByRange)
				}
			case pg.A_Expr_Kind_AEXPR_IN, pg.A_Expr_Kind_AEXPR_OP_ANY:
				if op == "=" {
					by = max(by, ByPoint)
				}
			case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM:
				by = max(by, ByRange)
			}
		})
	}
	for _, s := range sel.SortClause {
		if sb := s.GetSortBy(); sb != nil && isKey(sb.Node, aliases, key) {
			by = max(by, ByRange)
		}
	}
	return by
}

// conditions calls f on each operator expression of a condition, through
// AND, OR and NOT, not into a subquery.
func conditions(n *pg.Node, f func(*pg.A_Expr)) {
	switch {
	case n == nil:
	case n.GetAExpr() != nil:
		f(n.GetAExpr())
	case n.GetBoolExpr() != nil:
		for _, a := range n.GetBoolExpr().Args {
			conditions(a, f)
		}
	}
}

// isKey says whether an expression is the table's key column (through a
// cast): key, or alias.key with alias a name the table goes by.
func isKey(n *pg.Node, aliases map[string]bool, key string) bool {
	if n == nil {
		return false
	}
	if tc := n.GetTypeCast(); tc != nil {
		return isKey(tc.Arg, aliases, key)
	}
	c := n.GetColumnRef()
	if c == nil {
		return false
	}
	qualifier, name := nameOf(c.Fields)
	return name == key && (qualifier == "" || aliases[qualifier])
}
