package cli

import (
	"fmt"

	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
)

type compareCmd struct {
	A    string `arg:"" name:"baseline.json" type:"existingfile" help:"The baseline results.json."`
	B    string `arg:"" name:"other.json" type:"existingfile" help:"The results.json to compare with it."`
	HTML string `name:"html" help:"Also write the comparison as an HTML page."`
}

func (c *compareCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return c.run(e) })
}

func (c *compareCmd) run(e *env) error {
	a, err := readResults(c.A)
	if err != nil {
		return usagef("%v", err)
	}
	b, err := readResults(c.B)
	if err != nil {
		return usagef("%v", err)
	}
	rows, onlyA, onlyB := report.Compare(a, b)
	if len(rows) == 0 {
		return usagef("%s and %s have no measurement in common (same key, workload, clients and table size)", c.A, c.B)
	}
	diffs := results.OptionDifferences(a, b)
	report.WriteComparison(&printable{w: e.stdout}, e.width(e.stdout), c.A, c.B, rows, onlyA, onlyB, diffs)
	if c.HTML != "" {
		page, err := report.RenderComparison(c.A, c.B, rows, onlyA, onlyB, diffs)
		if err != nil {
			return err
		}
		if err := results.WriteFileAtomic(c.HTML, page); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "comparison: %s\n", c.HTML)
	}
	return nil
}
