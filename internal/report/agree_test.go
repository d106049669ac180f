package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestOutputsAgree (issue 61): over every recorded run, a figure has one
// value wherever it is shown — the CSV's rate, median rate, p99, work and
// counts of a key's cell, and the MD's row of the key, are the first
// screen's and the summary's (its rate, the median of its rounds' p99,
// its work, each count's rounds' mean); a key's work parts add up to its work; and each "rate vs
// least" and "work vs least" is the ratio of the two values beside it, to
// its rounding, none below 1.00× against the least work; a median rate's
// interval is printed with the level it was computed at.
func TestOutputsAgree(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join("testdata", "runs", "*.json.gz"))
	plain, _ := filepath.Glob(filepath.Join("..", "results", "testdata", "*.json"))
	if len(runs) == 0 || len(plain) == 0 {
		t.Fatal("no recorded runs")
	}
	for _, path := range append(runs, plain...) {
		b, err := os.ReadFile(path)
		if strings.HasSuffix(path, ".gz") {
			b = resultstest.ReadGzip(t, path)
		}
		if err != nil {
			t.Fatal(err)
		}
		r, err := verdict.Parse(b, path, all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		rows := csvRows(t, r)
		a := analysisOf(r)
		checkMarkdown(t, name, r, a)
		for gi := range a.Groups {
			g := &a.Groups[gi]
			if len(g.Cells) == 1 {
				row := rows[g.Cells[0]]
				if g.Rate > 0 && !near(row["rate"], g.Rate, 1e-9) {
					t.Errorf("%s %s: the CSV's rate %s, the first screen's %g", name, g.Key, row["rate"], g.Rate)
				}
				if g.TPS.N > 0 && !near(row["median_rate"], g.TPS.Median, 1e-9) {
					t.Errorf("%s %s: the CSV's median_rate %s, the summary's %g", name, g.Key, row["median_rate"], g.TPS.Median)
				}
				if p99, _ := r.RoundsP99(g); !near(row["p99_ms"], p99, 1e-9) {
					t.Errorf("%s %s: the CSV's p99_ms %s, the summary's %g", name, g.Key, row["p99_ms"], p99)
				}
				if g.Cost != nil && g.Cost.Mean > 0 && !near(row["work_ms_per_txn"], g.Cost.Mean, 1e-9) {
					t.Errorf("%s %s: the CSV's work %s, the first screen's %g", name, g.Key, row["work_ms_per_txn"], g.Cost.Mean)
				}
			}
			// The median rate's interval says the level it holds at, as
			// every interval does (a "95% CI" over an interval at 99.2% was
			// on the console and the page).
			if g.TPS.HasInterval() {
				level := ", " + stats.LevelText(g.TPS.Level) + "]"
				for out, text := range map[string]string{"the table": present.RateText(g), "the page": rateWithInterval(g)} {
					if !strings.HasSuffix(text, level) {
						t.Errorf("%s %s: %s's median rate %q, its interval at %s", name, g.Key, out, text, stats.LevelText(g.TPS.Level))
					}
				}
			}
			// Every summary column headed p99, each workload's own too, is
			// the p99 every output shows (some were the last cell's pooled p99).
			for _, col := range append(viewOf(g.Workload).Columns, transactional...) {
				if p99, _ := r.RoundsP99(g); col.Header == "p99" && col.Text(r, g) != results.Millis(p99) {
					t.Errorf("%s %s: the summary's p99 %s, every other output's %s", name, g.Key, col.Text(r, g), results.Millis(p99))
				}
			}
			// The page's list of rates leads with the rate its ratios are of
			// (it led with the rounds' median beside ratios of the rates).
			if page := rateWithInterval(g); !strings.HasPrefix(page, present.Rate.Text(r, g)) {
				t.Errorf("%s %s: the page's rate %q, the rate its ratios are of %s", name, g.Key, page, present.Rate.Text(r, g))
			}
			if c := g.Cost; c != nil && c.Mean > 0 {
				p := c.Shares
				if sum := p.CPU + p.Reads + p.Writes + p.WAL + p.Flushes; math.Abs(sum-1) > 1e-9 {
					t.Errorf("%s %s: the work's parts' shares add up to %g", name, g.Key, sum)
				}
			}
			// A count per transaction is its rounds' declared statistic wherever it
			// is shown: the MD's and the CSV's columns (they were the
			// rounds' median, the work's parts shares of its mean: three
			// values of the server's CPU).
			checkCounts(t, name, r, g, rows)
		}
		for _, sh := range shapesOf(a) {
			least := sh.group(sh.Least)
			if least == nil {
				continue
			}
			for _, g := range sh.Groups {
				if v, _ := costVersus(g, least, false); v != nil && g.Cost.Mean > 0 && least.Cost.Mean > 0 {
					if r := g.Cost.Mean / least.Cost.Mean; math.Abs(v.Effect-r) > 0.0051*r || v.Effect < 0.995 {
						t.Errorf("%s %s: work vs least %.3f× beside works %.3g and %.3g (%.3f)", name, g.Key, v.Effect, g.Cost.Mean, least.Cost.Mean, r)
					}
				}
				// The WAL has one comparison a pair: the "why" quotes its
				// family's (it tested the pair alone, a narrower interval).
				for _, why := range g.Cost.Why {
					if v := g.WAL.Versus(least.Key); v != nil && why.Figure == "wal_bytes_per_txn" && !v.TooFew && why.Interval != v.Interval {
						t.Errorf("%s %s: the WAL %s in why, %s in its family", name, g.Key, why.RatioText(), v.RatioText())
					}
				}
				base, _, self := sh.rateBase()
				text := rateVersus(g, base, self, false)
				shown, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimLeft(text, "*~ "), "×"), 64)
				if err != nil || g == base || base.Rate <= 0 {
					continue
				}
				if math.Abs(shown-g.Rate/base.Rate) > 0.0051 || (!sh.Against && shown < 1) {
					t.Errorf("%s %s: rate vs %s %s beside rates %.0f and %.0f (%.3f)", name, g.Key, base.Key, text, g.Rate, base.Rate, g.Rate/base.Rate)
				}
			}
		}
	}
}

// checkMarkdown holds the MD's rows, key by key in its shapes' order, to
// the figures every other output shows: a key's rate, work and p99
// (present's columns) and each count's rounds' mean (results.RoundFigures).
func checkMarkdown(t *testing.T, name string, r *results.Results, a *results.Analysis) {
	var got [][]string
	for _, line := range strings.Split(Markdown(r), "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| key |") {
			got = append(got, strings.Split(strings.Trim(line, "| "), " | "))
		}
	}
	n := 0
	for _, sh := range shapesOf(a) {
		for _, g := range sh.Groups {
			want := []string{g.Key, present.Rate.Text(r, g), present.Work.Text(r, g), "", present.P99Column.Text(r, g)}
			for _, f := range results.WorkCounts() {
				v, ok := r.RoundMean(g, f)
				want = append(want, f.Text(v, ok))
			}
			if n >= len(got) {
				t.Errorf("%s: the MD has %d rows, no row for %s", name, len(got), g.Key)
				return
			}
			for i, w := range want {
				if w != "" && (i >= len(got[n]) || got[n][i] != w) {
					t.Errorf("%s %s: the MD's column %d is %q, every other output's %q", name, g.Key, i, got[n], w)
				}
			}
			n++
		}
	}
}

// checkCounts holds the CSV's cost columns of a key of one cell to its
// rounds' declared statistic.
func checkCounts(t *testing.T, name string, r *results.Results, g *results.Group, rows []map[string]string) {
	if len(g.Cells) != 1 {
		return
	}
	for _, f := range results.RoundFigures() {
		want, ok := r.RoundMean(g, f)
		if got := rows[g.Cells[0]]["cost."+f.Name]; ok && !near(got, want, 1e-9) {
			t.Errorf("%s %s: the CSV's cost.%s %s, its rounds' mean %g", name, g.Key, f.Name, got, want)
		}
	}
}

// csvRows are the CSV's rows by cell index, each by column.
func csvRows(t *testing.T, r *results.Results) []map[string]string {
	b, err := CSV(r)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, col := range recs[0] {
			m[col] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

func near(text string, want, rel float64) bool {
	v, err := strconv.ParseFloat(text, 64)
	return err == nil && math.Abs(v-want) <= rel*math.Abs(want)
}
