package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/keys"
)

func TestPlanInterleavesRepeats(t *testing.T) {
	specs, _ := keys.ParseList("bigint,uuidv4")
	p := Params{Workload: "insert", Clients: []int{16, 32}, Rows: []int64{0}, Repeat: 2}
	var got []string
	cells, _ := cellsOf(p, specs)
	for _, c := range cells {
		got = append(got, c.Key.Raw+"/"+string(rune('0'+c.Repeat)))
	}
	want := "bigint/1 uuidv4/1 bigint/2 uuidv4/2 bigint/1 uuidv4/1 bigint/2 uuidv4/2"
	if strings.Join(got, " ") != want {
		t.Errorf("plan %v, want %s", got, want)
	}
}

func TestPresetsAreValid(t *testing.T) {
	for _, s := range All() {
		for _, quick := range []bool{false, true} {
			p := s.Params(quick)
			if err := p.Validate(); err != nil {
				t.Errorf("%s (quick %v): %v", s.Name, quick, err)
			}
			if _, err := keys.ParseList(strings.Join(p.Keys, ",")); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
		}
	}
	if _, err := Lookup("nosuch"); err == nil || !strings.Contains(err.Error(), "valid: war") {
		t.Errorf("Lookup(nosuch) = %v", err)
	}
}

func TestValidate(t *testing.T) {
	good := Params{Workload: "insert", Clients: []int{1}, Rows: []int64{0}, Duration: time.Second, Batch: 1, Repeat: 1}
	for name, mutate := range map[string]func(*Params){
		"zero clients":      func(p *Params) { p.Clients = []int{0} },
		"negative duration": func(p *Params) { p.Duration = -time.Second },
		"negative rows":     func(p *Params) { p.Rows = []int64{5, -1} },
		"unknown workload":  func(p *Params) { p.Workload = "x" },
		"zero repeat":       func(p *Params) { p.Repeat = 0 },
	} {
		p := good
		p.Clients = append([]int(nil), good.Clients...)
		mutate(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
}
