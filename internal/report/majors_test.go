package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/verdict"
)

// TestMajorsAnswerEachAndAcross (issue 78): a run merged from two majors'
// runs keeps each major's keys apart, answers for each, and says a key's
// ratio holds where both majors measured the same ratios, and moved where
// one key's work grew on the later major alone.
func TestMajorsAnswerEachAndAcross(t *testing.T) {
	for _, c := range []struct {
		name  string
		grow  float64
		moved bool
	}{{"the same ratios", 1, false}, {"one key's work 1.6× on 18", 1.6, true}} {
		war := filepath.Join("testdata", "cost", "war-busy.json.gz")
		a, b := scaledFile(t, war, 1, 1), scaledFile(t, war, 1, 1)
		a.Environment.ServerVersion, b.Environment.ServerVersion = "15.10", "18.1"
		ref := headlineLeast(t, a)
		var moved string
		for i := range b.Cells {
			if b.Cells[i].Key != ref && moved == "" {
				moved = b.Cells[i].Key
			}
		}
		for i := range b.Cells {
			if b.Cells[i].Key == moved {
				scaleWork(&b.Cells[i], c.grow)
			}
		}
		m := results.MergeMajors([]*results.Results{a, b}, []string{"pg1-15", "pg2-18"})
		verdict.Analyze(m)
		mj := m.Analysis.Majors
		if mj == nil || len(mj.Answers) != 2 || mj.Answers[0].Major != 15 || mj.Answers[1].Major != 18 || mj.Reference != ref {
			t.Fatalf("%s: majors %+v", c.name, mj)
		}
		for _, g := range m.Analysis.Groups {
			if g.PgMajor != 15 && g.PgMajor != 18 || !strings.Contains(g.Task(), "on PostgreSQL") {
				t.Errorf("%s: group %s of major %d, task %q", c.name, g.Key, g.PgMajor, g.Task())
			}
		}
		for _, k := range mj.Keys {
			if len(k.Moved) != 1 {
				t.Errorf("%s %s: %d moves (%s)", c.name, k.Key, len(k.Moved), k.Why)
				continue
			}
			if got := k.Moved[0].Significant; got != (c.moved && k.Key == moved) {
				t.Errorf("%s %s: moved %v: %+v", c.name, k.Key, got, k.Moved[0])
			}
		}
		var screen strings.Builder
		Brief(m).Write(&screen, BriefWidth)
		text := screen.String()
		if !strings.Contains(text, "On PostgreSQL 15:") || !strings.Contains(text, "On PostgreSQL 18:") || !strings.Contains(text, "Across majors") {
			t.Errorf("%s: the first screen does not name both majors:\n%s", c.name, text)
		}
	}
}

// headlineLeast is the least working key of the run's headline shape.
func headlineLeast(t *testing.T, r *results.Results) string {
	t.Helper()
	if r.Analysis.Answer == nil {
		t.Fatal("no answer")
	}
	for _, g := range r.Analysis.Answer.Group {
		if g.How == results.GroupLeast {
			return g.Key
		}
	}
	t.Fatal("no least")
	return ""
}

// scaleWork multiplies a cell's rounds' counts by f.
func scaleWork(c *results.Cell, f float64) {
	for j := range c.Rounds {
		if rc := c.Rounds[j].Cost; rc != nil {
			for _, m := range []*results.M[float64]{&rc.ServerAllCPUMS, &rc.ServerCPUMS, &rc.BlocksRead, &rc.ServerReads, &rc.ServerWrites, &rc.WALBytes, &rc.WALFPI, &rc.WALFlushes} {
				if v, ok := m.Get(); ok {
					*m = results.Of(v * f)
				}
			}
		}
	}
}
