package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestBriefFitsTheFirstScreen: a run's first screen is at most BriefLines
// lines at 80 columns, and names every key of its shape with its cost
// against the cheapest.
func TestBriefFitsTheFirstScreen(t *testing.T) {
	for _, name := range []string{"war-busy", "aa"} {
		r := readCost(t, name)
		var out bytes.Buffer
		Brief(r).Write(&out, BriefWidth)
		text := strings.TrimRight(out.String(), "\n")
		lines := strings.Split(text, "\n")
		if len(lines) > BriefLines {
			t.Errorf("%s: %d lines:\n%s", name, len(lines), text)
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > BriefWidth {
				t.Errorf("%s: a line of %d columns: %s", name, n, l)
			}
		}
		for _, k := range r.Plan.Keys {
			if !strings.Contains(text, "│ "+k+" ") {
				t.Errorf("%s: the first screen lacks %s:\n%s", name, k, text)
			}
		}
	}
}
