package report

import (
	"fmt"
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

// seedRuns are real runs of every preset: the schema-1 seeds and, gzipped,
// full runs of the presets they do not cover.
func seedRuns(t *testing.T) map[string]*results.Results {
	out := map[string]*results.Results{}
	for _, name := range []string{"war", "queue", "bulk"} {
		r, err := verdict.Read(filepath.Join("../results/testdata", name+".json"), all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		out[name] = r
	}
	files, _ := filepath.Glob("testdata/runs/*.json.gz")
	for _, f := range files {
		r, err := verdict.Parse(resultstest.ReadGzip(t, f), f, all.Kinds())
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json.gz")] = r
	}
	return out
}

var (
	svgRe  = regexp.MustCompile(`(?s)<svg.*?</svg>`)
	descRe = regexp.MustCompile(`<desc>` + seriesPrefix + `([^<]*)</desc>`)
)

// TestChartColours renders every preset's report and reads its charts'
// SVGs: within a chart every series has its own colour, a key has one
// colour in every chart of the report, and each series' colour is drawn.
func TestChartColours(t *testing.T) {
	runs := seedRuns(t)
	if len(runs) < 7 {
		t.Errorf("%d seed runs: every preset should have one", len(runs))
	}
	for name, r := range runs {
		page, err := Render(r, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		colourOf := map[string]string{}
		charts := svgRe.FindAllString(string(page), -1)
		t.Logf("%s: %d charts", name, len(charts))
		if len(charts) < 3 {
			t.Errorf("%s: %d charts", name, len(charts))
		}
		for i, chart := range charts {
			m := descRe.FindStringSubmatch(chart)
			if m == nil {
				t.Errorf("%s chart %d: no description of its series", name, i)
				continue
			}
			seen := map[string]string{}
			for _, part := range strings.Split(strings.ReplaceAll(m[1], "&#39;", "'"), "; ") {
				at := strings.LastIndex(part, " #")
				if at < 0 {
					continue
				}
				series, colour := part[:at], part[at+1:]
				if other, ok := seen[colour]; ok {
					t.Errorf("%s chart %d: %s and %s share %s", name, i, other, series, colour)
				}
				seen[colour] = series
				if c, ok := colourOf[series]; ok && c != colour {
					t.Errorf("%s: %s is %s in one chart and %s in another", name, series, c, colour)
				}
				colourOf[series] = colour
				if !strings.Contains(strings.ToLower(chart[len(m[0]):]), colour) && !strings.Contains(chart, rgbOf(colour)) {
					t.Errorf("%s chart %d: %s's colour %s is not drawn", name, i, series, colour)
				}
			}
		}
	}
}

// rgbOf is #rrggbb as the SVG writer may write it: rgb(r,g,b).
func rgbOf(hex string) string {
	var r, g, b int
	_, _ = fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return fmt.Sprintf("rgb(%d,%d,%d)", r, g, b)
}

// A chart gonum cannot draw (a log axis reaching zero) is an error, not a
// panic: the page is still written, the chart listed as not drawn.
func TestUndrawableChartIsAnError(t *testing.T) {
	_, err := logLines("t", "x", "y", []series{{name: "a", xs: []float64{0, 0}, ys: []float64{1, 2}}})
	if err == nil {
		t.Error("a log axis from zero drew")
	}
}

// TestCurvesPerCache: a run at two caches (--shared-buffers 3MB,12MB)
// draws each key's rate-against-ratio curve once per cache.
func TestCurvesPerCache(t *testing.T) {
	r := seedRuns(t)["growth-two-caches"]
	if r == nil {
		t.Fatal("no growth-two-caches seed")
	}
	curves, ref, err := projection.Curves(r) // what the command hands the page
	if err != nil {
		t.Fatal(err)
	}
	page, err := Render(r, &Projected{Curves: curves, Reference: ref})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"uuidv4 at 3.0 MiB #", "uuidv4 at 12.0 MiB #", "uuidv7 at 3.0 MiB #", "uuidv7 at 12.0 MiB #"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("no curve %q", strings.TrimSuffix(s, " #"))
		}
	}
}
