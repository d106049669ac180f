package report

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/present"
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
	if sh == nil {
		return ""
	}
	ref := cmp.Or(sh.Least, res.Plan.Against)
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
		if g.Key == ref || whose(g.Key) == "" {
			continue
		}
		head := fmt.Sprintf("%s (%s): ", whose(g.Key), g.Key)
		v := g.Cost.Versus(ref)
		switch {
		case v == nil || v.TooFew:
			parts = append(parts, head+present.Work.Text(res, g)+" a transaction, not compared")
		case !v.Significant:
			parts = append(parts, head+"no difference found, "+stats.RatioText(v.Effect)+" "+v.RatioText())
		default:
			parts = append(parts, head+stats.RatioText(v.Effect)+" "+v.RatioText())
		}
	}
	if len(parts) == 0 {
		return ""
	}
	if sh.Least == "" {
		return fmt.Sprintf("In frameworks (each default's work, %s's default %s): %s.", whose(ref), groupWork(res, a, sh, ref), strings.Join(parts, "; "))
	}
	return fmt.Sprintf("In frameworks (each default's work over %s's, %s's default): %s.", ref, whose(ref), strings.Join(parts, "; "))
}

// groupWork is key's work in the shape as every output prints it ("-"
// where the shape has no such key).
func groupWork(res *results.Results, a *results.Analysis, sh *results.Shape, key string) string {
	if g := a.GroupOf(sh, key); g != nil {
		return present.Work.Text(res, g) + " a transaction"
	}
	return "-"
}
