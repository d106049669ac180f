package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

type reportCmd struct {
	Results   string `arg:"" type:"existingfile" help:"A results.json written by keybench run."`
	HTML      string `name:"html" help:"Where to write the HTML report (default: report.html beside the results, which it renders again)."`
	exports   `embed:""`
	overwrite `embed:""`
}

func (r *reportCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return r.run(e) })
}

func (r *reportCmd) run(e *env) error {
	if err := r.check(); err != nil {
		return err
	}
	outs := r.targets()
	protected := []string{r.Results, report.DefaultPath(r.Results)} // the default page is rendered again, never exported over
	if r.HTML != "" {
		outs, protected = append(outs, output{"--html", r.HTML}), protected[:1]
	}
	if err := checkOutputs(outs, protected, r.Force); err != nil {
		return err
	}
	res, err := readResults(r.Results)
	if err != nil {
		return usagef("%v", err)
	}
	report.WriteSummary(&printable{w: e.stdout}, res, e.width(e.stdout))
	out := cmp.Or(r.HTML, report.DefaultPath(r.Results))
	if err := report.WriteFile(res, projected(res), out); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "report: %s\n", out)
	return r.writeRun(e, res)
}

// exports is --export, on every command that answers: run, report,
// compare, project and advise.
type exports struct {
	Export []string `name:"export" placeholder:"md|csv|json=FILE" help:"Also write the answer as FORMAT to FILE: md (Markdown: its verdict or tables, to paste into a discussion), csv (its figures: a run's, every cell's) or json (repeatable)."`
}

// check refuses an --export that is not FORMAT=FILE of a known format
// (before a command measures or reads anything).
func (x exports) check() error {
	for _, s := range x.Export {
		format, file, ok := strings.Cut(s, "=")
		if !ok || file == "" || !slices.Contains(report.ExportFormats, format) {
			return usagef("--export takes FORMAT=FILE with FORMAT one of %s (md=summary.md), not %q", strings.Join(report.ExportFormats, ", "), s)
		}
	}
	return nil
}

// writeRun writes a run's results in each FORMAT=FILE.
func (x exports) writeRun(e *env, res *results.Results) error {
	return x.write(e, func(format string) ([]byte, error) { return report.Export(res, format) })
}

// writeDoc writes a command's answer in each FORMAT=FILE: its console
// document as Markdown or CSV, value (its typed answer) as JSON.
func (x exports) writeDoc(e *env, d *report.Doc, value any) error {
	return x.write(e, func(format string) ([]byte, error) { return report.ExportDoc(d, value, format) })
}

func (x exports) write(e *env, render func(format string) ([]byte, error)) error {
	if err := x.check(); err != nil {
		return err
	}
	for _, s := range x.Export {
		format, file, _ := strings.Cut(s, "=")
		b, err := render(format)
		if err != nil {
			return usagef("%v", err)
		}
		if err := results.WriteFileAtomic(file, b); err != nil {
			return fmt.Errorf("--export %s: %w", s, err)
		}
		fmt.Fprintf(e.stderr, "%s: %s\n", format, file)
	}
	return nil
}

// readResults reads a results file, with its analysis, for report,
// compare and project. A schema-1 file did not record how its scenario
// lays out its summary: it is taken from the scenario of that name.
func readResults(path string) (*results.Results, error) {
	res, err := verdict.Read(path, all.Kinds())
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

// projected is what the page shows of a run's projection: its curves, and
// the run carried to the scale it was asked to be carried to (run
// --project-rows and --project-ram).
func projected(res *results.Results) *report.Projected {
	pr := &report.Projected{}
	if curves, ref, err := projection.Curves(res); err == nil {
		pr.Curves, pr.Reference = curves, ref
	}
	if sc := res.Plan.AtScale; sc != nil {
		rep, err := projection.Project(res, *sc)
		pr.Scale, pr.Err = *sc, err
		if err == nil {
			pr.AtScale = &rep
		}
	}
	return pr
}
