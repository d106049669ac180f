package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/testenv"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// fixture is a small run of three keys with the metrics a real run records,
// written to disk and read back as keybench does before rendering.
func fixture(t *testing.T) string {
	t.Helper()
	cell := func(key string, tps float64, cacheShare, fpi float64) results.Cell {
		var tl []results.Second
		for i := 1; i <= 8; i++ {
			tl = append(tl, results.Second{T: i, TPS: tps + float64(i%3)*10, Txns: int64(tps)})
		}
		var samples []results.CacheSample
		for i := 0; i < 4; i++ {
			samples = append(samples, results.CacheSample{T: float64(2 * i), Shares: map[string]float64{"key_index": cacheShare, "table": 0.3}})
		}
		var rounds []results.Round
		for i := 1; i <= 5; i++ {
			rounds = append(rounds, results.Round{Round: i, DurationS: 1.6, Txns: int64(tps * 1.6), Rate: tps + float64(i%3)*10})
		}
		return results.Cell{Key: key, Workload: "insert-read", Clients: 10, Status: results.StatusOK, RowsBefore: 1000000,
			DurationS: 8, Txns: int64(tps * 8), TPS: tps, Timeline: tl, Rounds: rounds,
			LatencyMS: results.Latency{Mean: 1, P50: 1, P95: 2, P99: 3, P999: 5, Max: 9},
			Metrics: results.Metrics{
				TableBytes: results.Of[int64](100 << 20), KeyIndexBytes: results.Of[int64](40 << 20), KeyIndexBytesAfterReindex: results.Of[int64](30 << 20),
				TotalBytes: results.Of[int64](160 << 20), BloatRatio: results.Of(1.33), WALBytesPerRow: results.Of(700.0), WALFPIPerRow: results.Of(fpi),
				WALFPI:            results.Of(int64(fpi * 100000)),
				WALFPIByRelation:  results.Of(map[string]int64{"key_index": int64(fpi * 60000), "data_index": 2743, "table": 5}),
				KeyIndexFPIPerRow: results.Of(fpi * 0.6),
				BufferCache:       results.Of(results.BufferCache{MeanShare: map[string]float64{"key_index": cacheShare}, Samples: samples}),
				SizesOverTime: results.Of([]results.SizeSample{{T: 0, Bytes: map[string]int64{"key_index": 30 << 20}},
					{T: 2, Bytes: map[string]int64{"key_index": 35 << 20}}, {T: 4, Bytes: map[string]int64{"key_index": 40 << 20}}}),
				WaitEvents: results.Of(results.WaitEvents{Counts: map[string]int64{"IO:DataFileRead": 30, "CPU": 50, "LWLock:WALWrite": 20}}),
			}}
	}
	r := &results.Results{SchemaVersion: results.SchemaVersion, Status: results.StatusOK, Scenario: "war",
		Keybench:    results.Tool{Version: "test", Command: []string{"keybench", "run", "--keys", "uuidv4,uuidv7,bigint"}},
		StartedAt:   time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC),
		Environment: results.Environment{ServerVersion: "18.6", ServerKind: "embedded", CacheMode: "cold", Settings: map[string]string{"shared_buffers": "2048"}},
		Plan:        results.Plan{Keys: []string{"uuidv4", "uuidv7", "bigint"}},
		Cells:       []results.Cell{cell("uuidv4", 4000, 0.26, 0.059), cell("uuidv7", 5600, 0.01, 0.024), cell("bigint", 6300, 0.0, 0.024)},
	}
	dir := t.TempDir()
	if err := verdict.Write(r, dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "results.json")
}

func TestReportIsSelfContainedWithChartsAndVerdict(t *testing.T) {
	path := fixture(t)
	out := filepath.Join(filepath.Dir(path), "report.html")
	if err := WriteFile(read(t, path), nil, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var svgs, nonEmpty int
	var verdict bool
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if (a.Key == "src" || a.Key == "href") && !strings.HasPrefix(a.Val, "#") {
					t.Errorf("external reference <%s %s=%q>", n.Data, a.Key, a.Val)
				}
			}
			switch n.Data {
			case "svg":
				svgs++
				if countElements(n) > 20 {
					nonEmpty++
				}
			case "link", "script", "iframe", "img":
				t.Errorf("<%s> in a self-contained report", n.Data)
			case "ol":
				for _, a := range n.Attr {
					if a.Key == "class" && a.Val == "verdict" && countElements(n) >= 3 {
						verdict = true
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if svgs < 5 || nonEmpty != svgs {
		t.Errorf("%d charts, %d of them non-empty; want at least 5, all drawn", svgs, nonEmpty)
	}
	if !verdict {
		t.Error("no verdict")
	}
	s := string(b)
	for _, want := range []string{"1. bigint", "uuidv4", "slower than bigint", "Sizes over time", "key index in cache 26%", "keybench run --keys uuidv4,uuidv7,bigint", "shared_buffers"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if len(b) > 5<<20 {
		t.Errorf("report is %d bytes", len(b))
	}
}

func countElements(n *html.Node) int {
	c := 0
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode {
			c += 1 + countElements(k)
		}
	}
	return c
}

func TestReportIsReproducible(t *testing.T) {
	path := fixture(t)
	a, b := filepath.Join(t.TempDir(), "a.html"), filepath.Join(t.TempDir(), "b.html")
	if err := WriteFile(read(t, path), nil, a); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(read(t, path), nil, b); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if !bytes.Equal(x, y) {
		t.Error("two renderings of the same results differ")
	}
}

// TestReportRendersInChromium opens the report in headless Chromium and
// checks the screenshot is not blank. .ci/run installs Chromium.
func TestReportRendersInChromium(t *testing.T) {
	bin := chromium(t)
	path := fixture(t)
	dir := filepath.Dir(path)
	page, shot := filepath.Join(dir, "report.html"), filepath.Join(dir, "shot.png")
	if err := WriteFile(read(t, path), nil, page); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size=1200,3000", "--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	if colours := distinctColours(t, shot); colours < 50 {
		t.Errorf("screenshot has %d distinct colours: blank?", colours)
	}
}

// chromium is the headless browser's path; a test without it skips, and
// fails under CI, which installs it.
func chromium(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs it")
		}
		testenv.Skip(t, "chromium not installed (apt-get install chromium)")
	}
	return bin
}

// read reads a results file back, as keybench does before rendering.
func read(t *testing.T, path string) *results.Results {
	t.Helper()
	r, err := verdict.Read(path, all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
