package sqltree

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// PostgreSQL keeps what it resolved a statement or an expression to as a
// node tree: the text nodeToString writes (a CHECK's pg_constraint.conbin,
// an index's indpred and indexprs, a default's adbin, and a statement's
// rewritten tree that debug_print_rewritten sends to the client). That
// tree names every function, operator, type and relation by OID, the ones
// the server chose: implicit casts, the operators of ORDER BY, GROUP BY and
// DISTINCT, a function reached in attribute notation (t.f), an operator in
// a subquery's comparison, a column's default. Reading the OIDs from it,
// rather than names from the text, is what makes the guard hold by
// construction: what is not in the tree does not run, and what is in it
// is judged (Judge) by what the catalog says of that very object.

// Resolved is every object a resolved tree refers to by OID.
type Resolved struct {
	// Funcs are functions called: a function, an aggregate, a window
	// function, a cast's function, an operator's function, a tablesample
	// method's handler, a window frame's in-range support.
	Funcs map[uint32]bool
	// Ops are operators applied, including those ORDER BY, GROUP BY,
	// DISTINCT, a row comparison and a set operation chose.
	Ops map[uint32]bool
	// Types are the types of every value the tree makes or reads.
	Types map[uint32]bool
	// Rels are the relations it reads or writes (its range table) and the
	// sequences an identity column draws from.
	Rels map[uint32]bool
	// Sequences are the sequences the sequence functions (nextval, currval,
	// setval) are given as constants; Unbound says one was given anything else.
	Sequences map[uint32]bool
	Unbound   bool
	// Unknown are node types the reader does not know: what they would
	// run cannot be said, so a tree holding one is refused.
	Unknown []string
}

func newResolved() *Resolved {
	return &Resolved{Funcs: map[uint32]bool{}, Ops: map[uint32]bool{}, Types: map[uint32]bool{}, Rels: map[uint32]bool{}, Sequences: map[uint32]bool{}}
}

// Add merges o into r.
func (r *Resolved) Add(o *Resolved) {
	for _, p := range []struct{ to, from map[uint32]bool }{{r.Funcs, o.Funcs}, {r.Ops, o.Ops}, {r.Types, o.Types}, {r.Rels, o.Rels}, {r.Sequences, o.Sequences}} {
		for k := range p.from {
			p.to[k] = true
		}
	}
	r.Unbound = r.Unbound || o.Unbound
	for _, u := range o.Unknown {
		if !slices.Contains(r.Unknown, u) {
			r.Unknown = append(r.Unknown, u)
		}
	}
}

// The sequence functions, by OID (pg_proc.dat): nextval, currval and the
// two setval take the sequence as their first argument, a regclass.
var sequenceFunc = map[uint32]bool{1574: true, 1575: true, 1576: true, 1765: true}

const regclassType = 2205

// fieldKinds says, for each field that holds an OID of a catalog, which.
// A field is read wherever it appears: the names are PostgreSQL's struct
// fields (primnodes.h, parsenodes.h), the same in every major since 15.
var fieldKinds = map[string]byte{
	// functions
	"funcid": 'f', "aggfnoid": 'f', "winfnoid": 'f', "opfuncid": 'f', "hashfuncid": 'f', "negfuncid": 'f',
	"tsmhandler": 'f', "startInRangeFunc": 'f', "endInRangeFunc": 'f', "funcoid": 'f',
	// operators
	"opno": 'o', "opnos": 'o', "eqop": 'o', "sortop": 'o',
	// types
	"vartype": 't', "consttype": 't', "paramtype": 't', "funcresulttype": 't', "opresulttype": 't', "aggtype": 't',
	"aggtranstype": 't', "aggargtypes": 't', "wintype": 't', "resulttype": 't', "casetype": 't', "coalescetype": 't',
	"minmaxtype": 't', "array_typeid": 't', "element_typeid": 't', "row_typeid": 't', "refcontainertype": 't',
	"refelemtype": 't', "refrestype": 't', "typeId": 't', "coltypes": 't', "funccoltypes": 't', "colTypes": 't',
	"type": 't', "cycle_mark_type": 't', "msftype": 't', "cycle_mark_neop": 'o',
	// relations
	"relid": 'r', "seqid": 'r',
}

// nodeTypes are the node types a statement's or an expression's resolved
// tree may hold, as nodeToString names them in PostgreSQL 15 to 18. The
// OIDs they carry are in fieldKinds; a node type not here is Unknown.
var nodeTypes = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`QUERY RANGETBLENTRY RTEPERMISSIONINFO ALIAS RANGETBLFUNCTION TABLESAMPLECLAUSE FROMEXPR
		JOINEXPR RANGETBLREF TARGETENTRY VAR CONST PARAM AGGREF GROUPINGFUNC WINDOWFUNC SUBSCRIPTINGREF FUNCEXPR
		NAMEDARGEXPR OPEXPR DISTINCTEXPR NULLIFEXPR SCALARARRAYOPEXPR BOOLEXPR SUBLINK FIELDSELECT FIELDSTORE
		RELABELTYPE COERCEVIAIO ARRAYCOERCEEXPR CONVERTROWTYPEEXPR COLLATEEXPR CASEEXPR CASEWHEN CASETESTEXPR
		ARRAYEXPR ROWEXPR ROWCOMPAREEXPR COALESCEEXPR MINMAXEXPR SQLVALUEFUNCTION NULLTEST BOOLEANTEST
		COERCETODOMAIN COERCETODOMAINVALUE SETTODEFAULT NEXTVALUEEXPR INFERENCEELEM ONCONFLICTEXPR
		SORTGROUPCLAUSE GROUPINGSET WINDOWCLAUSE ROWMARKCLAUSE COMMONTABLEEXPR CTESEARCHCLAUSE CTECYCLECLAUSE
		SETOPERATIONSTMT WITHCHECKOPTION MERGEACTION MERGESUPPORTFUNC JSONFORMAT JSONRETURNING JSONVALUEEXPR
		JSONCONSTRUCTOREXPR JSONISPREDICATE JSONBEHAVIOR JSONEXPR RETURNINGEXPR`) {
		nodeTypes[n] = true
	}
}

// ReadTree reads one or more trees in nodeToString's text (a list of
// Query nodes, or one expression) and collects what they refer to.
func ReadTree(text string) (*Resolved, error) {
	t := &tokens{s: text}
	r := newResolved()
	for {
		tok, ok := t.next()
		if !ok {
			return r, nil
		}
		v, err := t.value(tok)
		if err != nil {
			return nil, err
		}
		r.collect(v)
	}
}

// value is a node, a list, or a scalar token.
type value struct {
	node *node
	list []value
	tok  string
}

type node struct {
	typ    string
	fields map[string][]value
}

type tokens struct {
	s string
	i int
}

// next is the next token as PostgreSQL's pg_strtok cuts them: one of ( )
// { }, or a run of other characters up to whitespace or one of those, a
// backslash escaping the character after it.
func (t *tokens) next() (string, bool) {
	for t.i < len(t.s) && (t.s[t.i] == ' ' || t.s[t.i] == '\n' || t.s[t.i] == '\t' || t.s[t.i] == '\r') {
		t.i++
	}
	if t.i >= len(t.s) {
		return "", false
	}
	start := t.i
	switch t.s[t.i] {
	case '(', ')', '{', '}':
		t.i++
		return t.s[start:t.i], true
	}
	for t.i < len(t.s) {
		c := t.s[t.i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '(' || c == ')' || c == '{' || c == '}' {
			break
		}
		if c == '\\' && t.i+1 < len(t.s) {
			t.i += 2
			continue
		}
		t.i++
	}
	return t.s[start:t.i], true
}

// value reads the value that starts with tok.
func (t *tokens) value(tok string) (value, error) {
	switch tok {
	case "{":
		n, err := t.node()
		return value{node: n}, err
	case "(":
		l, err := t.list()
		return value{list: l}, err
	case ")", "}":
		return value{}, fmt.Errorf("node tree: unexpected %q at %d", tok, t.i)
	}
	return value{tok: tok}, nil
}

func (t *tokens) list() ([]value, error) {
	var out []value
	for {
		tok, ok := t.next()
		if !ok {
			return nil, fmt.Errorf("node tree: a list not closed")
		}
		if tok == ")" {
			return out, nil
		}
		v, err := t.value(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func (t *tokens) node() (*node, error) {
	typ, ok := t.next()
	if !ok {
		return nil, fmt.Errorf("node tree: a node without a type")
	}
	n := &node{typ: typ, fields: map[string][]value{}}
	field := ""
	for {
		tok, ok := t.next()
		if !ok {
			return nil, fmt.Errorf("node tree: node %s not closed", typ)
		}
		if tok == "}" {
			return n, nil
		}
		if strings.HasPrefix(tok, ":") && len(tok) > 1 {
			field = tok[1:]
			n.fields[field] = nil
			continue
		}
		v, err := t.value(tok)
		if err != nil {
			return nil, err
		}
		n.fields[field] = append(n.fields[field], v)
	}
}

// collect adds what v refers to.
func (r *Resolved) collect(v value) {
	for _, e := range v.list {
		r.collect(e)
	}
	n := v.node
	if n == nil {
		return
	}
	if !nodeTypes[n.typ] && !slices.Contains(r.Unknown, n.typ) {
		r.Unknown = append(r.Unknown, n.typ)
	}
	for field, vals := range n.fields {
		kind := fieldKinds[field]
		for _, x := range vals {
			if kind != 0 {
				for _, oid := range oids(x) {
					if oid == 0 {
						continue
					}
					map[byte]map[uint32]bool{'f': r.Funcs, 'o': r.Ops, 't': r.Types, 'r': r.Rels}[kind][oid] = true
				}
			}
			r.collect(x)
		}
	}
	if n.typ == "FUNCEXPR" {
		if id := oids(first(n.fields["funcid"])); len(id) == 1 && sequenceFunc[id[0]] {
			r.sequenceArg(n)
		}
	}
}

// sequenceArg records the sequence a sequence function is given: a
// constant regclass (its value the OID), or Unbound.
func (r *Resolved) sequenceArg(call *node) {
	args := first(call.fields["args"]).list
	if len(args) == 0 || args[0].node == nil || args[0].node.typ != "CONST" {
		r.Unbound = true
		return
	}
	c := args[0].node
	if oids(first(c.fields["consttype"])) == nil || oids(first(c.fields["consttype"]))[0] != regclassType {
		r.Unbound = true
		return
	}
	// :constvalue 4 [ b0 b1 ... b7 ]: its length, then the Datum's 8 bytes
	// in the server's order: an OID's 4 come first on a little-endian server,
	// last on a big-endian one.
	var b []byte
	in := false
	for _, x := range c.fields["constvalue"] {
		switch {
		case x.tok == "[":
			in = true
		case x.tok == "]":
			in = false
		case in:
			// Each byte as a signed char: -107 is 0x95.
			n, err := strconv.ParseInt(x.tok, 10, 16)
			if err != nil || n < -128 || n > 255 {
				r.Unbound = true
				return
			}
			b = append(b, byte(n))
		}
	}
	if len(b) < 4 {
		r.Unbound = true
		return
	}
	oid := binary.LittleEndian.Uint32(b[:4])
	if oid == 0 && len(b) == 8 {
		oid = binary.BigEndian.Uint32(b[4:])
	}
	r.Sequences[oid] = true
}

func first(vals []value) value {
	if len(vals) == 0 {
		return value{}
	}
	return vals[0]
}

// oids reads an OID field's value: a number, or a list of them ("(o 1 2)").
func oids(v value) []uint32 {
	if v.tok != "" {
		if n, err := strconv.ParseUint(v.tok, 10, 32); err == nil {
			return []uint32{uint32(n)}
		}
		return nil
	}
	var out []uint32
	for _, e := range v.list {
		if e.tok != "" {
			if n, err := strconv.ParseUint(e.tok, 10, 32); err == nil {
				out = append(out, uint32(n))
			}
		}
	}
	return out
}
