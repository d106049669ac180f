package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/verdict"
)

type compareCmd struct {
	A    string `arg:"" name:"baseline.json" type:"existingfile" help:"The baseline results.json."`
	B    string `arg:"" name:"other.json" type:"existingfile" help:"The results.json to compare with it."`
	HTML string `name:"html" help:"Also write the comparison as an HTML page."`
	// FailOn makes compare a regression gate for CI.
	FailOn    string `name:"fail-on" placeholder:"PERCENT|MEASURE=PERCENT,..." help:"A regression gate: exit 1 when a measure of other.json is significantly worse than the baseline's by more than PERCENT — the rate, the latency's p50, p99 and p99.9 (each round's), the work per transaction (between runs whose work holds the same parts), the WAL per transaction — and 3 when a measure can be neither shown to regress nor cleared of it (the rounds that would decide it are said); 5% gates every measure, p99=10%,rate=5% each its own (the measures not named are not gated)."`
	exports   `embed:""`
	overwrite `embed:""`
}

func (c *compareCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return c.run(e) })
}

func (c *compareCmd) run(e *env) error {
	gate, err := parseGate(c.FailOn)
	if err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	outs := c.targets()
	if c.HTML != "" {
		outs = append(outs, output{"--html", c.HTML})
	}
	if err := checkOutputs(outs, []string{c.A, c.B}, c.Force); err != nil {
		return err
	}
	a, err := readResults(c.A)
	if err != nil {
		return usagef("%v", err)
	}
	b, err := readResults(c.B)
	if err != nil {
		return usagef("%v", err)
	}
	cmp := verdict.Compare(c.A, c.B, a, b)
	if len(cmp.Rows) == 0 {
		return usagef("%s and %s have no measurement in common (same key, workload, clients and table size)", c.A, c.B)
	}
	report.CompareDoc(cmp).Write(&printable{w: e.stdout}, e.width(e.stdout))
	if err := c.writeDoc(e, report.CompareDoc(cmp), cmp); err != nil {
		return err
	}
	if c.HTML != "" {
		page, err := report.RenderComparison(cmp)
		if err != nil {
			return err
		}
		if err := results.WriteFileAtomic(c.HTML, page); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "comparison: %s\n", c.HTML)
	}
	return c.gate(e, gate, cmp)
}

// gate answers --fail-on: a regression found (exit 1), a measure it
// cannot decide (exit 3), or every gated measure cleared.
func (c *compareCmd) gate(e *env, gate verdict.Gate, cmp *verdict.Comparison) error {
	if len(gate) == 0 {
		return nil
	}
	res := gate.Check(cmp.Rows)
	for _, d := range cmp.Differences {
		fmt.Fprintf(e.stderr, "compare: the runs differ: %s\n", d)
	}
	for _, u := range res.Undecided {
		fmt.Fprintf(e.stderr, "compare: undecided: %s\n", u)
	}
	switch {
	case len(res.Regressions) > 0:
		return fmt.Errorf("--fail-on %s: %s", c.FailOn, strings.Join(res.Regressions, "; "))
	case len(res.Undecided) > 0:
		return errUndecided{fmt.Sprintf("--fail-on %s cannot pass: %d gated measures neither shown to regress nor cleared of it (above)", c.FailOn, len(res.Undecided))}
	}
	fmt.Fprintf(e.stderr, "--fail-on %s: no gated measure of %s regressed from %s's by its threshold, each interval clear of it\n", c.FailOn, c.B, c.A)
	for _, s := range res.Improved {
		fmt.Fprintf(e.stderr, "compare: improved: %s\n", s)
	}
	return nil
}

// parseGate reads --fail-on: a percentage for every measure, or
// MEASURE=PERCENT pairs.
func parseGate(s string) (verdict.Gate, error) {
	if s == "" {
		return nil, nil
	}
	gate := verdict.Gate{}
	given := map[string]bool{}
	var names []string
	for _, m := range verdict.Measures {
		names = append(names, m.Name)
	}
	for _, part := range strings.Split(s, ",") {
		name, pct, per := strings.Cut(strings.TrimSpace(part), "=")
		if !per {
			pct = name
		}
		f, err := parsePercent(pct)
		if err != nil || f <= 0 {
			return nil, usagef("--fail-on takes a percentage above 0 and below 100%% (5%%), or MEASURE=PERCENT pairs, not %q", s)
		}
		switch {
		case !per:
			for _, n := range names {
				gate[n] = f
			}
		case !slices.Contains(names, name):
			return nil, usagef("--fail-on: %q is no measure (%s)", name, strings.Join(names, ", "))
		case given[name]:
			return nil, usagef("--fail-on: %s is given twice; give each measure once", name)
		default:
			given[name] = true
			gate[name] = f
		}
	}
	return gate, nil
}
