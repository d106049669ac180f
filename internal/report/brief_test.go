package report

import (
	"bytes"
	"fmt"
	"html"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/verdict/verdicttest"
)

// TestBriefFitsTheFirstScreen: a run's first screen is at most BriefLines
// lines at 80 columns, and names every key of its shape with its work
// against the least working key's.
func TestBriefFitsTheFirstScreen(t *testing.T) {
	for _, name := range []string{"war-busy", "aa"} {
		r := readCost(t, name)
		var out bytes.Buffer
		Brief(r).Write(&out, BriefWidth)
		text := strings.TrimRight(out.String(), "\n")
		lines := strings.Split(text, "\n")
		if len(lines) > BriefLines {
			t.Errorf("%s: %d lines:\n%s", name, len(lines), text)
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > BriefWidth {
				t.Errorf("%s: a line of %d columns: %s", name, n, l)
			}
		}
		for _, k := range r.Plan.Keys {
			if !strings.Contains(text, "│ "+k+" ") {
				t.Errorf("%s: the first screen lacks %s:\n%s", name, k, text)
			}
		}
	}
}

// TestOneWindowCost: a cell run as one window (--quick, --rounds 1) still
// shows its work per transaction, from the window's own counts.
func TestOneWindowCost(t *testing.T) {
	r := readCost(t, "aa")
	var want []string
	dev := verdict.DeviceOf(r)
	for i := range r.Cells {
		c := &r.Cells[i]
		c.Cost, c.Rounds = c.Rounds[0].Cost, nil
		want = append(want, fmt.Sprintf(" %.3g ms ", verdict.WorkOf(c.Cost, dev).Value()))
	}
	verdict.Analyze(r)
	var out bytes.Buffer
	Brief(r).Write(&out, BriefWidth)
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the first screen lacks the window's work %q:\n%s", w, out.String())
		}
	}
	for i := range r.Cells {
		r.Cells[i].Cost = nil
	}
	verdict.Analyze(r)
	out.Reset()
	Brief(r).Write(&out, BriefWidth)
	if strings.Contains(out.String(), want[0]) {
		t.Errorf("a work figure without a cost:\n%s", out.String())
	}
}

// TestBriefAtAFixedRate (issue 40): a run at a fixed rate (-R 1500, uuidv4
// and bigint) ends with each key's p99 from the schedule compared with the
// least one's, its work against the least working key's, and what the
// rate costs the server each second (WAL, CPU) with the schedule's lag.
func TestBriefAtAFixedRate(t *testing.T) {
	r := readCost(t, "rate")
	var out bytes.Buffer
	Brief(r).Write(&out, BriefWidth)
	text := out.String()
	for _, want := range []string{"at a fixed 1500 tps", "P99 VS LEAST", "WORK VS LEAST", "WAL ", "MiB/s", "of a core", "schedule lag p99"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if n := len([]rune(l)); n > BriefWidth {
			t.Errorf("a line of %d columns: %s", n, l)
		}
	}
}

// TestBriefSaysTheWorkApartAtAFixedRate (issue 48): at a fixed rate on a
// table past its cache (run insert -R 1500 -c 8 --keys uuidv4,bigint
// --rows 2000000), where uuidv4 does more work than bigint, the first
// screen says how much more, with its interval and the counts that set it
// apart, as a run at full speed does; before, only the table said it.
func TestBriefSaysTheWorkApartAtAFixedRate(t *testing.T) {
	r := readCost(t, "rate-past-cache")
	var out bytes.Buffer
	Brief(r).Write(&out, BriefWidth)
	text := out.String()
	g := r.Analysis.GroupOf(&r.Analysis.Shapes[0], "uuidv4")
	if g == nil || g.Cost == nil || len(g.Cost.Why) == 0 {
		t.Fatalf("uuidv4's work apart from bigint's was not found:\n%s", text)
	}
	v := g.Cost.Versus("bigint")
	if v == nil || !v.Significant {
		t.Fatalf("uuidv4's work is not found different from bigint's in the stored run: %+v", v)
	}
	flat := strings.Join(strings.Fields(text), " ")
	want := fmt.Sprintf("uuidv4 does %s bigint's work %s: %s", stats.RatioText(v.Effect), interval(v), g.Cost.Why[0].Text())
	if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
		t.Errorf("the first screen does not say %q:\n%s", want, text)
	}
	if strings.Contains(text, "not found different") {
		t.Errorf("a difference found is said as none:\n%s", text)
	}
}

// TestBriefNamesAnUnreadWorker (issue 49): a Citus worker keybench could
// not read is named on the first screen with why, not only in the report.
func TestBriefNamesAnUnreadWorker(t *testing.T) {
	r := readCost(t, "aa")
	r.Cells[0].Cluster = &results.Cluster{Workers: []results.Worker{{Node: "10.0.0.7:5432"},
		{Node: "10.0.0.8:5432", Unreachable: "password authentication failed for user \"kb\""}}}
	var out bytes.Buffer
	Brief(r).Write(&out, BriefWidth)
	if !strings.Contains(out.String(), "Not read on worker 10.0.0.8:5432: password authentication failed") || strings.Contains(out.String(), "10.0.0.7") {
		t.Errorf("the first screen does not name the worker it could not read:\n%s", out.String())
	}
}

// TestCountsApartFromTheWork (issue 48): at a fixed rate on an empty table
// (run insert -R 1500 -c 8 --keys uuidv4,bigint), uuidv4's work is not
// found different from bigint's — the CPU is most of it — though it wrote
// several times the full-page images; the first screen says both, with
// what the counts come to on the run's disk, computed from the run.
func TestCountsApartFromTheWork(t *testing.T) {
	r := readCost(t, "rate-counts")
	var out bytes.Buffer
	Brief(r).Write(&out, 1000)
	text := out.String()
	g := r.Analysis.GroupOf(&r.Analysis.Shapes[0], "uuidv4")
	if g == nil || g.Cost == nil || len(g.Cost.Why) == 0 {
		t.Fatalf("uuidv4's counts apart from bigint's were not found:\n%s", text)
	}
	fpi := g.Cost.Why[0]
	want := fmt.Sprintf("though its counts differ: %s", fpi.Text())
	if fpi.Figure != "wal_fpi_per_txn" || fpi.Ratio.Ratio < 2 || !strings.Contains(text, want) || !strings.Contains(text, "its blocks and WAL are") {
		t.Errorf("the first screen does not say the counts apart from the work (%q, the first count %q %.2f×):\n%s", want, fpi.Figure, fpi.Ratio.Ratio, text)
	}
}

// TestTheAnswerLeads (issues 62, 74): the first screen, the verbose
// summary and the MD export of the default run recorded beside a busy loop
// lead with the answer: the keys not told apart as one group, the key its
// smallest key index chose among them (not uuidv7, whose work came out
// least), the keys to avoid with their intervals, the keys whose WAL its
// own family found above the least's.
func TestTheAnswerLeads(t *testing.T) {
	r := readCost(t, "war-busy")
	ans := r.Analysis.Answer
	if ans == nil || ans.Choose != "bigint" || ans.Rule != "key_index_bytes_per_row" || ans.Costliest != "uuidv4:as=text" || len(ans.WALMore) == 0 {
		t.Fatalf("answer %+v", ans)
	}
	var brief, summary bytes.Buffer
	Brief(r).Write(&brief, BriefWidth)
	Summary(r).Write(&summary, 0)
	first := strings.Join(strings.Fields(strings.SplitN(brief.String(), "insert-read", 2)[0]), " ")
	for _, want := range []string{"ulid, seq-uuid-time, uuidv7 and bigint: no difference in work found, each within 0.88–1.19× of the least",
		"Choose bigint: its key index is the smallest (21.4 vs 30.1–39.5 MiB a million rows).",
		"Avoid: uuidv4:as=text 1.39× [1.27–1.51, 99.9%], uuidv4 1.32× [1.22–1.43, 99.9%] its work", "More WAL: uuidv4:as=text 2.48×"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first screen does not lead with %q:\n%s", want, brief.String())
		}
	}
	if !strings.HasPrefix(summary.String(), ans.Text) {
		t.Errorf("the summary does not lead with the answer:\n%s", summary.String())
	}
	if md := Markdown(r); !strings.Contains(strings.SplitN(md, "|", 2)[0], ans.Text) {
		t.Errorf("the MD does not lead with the answer:\n%s", md)
	}
}

// TestTheFirstScreenSaysWhatWasNotMeasured (issue 62): a run on a server
// whose processes keybench could not see (its rounds read no server CPU,
// and no other processes' share) names the CPU as not measured and the
// work as its IO counts, prints no "busy machine" line drawn from the
// server under test, and no CPU of 0.
func TestTheFirstScreenSaysWhatWasNotMeasured(t *testing.T) {
	r := readCost(t, "war-busy")
	const why = "the server's backends are not processes of this machine (a remote server): their CPU time cannot be read"
	for i := range r.Cells {
		for k := range r.Cells[i].Rounds {
			if c := r.Cells[i].Rounds[k].Cost; c != nil {
				c.ServerAllCPUMS, c.ServerCPUMS = results.Unavailable[float64](why), results.Unavailable[float64](why)
				c.OthersCPUShare = results.Unavailable[float64]("the server's processes are not seen")
			}
		}
	}
	verdict.Analyze(r)
	var out bytes.Buffer
	Brief(r).Write(&out, 0)
	text := out.String()
	for _, want := range []string{"its CPU not measured (" + why + ")", "Not measured: the server's CPU"} {
		if !strings.Contains(text, want) {
			t.Errorf("the first screen does not say %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"A busy machine", "the CPU 0 ms", "all server CPU + IO"} {
		if strings.Contains(text, bad) {
			t.Errorf("the first screen says %q:\n%s", bad, text)
		}
	}
	// The CSV: the CPU's columns empty with why, the work saying what it leaves out (the columns were absent).
	for i, row := range csvRows(t, r) {
		if row["cost.server_all_cpu_ms_per_txn"] != "" || row["cost.server_all_cpu_ms_per_txn.unavailable"] != why ||
			!strings.Contains(row["work_not_counted"], verdict.MissingCPU) {
			t.Errorf("CSV row %d: server CPU %q (unavailable %q), work not counted %q", i, row["cost.server_all_cpu_ms_per_txn"],
				row["cost.server_all_cpu_ms_per_txn.unavailable"], row["work_not_counted"])
		}
	}
	if md := Markdown(r); !strings.Contains(md, "Not measured: the server's CPU") {
		t.Errorf("the MD does not name the CPU as not measured:\n%s", md)
	}
}

// TestTheFirstScreenSaysTheShortfall (issue 62): a fixed rate the server
// ran a fifth of (run insert -R 20000 -c 2 --keys bigint, recorded) is
// said on the first screen, with what ran, what was asked and what held it.
func TestTheFirstScreenSaysTheShortfall(t *testing.T) {
	r := readCost(t, "rate-shortfall")
	var out bytes.Buffer
	Brief(r).Write(&out, 0)
	if !strings.Contains(out.String(), "bigint did not keep up: it ran 4260 of 20.0k tps, 17050 of the 79889 transactions its schedule started (21%): its 2 clients were the limit") {
		t.Errorf("the first screen:\n%s", out.String())
	}
}

// TestThePagesFirstCardAnswers (issue 62): in headless Chromium, the
// page's verdict begins with the answer, before any table.
func TestThePagesFirstCardAnswers(t *testing.T) {
	bin := chromium(t)
	r := readCost(t, "war-busy")
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := WriteFile(r, nil, page); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+page)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	text := html.UnescapeString(string(dom))
	at, table := strings.Index(text, r.Analysis.Answer.Text), strings.Index(text, "<table")
	if at < 0 || table >= 0 && at > table {
		t.Errorf("the page's answer at %d, its first table at %d", at, table)
	}
}

// TestTheFirstScreenSaysTheDrift (issue 62): a run whose every key ran its
// last round at 0.64× its first (the recorded war-busy run, its rounds'
// rates bent by the same trend) says so on the first screen; the run as
// recorded, whose rounds held, says nothing of it.
func TestTheFirstScreenSaysTheDrift(t *testing.T) {
	first := func(r *results.Results) string {
		var out bytes.Buffer
		Brief(r).Write(&out, 0)
		return out.String()
	}
	r := readCost(t, "war-busy")
	if text := first(r); strings.Contains(text, "Drift:") {
		t.Errorf("a run whose rounds held says it drifted:\n%s", text)
	}
	for i := range r.Cells {
		rd := r.Cells[i].Rounds
		for k := range rd {
			rd[k].Rate *= 1 - 0.36*float64(k)/float64(max(len(rd)-1, 1))
		}
	}
	verdict.Analyze(r)
	ref, ok := r.RoundShift(&r.Analysis.Groups[0])
	if !ok || ref > 0.7 {
		t.Fatalf("the bent rounds shift %.2f×", ref)
	}
	text := first(r)
	want := fmt.Sprintf("ran its last round at %.2f× its first, every key alike", ref)
	if !strings.Contains(text, "Drift: ") || !strings.Contains(text, want) {
		t.Errorf("the first screen does not say %q:\n%s", want, text)
	}
}

// TestEveryOutputAgainstTheReference (issue 64): a run whose question asks
// each key against bigint (ids) renders on every output — the first
// screen, the summary, the page, the MD and the CSV — with its ratios
// headed against bigint, bigint marked the reference, and no pair the
// question did not ask.
func TestEveryOutputAgainstTheReference(t *testing.T) {
	res := verdicttest.KeysOf(8, map[string]float64{"uuidv4": 0.3, "ulid": 0.2, "uuidv7": 0.2, "bigint": 0.2}, []string{"uuidv4", "ulid", "uuidv7", "bigint"}, 3)
	res.Plan.Against = "bigint"
	verdict.Analyze(res)
	var first, all bytes.Buffer
	Brief(res).Write(&first, 0)
	Summary(res).Write(&all, 0)
	md := Markdown(res)
	if _, err := CSV(res); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(res, nil, filepath.Join(t.TempDir(), "report.html")); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"first screen": first.String(), "md": md} {
		if !strings.Contains(strings.ToLower(text), "work vs bigint") || !strings.Contains(text, "reference") || name == "first screen" && !strings.Contains(text, "tested: each key against bigint") {
			t.Errorf("the %s is not against bigint:\n%s", name, text)
		}
	}
}
