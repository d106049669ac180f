package script

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/keybench/keybench/internal/sqltree"
)

// A script is pgbench's (-f FILE) within what keybench can measure against
// each key: SQL commands, each ending with a semicolon at the end of a
// line, run in order as one transaction of the cell (BEGIN and COMMIT in
// it pass through); "--" comment lines; and \set NAME EXPR, EXPR an
// integer, :rows, :client_id or random(LO, HI) of those. In SQL, :table is
// the keyed table keybench makes for each key (a name, written into the
// statement), :key a fresh key of the cell's strategy (one per
// transaction, a parameter), and :NAME a \set variable, :rows the table's
// prefilled rows, :client_id the client (parameters). A script must name
// :table; only the statements that do count rows toward the row check.

// Reserved variables: what keybench sets, never \set.
const (
	varTable  = "table"
	varKey    = "key"
	varRows   = "rows"
	varClient = "client_id"
)

// script is a parsed script: its steps in order.
type script struct {
	steps []step
	// usesKey says a statement names :key (the key must be made by keybench).
	usesKey bool
}

// step is a \set or a statement.
type step struct {
	set  *assignment
	stmt *statement
}

// assignment is \set NAME EXPR.
type assignment struct {
	name string
	expr expr
}

// expr is an integer, a variable, or random(lo, hi) of those.
type expr struct {
	random  bool
	lo, hi  operand
	operand operand
}

// operand is an integer or a variable (rows, client_id, a \set one).
type operand struct {
	value int64
	name  string
}

// statement is one SQL command: its text with :table written in and each
// other variable a parameter ($1 …), params naming them in order.
type statement struct {
	sql     string
	params  []string
	onTable bool
	line    int
	// keyText: the server typed :key otherwise than the key column, so it
	// goes in its printed form.
	keyText bool
	// control: BEGIN, COMMIT or ROLLBACK, which the server need not resolve.
	control bool
}

var (
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	setRE   = regexp.MustCompile(`^\\set\s+(\S+)\s+(.+)$`)
	randRE  = regexp.MustCompile(`^random\(\s*([^,\s]+)\s*,\s*([^)\s]+)\s*\)$`)
)

// parse reads a script; table is the keyed table's qualified name.
func parse(r io.Reader, table string) (*script, error) {
	s := &script{}
	vars := map[string]bool{varRows: true, varClient: true}
	var sql strings.Builder
	start := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxScriptBytes+1)
	flush := func() error {
		text := strings.TrimSpace(sql.String())
		sql.Reset()
		if text == "" {
			return nil
		}
		st, err := parseStatement(text, table, vars, start)
		if err != nil {
			return err
		}
		s.usesKey = s.usesKey || slices.Contains(st.params, varKey)
		s.steps = append(s.steps, step{stmt: st})
		return nil
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // a byte-order mark, as editors on Windows write
		}
		trim := strings.TrimSpace(line)
		switch {
		case sql.Len() == 0 && (trim == "" || strings.HasPrefix(trim, "--")):
			continue
		case sql.Len() == 0 && strings.HasPrefix(trim, `\`):
			a, err := parseSet(trim, vars, n)
			if err != nil {
				return nil, err
			}
			vars[a.name] = true
			s.steps = append(s.steps, step{set: a})
			continue
		}
		if sql.Len() == 0 {
			start = n
		}
		sql.WriteString(line + "\n")
		if strings.Contains(trim, ";") && sqltree.EndsStatement(sql.String()) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return s, s.check()
}

// check refuses a script without statements or one that never names :table.
func (s *script) check() error {
	onTable := false
	for _, st := range s.steps {
		if st.stmt != nil && st.stmt.onTable {
			onTable = true
		}
	}
	switch {
	case len(s.steps) == 0:
		return fmt.Errorf("it holds no SQL command")
	case !onTable:
		return fmt.Errorf("it never names :table, the keyed table keybench makes for each key (INSERT INTO :table (id, data, payload) VALUES (:key, ...))")
	}
	return nil
}

// parseSet reads a \set line (pgbench's other meta-commands are refused).
func parseSet(line string, vars map[string]bool, n int) (*assignment, error) {
	m := setRE.FindStringSubmatch(line)
	if m == nil {
		cmd, _, _ := strings.Cut(line, " ")
		return nil, fmt.Errorf("line %d: %s is not supported (keybench runs \\set NAME EXPR and SQL commands)", n, cmd)
	}
	name, text := m[1], strings.TrimSpace(m[2])
	if !identRE.MatchString(name) {
		return nil, fmt.Errorf("line %d: %q is not a variable name", n, name)
	}
	if name == varTable || name == varKey || name == varRows || name == varClient {
		return nil, fmt.Errorf("line %d: :%s is keybench's own variable, not one to \\set", n, name)
	}
	var e expr
	if r := randRE.FindStringSubmatch(text); r != nil {
		lo, err := parseOperand(r[1], vars, n)
		if err != nil {
			return nil, err
		}
		hi, err := parseOperand(r[2], vars, n)
		if err != nil {
			return nil, err
		}
		if lo.name == "" && hi.name == "" && hi.value < lo.value {
			return nil, fmt.Errorf("line %d: random(%d, %d): the upper bound is below the lower", n, lo.value, hi.value)
		}
		e = expr{random: true, lo: lo, hi: hi}
	} else {
		o, err := parseOperand(text, vars, n)
		if err != nil {
			return nil, fmt.Errorf("%v (an integer, a variable or random(lo, hi))", err)
		}
		e = expr{operand: o}
	}
	return &assignment{name: name, expr: e}, nil
}

func parseOperand(s string, vars map[string]bool, n int) (operand, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return operand{value: v}, nil
	}
	name, ok := strings.CutPrefix(s, ":")
	if !ok || !vars[name] {
		return operand{}, fmt.Errorf("line %d: %q is neither an integer nor a variable set before it", n, s)
	}
	return operand{name: name}, nil
}

// parseStatement writes :table into the statement and turns every other
// variable into a parameter, leaving quoted text and :: casts alone.
func parseStatement(text, table string, vars map[string]bool, line int) (*statement, error) {
	st := &statement{line: line}
	var out strings.Builder
	param := map[string]int{}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\'' || c == '"':
			j := closing(text, i)
			out.WriteString(text[i:j])
			i = j - 1
		case c == ':' && i+1 < len(text) && text[i+1] == ':':
			out.WriteString("::")
			i++
		case c == ':' && i+1 < len(text) && isIdentStart(text[i+1]):
			j := i + 1
			for j < len(text) && isIdent(text[j]) {
				j++
			}
			name := text[i+1 : j]
			switch {
			case name == varTable:
				out.WriteString(table)
				st.onTable = true
			case name == varKey || vars[name]:
				k, ok := param[name]
				if !ok {
					st.params = append(st.params, name)
					k = len(st.params)
					param[name] = k
				}
				fmt.Fprintf(&out, "$%d", k)
			default:
				return nil, fmt.Errorf("line %d: :%s is not a variable (keybench's are :table, :key, :rows and :client_id; others come from \\set before it)", line, name)
			}
			i = j - 1
		default:
			out.WriteByte(c)
		}
	}
	st.sql = trimEnd(out.String())
	control, why := sqltree.ScriptStatement(st.sql)
	if why != "" {
		return nil, fmt.Errorf("line %d is refused: %s (%s)", line, why, allowed)
	}
	st.control = control
	return st, nil
}

// trimEnd is a statement without its closing semicolon and any comment
// after it.
func trimEnd(sql string) string {
	sql = strings.TrimSpace(sql)
	for i := len(sql) - 1; i >= 0; i-- {
		if sql[i] == ';' && sqltree.EndsStatement(sql[:i+1]) {
			return strings.TrimSpace(sql[:i])
		}
	}
	return sql
}

// closing is the index after the quote that closes the one at i (a
// doubled quote inside stays inside), or the text's end.
func closing(text string, i int) int {
	q := text[i]
	for j := i + 1; j < len(text); j++ {
		if text[j] == q {
			if j+1 < len(text) && text[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(text)
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }
