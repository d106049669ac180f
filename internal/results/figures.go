package results

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/keybench/keybench/internal/stats"
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
	Name   string
	Header string
	Words  string
	Work   bool
	Format func(float64) string
	Get    func(*RoundCost) M[float64]
}

// Text is the figure of c as its format writes it, "-" when unmeasured.
func (f RoundFigure) Text(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return f.Format(v)
}

// roundFigure declares a figure of RoundCost by its getter.
func roundFigure(get func(*RoundCost) *M[float64], header, words string, work bool, format func(float64) string) RoundFigure {
	return RoundFigure{Name: roundName(get), Header: header, Words: words, Work: work, Format: format,
		Get: func(c *RoundCost) M[float64] { return *get(c) }}
}

// RoundFigures are the figures of a round's cost, in the order outputs show them.
func RoundFigures() []RoundFigure {
	ms := func(v float64) string { return Significant(v) + " ms" }
	share := ShareText
	count := Significant
	return []RoundFigure{
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerAllCPUMS }, "all server CPU ms / txn", "the CPU", countsWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.WALBytes }, "WAL / txn", "the WAL", countsWork,
			func(v float64) string { return Significant(v) + " B" }),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.WALFPI }, "FPI / txn", "the full-page images", countsWork, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerReads }, "server reads / txn", "the blocks read", countsWork, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerWrites }, "blocks written / txn", "the blocks written", countsWork, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.WALFlushes }, "WAL flushes / txn", "the WAL flushes", countsWork, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerCPUMS }, "backends' CPU ms / txn", "the client backends' CPU", besideWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.BlocksRead }, "table blocks read / txn", "the cell's tables' blocks read", besideWork, count),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.AutovacuumPlaced }, "autovacuum placed ms / txn", "the autovacuum CPU placed on a table", besideWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerMS }, "server ms / txn (CPU + IO wait)", "the server time", besideWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.IOMS }, "IO wait ms / txn", "the IO wait", besideWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ServerRunQueueMS }, "run-queue wait ms / txn", "the wait for a CPU", besideWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ClientCPUMS }, "client CPU ms / txn", "keybench's CPU", besideWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.ClientRunQueueMS }, "client run-queue ms / txn", "keybench's wait for a CPU", besideWork, ms),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.OthersCPUShare }, "others' CPU", "other processes' CPU", besideWork, share),
		roundFigure(func(c *RoundCost) *M[float64] { return &c.StealShare }, "steal", "the hypervisor's steal", besideWork, share),
	}
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
