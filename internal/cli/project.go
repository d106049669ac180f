package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/keybench/keybench/internal/diskprobe"
	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/verdict"
)

type projectCmd struct {
	Results       string   `arg:"" type:"existingfile" help:"A results.json written by keybench run (growth measures the curve the projection reads)."`
	Rows          string   `help:"Rows of your table, e.g. 1000000000, 1e9 or 800M (required but with --against)."`
	RAM           string   `name:"ram" help:"Memory of your server, e.g. 64GB (required but with --against)."`
	SharedBuffers string   `name:"shared-buffers" help:"Your shared_buffers (default: a quarter of --ram, PostgreSQL's usual advice)."`
	InsertRate    *float64 `name:"insert-rate" help:"Rows you insert per second, for WAL per day."`
	RowBytes      *float64 `name:"row-bytes" help:"Your table's bytes per row, when its rows are wider or narrower than the run's."`
	Clients       int      `name:"clients" placeholder:"N" help:"Read the curves the run measured at N clients (default: its first client count); a curve never pools two."`
	DiskLatency   string   `name:"disk-latency" placeholder:"DURATION" help:"Cost model: your disk's random 8 kB access, e.g. 8ms (an HDD) or 0.1ms (an SSD); with --disk-write-mbps and --disk-flush, or --disk."`
	DiskWriteMBps *float64 `name:"disk-write-mbps" placeholder:"MB/S" help:"Cost model: your disk's sequential write rate."`
	DiskFlush     string   `name:"disk-flush" placeholder:"DURATION" help:"Cost model: your disk's write+flush (a commit), e.g. 4ms."`
	Disk          string   `name:"disk" type:"existingfile" placeholder:"FILE" help:"Cost model: your disk as 'keybench disk DIR --json' measured it (instead of the three --disk- flags)."`
	Cores         *int     `name:"cores" placeholder:"N" help:"Cost model: your server's cores (default: the run's machine's)."`
	OSCache       string   `name:"os-cache" placeholder:"SIZE" help:"Cost model: the OS page cache your key index keeps beyond shared_buffers (default: half of --ram less shared_buffers, an assumption)."`
	Check         bool     `name:"check" help:"Instead of your scale: project each scale of a run that measured three or more (keybench run scale) from its smaller scales alone, beside what it measured (--export json=FILE: a row per key and figure)."`
	Against       string   `name:"against" placeholder:"000" help:"Instead of your scale: the cost model's prediction of a published table beside it, each cell's error and limit (000: PostgreSQL 10 on an HDD)."`
	JSON          bool     `name:"json" help:"Print the projections as JSON."`
	exports       `embed:""`
	HTML          string `name:"html" help:"Also write the run's report with an \"At your scale\" section."`
	overwrite     `embed:""`
}

func (p *projectCmd) Run(e *env) error {
	return interruptible(e.ctx, func() error { return p.run(e) })
}

func (p *projectCmd) run(e *env) error {
	if err := p.check(); err != nil {
		return err
	}
	outs := p.targets()
	if p.HTML != "" {
		outs = append(outs, output{"--html", p.HTML})
	}
	if err := checkOutputs(outs, []string{p.Results, p.Disk}, p.Force); err != nil {
		return err
	}
	res, err := readResults(p.Results)
	if err != nil {
		return usagef("%v", err)
	}
	if p.Against != "" {
		return p.against(e, res)
	}
	if p.Check {
		return p.checkScales(e, res)
	}
	if p.Rows == "" || p.RAM == "" {
		return usagef("--rows and --ram are required (or --against 000)")
	}
	scale, err := scaleOf("", p.Rows, p.RAM, p.SharedBuffers, p.InsertRate, p.RowBytes)
	if err != nil {
		return err
	}
	machine, err := p.machine(res, scale)
	if err != nil {
		return err
	}
	scale.Hardware = machine
	if p.Clients < 0 {
		return usagef("--clients must be positive, not %d", p.Clients)
	}
	scale.Clients = p.Clients
	rep, err := projection.Project(res, scale)
	if err != nil {
		return usagef("%s: %v", p.Results, err)
	}
	if err := p.writeDoc(e, report.ProjectionDoc(rep, scale), rep); err != nil {
		return err
	}
	if p.JSON {
		return printJSON(e, rep)
	}
	report.ProjectionDoc(rep, scale).Write(&printable{w: e.stdout}, e.width(e.stdout))
	if p.HTML != "" {
		res.Plan.AtScale = &scale
		if err := report.WriteFile(res, projected(res), p.HTML); err != nil {
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
	return results.Scale{Rows: rows, CacheBytes: cache, CacheAssumed: sbFlag == "", InsertRate: rate, RowBytes: rowBytes}, nil
}

// machine is the user's machine for the cost model, from the --disk flags
// (nil without any).
func (p *projectCmd) machine(res *results.Results, scale results.Scale) (*projection.Machine, error) {
	var d projection.Disk
	switch {
	case p.Disk != "":
		if p.DiskLatency != "" || p.DiskWriteMBps != nil || p.DiskFlush != "" {
			return nil, usagef("--disk replaces --disk-latency, --disk-write-mbps and --disk-flush: give one or the other")
		}
		b, err := results.ReadFile(p.Disk, 1<<20, "the output of 'keybench disk --json'")
		if err != nil {
			return nil, usagef("--disk %v", err)
		}
		var r diskprobe.Result
		if err := json.Unmarshal(b, &r); err != nil || r.RandomRead.P50MS <= 0 || r.Flush.P50MS <= 0 || r.SeqWriteMBps <= 0 {
			return nil, usagef("--disk %s is not the output of 'keybench disk --json'", p.Disk)
		}
		d = projection.Disk{ReadMS: r.RandomRead.P50MS, WriteMBps: r.SeqWriteMBps, FlushMS: r.Flush.P50MS}
	case p.DiskLatency != "" || p.DiskWriteMBps != nil || p.DiskFlush != "":
		if p.DiskLatency == "" || p.DiskWriteMBps == nil || p.DiskFlush == "" {
			return nil, usagef("the cost model needs all three: --disk-latency, --disk-write-mbps and --disk-flush (or --disk)")
		}
		for _, f := range []struct {
			name, v string
			to      *float64
		}{{"disk-latency", p.DiskLatency, &d.ReadMS}, {"disk-flush", p.DiskFlush, &d.FlushMS}} {
			dur, err := time.ParseDuration(f.v)
			if err != nil || dur <= 0 || dur > time.Minute {
				return nil, usagef("--%s must be a duration above 0 and at most 1m (8ms, 0.1ms), not %q", f.name, f.v)
			}
			*f.to = float64(dur) / float64(time.Millisecond)
		}
		if v := *p.DiskWriteMBps; !(v > 0 && v <= 1e6) {
			return nil, usagef("--disk-write-mbps must be above 0 and at most 1000000, not %g", v)
		}
		d.WriteMBps = *p.DiskWriteMBps
	default:
		if p.Cores != nil || p.OSCache != "" {
			return nil, usagef("--cores and --os-cache are the cost model's: give the disk too (--disk, or --disk-latency, --disk-write-mbps and --disk-flush)")
		}
		return nil, nil
	}
	m := &projection.Machine{Disk: d, Cores: orZero(p.Cores), SharedBuffers: scale.CacheBytes, OSReadMS: projection.OSReadMS}
	if p.Cores != nil && (m.Cores < 1 || m.Cores > 4096) {
		return nil, usagef("--cores must be from 1 to 4096, not %d", m.Cores)
	}
	if m.Cores == 0 {
		m.Cores = max(1, res.Environment.Host.CPUs)
	}
	ram, _ := projection.ParseBytes(p.RAM)
	m.OSCache = max(0, (ram-scale.CacheBytes)/2)
	if p.OSCache != "" {
		v, err := projection.ParseBytes(p.OSCache)
		if err != nil {
			return nil, usagef("--os-cache %v", err)
		}
		if v+scale.CacheBytes > ram {
			return nil, usagef("--os-cache %s and shared_buffers are more than --ram %s", p.OSCache, p.RAM)
		}
		m.OSCache = v
	}
	return m, nil
}

// against prints the cost model's prediction of a published table.
// checkScales is --check: each scale of the run projected from the
// smaller ones, beside its measurement.
func (p *projectCmd) checkScales(e *env, res *results.Results) error {
	if p.Clients < 0 {
		return usagef("--clients must be positive, not %d", p.Clients)
	}
	// The subsets are analysed by verdict's one analysis, handed to the projection (which lies below it).
	rows, err := projection.CheckScales(res, p.Clients, verdict.Analyze)
	if err != nil {
		return usagef("%s: %v", p.Results, err)
	}
	if err := p.writeDoc(e, report.CheckDoc(rows), rows); err != nil {
		return err
	}
	if p.JSON {
		return printJSON(e, rows)
	}
	report.CheckDoc(rows).Write(&printable{w: e.stdout}, e.width(e.stdout))
	return nil
}

func (p *projectCmd) against(e *env, res *results.Results) error {
	if p.Against != "000" {
		return usagef("--against knows 000 (PostgreSQL 10 on an HDD), not %q", p.Against)
	}
	rows, err := projection.Against000(res)
	if err != nil {
		return usagef("%s: %v", p.Results, err)
	}
	if err := p.writeDoc(e, report.Against000Doc(rows), rows); err != nil {
		return err
	}
	if p.JSON {
		return printJSON(e, rows)
	}
	report.Against000Doc(rows).Write(&printable{w: e.stdout}, e.width(e.stdout))
	return nil
}
