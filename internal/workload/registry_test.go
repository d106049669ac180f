package workload_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestOptionsAreDeclaredAndChecked: every registered workload's options
// have a type, help and a default their own check accepts, and a name
// meaning one thing wherever it is declared; Build sets them, refuses an
// option the workload does not declare, a value out of bounds or of
// another type, and records the options as resolved.
func TestOptionsAreDeclaredAndChecked(t *testing.T) {
	seen := map[string]workload.Option{}
	for _, m := range all.Workloads() {
		for _, o := range m.New().Options() {
			if o.Name == "" || o.Doc == "" || o.Type == "" {
				t.Errorf("%s: option %+v lacks a name, help or type", m.Name, o)
			}
			if prev, ok := seen[o.Name]; ok && (prev.Type != o.Type || prev.Variant != o.Variant) {
				t.Errorf("option %s is a %s in one workload and a %s in another", o.Name, prev.Type, o.Type)
			}
			seen[o.Name] = o
		}
	}
	b, err := workload.Build("bulk", workload.Setup{Rows: 1000, Clients: 1}, map[string]string{"load-method": "insert"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Options["chunk"] != "100" || b.Options["load-method"] != "insert" || len(b.Variant) != 0 {
		t.Errorf("bulk's options: %v (chunk: a tenth of the rows)", b.Options)
	}
	for _, tc := range []struct {
		workload string
		values   map[string]string
		want     string
	}{
		{"bulk", map[string]string{"query": "point"}, `bulk has no option "query" (valid: chunk, load-method)`},
		{"bulk", map[string]string{"chunk": "-5"}, "chunk must be from 0"},
		{"bulk", map[string]string{"chunk": "1.5"}, "not a whole number"},
		{"bulk", map[string]string{"load-method": "pipe"}, "must be copy or insert"},
		{"update", map[string]string{"update-indexed": "maybe"}, "true or false"},
		{"insert", map[string]string{"batch": "32768"}, "batch must be from 1 to 21845"},
		{"lookup", map[string]string{"recent-rows": "Inf"}, "not a number"},
		{"insert-read", map[string]string{"read-dist": "recent"}, "needs read-by=key"},
	} {
		_, err := workload.Build(tc.workload, workload.Setup{Rows: 1000, Clients: 1}, tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.workload, tc.values, err, tc.want)
		}
	}
	// A zero value set explicitly is set (a flag at its zero value overrides a preset).
	if b, _ := workload.Build("update", workload.Setup{Rows: 10}, map[string]string{"update-indexed": "false"}); b.Options["update-indexed"] != "false" {
		t.Errorf("update-indexed=false: %v", b.Options)
	}
	// An option that does not apply is left out: latest draws no rows, a uniform draw has no recent share.
	l, _ := workload.Build("lookup", workload.Setup{Rows: 10}, map[string]string{"query": "latest", "read-dist": "recent"})
	if _, ok := l.Options["read-dist"]; ok || strings.Join(l.Variant, " ") != "latest" {
		t.Errorf("lookup latest: %v, variant %v", l.Options, l.Variant)
	}
	u, _ := workload.Build("lookup", workload.Setup{Rows: 10}, nil)
	if _, ok := u.Options["recent-rows"]; ok || strings.Join(u.Variant, " ") != "point uniform" {
		t.Errorf("lookup by default: %v, variant %v", u.Options, u.Variant)
	}
}

// TestRegisterTwicePanics: a second registration of a name would silently
// replace a workload; it panics at start-up.
func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second registration of insert did not panic")
		}
	}()
	workload.Register(workload.Meta{Name: "insert", New: func() workload.Workload { return nil }})
}

// TestSummariesKeepTheirOwnNames: a workload's summary is written into its
// cell's metrics object beside the collectors' figures, so none of its
// JSON names may be a collector's (a range query's partition count once
// took the name of the partitions' sizes and made the file unreadable).
func TestSummariesKeepTheirOwnNames(t *testing.T) {
	taken := map[string]bool{}
	mt := reflect.TypeOf(results.Metrics{})
	for i := 0; i < mt.NumField(); i++ {
		if name, _, _ := strings.Cut(mt.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			taken[name] = true
		}
	}
	for _, m := range workload.All() {
		if m.Kind.NewSummary == nil {
			continue
		}
		var walk func(rt reflect.Type)
		walk = func(rt reflect.Type) {
			for rt.Kind() == reflect.Pointer {
				rt = rt.Elem()
			}
			for i := 0; i < rt.NumField(); i++ {
				f := rt.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if f.Anonymous && name == "" {
					walk(f.Type)
					continue
				}
				if taken[name] {
					t.Errorf("%s's summary names a field %q, a collector's figure", m.Name, name)
				}
			}
		}
		walk(reflect.TypeOf(m.Kind.NewSummary()))
	}
}
