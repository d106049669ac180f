package workload

import (
	"strings"
	"testing"
)

// TestOptionsAreDeclaredAndChecked: every registered workload's options
// have a type, help and a default their own check accepts, and a name
// meaning one thing wherever it is declared; Build sets them, refuses an
// option the workload does not declare, a value out of bounds or of
// another type, and records the options as resolved.
func TestOptionsAreDeclaredAndChecked(t *testing.T) {
	seen := map[string]Option{}
	for _, m := range All() {
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
	b, err := Build("bulk", Setup{Rows: 1000, Clients: 1}, map[string]string{"load-method": "insert"})
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
		_, err := Build(tc.workload, Setup{Rows: 1000, Clients: 1}, tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.workload, tc.values, err, tc.want)
		}
	}
	// A zero value set explicitly is set (a flag at its zero value overrides a preset).
	if b, _ := Build("update", Setup{Rows: 10}, map[string]string{"update-indexed": "false"}); b.Options["update-indexed"] != "false" {
		t.Errorf("update-indexed=false: %v", b.Options)
	}
	// An option that does not apply is left out: latest draws no rows, a uniform draw has no recent share.
	l, _ := Build("lookup", Setup{Rows: 10}, map[string]string{"query": "latest", "read-dist": "recent"})
	if _, ok := l.Options["read-dist"]; ok || strings.Join(l.Variant, " ") != "latest" {
		t.Errorf("lookup latest: %v, variant %v", l.Options, l.Variant)
	}
	u, _ := Build("lookup", Setup{Rows: 10}, nil)
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
	Register(Meta{Name: "insert", New: func() Workload { return &insertLoad{} }})
}
