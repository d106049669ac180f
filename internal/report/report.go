// Package report renders a run's results.json as one self-contained HTML
// page: the verdict first, then charts that explain it, the console summary,
// and the environment with the command that reproduces the run. Everything
// is inline (charts are SVG drawn by gonum/plot), so the page renders
// offline, and it is derived from results.json alone, so re-rendering saved
// results gives the same page byte for byte.
package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/projection"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sources"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/workload/all"
)

// WriteFile renders res (with its analysis: verdict.Read or verdict.Write
// made it) and what was projected of it (nil: nothing) into htmlPath.
func WriteFile(res *results.Results, pr *Projected, htmlPath string) error {
	b, err := Render(res, pr)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(htmlPath, b)
}

// Chart is one figure of the page.
type Chart struct {
	Title, Caption string
	SVG            template.HTML
}

// Verdict is one ranked key.
type Verdict struct {
	Rank        int
	Key         string
	Color       string
	TPS         string
	Versus      string
	Significant bool
	Why         string
}

type page struct {
	Title, Status, Error string
	Question             string
	// First is the first screen's answer (the work per key against the
	// least's), the verdict's first card; Cost the busy-machine line and
	// the work verdict in full (costVerdict) after it.
	First     *Doc
	Cost      []string
	Questions *Doc // the preset's questions answered, when it asks several
	Blocks    []VerdictBlock
	ChartsOf  string
	Pairs     []PairTable
	PairsNote string
	Charts    []Chart
	Missing   []string
	Summary   *Doc
	AtScale   *Doc // the run carried to the user's scale, when asked
	Env       [][2]string
	Settings  [][2]string
	Command   string
	DDL       [][2]string
	Notes     []string
	// Sources are the write-ups the page cites ("001"), said at its end.
	Sources []sources.Source
}

// Projected is what package projection made of a run for its page: each
// key's rate against its key index's size over the cache (the curves
// `keybench project` reads; none where the run measured no key at two
// sizes), and, when asked (run --project-rows and --project-ram, or
// project --html), the run carried to the user's scale or why it could
// not be.
type Projected struct {
	Curves    []projection.Curve
	Reference string
	AtScale   *projection.Report
	Scale     projection.Scale
	Err       error
}

// Render builds the page.
func Render(res *results.Results, pr *Projected) ([]byte, error) {
	a := analysisOf(res)
	groups := a.Groups
	if pr == nil {
		pr = &Projected{}
	}
	r := &renderer{res: res, projected: pr, groups: groups, colors: map[string]int{}, tasks: map[string]int{}}
	for _, k := range res.Plan.Keys {
		if _, ok := r.colors[k]; !ok {
			r.colors[k] = len(r.colors)
		}
	}
	for i := range groups {
		if _, ok := r.colors[groups[i].Key]; !ok {
			r.colors[groups[i].Key] = len(r.colors)
		}
		if _, ok := r.tasks[groups[i].Task()]; !ok {
			r.tasks[groups[i].Task()] = len(r.tasks)
		}
	}
	r.pickHeadline()
	p := page{Title: "keybench: " + res.Scenario, Status: res.Status, Error: res.Error, Notes: res.Notes}
	p.Blocks, p.Question, p.First = r.verdicts(), res.Plan.Question, brief(res, true)
	if b := busyLine(a); b != "" {
		p.Cost = append(p.Cost, b)
	}
	p.Cost = append(p.Cost, costVerdict(res, a)...)
	if len(p.Blocks) > 1 {
		p.ChartsOf = p.Blocks[0].Title
	}
	p.Pairs, p.PairsNote = pairTables(a), pairsNote(groups)+"; "+intervalNote(groups)
	add := func(c Chart, missing string) {
		if missing != "" {
			p.Missing = append(p.Missing, missing)
		} else if c.SVG != "" { // "" without a reason: the chart does not apply to this run
			p.Charts = append(p.Charts, c)
		}
	}
	add(r.tpsOverTime())
	add(r.tpsVsScale())
	add(r.relativeVsCache())
	own, missing := r.viewCharts() // the workload's own charts come next: they explain its rate
	p.Charts, p.Missing = append(p.Charts, own...), append(p.Missing, missing...)
	for _, build := range []func() (Chart, string){r.sizes, r.partitionSizes, r.sizesOverTime, r.walPerRow, r.fpiPerRow, r.shippedPerRow, r.replayLag, r.cacheOverTime, r.waits, r.latency} {
		add(build())
	}
	p.Summary, p.Questions = summary(res, false), Questions(res)
	switch {
	case pr.Err != nil:
		p.AtScale = &Doc{Blocks: []Block{{Text: "No projection: " + pr.Err.Error() + "."}}}
	case pr.AtScale != nil:
		p.AtScale = ProjectionDoc(*pr.AtScale, pr.Scale)
	}
	p.Env, p.Settings = environment(res)
	p.DDL = ddlOf(res)
	p.Command = shellJoin(res.Keybench.Command)
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, p); err != nil {
		return nil, err
	}
	// The write-ups the page cites are read off its text, wherever it cites
	// them (a preset's title, a summary's note, a projection's table).
	if p.Sources = sources.Cited(markup.ReplaceAllString(out.String(), " ")); len(p.Sources) > 0 {
		out.Reset()
		if err := pageTemplate.Execute(&out, p); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// markup is an HTML tag, a style sheet or a drawing: what is not the page's text.
var markup = regexp.MustCompile(`(?s)<style.*?</style>|<svg.*?</svg>|<[^>]*>`)

type renderer struct {
	res       *results.Results
	projected *Projected
	groups    []results.Group
	colors    map[string]int   // a key's place in the palette: one colour per key in every chart
	tasks     map[string]int   // a task's place in the run: later tasks draw their key's colour lighter
	headline  []*results.Group // one group per key at the largest table size and client count
	// blocks are the headline's groups as the verdict ranks them: one block
	// per task (workload and read variant), or all together when their
	// kind says what it ranks across its workloads (a load's Headline).
	blocks [][]*results.Group
}

// pickHeadline chooses what the verdict ranks: every key at the largest table size and client count of the run.
func (r *renderer) pickHeadline() {
	var rows int64 = -1
	clients := -1
	for _, g := range r.groups {
		if g.Rows > rows || g.Rows == rows && g.Clients > clients {
			rows, clients = g.Rows, g.Clients
		}
	}
	at := map[string]int{}
	for i := range r.groups {
		if g := &r.groups[i]; g.Rows == rows && g.Clients == clients {
			r.headline = append(r.headline, g)
			task := g.Task()
			if viewOf(g.Workload).Headline != nil {
				task = "" // the kind ranks its workloads together
			}
			b, ok := at[task]
			if !ok {
				b = len(r.blocks)
				at[task] = b
				r.blocks = append(r.blocks, nil)
			}
			r.blocks[b] = append(r.blocks[b], g)
		}
	}
}

// VerdictBlock is the verdict of one task: its title (none when the run
// had one), what it ranks, and the keys ranked.
type VerdictBlock struct {
	Title    string
	Headline string
	Verdicts []Verdict
}

// verdicts ranks each block; the charts then draw the first block's groups.
func (r *renderer) verdicts() []VerdictBlock {
	if len(r.blocks) == 0 {
		head, vs := r.verdict(nil)
		return []VerdictBlock{{Headline: head, Verdicts: vs}}
	}
	var out []VerdictBlock
	for _, b := range r.blocks {
		head, vs := r.verdict(b)
		title := ""
		if len(r.blocks) > 1 {
			title = b[0].Task()
		}
		out = append(out, VerdictBlock{Title: title, Headline: head, Verdicts: vs})
	}
	if len(r.blocks) > 1 {
		r.headline = r.blocks[0]
	}
	return out
}

// label names a group in charts and the verdict: its key, with the workload when the run measured several.
func (r *renderer) label(g *results.Group) string { return results.Label(r.groups, g) }

func (r *renderer) keyColor(g *results.Group) color.Color {
	return lighter(keyColor(r.colors[g.Key]), r.tasks[g.Task()])
}

func (r *renderer) color(g *results.Group) string { return hexColor(r.keyColor(g)) }

func (r *renderer) cell(g *results.Group) *results.Cell { return &r.res.Cells[g.Cells[0]] }

// verdict ranks one block of groups (one task's keys at the headline's scale).
func (r *renderer) verdict(block []*results.Group) (string, []Verdict) {
	if len(block) == 0 {
		return "No cell finished, so there is nothing to rank.", nil
	}
	if p := r.res.Plan.Pivot; p != nil && p.Bloat {
		return r.bloatVerdict(block)
	}
	ranked := append([]*results.Group(nil), block...)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Rate > ranked[j].Rate })
	best := ranked[0]
	head := fmt.Sprintf("%s, %s, %s rows before each window: keys by rate, each the geometric mean of its samples, the statistic every ratio below is of (%s).",
		best.Task(), results.Clients(best.Clients), results.Thousands(best.Rows), unitWords(best))
	if k := r.view(); k.Headline != nil {
		head = k.Headline(r.res, r.groups)
	}
	if pace := r.res.Last(best).Pace; pace != nil {
		head += fmt.Sprintf(" At a fixed %s tps (--rate) every key ran the same schedule, so the rate ranks only a key the server could not keep up with: "+
			"the keys compare on their latency and on the work per transaction (the work verdict above, and \"At a fixed %s tps\" in the summary below).",
			results.Kilo(pace.RateTPS), results.Kilo(pace.RateTPS))
	}
	// A run whose samples could test nothing names no winner: a --quick
	// smoke run, one window per key, or one load per key.
	tested := false
	for _, g := range ranked[1:] {
		if !versusOf(g, best.Key).TooFew {
			tested = true
		}
	}
	switch {
	case len(ranked) < 2 || tested:
	case r.res.Plan.Quick:
		smoke := fmt.Sprintf("A smoke test (--quick): %s, so no winner is named (keys listed by rate; %s compares them).",
			unitWords(best), moreSamples(best))
		if k := r.view(); k.Headline != nil {
			smoke += " " + head
		}
		head = smoke
	default:
		head += fmt.Sprintf(" Not tested: %s, so no winner is named on the rate alone (%s compares them); the evidence beside each key is measured, not sampled.",
			unitWords(best), moreSamples(best))
	}
	if d := drifted(block); d != "" {
		head += " " + d
	}
	if m := machineDrift(r.res, block); m != "" {
		head += " " + m
	}
	// A rank says a test found the order: where no rate comparison of the
	// block is significant, the keys are listed by median, not ranked.
	found, ordered := orderFound(ranked)
	switch {
	case !found && tested:
		head += " No difference in rate was found: the keys are listed by rate, not ranked."
	case !ordered && tested:
		head += " The tests found the order of some pairs, not of every key: the keys are listed by rate, not ranked (every pair below)."
	}
	var out []Verdict
	for i, g := range ranked {
		v := Verdict{Key: r.label(g), Color: r.color(g), TPS: rateWithInterval(g)}
		if ordered {
			v.Rank = i + 1
		}
		if i == 0 {
			v.Versus, v.Significant = r.bestText(ranked, "highest rate")
			if what := reveals(r.res, g.Key); what != "" {
				v.Versus += "; its values reveal their " + what + " to whoever sees them"
			}
		} else {
			v.Versus, v.Significant = r.versusText(g, best)
		}
		v.Why = r.why(g, best)
		out = append(out, v)
	}
	return head, out
}

// orderFound says whether any rate comparison of the ranked groups is
// significant, and whether every key's order against the next is: only
// then are they ranked.
func orderFound(ranked []*results.Group) (found, ordered bool) {
	ordered = len(ranked) > 1
	for i, g := range ranked {
		for _, v := range g.Compared {
			found = found || v.Significant
		}
		if i > 0 && !versusOf(g, ranked[i-1].Key).Significant {
			ordered = false // the tests did not find this pair's order
		}
	}
	return found, ordered
}

// bestText names the first of ranked (the highest rate): "fastest" only
// when every other key's comparison with it is significant (each key has
// its own noise: the third can be within noise of the first when the
// second is not), else what it is: the highest rate, with the keys
// without a difference found from it, or untested.
func (r *renderer) bestText(ranked []*results.Group, highest string) (string, bool) {
	best := ranked[0]
	if len(ranked) < 2 {
		return highest, false
	}
	var near []string
	tested := false
	for _, g := range ranked[1:] {
		c := versusOf(g, best.Key)
		if !c.TooFew && c.Test != "" {
			tested = true
		}
		if !c.Significant {
			near = append(near, r.label(g))
		}
	}
	switch {
	case !tested:
		return highest + ", not tested", false
	case len(near) == 0:
		return "fastest: every other key's difference from it is significant", true
	case len(near) == len(ranked)-1:
		return highest + "; no difference from any other key found", false
	}
	return highest + "; no difference found from: " + strings.Join(near, ", "), false
}

// rateWithInterval is a group's rate (present.Rate: the statistic its ratios
// are of), then its rounds' median rate with the median's interval at the
// level it was computed at — a second figure, named.
func rateWithInterval(g *results.Group) string {
	if !g.TPS.HasInterval() {
		return fmt.Sprintf("%s (%s)", present.Rate.Text(nil, g), unitWords(g))
	}
	return present.Rate.Text(nil, g) + "; the rounds' median " + present.RateText(g)
}

// versusText says how g compares with the best group, and whether the difference is significant.
func (r *renderer) versusText(g, best *results.Group) (string, bool) {
	c := versusOf(g, best.Key)
	switch {
	case c.Test == "" && r.res.Plan.Against != "":
		// A pair the question does not ask: never tested, whatever its rounds.
		return fmt.Sprintf("%s: not tested (each key is compared with %s)", r.label(best), r.res.Plan.Against), false
	case c.TooFew:
		return fmt.Sprintf("? %s: too few samples to compare (%d %s each needed)", r.label(best), c.Needed, sampleNoun(g)), false
	case c.Equivalent():
		return fmt.Sprintf("= %s: the same within %s %s", r.label(best), stats.Percent(c.Margin), c.Text(stats.ChangePercent)), false
	case c.Significant:
		slower := stats.Interval{Lo: (1 - c.Hi) * 100, Hi: (1 - c.Lo) * 100, Level: c.Level}
		return fmt.Sprintf("%.0f%% slower than %s %s (p=%.3g, %s)", (1-c.Effect)*100, r.label(best),
			slower.Text(results.Formatted("%.0f%%")), c.PAdjusted, g.Correction), true
	}
	return fmt.Sprintf("~ %s (no difference found: %s %s, %s)", r.label(best), stats.RatioText(c.Effect), c.IntervalText(), c.PText()), false
}

// sampleNoun is what one more sample of the group would be.
func sampleNoun(g *results.Group) string {
	if g.Unit == results.UnitRuns {
		return "runs"
	}
	return "rounds"
}

// moreSamples says which flag gives g's shape enough samples to compare
// its keys: rounds (or repeats) enough for a block layout.
func moreSamples(g *results.Group) string {
	n := stats.MinBlocks
	if g.Unit == results.UnitRuns {
		return fmt.Sprintf("--repeat %d or more", n)
	}
	return fmt.Sprintf("--rounds %d or more", n)
}

// bloatVerdict answers a scenario whose point is the key index's bloat
// across client counts (002): keys ranked by bloat at the most clients,
// each with its bloat at every client count. Bloat is a count of pages
// (the index's size over its size after REINDEX), one figure per cell,
// not a sample: it is reported as measured; the rates beside it are
// compared as usual.
func (r *renderer) bloatVerdict(block []*results.Group) (string, []Verdict) {
	bloat := func(g *results.Group) (float64, bool) {
		return r.res.Median(g, func(c *results.Cell) (float64, bool) { return results.Float(c.Metrics.BloatRatio) })
	}
	ranked := append([]*results.Group(nil), block...)
	sort.SliceStable(ranked, func(i, j int) bool {
		a, aok := bloat(ranked[i])
		b, bok := bloat(ranked[j])
		return aok && (!bok || a < b)
	})
	byTPS := append([]*results.Group(nil), block...)
	sort.SliceStable(byTPS, func(i, j int) bool { return byTPS[i].Rate > byTPS[j].Rate })
	fastest := byTPS[0]
	g0 := ranked[0]
	head := fmt.Sprintf("Keys ranked by their key index's bloat (its size over its size after REINDEX: pages, measured once per cell, not sampled) "+
		"after %s with %s, lowest first, with the bloat at every client count: the sequence cache and random keys leave half-empty leaves "+
		"where concurrent inserts split pages out of order (002). Rates are compared with the key of the highest rate at %s.", g0.Task(), results.Clients(g0.Clients), results.Clients(g0.Clients))
	if d := drifted(block); d != "" {
		head += " " + d
	}
	var out []Verdict
	for i, g := range ranked {
		v := Verdict{Rank: i + 1, Key: r.label(g), Color: r.color(g)}
		var at []string
		for gi := range r.groups {
			o := &r.groups[gi]
			if o.Key == g.Key && o.Task() == g.Task() && o.Rows == g.Rows {
				if b, ok := bloat(o); ok {
					at = append(at, fmt.Sprintf("%.2f at %d", b, o.Clients))
				}
			}
		}
		if len(at) == 0 {
			v.TPS = "bloat not measured"
		} else {
			v.TPS = "bloat " + strings.Join(at, ", ") + " clients"
		}
		v.TPS += "; " + rateWithInterval(g)
		if g == fastest {
			v.Versus, v.Significant = r.bestText(byTPS, "highest rate")
		} else {
			v.Versus, v.Significant = r.versusText(g, fastest)
		}
		v.Why = r.why(g, fastest)
		out = append(out, v)
	}
	return head, out
}

// why explains a key's place with the server's evidence against the
// fastest key's: each figure of the evidence table under its header there
// (metrics.EvidenceColumns: one name and text a figure), where measured.
func (r *renderer) why(g, best *results.Group) string {
	var parts []string
	for _, fs := range metrics.EvidenceColumns() {
		text, ok := evidenceText(fs, &r.cell(g).Metrics)
		if !ok {
			continue
		}
		if bt, ok := evidenceText(fs, &r.cell(best).Metrics); ok && g != best {
			text += " (" + r.label(best) + ": " + bt + ")"
		}
		parts = append(parts, fs[len(fs)-1].Header+" "+text)
	}
	if len(parts) == 0 {
		return "no server metrics were collected for this cell"
	}
	return strings.Join(parts, "; ")
}

func unitWords(g *results.Group) string {
	switch g.Unit {
	case results.UnitRounds:
		return "one sample per round, the rounds interleaved across the keys"
	case results.UnitRuns:
		if g.TPS.N == 1 {
			return "one run per key"
		}
		return "one sample per run"
	}
	return "one window per key: its per-second rates are not tested"
}

// waitCounts are the clients' wait-event counts and their total.
func waitCounts(c *results.Cell) (map[string]float64, float64) {
	we, ok := c.Metrics.WaitEvents.Get()
	if !ok {
		return nil, 0
	}
	out, total := map[string]float64{}, 0.0
	for k, v := range we.Counts {
		out[k] = float64(v)
		total += float64(v)
	}
	return out, total
}

// analysisOf is the run's analysis (package verdict made it when the run
// was written or read); results without one show no group.
func analysisOf(res *results.Results) *results.Analysis {
	if res.Analysis == nil {
		return &results.Analysis{}
	}
	return res.Analysis
}

func environment(res *results.Results) ([][2]string, [][2]string) {
	e, h := res.Environment, res.Environment.Host
	env := [][2]string{
		{"status", res.Status}, {"scenario", res.Scenario}, {"keybench", res.Keybench.Version},
		{"server", e.ServerVersion + " (" + e.ServerKind + ")"}, {"cache mode", e.CacheMode}, {"schema", e.Schema},
		{"host", fmt.Sprintf("%s, %d CPUs (%s), %s memory, %s/%s, kernel %s", h.Hostname, h.CPUs, h.CPUModel, results.Bytes(int64(h.MemBytes)), h.OS, h.Arch, h.Kernel)},
		{"started", res.StartedAt.Format("2006-01-02 15:04:05 MST")},
		{"load average (1, 5, 15 min)", res.Environment.LoadAverage.Text(func(l results.LoadAverage) string {
			return fmt.Sprintf("%.2f, %.2f, %.2f at the start; %.2f, %.2f, %.2f at the end", l.Start[0], l.Start[1], l.Start[2], l.End[0], l.End[1], l.End[2])
		})},
	}
	if e.Engine.Kind != "" {
		env = append(env, [2]string{"engine", e.Engine.String()})
	}
	if len(e.Standbys) > 0 {
		env = append(env, [2]string{"streaming standbys", strings.Join(e.Standbys, ", ") + " (started by keybench, on this machine)"})
	}
	for _, t := range res.TaskOptions() {
		if len(t.Options) > 0 {
			env = append(env, [2]string{"options of " + t.Task, t.Text()})
		}
	}
	var settings [][2]string
	for _, k := range slices.Sorted(maps.Keys(e.Settings)) {
		settings = append(settings, [2]string{k, e.Settings[k]})
	}
	return env, settings
}

// ddlOf is the SQL of each key's tables, from its first cell: the key's
// helpers, the tables and their indexes as keybench made them.
func ddlOf(res *results.Results) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for _, c := range res.Cells {
		if len(c.DDL) == 0 || seen[c.Key] {
			continue
		}
		seen[c.Key] = true
		out = append(out, [2]string{c.Key + " (" + c.Task() + ")", strings.Join(c.DDL, ";\n") + ";"})
	}
	return out
}

// shellJoin quotes a command line for a POSIX shell.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
		}) < 0 {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// DefaultPath is where a run's report goes: beside its results.json.
func DefaultPath(resultsPath string) string {
	return filepath.Join(filepath.Dir(resultsPath), "report.html")
}

// versusOf is g's comparison with the group of key other (of its shape).
func versusOf(g *results.Group, other string) results.Versus {
	for _, v := range g.Compared {
		if v.Key == other {
			return v
		}
	}
	// Not compared: no test (Test ""), too few samples to say so otherwise.
	return results.Versus{Key: other, Comparison: stats.Comparison{TooFew: true, Needed: stats.MinBlocks, P: 1, PAdjusted: 1}}
}

// drifted names the keys whose rounds trended with their order: their
// verdict holds for the run's time, not for a steady state.
func drifted(groups []*results.Group) string {
	var out []string
	for _, g := range groups {
		if g.Drifted() {
			out = append(out, fmt.Sprintf("%s (ρ = %+.2f)", g.Key, *g.Drift))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "Drift: the rates of " + strings.Join(out, ", ") + " rose or fell from round to round (Spearman's ρ with the round's order), so the table or the machine changed during the run: the ranking holds for this run's time, not for a steady state."
}

// machineShift is how far a reference's rate may move between its first
// and last round before the verdict says so (round rates scatter ±20%
// here, so a smaller shift is not told from noise).
const machineShift = 0.15

// machineDrift says when the reference cell (the first key) ran its last
// round at a rate more than machineShift away from its first, and every
// other key moved the same way: the machine's speed (or every table's
// growth) changed during the run. Rounds interleave the keys, so the
// comparison still holds, but the rates belong to the run's time.
func machineDrift(res *results.Results, groups []*results.Group) string {
	if len(groups) < 2 {
		return ""
	}
	ref, ok := res.RoundShift(groups[0])
	if !ok || math.Abs(ref-1) < machineShift {
		return ""
	}
	lo, hi := ref, ref
	for _, g := range groups[1:] {
		s, ok := res.RoundShift(g)
		if !ok || (s > 1) != (ref > 1) {
			return ""
		}
		lo, hi = math.Min(lo, s), math.Max(hi, s)
	}
	return fmt.Sprintf("The machine moved: the reference, %s, ran its last round at %.2f× its first, and every key moved the same way (%.2f–%.2f×): "+
		"the server's speed or every table's growth changed the rates during the run; the rounds interleave the keys, so the comparison holds for the run's time.",
		groups[0].Key, ref, lo, hi)
}

// viewOf is how a workload of the catalog shows its cells, read when
// asked (a workload registered after this package started, a test's own,
// is in it).
func viewOf(workload string) present.View { return all.Views().Of(workload) }
