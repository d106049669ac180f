package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

func readCost(t *testing.T, name string) *results.Results {
	t.Helper()
	path := filepath.Join("testdata", "cost", name+".json.gz")
	r, err := verdict.Parse(resultstest.ReadGzip(t, path), path, all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCostVerdictLeads: a default run recorded beside a busy loop on one
// core (issue 36) prints first the machine's load, then the work verdict
// (issue 48): uuidv4 does more work than the least working key, with its
// interval, its p-value and the counts of this run that explain it, each
// with its own interval; the page says the same in its verdict.
func TestCostVerdictLeads(t *testing.T) {
	r := readCost(t, "war-busy")
	var sum strings.Builder
	WriteSummary(&sum, r, 0)
	text := sum.String()
	busy := strings.Index(text, "A busy machine: other processes took ")
	cost := strings.Index(text, "Work per transaction")
	table := strings.Index(text, "MEDIAN RATE")
	if busy < 0 || cost < busy || table < cost {
		t.Fatalf("the summary does not lead with the load and the cost verdict:\n%s", text)
	}
	line := regexp.MustCompile(`uuidv4 does (\d\.\d\d)× uuidv7's work \[(\d\.\d\d)–(\d\.\d\d), [\d.]+%\] \(p=[\d.e-]+\): [\d.]+× \[[\d.]+–[\d.]+, [\d.]+%\] the WAL`).FindStringSubmatch(text)
	if line == nil {
		t.Fatalf("no work verdict for uuidv4 with its interval and what explains it:\n%s", text)
	}
	if line[1] <= "1.00" || line[2] <= "1.00" {
		t.Errorf("uuidv4's work against uuidv7: %s [%s–%s]", line[1], line[2], line[3])
	}
	b, err := Render(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, `<div class="cost"><p>A busy machine`) || !strings.Contains(page, "uuidv4 does ") {
		t.Errorf("the page's verdict lacks the load and the work verdict")
	}
}

// TestNothingFoundRanksNothing: an A/A run (four tables of bigint) finds
// no difference; its page lists the keys without ranks, says why, and no
// pair prints an interval of no width.
func TestNothingFoundRanksNothing(t *testing.T) {
	r := readCost(t, "aa")
	b, err := Render(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if regexp.MustCompile(`<span class="key">\d+\. `).MatchString(page) {
		t.Errorf("a run that found nothing ranks its keys")
	}
	if !strings.Contains(page, "No difference in rate was found: the keys are listed by rate, not ranked.") {
		t.Errorf("the page does not say why the keys are not ranked")
	}
	var sum strings.Builder
	WriteSummary(&sum, r, 0)
	for _, text := range []string{page, sum.String()} {
		if m := regexp.MustCompile(`\[(\d\.\d\d)–(\d\.\d\d)`).FindAllStringSubmatch(text, -1); len(m) > 0 {
			for _, iv := range m {
				if iv[1] == iv[2] && iv[1] != "1.00" {
					t.Errorf("an interval of no width: %s", iv[0])
				}
			}
		}
	}
	if !strings.Contains(sum.String(), "No difference in work found from ") {
		t.Errorf("the A/A run's work verdict names no key without a difference found:\n%s", sum.String())
	}
}

// TestMissesExplainedFromTheRun (issue 38): "where the model misses and
// why" beside 000's table is the run's own: two runs whose errors differ
// in sign get two different explanations, each naming its cells, the part
// that bound them and its time; a run within 25% everywhere gets none.
func TestMissesExplainedFromTheRun(t *testing.T) {
	row := func(err float64, limit string, diskMS float64) projection.Row000 {
		return projection.Row000{RunKey: "uuidv4", Rows: 10_000_000, Error: err, Prediction: projection.Prediction{Limit: limit, DiskMS: diskMS}}
	}
	over := missesExplained([]projection.Row000{row(0.4, projection.LimitDiskFlushes, 1.2)})
	under := missesExplained([]projection.Row000{row(-0.4, projection.LimitDiskWrites, 23)})
	if len(over) != 1 || len(under) != 1 || over[0] == under[0] {
		t.Fatalf("explanations: %q and %q", over, under)
	}
	for _, want := range []string{"too many for uuidv4 at 10,000,000 rows (+40%)", "disk: commit flushes", "1.2 ms", "cheaper in the model"} {
		if !strings.Contains(over[0], want) {
			t.Errorf("a run predicting too many: %q lacks %q", over[0], want)
		}
	}
	for _, want := range []string{"too few for uuidv4 at 10,000,000 rows (-40%)", "writing back dirty pages", "23 ms", "dearer in the model"} {
		if !strings.Contains(under[0], want) {
			t.Errorf("a run predicting too few: %q lacks %q", under[0], want)
		}
	}
	if got := missesExplained([]projection.Row000{row(0.1, projection.LimitCPU, 0)}); len(got) != 0 {
		t.Errorf("no miss, yet %q", got)
	}
}
