package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/engine"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestSchemaOneSummaries prints the console summary of the schema-1 seed
// runs and compares it with what the keybench that wrote them printed
// (testdata/*.summary.txt, from before results were typed): the same
// tables, columns, figures and notes, whatever the alignment. One note
// differs by design: 004's core count now comes from the cells (the queue
// preset's reference, per_core.ref_004_cores), which schema 1 did not
// record, so the queue's per-core note leaves out "56 cores; ". And since
// issue 13 the comparisons of these one-window-per-key runs say that their
// samples are too few (per-second rates are never tested), where the old
// keybench called differences from them, with the rounds the run's keys
// would need; a rate whose interval is below 95% says its confidence; a
// load is one run per key (its rate: rows over the whole load); and a key
// without an index during the window says so instead of "0%" of the cache;
// since issue 14 the evidence has page splits and blocks per transaction,
// loads their maintenance times and transactional cells their key
// index growth per row, which schema 1 did not record ("n/a").
func TestSchemaOneSummaries(t *testing.T) {
	for _, name := range []string{"war", "queue", "bulk"} {
		r, err := verdict.Read(filepath.Join("../results/testdata", name+".json"), all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		if r.SchemaVersion != 1 {
			t.Fatalf("%s: schema %d, want a schema-1 seed", name, r.SchemaVersion)
		}
		want, err := os.ReadFile(filepath.Join("testdata", name+".summary.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		WriteSummary(&got, r, 0)
		if os.Getenv("KEYBENCH_UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(filepath.Join("testdata", name+".summary.txt"), []byte(got.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if g, w := squeeze(got.String()), squeeze(string(want)); g != w {
			t.Errorf("%s: the summary changed:\n--- got\n%s\n--- want\n%s", name, got.String(), want)
		}
	}
}

var blanks = regexp.MustCompile(`[ ─]+`)

// squeeze drops the alignment of a table: runs of blanks and rules become one blank.
func squeeze(s string) string { return blanks.ReplaceAllString(s, " ") }

// TestSchemaOneMetricsRoundTrip reads the schema-1 seeds into the typed
// results and writes them again: every metric keeps its name, place and
// value (schema 2 adds, it does not move).
func TestSchemaOneMetricsRoundTrip(t *testing.T) {
	for _, name := range []string{"war", "queue", "bulk"} {
		b, err := os.ReadFile(filepath.Join("../results/testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Cells []struct {
				Metrics map[string]any `json:"metrics"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		r, err := verdict.Parse(b, name, all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range r.Cells {
			out, err := json.Marshal(c.Metrics)
			if err != nil {
				t.Fatal(err)
			}
			var back map[string]any
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(raw.Cells[i].Metrics, back) {
				for k, v := range raw.Cells[i].Metrics {
					if !reflect.DeepEqual(v, back[k]) {
						t.Errorf("%s cell %d: metrics.%s was %v, is %v", name, i, k, v, back[k])
					}
				}
				for k := range back {
					if _, ok := raw.Cells[i].Metrics[k]; !ok {
						t.Errorf("%s cell %d: metrics.%s is new", name, i, k)
					}
				}
			}
		}
	}
}

// TestSummaryOnCitus: on a distributed engine the why-table keeps the
// sessions' wait events only and says once what was not measured and why.
func TestSummaryOnCitus(t *testing.T) {
	r, err := verdict.Read(filepath.Join("../results/testdata", "war.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	r.Environment.Engine = engine.Detect("PostgreSQL 15.20 on x86_64-pc-linux-gnu", "13.2-1", 2)
	var got strings.Builder
	WriteSummary(&got, r, 0)
	s := got.String()
	for _, want := range []string{"Not measured on Citus 13.2-1 (2 workers)", "on the 2 workers", "Citus reports that wait as ClientRead", "TOP WAITS"} {
		if !strings.Contains(s, want) {
			t.Errorf("the summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "KEY INDEX IN CACHE") || strings.Contains(s, "LEAF DENSITY") {
		t.Errorf("the summary shows figures the coordinator cannot see:\n%s", s)
	}
}
