package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestEveryPairIsShown: with rounds, the console prints each key against
// every other key of its shape, and the report has the same matrix with
// the intervals (the summary table shows only the row above).
func TestEveryPairIsShown(t *testing.T) {
	r := read(t, fixture(t))
	var sum strings.Builder
	WriteSummary(&sum, r, 0)
	if !strings.Contains(sum.String(), "EVERY PAIR: INSERT-READ, 10 CLIENTS, 1,000,000 ROWS BEFORE") {
		t.Fatalf("no matrix of every pair in the console summary:\n%s", sum.String())
	}
	for _, row := range []string{"1 uuidv4", "2 uuidv7", "3 bigint"} {
		if !strings.Contains(sum.String(), row) {
			t.Errorf("the matrix lacks the row %q", row)
		}
	}
	b, err := Render(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, `<h3 id="pairs">Every pair</h3>`) || strings.Count(page, `<td class="sig">`) < 2 {
		t.Errorf("the report lacks the matrix of every pair with its significant cells")
	}
}

// TestBulkVerdictRanksTotals: a load is listed by its rows over the whole
// load (index build included), so the index-in-place uuidv4 load, the
// slowest in total, comes last and the headline names it; one load per
// key tests nothing, names no winner and ranks nothing.
func TestBulkVerdictRanksTotals(t *testing.T) {
	r, err := verdict.Read(filepath.Join("../results/testdata", "bulk.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	for _, quick := range []bool{true, false} {
		r.Plan.Quick = quick
		b, err := Render(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		untested := map[bool]string{true: "A smoke test (--quick): one run per key", false: "Not tested: one run per key"}[quick]
		for _, want := range []string{"over the whole load", "The slowest, uuidv4 (bulk), took", untested, "highest rate, not tested"} {
			if !strings.Contains(page, want) {
				t.Errorf("quick %v: the bulk verdict lacks %q", quick, want)
			}
		}
		// Listed last of four, by its total rate; not ranked: one load
		// per key tested nothing (issue 36: a rank says a test found it).
		keys := regexp.MustCompile(`<span class="key">([^<]*)</span>`).FindAllStringSubmatch(page, -1)
		if len(keys) != 4 || keys[3][1] != "uuidv4 (bulk)" {
			t.Errorf("quick %v: uuidv4 with its index in place is not listed last of four: %q", quick, keys)
		}
		if regexp.MustCompile(`<span class="key">\d+\. `).MatchString(page) {
			t.Errorf("quick %v: one load per key ranks its keys", quick)
		}
	}
}

// TestBloatVerdict: a scenario whose point is bloat across client counts
// (002) ranks keys by their key index's bloat at the most clients and
// gives each key's bloat at every client count.
func TestBloatVerdict(t *testing.T) {
	path := fixture(t)
	r := read(t, path)
	r.Plan.Pivot = &results.Pivot{By: results.PivotClients, Bloat: true}
	var cells []results.Cell
	for _, clients := range []int{16, 64} {
		for i, c := range r.Cells {
			c.Clients = clients
			c.Metrics.BloatRatio = results.Of(1 + float64(clients)/64*float64(2-i)*0.2) // uuidv4 most bloated, bigint none
			cells = append(cells, c)
		}
	}
	r.Cells = cells
	verdict.Analyze(r)
	b, err := Render(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"ranked by their key index", "1. bigint", "2. uuidv7", "3. uuidv4", "bloat 1.10 at 16, 1.40 at 64 clients"} {
		if !strings.Contains(page, want) {
			t.Errorf("the bloat verdict lacks %q", want)
		}
	}
}

// TestOneColourPerKey: each key has one colour in every chart and the
// verdict, the keys' colours differ, and a key's cells of another task
// (a load with the index built afterwards) draw its colour lighter.
func TestOneColourPerKey(t *testing.T) {
	r, err := verdict.Read(filepath.Join("../results/testdata", "bulk.json"), all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	groups := r.Analysis.Groups
	rd := &renderer{res: r, groups: groups, colors: map[string]int{}, tasks: map[string]int{}}
	for i := range groups {
		if _, ok := rd.colors[groups[i].Key]; !ok {
			rd.colors[groups[i].Key] = len(rd.colors)
		}
		if _, ok := rd.tasks[groups[i].Task()]; !ok {
			rd.tasks[groups[i].Task()] = len(rd.tasks)
		}
	}
	seen := map[string]string{}
	for i := range groups {
		g := &groups[i]
		c := rd.color(g)
		if other, ok := seen[c]; ok {
			t.Errorf("%s and %s share the colour %s", other, rd.label(g), c)
		}
		seen[c] = rd.label(g)
	}
	if len(seen) != len(groups) {
		t.Errorf("%d colours for %d series", len(seen), len(groups))
	}
	b, err := Render(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c := range seen {
		if !strings.Contains(strings.ToLower(string(b)), c) {
			t.Errorf("colour %s (%s) is in no chart or verdict", c, seen[c])
		}
	}
}

// TestFastestOnlyWhenEveryComparisonIsSignificant is issue 24's: the
// verdict called a key "fastest" after testing only the second-ranked key
// against it, although each key has its own noise and the third can still
// be within noise of the first; and the bloat verdict called the highest
// median "fastest", styled as significant, in --quick runs that test nothing.
func TestFastestOnlyWhenEveryComparisonIsSignificant(t *testing.T) {
	sig := func(key string, s bool) results.Versus {
		v := results.Versus{Key: key}
		v.Test, v.Significant, v.P, v.PAdjusted = "blocked-t", s, 0.5, 0.5
		if s {
			v.P, v.PAdjusted = 0.001, 0.003
		}
		return v
	}
	best := &results.Group{Key: "bigint"}
	second := &results.Group{Key: "uuidv7", Compared: []results.Versus{sig("bigint", true)}}
	third := &results.Group{Key: "ulid", Compared: []results.Versus{sig("bigint", false)}}
	rd := &renderer{}
	if text, s := rd.bestText([]*results.Group{best, second, third}, "highest rate"); s || strings.Contains(text, "fastest") || !strings.Contains(text, "ulid") {
		t.Errorf("the third within noise of the first: %q (significant %v)", text, s)
	}
	third.Compared[0] = sig("bigint", true)
	if text, s := rd.bestText([]*results.Group{best, second, third}, "highest rate"); !s || !strings.HasPrefix(text, "fastest") {
		t.Errorf("every comparison significant: %q (significant %v)", text, s)
	}
	untested := &results.Group{Key: "uuidv4"}
	if text, s := rd.bestText([]*results.Group{best, untested}, "highest rate"); s || text != "highest rate, not tested" {
		t.Errorf("untested (--quick): %q (significant %v)", text, s)
	}
	// The bloat verdict of a --quick run (one window per key) names no fastest key.
	r := read(t, fixture(t))
	r.Plan.Quick, r.Plan.Pivot = true, &results.Pivot{By: results.PivotClients, Bloat: true}
	for i := range r.Cells {
		r.Cells[i].Rounds = nil
	}
	verdict.Analyze(r)
	b, err := Render(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if page := string(b); strings.Contains(page, "fastest") || !strings.Contains(page, "highest rate, not tested") {
		t.Errorf("a quick bloat verdict names a fastest key")
	}
}
