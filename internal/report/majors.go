package report

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// majorsLines say a run over several PostgreSQL majors: each major's
// answer, then each key's work over the reference's on every major and
// whether that ratio holds from the first major to the later ones.
func majorsLines(m *results.Majors) []string {
	var out []string
	for _, a := range m.Answers {
		text := "no key's work was compared"
		if a.Answer != nil {
			text = a.Answer.Text
		}
		out = append(out, fmt.Sprintf("On PostgreSQL %d: %s", a.Major, text))
	}
	if len(m.Keys) == 0 {
		return out
	}
	var parts []string
	for _, k := range m.Keys {
		var on []string
		for _, r := range k.Ratios {
			on = append(on, fmt.Sprintf("%s on %d", stats.RatioText(r.Effect), r.Major))
		}
		s := k.Key + " " + strings.Join(on, ", ")
		for _, mv := range k.Moved {
			verdict := "holds"
			if mv.Significant {
				verdict = "moved"
			}
			s += fmt.Sprintf(": %s on %d (%s %s)", verdict, mv.Major, stats.RatioText(mv.Effect), mv.RatioText())
		}
		if k.Why != "" && len(k.Moved) == 0 {
			s += " (" + k.Why + ")"
		}
		parts = append(parts, s)
	}
	out = append(out, fmt.Sprintf("Across majors, each key's work over %s's, and that ratio on a later major over the first's (%s: Bonferroni over the keys): %s.",
		m.Reference, stats.LevelText(m.Level), strings.Join(parts, "; ")))
	return out
}

// answerLines are the run's answer as every output leads with it: each
// major's and how each key's ratio moved across them (a run over several
// majors), else the answer and, for a preset of frameworks' defaults, the
// answer in frameworks.
func answerLines(res *results.Results, a *results.Analysis) []string {
	switch {
	case a.Majors != nil:
		return majorsLines(a.Majors)
	case a.Answer == nil:
		return nil
	}
	out := []string{a.Answer.Text}
	if l := originsLine(res, a); l != "" {
		out = append(out, l)
	}
	return out
}
