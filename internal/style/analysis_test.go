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

// calls lists, for every non-test file, the calls PKG.FUNC(…) it makes of
// the packages it imports by those names (a method call on a value is not
// one: its receiver is no package).
func calls(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := filepath.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imported[name] = true
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := call.Fun
		if ix, ok := fun.(*ast.IndexExpr); ok { // a generic call: pkg.F[T](…)
			fun = ix.X
		}
		if sel, ok := fun.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && imported[id.Name] {
				out = append(out, id.Name+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

// TestOneAnalysis (issue 47): the verdict is computed once per results, by
// package verdict (Analyze, called by verdict itself when it writes or
// reads results: at most two places), and nothing outside it groups or
// compares the cells. (project --check hands verdict.Analyze itself to
// projection.CheckScales, which lies below verdict, to analyse subsets of
// a run as a run is analysed: still the one analysis.)
func TestOneAnalysis(t *testing.T) {
	sites := 0
	for dir, files := range sources(t) {
		for _, path := range files {
			b, _ := os.ReadFile(path)
			if strings.Contains(string(b), "BuildGroups") {
				t.Errorf("%s still calls BuildGroups", path)
			}
			for _, c := range calls(t, path) {
				if c == "verdict.Analyze" {
					t.Errorf("%s analyses results itself (verdict.Read or verdict.Write do)", path)
				}
			}
			if filepath.Base(dir) != "verdict" {
				continue
			}
			f, _ := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "Analyze" {
						sites++
					}
				}
				return true
			})
		}
	}
	if sites == 0 || sites > 2 {
		t.Errorf("Analyze is called from %d places of package verdict, want 1 or 2", sites)
	}
}

// TestReportOnlyRenders (issue 47): no file of package report calls the
// statistics (a test, an adjustment, a summary) or a projection: it reads
// the analysis and what package projection made, and lays them out. Of
// package stats it may call only the helpers that name things: the words
// for a test, a percentage, the fewest samples an interval needs.
func TestReportOnlyRenders(t *testing.T) {
	words := map[string]bool{"stats.Describe": true, "stats.Percent": true, "stats.MinIntervalSamples": true, "stats.LevelText": true}
	files := sources(t)[filepath.Join("..", "..", "internal", "report")]
	if len(files) == 0 {
		t.Fatal("no files of package report found")
	}
	for _, path := range files {
		for _, c := range calls(t, path) {
			pkg, _, _ := strings.Cut(c, ".")
			if (pkg == "stats" && !words[c]) || pkg == "projection" || pkg == "verdict" {
				t.Errorf("%s calls %s: report renders, package verdict decides", path, c)
			}
		}
	}
}

// TestNoBlankImportOfTheCatalog (issue 47): what needs the workloads
// imports their catalog and calls it (all.Workloads, all.Views); no file,
// test or not, makes them known by a blank import as a side effect.
func TestNoBlankImportOfTheCatalog(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if strings.HasSuffix(strings.Trim(imp.Path.Value, `"`), "/workload/all") && imp.Name != nil && imp.Name.Name == "_" {
				t.Errorf("%s imports the workload catalog blank", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
