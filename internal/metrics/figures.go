package metrics

import (
	"fmt"
	"reflect"

	"github.com/keybench/keybench/internal/results"
)

// A figure is one field of results.Metrics with what its collector says of
// it: how the values of a cell's rounds (each a session of its own) merge
// into the cell's, and whether it can be read on an engine whose rows live
// elsewhere than the server keybench talks to (Citus's coordinator). Every
// field of results.Metrics has exactly one figure (the package's tests walk
// the struct by reflection), so a new metric cannot vanish from cells with
// rounds or stand, wrong, on a distributed engine; figures per row and per
// transaction are computed here, once, from the cell's totals.
type figure struct {
	// name is the field's Go name, resolved from get (fieldName).
	name string
	// merge sets the field of out from the rounds' ms; out holds the
	// figures merged before this one (per-row figures read their counts).
	merge func(ms []results.Metrics, tot totals, out *results.Metrics)
	// blind sets the field to unavailable on a distributed engine; nil
	// when it stands there (measured from keybench's side or its sessions).
	blind func(why string, m *results.Metrics)
	// once: the figure is not a round's but the cell's, measured after its
	// rounds (the evidence) or derived from the evidence: merge leaves it.
	once bool
	// shown is how tables show it (typed.show); nil: no table does.
	shown *Shown
}

// declared is a figure as its collector declares it: a typed one (typed,
// whose show takes a format of its own type, checked by the compiler) or
// one already shown.
type declared interface{ decl() figure }

func (f figure) decl() figure { return f }

// typed is a figure with its type: what show needs to format it.
type typed[T any] struct {
	figure
	get func(*results.Metrics) *results.M[T]
}

// Shown is a figure as the tables show it, declared once with the figure
// by its collector (show): its column's header, its text in its unit, why
// it was not measured and what it means (the legend under a table). The
// console's evidence table, the page's and a preset's
// questions resolve their columns from it by header (Figure).
type Shown struct {
	// Figure is what every output says of it: its JSON name, header,
	// words ("splits"; the header when empty) and note ("splits: the key
	// index's page splits (pg_walinspect)"; "" when the header says it).
	results.Figure
	Field  string                        // its field of results.Metrics
	Text   func(*results.Metrics) string // "unavailable" when not measured, "n/a" when not recorded
	Reason func(*results.Metrics) string // "" when measured
}

// show declares how tables show f: its header, its format in its own
// type and what it means.
func (f typed[T]) show(header string, format func(T) string, note string) figure {
	get := f.get
	out := f.figure
	var m results.Metrics
	sf, _ := reflect.TypeOf(m).FieldByName(f.name)
	out.shown = &Shown{Figure: results.Figure{Name: results.JSONName(sf), Header: header, Note: note}, Field: f.name,
		Text:   func(m *results.Metrics) string { return get(m).Text(format) },
		Reason: func(m *results.Metrics) string { return get(m).Reason() }}
	return out
}

// called gives the shown figure a name of its own in a sentence.
func (f figure) called(short string) figure {
	s := *f.shown
	s.Words = short
	f.shown = &s
	return f
}

// Figures are the figures tables show, in the collectors' order.
func Figures() []Shown {
	var out []Shown
	for _, f := range figures() {
		if f.shown != nil {
			out = append(out, *f.shown)
		}
	}
	return out
}

// Figure is the shown figure of header (false: no figure has it).
func Figure(header string) (Shown, bool) {
	for _, s := range Figures() {
		if s.Header == header {
			return s, true
		}
	}
	return Shown{}, false
}

func formatted(format string, scale float64) func(float64) string {
	return func(v float64) string { return fmt.Sprintf(format, v*scale) }
}

// totals are what the cell's figures per row and per transaction divide
// by: the rows it wrote (the inserted ones, or when none, the changed ones)
// and every transaction its sessions watched, warm-ups included.
type totals struct{ rows, txns int64 }

// where says whether a figure can be read on a distributed engine.
type where bool

const (
	// onCoordinator: read from the server's own pages, WAL, buffers or
	// statistics, which on a distributed engine are not the rows'.
	onCoordinator where = true
	// fromClients: measured by keybench or its sessions; it stands anywhere.
	fromClients where = false
)

// merged is a figure whose rounds merge with merge.
func merged[T any](get func(*results.Metrics) *results.M[T], w where, merge func(ms []results.Metrics, tot totals, out *results.Metrics) results.M[T]) typed[T] {
	f := figure{name: fieldName(func(m *results.Metrics) any { return get(m) }),
		merge: func(ms []results.Metrics, tot totals, out *results.Metrics) { *get(out) = merge(ms, tot, out) }}
	if w == onCoordinator {
		f.blind = func(why string, m *results.Metrics) { *get(m) = results.Unavailable[T](why) }
	}
	return typed[T]{figure: f, get: get}
}

// summed is a figure whose rounds' values combine with add.
func summed[T any](get func(*results.Metrics) *results.M[T], w where, add func(a, b T) T) typed[T] {
	return merged(get, w, func(ms []results.Metrics, _ totals, _ *results.Metrics) results.M[T] {
		return combine(ms, func(m *results.Metrics) results.M[T] { return *get(m) }, add)
	})
}

// perRow is a figure per row of a count merged before it.
func perRow(get func(*results.Metrics) *results.M[float64], count func(*results.Metrics) results.M[int64]) typed[float64] {
	return merged(get, onCoordinator, func(_ []results.Metrics, tot totals, out *results.Metrics) results.M[float64] {
		return perRowOf(count(out), tot.rows)
	})
}

// once is a figure of the cell measured after its rounds (or derived from
// what was): no round has it, the evidence sets it.
func once[T any](get func(*results.Metrics) *results.M[T], w where) typed[T] {
	f := merged(get, w, func(_ []results.Metrics, _ totals, out *results.Metrics) results.M[T] { return *get(out) })
	f.once = true
	return f
}

// fieldName is the name of the field of results.Metrics whose address get returns.
func fieldName(get func(*results.Metrics) any) string {
	var m results.Metrics
	return results.FieldOf(&m, get(&m)).Name
}

// figures are every figure, in the order they merge: each collector's own.
func figures() []figure {
	var out []figure
	var declaring []interface{ figures() []declared }
	for _, c := range counters {
		declaring = append(declaring, c)
	}
	declaring = append(declaring, walInspection{}, (*replication)(nil), (*sampler)(nil), evidence{})
	for _, c := range declaring {
		for _, d := range c.figures() {
			out = append(out, d.decl())
		}
	}
	return out
}

// evidence are the figures of a cell read after its rounds (Sizes, Index,
// Cache) and those derived from them by the runner (the key index's growth
// per row and its size over the cache).
type evidence struct{}

func (evidence) figures() []declared {
	b := func(get func(*results.Metrics) *results.M[int64]) typed[int64] { return once(get, onCoordinator) }
	f := func(get func(*results.Metrics) *results.M[float64]) typed[float64] { return once(get, onCoordinator) }
	return []declared{
		b(func(m *results.Metrics) *results.M[int64] { return &m.TableBytes }).show("table", results.Bytes, ""),
		b(func(m *results.Metrics) *results.M[int64] { return &m.ToastBytes }),
		b(func(m *results.Metrics) *results.M[int64] { return &m.IndexBytes }).show("indexes", results.Bytes, ""),
		b(func(m *results.Metrics) *results.M[int64] { return &m.TotalBytes }),
		b(func(m *results.Metrics) *results.M[int64] { return &m.KeyIndexBytes }).show("key index", results.Bytes, ""),
		b(func(m *results.Metrics) *results.M[int64] { return &m.IndexBytesAfterReindex }),
		b(func(m *results.Metrics) *results.M[int64] { return &m.KeyIndexBytesAfterReindex }),
		f(func(m *results.Metrics) *results.M[float64] { return &m.BloatRatio }).show("bloat", formatted("%.2f", 1),
			"bloat: key index size / size after REINDEX"),
		f(func(m *results.Metrics) *results.M[float64] { return &m.KeyIndexGrowthPerRow }),
		b(func(m *results.Metrics) *results.M[int64] { return &m.CacheBytes }),
		f(func(m *results.Metrics) *results.M[float64] { return &m.KeyIndexCacheRatio }),
		f(func(m *results.Metrics) *results.M[float64] { return &m.TableCacheRatio }),
		f(func(m *results.Metrics) *results.M[float64] { return &m.LeafDensity }).show("leaf density", formatted("%.0f%%", 100), ""),
		f(func(m *results.Metrics) *results.M[float64] { return &m.LeafFragmentation }),
		b(func(m *results.Metrics) *results.M[int64] { return &m.LeafPages }),
		once(func(m *results.Metrics) *results.M[results.SteadyWAL] { return &m.SteadyWAL }, onCoordinator).show("steady WAL / row (FPI)",
			func(s results.SteadyWAL) string {
				return fmt.Sprintf("%.0f B (%s)", s.WALBytesPerRow, results.Significant(s.FPIPerRow))
			}, "").called("steady WAL / row"),
		once(func(m *results.Metrics) *results.M[[]results.PartitionSize] { return &m.Partitions }, onCoordinator),
		f(func(m *results.Metrics) *results.M[float64] { return &m.KeyBytes }).show("key bytes", formatted("%.0f B", 1), ""),
	}
}

// FigureNames are the JSON names of every figure of results.Metrics (each
// declared once, by its collector), in the collectors' order: what an
// export of every figure a cell records lists.
func FigureNames() []string {
	t := reflect.TypeOf(results.Metrics{})
	var out []string
	for _, f := range figures() {
		if sf, ok := t.FieldByName(f.name); ok {
			out = append(out, results.JSONName(sf))
		}
	}
	return out
}

// ShownOf is the shown figure of the field get returns the address of
// (false: the field's figure is not shown).
func ShownOf(get func(*results.Metrics) any) (Shown, bool) {
	name := fieldName(get)
	for _, s := range Figures() {
		if s.Field == name {
			return s, true
		}
	}
	return Shown{}, false
}

// EvidenceColumns are the columns of the evidence table (what explains a
// key's cost, per key at its largest table), in order, each named by its
// field so that the compiler checks it: a shown figure, and after it the
// figures shown beside it in parentheses. A field whose figure is not
// shown is a mistake this package's tests catch.
func EvidenceColumns() [][]Shown {
	col := func(gets ...func(*results.Metrics) any) []Shown {
		var out []Shown
		for _, get := range gets {
			s, _ := ShownOf(get)
			out = append(out, s)
		}
		return out
	}
	return [][]Shown{
		col(func(m *results.Metrics) any { return &m.BufferCache }),
		col(func(m *results.Metrics) any { return &m.WALBytesPerRow }),
		col(func(m *results.Metrics) any { return &m.WALFPIPerRow }, func(m *results.Metrics) any { return &m.KeyIndexFPIPerRow }),
		col(func(m *results.Metrics) any { return &m.SteadyWAL }),
		col(func(m *results.Metrics) any { return &m.BtreeSplitsPerRow }),
		col(func(m *results.Metrics) any { return &m.BlocksPerTxn }),
		col(func(m *results.Metrics) any { return &m.KeyIndexBytes }),
		col(func(m *results.Metrics) any { return &m.BloatRatio }),
		col(func(m *results.Metrics) any { return &m.LeafDensity }),
		col(func(m *results.Metrics) any { return &m.WaitEvents }),
	}
}
