package results

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/stats"
	"gonum.org/v1/gonum/stat"
)

// Whether a round figure counts the work (RoundFigure.Work): the whole
// server's CPU, blocks read and written, WAL, images and flushes explain
// one key's work against another's; the others stand beside them: a
// narrower view of a part (the client backends' CPU, the cell's own
// tables' reads), what the machine waited, or its other load.
const (
	countsWork = true
	besideWork = false
)

// RoundFigure is one figure of a round's cost (RoundCost),
// declared once with how every output shows it: its JSON name (read off
// its field's tag), its column header, its words in a sentence ("the
// WAL"), its text and whether it counts the work. The work verdict's
// explanations, the Markdown and CSV exports, the console's columns and
// project's counts are built from these declarations (RoundFigures),
// beside RoundCost in the results' schema; a test walks RoundCost by
// reflection so that every figure of it has exactly one. The work figure
// itself is priced from them by package verdict (Work) on the run's disk.
type RoundFigure struct {
	Figure
	Work   bool
	Format func(float64) string
	Get    func(*RoundCost) M[float64]
}

// Figure is what every output says of one figure, declared once with
// it: its name in results.json and the CSV, its column's header, its
// words in a sentence ("the WAL"; the header where empty), its legend
// (what it is, in which unit) and the statistic its samples make it by.
// A round's figures (RoundFigure), a cell's (package metrics' Shown) and a
// key's (package present's Column) each embed one: one shape for every
// figure, whichever level holds it, and one registry of them (package
// report's Figures) in which a name or a header means one figure.
type Figure struct {
	Name      string
	Header    string
	Words     string
	Note      string
	Statistic Statistic
}

// Called is the figure's name in a sentence.
func (f Figure) Called() string {
	if f.Words != "" {
		return f.Words
	}
	return f.Header
}

// Statistic is how a figure's rounds make the one value every output
// shows of it: declared with the figure, never switched by the data.
type Statistic int

const (
	// Geometric is the geometric mean: the statistic of a figure compared
	// between keys by ratios (the CPU and the counts of the work), each
	// ratio the geometric mean of the paired rounds' ratios. A round that
	// counted none makes it 0, as it makes the rounds' product.
	Geometric Statistic = iota
	// Arithmetic is the arithmetic mean: a figure a round may well have
	// none of — blocks read from outside a cache that may hold them all, a
	// wait, a share of the machine — which adds up over rounds; a ratio of
	// two keys' is the ratio of these means, without an interval.
	Arithmetic
	// Median is the median: a latency's percentile over rounds, whose
	// tail one slow round would drag in a mean.
	Median
)

// Of is the statistic of values (0 for none).
func (s Statistic) Of(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	switch s {
	case Arithmetic:
		return stat.Mean(v, nil)
	case Median:
		return stats.Summarize(v).Median
	}
	return stats.GeoMean(v)
}

// String names the statistic as a legend does.
func (s Statistic) String() string {
	switch s {
	case Arithmetic:
		return "arithmetic mean"
	case Median:
		return "median"
	}
	return "geometric mean"
}

// The figures of a key (a Group) every output shows — the first screen,
// the summary, the page, the MD, the CSV, compare — each declared once,
// its name its field's in results.json (package present gives each its
// column; package verdict's compare tests each by its statistic).
var (
	// RateFigure is the group's rate (Group.Rate): the geometric mean of
	// its rounds' rates (runs', or a window's seconds'), the statistic its
	// ratios to other keys' are of.
	RateFigure = Figure{Header: "rate", Name: GroupName(func(g *Group) any { return &g.Rate }), Statistic: Geometric,
		Note: "the geometric mean of the rounds' rates, the statistic of its ratios"}
	// MedianRateFigure is the median of its rounds' rates with its
	// interval (Group.TPS), beside the rate, never in its place.
	MedianRateFigure = Figure{Header: "median rate [interval, level]", Words: "median rate", Name: GroupName(func(g *Group) any { return &g.TPS }),
		Statistic: Median, Note: "the median of the rounds' rates, in the unit beside it, with its confidence interval"}
	// P99Figure is the group's p99 (Group.P99MS): the median of its
	// rounds' p99 (RoundsP99). It was the last cell's p99 over all its
	// transactions, another figure under the same name (19 ms on the
	// summary, 145 ms in the CSV).
	P99Figure = Figure{Header: "p99", Name: GroupName(func(g *Group) any { return &g.P99MS }), Statistic: Median,
		Note: "the median of the rounds' p99 (the CSV's p99_pooled_ms is all transactions')"}
	// WorkFigure is the group's work per transaction (GroupCost.Mean):
	// the geometric mean of its rounds' work.
	WorkFigure = Figure{Header: "work / txn", Name: CostFigure, Statistic: WorkStatistic,
		Note: "the geometric mean of the rounds' work a transaction (the server's CPU and IO counts priced on the run's disk)"}
	// WALFigure is the WAL per transaction, the WAL family's figure
	// (GroupWAL.Mean): its round figure's declaration.
	WALFigure = RoundFigureOf(func(c *RoundCost) *M[float64] { return &c.WALBytes }).Figure
)

// Text is the figure of c as its format writes it, "-" when unmeasured.
func (f RoundFigure) Text(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return f.Format(v)
}

// roundFigure declares a figure of RoundCost by its getter, with its
// statistic (stat): a CPU time or a count every round of a writing
// workload has some of, its rounds' geometric mean; reads, waits and
// shares, their arithmetic mean.
func roundFigure(get func(*RoundCost) *M[float64], header, words string, work bool, stat Statistic, format func(float64) string) RoundFigure {
	return RoundFigure{Figure: Figure{Name: roundName(get), Header: header, Words: words, Statistic: stat}, Work: work, Format: format,
		Get: func(c *RoundCost) M[float64] { return *get(c) }}
}

// RoundFigures are the figures of a round's cost, in the order outputs show them.
func RoundFigures() []RoundFigure {
	ms := func(v float64) string { return Significant(v) + " ms" }
	share := ShareText
	count := Significant
	return []RoundFigure{
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerAllCPUMS }, "all server CPU ms / txn", "the CPU", countsWork, Geometric, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.WALBytes }, "WAL / txn", "the WAL", countsWork, Geometric,
			func(v float64) string { return Significant(v) + " B" }),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.WALFPI }, "FPI / txn", "the full-page images", countsWork, Geometric, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerReads }, "server reads / txn", "the blocks read", countsWork, Arithmetic, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerWrites }, "blocks written / txn", "the blocks written", countsWork, Geometric, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.WALFlushes }, "WAL flushes / txn", "the WAL flushes", countsWork, Geometric, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerCPUMS }, "backends' CPU ms / txn", "the client backends' CPU", besideWork, Geometric, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.BlocksRead }, "table blocks read / txn", "the cell's tables' blocks read", besideWork, Arithmetic, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.AutovacuumPlaced }, "autovacuum placed ms / txn", "the autovacuum CPU placed on a table", besideWork, Arithmetic, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerMS }, "server ms / txn (CPU + IO wait)", "the server time", besideWork, Geometric, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.IOMS }, "IO wait ms / txn", "the IO wait", besideWork, Arithmetic, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerRunQueueMS }, "run-queue wait ms / txn", "the wait for a CPU", besideWork, Arithmetic, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ClientCPUMS }, "client CPU ms / txn", "keybench's CPU", besideWork, Geometric, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ClientRunQueueMS }, "client run-queue ms / txn", "keybench's wait for a CPU", besideWork, Arithmetic, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.OthersCPUShare }, "others' CPU", "other processes' CPU", besideWork, Arithmetic, share),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.StealShare }, "steal", "the hypervisor's steal", besideWork, Arithmetic, share),
	}
}

// StatisticNote says how each of figs is made from its rounds, as a
// legend under a table of them: "each a transaction, its rounds'
// geometric mean (a round of none makes it 0): A, B; their arithmetic
// mean: C".
func StatisticNote(figs []RoundFigure) string {
	by := map[Statistic][]string{}
	for _, f := range figs {
		by[f.Statistic] = append(by[f.Statistic], f.Header)
	}
	var parts []string
	if h := by[Geometric]; len(h) > 0 {
		parts = append(parts, "its rounds' geometric mean (a round of none makes it 0): "+strings.Join(h, ", "))
	}
	if h := by[Arithmetic]; len(h) > 0 {
		parts = append(parts, "their arithmetic mean: "+strings.Join(h, ", "))
	}
	return "each figure a transaction is " + strings.Join(parts, "; ")
}

// WorkCounts are the round figures that count the work, in order:
// what explains one key's work against another's.
func WorkCounts() []RoundFigure {
	return slices.DeleteFunc(RoundFigures(), func(f RoundFigure) bool { return !f.Work })
}

// RoundFigureOf is the round figure of the field of RoundCost get returns.
func RoundFigureOf(get func(*RoundCost) *M[float64]) RoundFigure {
	f, _ := RoundFigureNamed(roundName(get))
	return f
}

// RoundFigureNamed is the round figure of a JSON name (false: none has it).
func RoundFigureNamed(name string) (RoundFigure, bool) {
	for _, f := range RoundFigures() {
		if f.Name == name {
			return f, true
		}
	}
	return RoundFigure{}, false
}

// FieldOf is the field of the struct s points to whose address p is: how
// a figure declared by its getter finds its name, which the compiler checks.
func FieldOf[S any](s *S, p any) reflect.StructField {
	at := reflect.ValueOf(p).Pointer() - reflect.ValueOf(s).Pointer()
	t := reflect.TypeOf(*s)
	for i := range t.NumField() {
		if f := t.Field(i); f.Offset == at {
			return f
		}
	}
	panic(fmt.Sprintf("results: a figure's getter returns no field of %s", t))
}

// GroupName is the JSON name of the field of Group get returns the
// address of: a key's figure declared by its field, which the compiler checks.
func GroupName(get func(*Group) any) string {
	var g Group
	return JSONName(FieldOf(&g, get(&g)))
}

// roundName is the JSON name of the field of RoundCost get returns.
func roundName(get func(*RoundCost) *M[float64]) string {
	var c RoundCost
	return JSONName(FieldOf(&c, get(&c)))
}

// JSONName is a field's name in results.json.
func JSONName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// Text is a count that sets two keys' work apart, as every output
// writes it: "2.5× [2.4–2.6, 95%] the WAL" (its interval where it has one).
func (r Reason) Text() string {
	words := r.Figure
	if f, ok := RoundFigureNamed(r.Figure); ok {
		words = f.Words
	}
	s := stats.RatioText(r.Ratio.Ratio)
	if r.Has() {
		s += " " + r.RatioText()
	}
	return s + " " + words
}
