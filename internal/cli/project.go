package cli

import (
	"encoding/json"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/report"
)

type projectCmd struct {
	Results       string  `arg:"" type:"existingfile" help:"A results.json written by keybench run (growth measures the curve the projection reads)."`
	Rows          string  `required:"" help:"Rows of your table, e.g. 1000000000, 1e9 or 800M."`
	RAM           string  `name:"ram" required:"" help:"Memory of your server, e.g. 64GB."`
	SharedBuffers string  `name:"shared-buffers" help:"Your shared_buffers (default: a quarter of --ram, PostgreSQL's usual advice)."`
	InsertRate    float64 `name:"insert-rate" help:"Rows you insert per second, for WAL per day."`
	RowBytes      float64 `name:"row-bytes" help:"Your table's bytes per row, when its rows are wider or narrower than the run's."`
	JSON          bool    `name:"json" help:"Print the projections as JSON."`
}

func (p *projectCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return p.run(e) })
}

func (p *projectCmd) run(e *env) error {
	res, err := readResults(p.Results)
	if err != nil {
		return usagef("%v", err)
	}
	rows, err := projection.ParseCount(p.Rows)
	if err != nil {
		return usagef("--rows %v", err)
	}
	ram, err := projection.ParseBytes(p.RAM)
	if err != nil {
		return usagef("--ram %v", err)
	}
	cache := ram / 4
	if p.SharedBuffers != "" {
		if cache, err = projection.ParseBytes(p.SharedBuffers); err != nil {
			return usagef("--shared-buffers %v", err)
		}
		if cache > ram {
			return usagef("--shared-buffers %s is more than --ram %s", p.SharedBuffers, p.RAM)
		}
	}
	if p.InsertRate < 0 || p.RowBytes < 0 {
		return usagef("--insert-rate and --row-bytes must not be negative")
	}
	scale := projection.Scale{Rows: rows, Cache: cache, InsertRate: p.InsertRate, RowBytes: p.RowBytes}
	ps, ref, err := projection.Project(res, scale)
	if err != nil {
		return usagef("%s: %v", p.Results, err)
	}
	if p.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(projection.Report{Reference: ref, Rows: rows, CacheBytes: cache, InsertRate: p.InsertRate, Keys: ps})
	}
	report.WriteProjection(&printable{w: e.stdout}, e.width(e.stdout), ps, ref, scale)
	return nil
}
