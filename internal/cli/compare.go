package cli

import (
	"fmt"
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
	FailOn  string `name:"fail-on" placeholder:"PERCENT" help:"Exit 1 when a measurement of other.json is significantly slower than the baseline's, or does significantly more work per transaction, by more than PERCENT (e.g. 5%): a regression gate."`
	exports   `embed:""`
	overwrite `embed:""`
}

func (c *compareCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return c.run(e) })
}

func (c *compareCmd) run(e *env) error {
	failOn := -1.0
	if c.FailOn != "" {
		f, err := parsePercent(c.FailOn)
		if err != nil || f <= 0 || f >= 1 {
			return usagef("--fail-on must be a percentage above 0 and below 100%%, not %q", c.FailOn)
		}
		failOn = f
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
	if failOn > 0 {
		if regressed := verdict.Regressions(cmp.Rows, failOn); len(regressed) > 0 {
			return fmt.Errorf("--fail-on %s: %s", c.FailOn, strings.Join(regressed, "; "))
		}
		fmt.Fprintf(e.stderr, "no measurement of %s is significantly slower than %s's, or does significantly more work, by more than %s\n", c.B, c.A, c.FailOn)
	}
	return nil
}
