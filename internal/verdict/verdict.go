// Package verdict decides, once per run, everything keybench says about its
// keys: it groups the cells (each key's measurement), compares every two
// keys of a shape on their rates and on their cost per transaction (within
// the rounds they ran together, Holm's correction over both families, or
// the run's group-sequential designs replayed), names each shape's least
// costly key and what makes the costliest cost more, compares latency at a
// fixed rate, and reads the machine's load. The result is results.Analysis,
// written into results.json; every renderer (the console, the page, the
// exports) and compare, project and advise read it and test nothing of
// their own. The runner's early stop reads its rounds through the same
// samples (Layouts), so the decisions that stopped the rounds are the ones
// the analysis replays.
//
// Its stance is package stats': a difference is named only when its test,
// adjusted for the family it belongs to, says so; otherwise "~".
package verdict

import (
	"fmt"

	"github.com/keybench/keybench/internal/results"
)

// Analyze computes res's analysis and stores it in res.Analysis.
func Analyze(res *results.Results) *results.Analysis {
	res.Analysis = analysisOf(res)
	return res.Analysis
}

// analysisOf is res's analysis: its groups, shapes, the machine's load,
// the answer, and, for a run over several majors, each major's.
func analysisOf(res *results.Results) *results.Analysis {
	g := groupsOf(res)
	a := &results.Analysis{Version: results.AnalysisVersion, Groups: g.groups, Device: DeviceOf(res)}
	a.Shapes = g.shapes()
	a.Busy = busy(res)
	a.Answer = answer(res, a)
	a.Majors = majorsOf(res)
	return a
}

// Write analyses res and writes it into dir (results.json, samples.csv).
func Write(res *results.Results, dir string) error {
	Analyze(res)
	return res.Write(dir)
}

// Read reads a results.json with its analysis: the one it holds when it
// is whole and of this keybench's version, else analysed anew (a file of
// an earlier keybench).
func Read(path string, ks results.Kinds) (*results.Results, error) {
	res, err := results.Read(path, ks)
	if err != nil {
		return nil, err
	}
	return ensure(res), nil
}

// Parse is Read of a file held in memory.
func Parse(b []byte, name string, ks results.Kinds) (*results.Results, error) {
	res, err := results.Parse(b, name, ks)
	if err != nil {
		return nil, err
	}
	return ensure(res), nil
}

// ensure keeps res's analysis where it is whole and current, else makes it.
func ensure(res *results.Results) *results.Results {
	if a := res.Analysis; a == nil || a.Check(len(res.Cells)) != nil {
		Analyze(res)
	}
	return res
}

// describeShape titles a shape: "insert-read, 10 clients, 500,000 rows before".
func describeShape(g *results.Group) string {
	return fmt.Sprintf("%s, %s, %s rows before", g.Task(), results.Clients(g.Clients), results.Thousands(g.Rows))
}
