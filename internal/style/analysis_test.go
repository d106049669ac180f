package style

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
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
	words := map[string]bool{"stats.Describe": true, "stats.Percent": true, "stats.MinIntervalSamples": true, "stats.LevelText": true, "stats.RatioText": true, "stats.BoundText": true, "stats.FamilyWords": true}
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

// TestNoRendererReadsASentence (issue 61): a renderer decides on the
// analysis's typed fields, never on its words: no call of strings'
// matchers (Contains, HasPrefix, …) and no comparison with a string
// literal has a field of a value (x.F) as its subject, in packages report
// and present. A key's name (Key) and an enum declared as constants are
// named, not read.
func TestNoRendererReadsASentence(t *testing.T) {
	matchers := map[string]bool{"Contains": true, "ContainsAny": true, "ContainsRune": true, "HasPrefix": true,
		"HasSuffix": true, "Index": true, "EqualFold": true, "Cut": true, "Fields": true, "Split": true}
	names := map[string]bool{"Key": true}
	field := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		return sel.Sel.Name, !names[sel.Sel.Name]
	}
	for _, pkg := range []string{"report", "present"} {
		files := sources(t)[filepath.Join("..", "..", "internal", pkg)]
		if len(files) == 0 {
			t.Fatalf("no files of package %s found", pkg)
		}
		for _, path := range files {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || len(n.Args) == 0 {
						return true
					}
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "strings" && matchers[sel.Sel.Name] {
						if name, ok := field(n.Args[0]); ok {
							t.Errorf("%s: strings.%s reads the text of .%s", fset.Position(n.Pos()), sel.Sel.Name, name)
						}
					}
				case *ast.BinaryExpr:
					if n.Op != token.EQL && n.Op != token.NEQ {
						return true
					}
					for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
						lit, ok := pair[1].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING || lit.Value == `""` { // "" asks whether a field is set, not what it says
							continue
						}
						if name, ok := field(pair[0]); ok {
							t.Errorf("%s: .%s compared with the words %s", fset.Position(n.Pos()), name, lit.Value)
						}
					}
				}
				return true
			})
		}
	}
}

// TestResultsDecodeWithAPassedCatalog (issue 61): package results keeps no
// catalog of its own filled at start-up (no init, no Register): a results
// file is read with the workloads' catalog its reader passes
// (results.Read, verdict.Read: all.Kinds()), so what it means does not
// depend on what the binary happens to link.
func TestResultsDecodeWithAPassedCatalog(t *testing.T) {
	files := sources(t)[filepath.Join("..", "..", "internal", "results")]
	if len(files) == 0 {
		t.Fatal("no files of package results found")
	}
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && (fd.Name.Name == "init" || fd.Name.Name == "Register") {
				t.Errorf("%s declares %s: results reads with the catalog it is passed", path, fd.Name.Name)
			}
		}
	}
}

// TestNoExponentInAFigure (issue 61): the packages that write figures for
// a reader (report, present, advise, projection, runner) write them
// through results.Significant or results.Digits, never with a %.Ng verb
// or FormatFloat's 'g', which print 8.9e-05 or 1.23e+03 ms and round apart
// from the same figure on another output (5.89 ms on one, 5.9 on the
// other). A p-value keeps its %g ("p=%.2g").
func TestNoExponentInAFigure(t *testing.T) {
	verb := regexp.MustCompile(`%\.[0-9]+g|'g', [0-9]`)
	for _, pkg := range []string{"report", "present", "advise", "projection", "runner"} {
		for _, path := range sources(t)[filepath.Join("..", "..", "internal", pkg)] {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if verb.MatchString(line) && !strings.Contains(line, "p=%") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d: a figure written with %q: %s", path, i+1, verb.FindString(line), strings.TrimSpace(line))
				}
			}
		}
	}
}
