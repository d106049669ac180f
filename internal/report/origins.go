package report

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// originsLine says the answer in frameworks (a preset whose keys are the
// frameworks' defaults: Plan.Origins): each key's frameworks with its
// work over the reference's, from the headline shape's comparisons, "no
// difference found" where its interval holds none; "" for a run without
// origins or without a compared shape.
func originsLine(res *results.Results, a *results.Analysis) string {
	os := res.Plan.Origins
	if len(os) == 0 || a.Answer == nil {
		return ""
	}
	var sh *results.Shape
	for i := range a.Shapes {
		if a.Shapes[i].Title == a.Answer.Shape {
			sh = &a.Shapes[i]
		}
	}
	if sh == nil || sh.Least == "" {
		return ""
	}
	whose := func(key string) string {
		var names []string
		for _, o := range os {
			if o.Key == key {
				names = append(names, o.Framework)
			}
		}
		return strings.Join(names, ", ")
	}
	var parts []string
	for _, g := range a.ShapeGroups(sh) {
		if g.Key == sh.Least || whose(g.Key) == "" {
			continue
		}
		v := g.Cost.Versus(sh.Least)
		switch {
		case v == nil || v.TooFew:
			parts = append(parts, fmt.Sprintf("%s (%s): not compared", whose(g.Key), g.Key))
		case !v.Significant:
			parts = append(parts, fmt.Sprintf("%s (%s): no difference found, %s %s", whose(g.Key), g.Key, stats.RatioText(v.Effect), v.RatioText()))
		default:
			parts = append(parts, fmt.Sprintf("%s (%s): %s %s", whose(g.Key), g.Key, stats.RatioText(v.Effect), v.RatioText()))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("In frameworks (each default's work over %s's, %s's default): %s.", sh.Least, whose(sh.Least), strings.Join(parts, "; "))
}
