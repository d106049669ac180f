package cli

import (
	"fmt"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/scenario"
)

type keysCmd struct{}

func (keysCmd) Run(e *env) error {
	t := table.NewWriter()
	t.SetOutputMirror(e.stdout)
	t.SetStyle(table.StyleLight)
	t.AppendHeader(table.Row{"name", "column", "generated", "ordering", "bytes", "parameters", "how values are made"})
	for _, st := range keys.All() {
		s, _ := keys.Parse(st.Name)
		var params []string
		for _, p := range st.Params {
			params = append(params, fmt.Sprintf("%s=%d", p.Name, p.Default))
		}
		var as []string
		for _, a := range st.Storages {
			as = append(as, string(a))
		}
		if len(as) > 1 {
			params = append(params, "as="+strings.Join(as, "|"))
		}
		t.AppendRow(table.Row{st.Name, s.ColumnType(), st.GeneratedWhere(), st.Ordering, s.StoredBytes(), strings.Join(params, " "), st.Made})
	}
	t.SetColumnConfigs([]table.ColumnConfig{{Number: 4, WidthMax: 40, WidthMaxEnforcer: text.WrapSoft}, {Number: 7, WidthMax: 60, WidthMaxEnforcer: text.WrapSoft}})
	t.Render()
	fmt.Fprintln(e.stdout, "every key also takes gen=server|client and index=pk|unique|btree|hash|brin|none; bytes: stored size of one value in its default column type.")
	return nil
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
		st.Next(raw)
		w.WriteString(s.Format(raw))
		w.WriteByte('\n')
	}
	return w.Flush()
}

type scenariosCmd struct{}

func (scenariosCmd) Run(e *env) error {
	t := table.NewWriter()
	t.SetOutputMirror(e.stdout)
	t.SetStyle(table.StyleLight)
	t.AppendHeader(table.Row{"scenario", "kind", "description"})
	for _, s := range scenario.All() {
		kind := "workload"
		if s.Source != "" {
			kind = "preset (" + s.Source + ")"
		}
		t.AppendRow(table.Row{s.Name, kind, s.Description})
	}
	t.SetColumnConfigs([]table.ColumnConfig{{Number: 3, WidthMax: 100, WidthMaxEnforcer: text.WrapSoft}})
	t.Render()
	return nil
}
