package style

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// layers are the module's packages from the bottom up: a package imports
// only packages of lower layers (Go rules out cycles; this rules out a
// lower package reaching up). The data flows the other way — a scenario
// is planned, run on a server with keys and a workload, measured by the
// driver and the metrics into results, analysed, then rendered — and each
// step reads only what the steps below it declare.
var layers = [][]string{
	// What every step shares: errors of usage, statistics, the engine's
	// facts, the disk probe, the stored write-ups, versions.
	{"usage", "engine", "stats", "diskprobe", "sources", "versions", "histlog", "testenv", "style", "sqltree"},
	// The results' types; the server; keybench's own schema.
	{"results", "server", "workspace"},
	// Keys, devices, presentation facts, the driver, the metrics, projections.
	{"keys", "device", "present", "driver", "metrics", "projection", "server/servertest", "results/resultstest", "projection/projectiontest", "verdict/verdicttest"},
	// Citus, the analysis, the logs, the workload's declarations.
	{"cluster", "verdict", "txnlog", "workload"},
	// Each workload.
	{"workload/bulk", "workload/deleterows", "workload/fkinsert", "workload/insert", "workload/insertread", "workload/join",
		"workload/lookup", "workload/mix", "workload/queue", "workload/rangequery", "workload/retention", "workload/script", "workload/update"},
	// The catalog of workloads.
	{"workload/all"},
	// Plans; the advice on a user's database.
	{"scenario", "advise"},
	// Running a plan; rendering results.
	{"runner", "report"},
	// The commands; the tests' helpers that run them and the runner.
	{"cli", "cli/clitest", "runner/runnertest"},
	{"cmd/keybench"},
}

// TestLayers: no package imports one of its own layer or above; every
// package of the module has a layer.
func TestLayers(t *testing.T) {
	const module = "github.com/keybench/keybench/"
	layer := map[string]int{}
	for i, ps := range layers {
		for _, p := range ps {
			layer[p] = i
		}
	}
	name := func(dir string) string {
		rel := filepath.ToSlash(strings.TrimPrefix(filepath.Clean(dir), filepath.Clean(filepath.Join("..", ".."))+string(filepath.Separator)))
		return strings.TrimPrefix(rel, "internal/")
	}
	for dir, files := range sources(t) {
		pkg := name(dir)
		own, ok := layer[pkg]
		if !ok {
			t.Errorf("package %s has no layer: add it to layers", pkg)
			continue
		}
		for _, path := range files {
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if !strings.HasPrefix(p, module) {
					continue
				}
				dep := strings.TrimPrefix(strings.TrimPrefix(p, module), "internal/")
				if l, ok := layer[dep]; ok && l >= own && dep != pkg {
					t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only from the layers below it", path, own, dep, l)
				}
			}
		}
	}
}
