package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
)

type reportCmd struct {
	Results string `arg:"" type:"existingfile" help:"A results.json written by keybench run."`
	HTML    string `name:"html" help:"Where to write the HTML report (default: report.html beside the results)."`
	// Export writes the run in another form too.
	Export []string `name:"export" placeholder:"md|csv|json=FILE" help:"Also write the run as FORMAT to FILE: md (a Markdown table of the verdict, to paste into a discussion), csv (every cell's figures) or json (repeatable)."`
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
	return exportAll(e, res, r.Export)
}

// checkExports refuses an --export that is not FORMAT=FILE of a known
// format (before a run measures anything).
func checkExports(exports []string) error {
	for _, x := range exports {
		format, file, ok := strings.Cut(x, "=")
		if !ok || file == "" || !slices.Contains(report.ExportFormats, format) {
			return usagef("--export takes FORMAT=FILE with FORMAT one of %s (md=summary.md), not %q", strings.Join(report.ExportFormats, ", "), x)
		}
	}
	return nil
}

// exportAll writes res in each FORMAT=FILE of exports (--export).
func exportAll(e *env, res *results.Results, exports []string) error {
	if err := checkExports(exports); err != nil {
		return err
	}
	for _, x := range exports {
		format, file, _ := strings.Cut(x, "=")
		b, err := report.Export(res, format)
		if err != nil {
			return usagef("%v", err)
		}
		if err := results.WriteFileAtomic(file, b); err != nil {
			return fmt.Errorf("--export %s: %w", x, err)
		}
		fmt.Fprintf(e.stderr, "%s: %s\n", format, file)
	}
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
