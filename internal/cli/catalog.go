package cli

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/report"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/workload/all"
)

type keysCmd struct{}

func (keysCmd) Run(e *env) error {
	t := report.NewTable("name", "column", "bytes", "sortable by time", "reveals", "random bits", "collision: 1B rows", "collision: 1M/s, a year",
		"URL chars", "generated", "parameters", "how values are made and sort").AlignRight(2, 5, 6, 7, 8)
	for _, st := range keys.All() {
		s := st.DefaultStorage()
		var params []string
		for _, p := range st.Params {
			params = append(params, fmt.Sprintf("%s=%d", p.Name, p.Default))
		}
		for _, p := range st.TextParams {
			params = append(params, fmt.Sprintf("%s=%s", p.Name, p.Default))
		}
		var as []string
		for _, a := range st.Storages {
			if a != s.As {
				as = append(as, fmt.Sprintf("%s %d B", a, asStorage(s, a).StoredBytes()))
			}
		}
		if len(as) > 0 {
			params = append(params, "as="+strings.Join(as, ", "))
		}
		if st.Random != nil {
			params = append(params, "gen=random")
		}
		f := s.FactsOf()
		bits := "-"
		if f.RandomBits > 0 {
			bits = fmt.Sprint(f.RandomBits)
			if f.PerUnit > 0 {
				bits += " per " + unitText(f.PerUnit)
			}
		}
		t.AppendRow(st.Name, s.ColumnType(), s.StoredBytes(), f.Sortable, f.Reveals, bits,
			f.CollisionText(keys.BillionRows, keys.BillionRowsRate), f.CollisionText(keys.YearRate*keys.Year.Seconds(), keys.YearRate),
			s.URLChars(), st.GeneratedWhere(), strings.Join(params, " "), st.Made+"; sorts: "+st.Ordering)
	}
	d := &report.Doc{}
	d.Add(t)
	d.Println("every key also takes gen=server|client, index=pk|unique|btree|hash|brin|none, created-at= and partition=; " +
		"bytes: one value as a row stores it in its default column (pg_column_size; other storages under parameters); " +
		"random bits: those that tell apart values made in the same unit of time (per ms: only values of one ms can collide); " +
		"collision: the probability that two values are the same, 1B rows made at 1,000 a second, or a million a second for a year — " +
		"1 − exp(−pairs / 2^bits), pairs those of values sharing a unit of time; \"0 on one generator\": unique by construction (a sequence, a counter per node), colliding only across generators that share an id; " +
		"URL chars: the length of its text form.")
	d.Write(e.stdout, e.catalogWidth())
	return nil
}

// asStorage is the spec stored as a.
func asStorage(s *keys.Spec, a keys.Storage) *keys.Spec {
	c := *s
	c.As = a
	return &c
}

// unitText writes a unit of time the random bits share ("ms", "244 ns").
func unitText(d time.Duration) string {
	switch d {
	case time.Millisecond:
		return "ms"
	case time.Second:
		return "s"
	}
	return d.String()
}

type genCmd struct {
	Spec string `arg:"" help:"Key spec, e.g. uuidv7 or seq-uuid-time:interval=60."`
	N    int    `short:"n" default:"10" help:"How many keys."`
}

func (g *genCmd) Run(e *env) error {
	if g.N < 0 {
		return usagef("-n must be 0 or more, not %d", g.N)
	}
	s, err := keys.Parse(g.Spec)
	if err != nil {
		return err
	}
	gen := s.NewGenerator()
	if gen == nil {
		return usagef("%s values are made only by the server", s.Strategy.Name)
	}
	st := gen.Stream()
	raw := make([]byte, s.Strategy.Width)
	w := bufferedOut(e.stdout)
	for i := 0; i < g.N; i++ {
		if i%4096 == 0 && e.ctx.Err() != nil { // SIGINT, SIGTERM
			return errInterrupted
		}
		st.Next(raw)
		w.WriteString(s.Format(raw))
		if err := w.WriteByte('\n'); err != nil {
			return writeErr(err)
		}
	}
	return writeErr(w.Flush())
}

// writeErr is a failed write to stdout: none when the reader has gone
// (keybench gen ... | head: a closed pipe ends the output it no longer
// wants), else the error.
func writeErr(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing the keys: %w", err)
	}
	return nil
}

// catalogWidth is the width the catalogs fit: the console's, or 160
// columns when there is none (a file or pipe: their long descriptions read
// better wrapped than on lines of hundreds of columns); whole with --wide.
func (e *env) catalogWidth() int {
	if n := e.width(e.stdout); n > 0 || e.wide {
		return n
	}
	return 160
}

type scenariosCmd struct{}

func (scenariosCmd) Run(e *env) error {
	t := report.NewTable("scenario", "kind", "time", "description")
	for _, s := range scenario.All() {
		kind := "workload"
		switch {
		case s.Kind == scenario.Preset && s.Source != "":
			kind = "preset (" + s.Source + ")"
		case s.Kind == scenario.Preset:
			kind = "preset"
		}
		t.AppendRow(s.Name, kind, estimateOf(s), s.Description)
	}
	d := &report.Doc{}
	d.Add(t)
	d.Println("time: the estimate `keybench run SCENARIO` prints before its first cell, on the embedded server with its binaries downloaded, " +
		"from rates measured on a 2-core machine; with every round run (a sequential design stops once every comparison is decided: the run may be shorter).")
	d.Write(e.stdout, e.catalogWidth())
	return nil
}

// estimateOf is the scenario's estimated time at its defaults.
func estimateOf(s *scenario.Scenario) string {
	p := s.Params(false)
	specs, err := keys.ParseList(strings.Join(p.Keys, ","))
	if err != nil {
		return "?"
	}
	plan, err := scenario.Build(s, p, specs)
	if err != nil {
		return "?"
	}
	return plan.Estimate().Total.Round(10 * time.Second).String()
}

type workloadsCmd struct{}

// Run lists every workload with its options, as keybench keys lists the
// key strategies with their parameters.
func (workloadsCmd) Run(e *env) error {
	t := report.NewTable("workload: option", "values (default)", "what it is")
	for _, m := range all.Workloads() {
		t.AppendRow(m.Name, "", m.Description)
		for _, o := range m.New().Options() {
			doc := o.Doc
			if o.Variant {
				doc += " (a list runs each value as its own task)"
			}
			t.AppendRow("  "+o.Name, fmt.Sprintf("%s (%s)", o.Range(), o.Default), doc)
		}
	}
	d := &report.Doc{}
	d.Add(t)
	d.Println("set an option for one workload as NAME:OPTION=VALUE (keybench run lookup:query=range:read-dist=recent), " +
		"or for every workload of the plan that has it as --OPTION VALUE (keybench run reads --recent-rows 0.05); each cell records its options in results.json.")
	d.Write(e.stdout, e.catalogWidth())
	return nil
}
