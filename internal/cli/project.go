package cli

import (
	"encoding/json"
	"fmt"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
)

type projectCmd struct {
	Results       string   `arg:"" type:"existingfile" help:"A results.json written by keybench run (growth measures the curve the projection reads)."`
	Rows          string   `required:"" help:"Rows of your table, e.g. 1000000000, 1e9 or 800M."`
	RAM           string   `name:"ram" required:"" help:"Memory of your server, e.g. 64GB."`
	SharedBuffers string   `name:"shared-buffers" help:"Your shared_buffers (default: a quarter of --ram, PostgreSQL's usual advice)."`
	InsertRate    *float64 `name:"insert-rate" help:"Rows you insert per second, for WAL per day."`
	RowBytes      *float64 `name:"row-bytes" help:"Your table's bytes per row, when its rows are wider or narrower than the run's."`
	Clients       int      `name:"clients" placeholder:"N" help:"Read the curves the run measured at N clients (default: its first client count); a curve never pools two."`
	JSON          bool     `name:"json" help:"Print the projections as JSON."`
	HTML          string   `name:"html" help:"Also write the run's report with an \"At your scale\" section."`
}

func (p *projectCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return p.run(e) })
}

func (p *projectCmd) run(e *env) error {
	res, err := readResults(p.Results)
	if err != nil {
		return usagef("%v", err)
	}
	scale, err := scaleOf("", p.Rows, p.RAM, p.SharedBuffers, p.InsertRate, p.RowBytes)
	if err != nil {
		return err
	}
	if p.Clients < 0 {
		return usagef("--clients must be positive, not %d", p.Clients)
	}
	scale.Clients = p.Clients
	rep, err := projection.Project(res, scale)
	if err != nil {
		return usagef("%s: %v", p.Results, err)
	}
	if p.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	report.WriteProjection(&printable{w: e.stdout}, e.width(e.stdout), rep, scale)
	if p.HTML != "" {
		res.Plan.AtScale = &scale
		if err := report.WriteFile(res, p.HTML); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "report: %s\n", p.HTML)
	}
	return nil
}

// scaleOf reads a user's scale from flags (prefix names them in errors:
// "" for project's, "project-" for run's): rows, RAM, shared_buffers (a
// quarter of the RAM unless given), insert rate and bytes per row.
func scaleOf(prefix, rowsFlag, ramFlag, sbFlag string, rateFlag, rowBytesFlag *float64) (results.Scale, error) {
	rows, err := projection.ParseCount(rowsFlag)
	if err != nil {
		return results.Scale{}, usagef("--%srows %v", prefix, err)
	}
	ram, err := projection.ParseBytes(ramFlag)
	if err != nil {
		return results.Scale{}, usagef("--%sram %v", prefix, err)
	}
	cache := ram / 4
	if sbFlag != "" {
		if cache, err = projection.ParseBytes(sbFlag); err != nil {
			return results.Scale{}, usagef("--%sshared-buffers %v", prefix, err)
		}
		if cache > ram {
			return results.Scale{}, usagef("--%sshared-buffers %s is more than --%sram %s", prefix, sbFlag, prefix, ramFlag)
		}
	}
	var rate, rowBytes float64
	for _, f := range []struct {
		name string
		flag *float64
		to   *float64
	}{{prefix + "insert-rate", rateFlag, &rate}, {"row-bytes", rowBytesFlag, &rowBytes}} {
		if f.flag == nil {
			continue
		}
		if v := *f.flag; !(v > 0 && v <= results.MaxFigure) {
			return results.Scale{}, usagef("--%s must be a positive number at most %g, not %g", f.name, float64(results.MaxFigure), v)
		}
		*f.to = *f.flag
	}
	return results.Scale{Rows: rows, CacheBytes: cache, InsertRate: rate, RowBytes: rowBytes}, nil
}
