package cli

import (
	"fmt"

	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
)

type reportCmd struct {
	Results string `arg:"" type:"existingfile" help:"A results.json written by keybench run."`
	HTML    string `name:"html" help:"Where to write the HTML report (default: report.html beside the results)."`
}

func (r *reportCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return r.run(e) })
}

func (r *reportCmd) run(e *env) error {
	res, err := results.Read(r.Results)
	if err != nil {
		return usagef("%v", err)
	}
	res.WriteSummary(&printable{w: e.stdout})
	out := r.HTML
	if out == "" {
		out = report.DefaultPath(r.Results)
	}
	if err := report.WriteFile(r.Results, out); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "report: %s\n", out)
	return nil
}
