package verdict

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// Measures compare tests, in the order it shows them: the rate, the
// latency's median, 99th and 99.9th percentiles (each round's own, from
// its histogram), and the work per transaction; each with the statistic
// its figure is declared with (results.RateFigure, P99Figure, WorkFigure,
// WALFigure: the rate, the work and the WAL their rounds' geometric mean,
// a latency the median of its rounds'), the one the runs' own outputs
// give it, so that compare's ratio is the ratio of the runs' printed
// figures.
var Measures = []MeasureDef{
	{Name: "rate", Words: "the rate", HigherWorse: false, Of: roundRate, Figure: results.RateFigure},
	{Name: "p50", Words: "the median latency", HigherWorse: true, Of: latencyOf(func(l *results.Latency) float64 { return l.P50 }),
		Figure: results.Figure{Header: "p50", Statistic: results.P99Figure.Statistic}},
	{Name: "p99", Words: "the 99th-percentile latency", HigherWorse: true, Of: latencyOf(func(l *results.Latency) float64 { return l.P99 }), Figure: results.P99Figure},
	{Name: "p99.9", Words: "the 99.9th-percentile latency", HigherWorse: true, Of: latencyOf(func(l *results.Latency) float64 { return l.P999 }),
		Figure: results.Figure{Header: "p99.9", Statistic: results.P99Figure.Statistic}},
	{Name: "work", Words: "the work per transaction", HigherWorse: true, Figure: results.WorkFigure},
	{Name: "wal", Words: "the WAL per transaction", HigherWorse: true, Figure: results.WALFigure, Of: func(rd *results.Round) (float64, bool) {
		if rd.Cost == nil {
			return 0, false
		}
		v, ok := rd.Cost.WALBytes.Get()
		return v, ok && v > 0
	}},
}

// MeasureDef is a measure of the gate: its name (--fail-on p99=10%), its
// words, which way is worse, and how a round's figure is read (the work's
// is priced on each run's device).
type MeasureDef struct {
	Name, Words string
	HigherWorse bool
	Of          func(rd *results.Round) (float64, bool) `json:"-"`
	// Figure is the figure it compares, as the runs declare it: its
	// statistic, the rounds' geometric mean (compared by Welch's t over
	// the logarithms, stats.CompareLogMeans) or their median (by
	// Mann-Whitney's U).
	Figure results.Figure `json:"-"`
}

// Geometric says that the measure's statistic is its rounds' geometric mean.
func (m MeasureDef) Geometric() bool { return m.Figure.Statistic == results.Geometric }

// Statistics of a measure (Measure.Statistic).
var (
	StatGeometricMean = results.Geometric.String() + " of the rounds"
	StatMedian        = results.Median.String() + " of the rounds"
)

func roundRate(rd *results.Round) (float64, bool) { return rd.Rate, rd.Rate > 0 }

func latencyOf(get func(*results.Latency) float64) func(*results.Round) (float64, bool) {
	return func(rd *results.Round) (float64, bool) {
		if rd.LatencyMS == nil {
			return 0, false
		}
		v := get(rd.LatencyMS)
		return v, v > 0
	}
}

// Measure is one measure of a row: each run's figure over its rounds —
// by Statistic, the one the run's own outputs give it — with the rounds it
// rests on, and B's over A's tested (nil with Why: unmeasured in a run).
type Measure struct {
	Name      string            `json:"name"`
	Statistic string            `json:"statistic"`
	A         float64           `json:"a,omitempty"`
	B         float64           `json:"b,omitempty"`
	SamplesA  int               `json:"samples_a,omitempty"`
	SamplesB  int               `json:"samples_b,omitempty"`
	Cmp       *stats.Comparison `json:"b_over_a,omitempty"`
	Why       string            `json:"unmeasured,omitempty"`
	higher    bool
	sa, sb    []float64
}

// Direction says how B's measure moved from A's where the test found it
// moved: "improved" or "regressed" by the measure's own sense (a higher
// rate is better, a higher latency or work worse); "" where it found no
// difference.
func (m Measure) Direction() string {
	if m.Cmp == nil || !m.Cmp.Significant || m.Cmp.TooFew {
		return ""
	}
	if (m.Cmp.Effect > 1) == m.higher {
		return "regressed"
	}
	return "improved"
}

// Row is one measurement found in both runs of a comparison: each measure
// tested between the runs' rounds (or runs), and each run's total size.
type Row struct {
	Key      string    `json:"key"`
	Workload string    `json:"workload"`
	Clients  int       `json:"clients"`
	Rows     int64     `json:"rows_before"`
	UnitA    string    `json:"unit_a"`
	UnitB    string    `json:"unit_b"`
	Measures []Measure `json:"measures"`
	// SizeA and SizeB are each run's total size (HasSize: both read).
	SizeA   int64 `json:"total_bytes_a,omitempty"`
	SizeB   int64 `json:"total_bytes_b,omitempty"`
	HasSize bool  `json:"has_size"`
	// RowsA and RowsB are the rows each run's table held at the end (the
	// prefill and the rows inserted): sizes of tables of different rows
	// compare per row.
	RowsA int64 `json:"rows_a"`
	RowsB int64 `json:"rows_b"`
}

// ComparisonVersion is the version of compare's JSON (--export json).
const ComparisonVersion = 3 // 2: snake_case, each measure's statistic and figures, intervals at their decision's level; 3: b_over_a's ratio of medians named median_ratio (effect is the ratio printed)

// Comparison is what compare found, as --export json writes it
// (docs/report.md documents it).
type Comparison struct {
	SchemaVersion int      `json:"schema_version"`
	A             string   `json:"a"`
	B             string   `json:"b"`
	Rows          []Row    `json:"rows"`
	OnlyA         []string `json:"only_a,omitempty"`
	OnlyB         []string `json:"only_b,omitempty"`
	// Differences are what the two runs ran with differently: the server,
	// its settings, the keys, rows, caches, clients, rate and the
	// workloads' options.
	Differences []string `json:"differences,omitempty"`
}

// Compare matches the groups of two runs (each with its analysis), a read
// from nameA and b from nameB, by key, workload, clients and table size,
// and tests each measure of each (B against A): Mann-Whitney over each
// run's rounds or runs, Holm's correction over every row and measure.
func Compare(nameA, nameB string, a, b *results.Results) *Comparison {
	rows, onlyA, onlyB := compareRuns(ensure(a), ensure(b))
	return &Comparison{SchemaVersion: ComparisonVersion, A: nameA, B: nameB, Rows: rows, OnlyA: onlyA, OnlyB: onlyB, Differences: Differences(a, b)}
}

func compareRuns(a, b *results.Results) (rows []Row, onlyA, onlyB []string) {
	ga, gb := a.Analysis.Groups, b.Analysis.Groups
	id := func(g *results.Group) string {
		return fmt.Sprintf("%s, %s, %s, %d rows", g.Key, g.Task(), results.Clients(g.Clients), g.Rows)
	}
	inB := map[string]*results.Group{}
	for i := range gb {
		inB[id(&gb[i])] = &gb[i]
	}
	seen := map[string]bool{}
	for i := range ga {
		x := &ga[i]
		y, ok := inB[id(x)]
		if !ok {
			onlyA = append(onlyA, id(x))
			continue
		}
		seen[id(x)] = true
		r := Row{Key: x.Key, Workload: x.Task(), Clients: x.Clients, Rows: x.Rows, UnitA: x.Unit, UnitB: y.Unit}
		for _, m := range Measures {
			r.Measures = append(r.Measures, measure(m, a, x, b, y))
		}
		total := func(c *results.Cell) (float64, bool) { return results.Float(c.Metrics.TotalBytes) }
		sa, okA := a.Median(x, total)
		sb, okB := b.Median(y, total)
		r.SizeA, r.SizeB, r.HasSize = int64(sa), int64(sb), okA && okB
		held := func(c *results.Cell) (float64, bool) { return float64(c.RowsAtEnd()), true }
		ra, _ := a.Median(x, held)
		rb, _ := b.Median(y, held)
		r.RowsA, r.RowsB = int64(ra), int64(rb)
		rows = append(rows, r)
	}
	for i := range gb {
		if !seen[id(&gb[i])] {
			onlyB = append(onlyB, id(&gb[i]))
		}
	}
	// Every row's measures are tested together: Holm's method over them all.
	var tested []*stats.Comparison
	for i := range rows {
		for j := range rows[i].Measures {
			if c := rows[i].Measures[j].Cmp; c != nil && !c.TooFew {
				tested = append(tested, c)
			}
		}
	}
	stats.Holm(tested)
	stats.TooFewFor(tested)
	// A rank test's interval at the level its adjusted p-value is decided
	// at (a Welch comparison's Holm set), so that "~" never comes with an
	// interval that excludes no change; a difference inside the margin is
	// the same in practice.
	for i := range rows {
		for j := range rows[i].Measures {
			m := &rows[i].Measures[j]
			c := m.Cmp
			if c == nil || c.TooFew {
				continue
			}
			if c.Test == stats.TestMannWhitney && c.PAdjusted > c.P && c.P > 0 {
				if _, lo, hi, cover := stats.RatioIntervalAt(m.sa, m.sb, 1-stats.Alpha*c.P/c.PAdjusted); cover > 0 {
					c.Lo, c.Hi, c.Level = lo, hi, cover
				}
				c.Significant = c.PAdjusted < stats.Alpha && c.Level > 0 && (c.Lo > 1 || c.Hi < 1)
			}
			c.Practical(stats.DefaultMargin)
		}
	}
	return rows, onlyA, onlyB
}

// measure tests one measure of a group of each run: their rounds' figures
// (or, for the rate, the group's own sample) as independent samples.
func measure(m MeasureDef, a *results.Results, x *results.Group, b *results.Results, y *results.Group) Measure {
	out := Measure{Name: m.Name, higher: m.HigherWorse}
	var sa, sb []float64
	switch {
	case m.Name == "work":
		cx, cy := *x, *y // costSample sets a group's Cost: the analysis's stays as it is
		sa, sb = costSample(a, &cx, DeviceOf(a)).values, costSample(b, &cy, DeviceOf(b)).values
		if cx.Cost != nil && cy.Cost != nil && !slices.Equal(cx.Cost.Missing, cy.Cost.Missing) {
			// The two works hold different parts (a server whose CPU one
			// run could not read): not the same figure.
			out.Why = fmt.Sprintf("the runs' work holds different parts (A leaves out: %s; B: %s)", orNothing(cx.Cost.Missing), orNothing(cy.Cost.Missing))
			return out
		}
	case m.Name == "rate" && (!x.Independent() || !y.Independent()):
		out.Why = "one window per key: its per-second rates are not independent samples (--rounds 3 or more)"
		return out
	case m.Name == "rate":
		sa, sb = rateSample(a, x).values, rateSample(b, y).values
	default:
		sa, sb = roundFigures(a, x, m.Of), roundFigures(b, y, m.Of)
	}
	out.Statistic = StatMedian
	if m.Geometric() {
		out.Statistic = StatGeometricMean
	}
	switch {
	case len(sa) == 0 && len(sb) == 0:
		out.Why = "neither run recorded it per round (a run of one window, or of an earlier keybench)"
	case len(sa) == 0:
		out.Why = "A recorded it in no round (a run of one window, or of an earlier keybench)"
	case len(sb) == 0:
		out.Why = "B recorded it in no round (a run of one window, or of an earlier keybench)"
	case m.Geometric():
		c := stats.CompareLogMeans(sa, sb)
		out.A, out.B, out.Cmp = stats.GeoMean(sa), stats.GeoMean(sb), &c
	default:
		c := stats.Compare(sa, sb)
		out.A, out.B, out.Cmp = stats.Summarize(sa).Median, stats.Summarize(sb).Median, &c
	}
	out.SamplesA, out.SamplesB, out.sa, out.sb = len(sa), len(sb), sa, sb
	return out
}

// roundFigures is a figure of each round of the group's cells.
func roundFigures(r *results.Results, g *results.Group, of func(*results.Round) (float64, bool)) []float64 {
	var out []float64
	for _, i := range g.Cells {
		for k := range r.Cells[i].Rounds {
			if v, ok := of(&r.Cells[i].Rounds[k]); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// Gate is compare's regression gate: for each measure a threshold (a
// fraction: 0.05; a measure absent is not gated).
type Gate map[string]float64

// GateResult is what the gate found: the regressions (B worse than A by
// more than the threshold, significantly), and the measures it could not
// decide — neither a regression shown nor one of the threshold's size
// ruled out by the interval — each with the rounds that would decide it.
type GateResult struct {
	Regressions, Undecided []string
	// Improved are the gated measures B shown better than A's.
	Improved []string
}

// Check runs the gate over rows. A measure passes only when its interval
// rules out a regression of the threshold's size: a gate that cannot
// decide does not pass.
func (gate Gate) Check(rows []Row) GateResult {
	var out GateResult
	for _, r := range rows {
		what := fmt.Sprintf("%s (%s, %s, %s rows)", r.Key, r.Workload, results.Clients(r.Clients), results.Thousands(r.Rows))
		for _, m := range r.Measures {
			by, gated := gate[m.Name]
			if !gated {
				continue
			}
			if m.Direction() == "improved" {
				out.Improved = append(out.Improved, fmt.Sprintf("%s %s %s", what, m.Name, m.Cmp.ChangeText()))
			}
			switch verdict, why := m.judge(by); verdict {
			case gateFail:
				out.Regressions = append(out.Regressions, what+" "+why)
			case gateOpen:
				out.Undecided = append(out.Undecided, what+" "+why)
			}
		}
	}
	return out
}

const (
	gatePass = iota
	gateFail
	gateOpen
)

// judge decides one measure against a threshold by (a fraction).
func (m Measure) judge(by float64) (int, string) {
	c := m.Cmp
	if c == nil {
		return gateOpen, m.Name + ": not measured (" + m.Why + ")"
	}
	bad := 1 + by // the worse side's bound, as B's over A's
	worse := c.Effect > bad
	clear := c.Level > 0 && c.Hi < bad
	if !m.higher {
		bad = 1 - by
		worse, clear = c.Effect < bad, c.Level > 0 && c.Lo > bad
	}
	switch {
	case c.Significant && worse:
		return gateFail, fmt.Sprintf("%s regressed %s (%s)", m.Name, c.ChangeText(), c.PText())
	case clear:
		return gatePass, ""
	case c.TooFew:
		return gateOpen, fmt.Sprintf("%s: too few rounds to test (%d and %d; %d a side would)", m.Name, c.N, c.M, c.Needed)
	}
	return gateOpen, fmt.Sprintf("%s %s: neither a %.0f%% regression shown nor ruled out; about %d rounds a side would decide it",
		m.Name, c.ChangeText(), by*100, roundsToDecide(c, bad))
}

// roundsToDecide is about how many rounds a side would make the interval
// narrow enough to fall on one side of bound at the current estimate:
// the interval's half-width shrinks as the square root of the rounds.
func roundsToDecide(c *stats.Comparison, bound float64) int {
	n := max(c.N, c.M, 1)
	if c.Level <= 0 || c.Lo <= 0 || c.Effect <= 0 || bound <= 0 {
		return 2 * n
	}
	half := (math.Log(c.Hi) - math.Log(c.Lo)) / 2
	dist := math.Abs(math.Log(c.Effect) - math.Log(bound))
	if dist < 1e-9 {
		return 100 * n
	}
	need := float64(n) * (half / dist) * (half / dist)
	return min(max(int(math.Ceil(need)), n+1), 1000)
}

// Differences says what two runs ran with differently: the server's
// version and kind, its recorded settings, the keys, table sizes, caches,
// client counts, fixed rate, --pg-conf, and each task's options.
func Differences(a, b *results.Results) []string {
	var out []string
	differ := func(what, va, vb string) {
		if va != vb {
			out = append(out, fmt.Sprintf("%s: %s in A, %s in B", what, cmp.Or(va, "unset"), cmp.Or(vb, "unset")))
		}
	}
	differ("server", a.Environment.ServerVersion+" ("+a.Environment.ServerKind+")", b.Environment.ServerVersion+" ("+b.Environment.ServerKind+")")
	names := map[string]bool{}
	for k := range a.Environment.Settings {
		names[k] = true
	}
	for k := range b.Environment.Settings {
		names[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		differ("setting "+k, a.Environment.Settings[k], b.Environment.Settings[k])
	}
	pa, pb := a.Plan, b.Plan
	differ("--pg-conf", strings.Join(pa.PgConf, " "), strings.Join(pb.PgConf, " "))
	differ("keys", strings.Join(pa.Keys, ","), strings.Join(pb.Keys, ","))
	differ("rows", fmt.Sprint(pa.Rows), fmt.Sprint(pb.Rows))
	differ("shared_buffers of the cells", fmt.Sprint(pa.SharedBuffers), fmt.Sprint(pb.SharedBuffers))
	differ("clients", fmt.Sprint(pa.Clients), fmt.Sprint(pb.Clients))
	differ("fixed rate (--rate)", rateText(pa.RateTPS), rateText(pb.RateTPS))
	differ("cache mode", a.Environment.CacheMode, b.Environment.CacheMode)
	if da, db := DeviceOf(a), DeviceOf(b); da.Name != db.Name {
		differ("the disk the work is priced on", da.Name, db.Name)
	}
	for _, d := range results.OptionDifferences(a, b) {
		out = append(out, "option "+d)
	}
	return out
}

func rateText(tps float64) string {
	if tps == 0 {
		return "flat out"
	}
	return fmt.Sprintf("%g tps", tps)
}

// orNothing lists parts, or says there are none.
func orNothing(parts []string) string {
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
