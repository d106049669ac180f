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

// MaxFunctionLines is the longest a function outside tests may be.
const MaxFunctionLines = 80

// sources are the non-test Go files of the module (testdata left out: it
// holds the reference programs of other projects' formats).
func sources(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestNoLongFunctions: no function of the module outside tests is longer
// than MaxFunctionLines: a longer one does several jobs.
func TestNoLongFunctions(t *testing.T) {
	fset := token.NewFileSet()
	for _, files := range sources(t) {
		for _, path := range files {
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > MaxFunctionLines {
					t.Errorf("%s: %s is %d lines (at most %d)", path, fd.Name.Name, n, MaxFunctionLines)
				}
			}
		}
	}
}

// TestEveryPackageSaysItsJob: every package (and the command) opens with a
// doc comment, "Package NAME …" or "Command NAME …".
func TestEveryPackageSaysItsJob(t *testing.T) {
	fset := token.NewFileSet()
	for dir, files := range sources(t) {
		found := false
		for _, path := range files {
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.PackageClauseOnly)
			if err != nil {
				t.Fatal(err)
			}
			if f.Doc != nil && (strings.HasPrefix(f.Doc.Text(), "Package "+f.Name.Name+" ") || strings.HasPrefix(f.Doc.Text(), "Command ")) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no package comment saying what the package is for", dir)
		}
	}
}
