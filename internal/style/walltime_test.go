package style

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// measured are the names a test gives to how long something took: a
// comparison of one with an upper bound times the machine, not keybench,
// and fails on a busy one.
var measured = map[string]bool{"took": true, "elapsed": true, "Elapsed": true, "DurationS": true, "Warmup": true, "LongestUnfinished": true}

// startNames are what a test calls the moment it started timing from.
var startNames = map[string]bool{"start": true, "begin": true, "began": true, "t0": true}

// timed says whether e is a wall-clock duration the test measured: a
// variable or field named as measured, or time.Since(start).
func timed(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return measured[x.Name]
	case *ast.SelectorExpr:
		return measured[x.Sel.Name]
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Since" && len(x.Args) == 1 {
			if id, ok := x.Args[0].(*ast.Ident); ok && startNames[id.Name] {
				return true
			}
		}
	case *ast.ParenExpr:
		return timed(x.X)
	}
	return false
}

// wallClockBounds lists, in one Go file, every comparison that bounds a
// measured duration from above ("took > 5*time.Second").
func wallClockBounds(t *testing.T, path string, src any) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		if (b.Op == token.GTR || b.Op == token.GEQ) && timed(b.X) || (b.Op == token.LSS || b.Op == token.LEQ) && timed(b.Y) {
			out = append(out, fset.Position(b.Pos()).String())
		}
		return true
	})
	return out
}

// TestNoTestTimesTheMachine (issue 52): no test compares how long
// something took with an upper bound — on a busy machine every such
// bound fails some day; a test asserts what was done (exit codes, rows,
// locks, transactions, what was left behind) and bench/ measures speed.
func TestNoTestTimesTheMachine(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata") {
			return err
		}
		for _, at := range wallClockBounds(t, p, nil) {
			t.Errorf("%s: a test bounds a measured duration from above", at)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTheWallClockCheckFails: the check finds the shapes it is for, and
// lets a lower bound (a window asked for 1 s ran at least 0.9 s: what was
// done) and a configured duration pass.
func TestTheWallClockCheckFails(t *testing.T) {
	src := `package x
import "time"
func f(start time.Time, took time.Duration, r struct{ Elapsed time.Duration; DurationS float64 }, hold time.Duration) bool {
	return took > 5*time.Second || time.Since(start) > time.Second || 2*time.Second < r.Elapsed || r.DurationS > 1.5 ||
		r.DurationS < 0.9 || hold > 10*time.Second
}`
	got := wallClockBounds(t, "x_test.go", src)
	if len(got) != 4 {
		t.Errorf("found %d upper bounds on measured durations, want 4: %v", len(got), got)
	}
}
