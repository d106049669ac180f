package report

import (
	"regexp"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

// TestOneNameOneFigure: across every level's declarations (Figures), a
// JSON name is one figure's (one header, one statistic) and a header is
// one figure's (one name), and every name is snake_case.
func TestOneNameOneFigure(t *testing.T) {
	byName, byHeader := map[string]results.Figure{}, map[string]results.Figure{}
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for _, f := range Figures() {
		if f.Name != "" {
			if !snake.MatchString(f.Name) {
				t.Errorf("%q (%s): a name not in snake_case", f.Name, f.Header)
			}
			if g, ok := byName[f.Name]; ok && (g.Header != f.Header || g.Statistic != f.Statistic) {
				t.Errorf("name %q is two figures: %q (%s) and %q (%s)", f.Name, g.Header, g.Statistic, f.Header, f.Statistic)
			}
			byName[f.Name] = f
		}
		if g, ok := byHeader[f.Header]; ok && g.Name != "" && f.Name != "" && g.Name != f.Name {
			t.Errorf("header %q is two figures: %s and %s", f.Header, g.Name, f.Name)
		}
		if f.Header == "" {
			t.Errorf("%s: a figure without a header", f.Name)
		}
		byHeader[f.Header] = f
	}
}
