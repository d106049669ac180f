package cli

import (
	"fmt"

	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
)

type reportCmd struct {
	Results string `arg:"" type:"existingfile" help:"A results.json written by keybench run."`
	HTML    string `name:"html" help:"Where to write the HTML report (default: report.html beside the results)."`
}

func (r *reportCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return r.run(e) })
}

func (r *reportCmd) run(e *env) error {
	res, err := readResults(r.Results)
	if err != nil {
		return usagef("%v", err)
	}
	report.WriteSummary(&printable{w: e.stdout}, res, e.width(e.stdout))
	out := r.HTML
	if out == "" {
		out = report.DefaultPath(r.Results)
	}
	if err := report.WriteFile(res, out); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "report: %s\n", out)
	return nil
}

// readResults reads a results file for report and compare. A schema-1
// file did not record how its scenario lays out its summary: it is taken
// from the scenario of that name.
func readResults(path string) (*results.Results, error) {
	res, err := results.Read(path)
	if err != nil {
		return nil, err
	}
	if res.SchemaVersion == 1 && res.Plan.Pivot == nil {
		if s, err := scenario.Lookup(res.Scenario); err == nil {
			res.Plan.Pivot = s.Pivot
		}
	}
	return res, nil
}
