package metrics

// The WAL of a server whose checkpoints are minutes apart, derived from
// the rounds' pages first touched.
//
// Every round of a cell starts at a CHECKPOINT, so the first change of each
// page after it writes the page's full image: a round of a second writes
// an image for most pages it touches, several times what a server with
// minutes between checkpoints writes per row (the default war run showed
// uuidv4 at 0.57 key-index images per row, bigint at 0.22). What a server
// writes instead follows from which pages the rows touch: an image per page
// touched in a checkpoint cycle of S rows, D(S) of them, is D(S)/S per row.
//
// keybench reads every round's images back (pg_walinspect's
// pg_get_wal_block_info, PostgreSQL 16+) with the page each was taken of,
// and for each relation of the cell keeps, apart, the pages that existed
// before the cell (blocks below its size when the first round began) and
// the pages the cell made since (the frontier: a growing heap's last page,
// an ordered key's right edge). The old pages a round touches (d of them,
// each with an image) and those all rounds touched together (U, the
// images one long round of all the rows would have written) fit a model of
// pages touched uniformly at random among a hot set of H pages, a rate a
// per row:
//
//	d = H (1 − e^{−aW/H}),  U = H (1 − e^{−aRW/H})
//
// (R rounds of W rows). A random key touches its whole index (U grows with
// the rounds towards the index's pages); an ordered key touches a few pages
// again and again (U ≈ d). The frontier adds its pages once per cycle (c, a
// round's mean). At S rows between checkpoints:
//
//	images per row = (c + H (1 − e^{−aS/H})) / S,  H at most the pages that exist
//
// and the WAL per row is the rounds' less the images it would not write,
// at the rounds' mean image size. S is the server's checkpoint spacing at
// the cell's rate (checkpoint_timeout × rows/s, or the rows whose WAL fills
// max_wal_size / (1 + checkpoint_completion_target), whichever comes
// first); the embedded server's settings keep checkpoints out of the
// rounds, so for it PostgreSQL's defaults (5 min, 1 GB, 0.9) stand in.

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// FirstTouches gathers, over a cell's rounds, the pages each round wrote a
// full image of, by relation (walByRelation adds them; the runner says
// each round's rows). It is safe for concurrent use.
type FirstTouches struct {
	mu   sync.Mutex
	rels map[string]*relTouches // by relation name
	// rows is each ended round's rows; images each round's images of
	// every relation (the cell's and others: catalogs, sequences) and
	// their bytes.
	rows        []int64
	images      []int64
	imageBytes  int64
	pending     map[string]*roundTouches
	pendingImgs int64
	// failed is why a round's images could not be read.
	failed string
}

// relTouches is one relation's pages over the rounds.
type relTouches struct {
	role string
	// cellStart is the relation's blocks when the first round began;
	// union the old pages (below it) any round wrote an image of.
	cellStart int64
	union     map[int64]struct{}
	// old and frontier are each round's images of old pages and of pages
	// the cell made.
	old, frontier []int64
}

// roundTouches is a relation's images in the round under way.
type roundTouches struct {
	role   string
	start  int64 // the relation's blocks when the round began
	blocks []int64
}

// NewFirstTouches is an empty gathering for a cell on a server of major
// version major with the extensions ext, or nil and why the images cannot
// be read there.
func NewFirstTouches(major int, ext *Extensions) (*FirstTouches, string) {
	if major < 16 {
		return nil, fmt.Sprintf("the pages first touched are read with pg_get_wal_block_info, PostgreSQL 16+ (this is %d)", major)
	}
	if _, err := ext.fn("pg_walinspect", "pg_get_wal_block_info"); err != nil {
		return nil, "the pages first touched are read with pg_walinspect: " + err.Error()
	}
	return &FirstTouches{rels: map[string]*relTouches{}, pending: map[string]*roundTouches{}}, ""
}

// image records an image of block of relation rel (role, start blocks at
// the round's start), or of a relation not the cell's (rel "").
func (f *FirstTouches) image(rel, role string, start, block, bytes int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pendingImgs++
	f.imageBytes += bytes
	if rel == "" {
		return
	}
	p := f.pending[rel]
	if p == nil {
		p = &roundTouches{role: role, start: start}
		f.pending[rel] = p
	}
	p.blocks = append(p.blocks, block)
}

// fail records that a round's images could not be read.
func (f *FirstTouches) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed == "" {
		f.failed = "reading a round's full-page images: " + err.Error()
	}
}

// EndRound closes the round under way: rows is what it inserted (or
// changed), warm-up included, over the same span its images cover.
func (f *FirstTouches) EndRound(rows int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.rows)
	for name, p := range f.pending {
		r := f.rels[name]
		if r == nil {
			r = &relTouches{role: p.role, cellStart: p.start, union: map[int64]struct{}{}, old: make([]int64, n), frontier: make([]int64, n)}
			f.rels[name] = r
		}
		var old, front int64
		for _, b := range p.blocks {
			if b < r.cellStart {
				old++
				r.union[b] = struct{}{}
			} else {
				front++
			}
		}
		r.old, r.frontier = append(r.old, old), append(r.frontier, front)
	}
	for _, r := range f.rels { // a relation without images this round
		if len(r.old) == n {
			r.old, r.frontier = append(r.old, 0), append(r.frontier, 0)
		}
	}
	f.rows = append(f.rows, rows)
	f.images = append(f.images, f.pendingImgs)
	f.pending, f.pendingImgs = map[string]*roundTouches{}, 0
}

// NeedsRounds is why a cell of one window has no steady state.
const NeedsRounds = "the pages first touched need two rounds or more (--rounds)"

// Spacing is a server's checkpoint settings.
type Spacing = results.CheckpointSettings

// DefaultSpacing is PostgreSQL's default checkpoint settings, which stand
// in for the embedded server's (raised to keep checkpoints out of the rounds).
var DefaultSpacing = func() Spacing {
	s := results.DefaultCheckpointSettings
	s.Basis = "PostgreSQL's defaults (checkpoint_timeout 5min, max_wal_size 1GB; the embedded server's are raised to keep checkpoints out of the rounds)"
	return s
}()

// ReadSpacing reads the server's checkpoint settings.
func ReadSpacing(ctx context.Context, conn *pgx.Conn) (Spacing, error) {
	var timeoutS, maxWALMB int64
	var target float64
	err := conn.QueryRow(ctx, `SELECT extract(epoch FROM current_setting('checkpoint_timeout')::interval)::bigint,
		pg_size_bytes(current_setting('max_wal_size')) / (1024 * 1024), current_setting('checkpoint_completion_target')::float8`).Scan(&timeoutS, &maxWALMB, &target)
	if err != nil {
		return Spacing{}, err
	}
	return Spacing{Timeout: time.Duration(timeoutS) * time.Second, MaxWALBytes: maxWALMB << 20, CompletionTarget: target,
		Basis: fmt.Sprintf("this server's settings (checkpoint_timeout %s, max_wal_size %s)", time.Duration(timeoutS)*time.Second, results.Bytes(maxWALMB<<20))}, nil
}

// Steady derives the cell's steady-state WAL: walPerRow is the rounds'
// WAL per row (pg_stat_wal), rowsPerS the cell's rate.
func (f *FirstTouches) Steady(walPerRow results.M[float64], rowsPerS float64, sp Spacing) results.M[results.SteadyWAL] {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := walPerRow.Get()
	switch {
	case f.failed != "":
		return results.Unavailable[results.SteadyWAL](f.failed)
	case !ok:
		return results.Unavailable[results.SteadyWAL]("the WAL per row: " + walPerRow.Reason())
	case len(f.rows) < 2:
		return results.Unavailable[results.SteadyWAL](NeedsRounds)
	case !(rowsPerS > 0):
		return results.Unavailable[results.SteadyWAL]("the cell wrote no rows")
	}
	var rows, images int64
	for i := range f.rows {
		rows += f.rows[i]
		images += f.images[i]
	}
	if rows <= 0 || images <= 0 {
		return results.Unavailable[results.SteadyWAL]("the rounds wrote no rows or no full-page images")
	}
	m := results.SteadyModel{RoundWALBytesPerRow: w, RoundFPIPerRow: float64(images) / float64(rows),
		ImageBytes: float64(f.imageBytes) / float64(images), RoundRows: float64(rows) / float64(len(f.rows))}
	var modeled int64 // the images the relations' pages account for
	names := make([]string, 0, len(f.rels))
	for name, r := range f.rels {
		names = append(names, name)
		for i := range r.old {
			modeled += r.old[i] + r.frontier[i]
		}
	}
	sort.Strings(names)
	for _, name := range names {
		m.Relations = append(m.Relations, f.rels[name].fit(name, m.RoundRows))
	}
	// The images of other relations (catalogs, a sequence): once per cycle, like the frontier.
	m.OtherPerCycle = float64(images-modeled) / float64(len(f.rows))
	st, err := m.At(rowsPerS, sp, nil)
	if err != nil {
		return results.Unavailable[results.SteadyWAL](err.Error())
	}
	st.Derivation = "from the pages first touched: each relation's pages that existed before the cell, touched per round and over all rounds, " +
		"fit to uniform touches of a hot set; the pages the cell made, once per checkpoint cycle"
	return results.Of(st)
}

// fit is the relation's hot set and touches per row (rounds of perRound
// rows each).
func (r *relTouches) fit(name string, perRound float64) results.SteadyRelation {
	n := float64(len(r.old))
	var d, c float64
	for i := range r.old {
		d += float64(r.old[i]) / n
		c += float64(r.frontier[i]) / n
	}
	out := results.SteadyRelation{Name: name, Role: r.role, Pages: r.cellStart, FrontierPerCycle: c}
	if d <= 0 {
		return out
	}
	hot, x := hotSet(d, float64(len(r.union)), n)
	// a: pages touched per row (x = aW/H; H x → d in the linear limit).
	out.TouchesPerRow = d / perRound
	if !math.IsInf(hot, 1) {
		out.TouchesPerRow = x * hot / perRound
	}
	// No more old pages than there are; a hot set of most of them is the
	// relation itself. The data index is the relation itself whatever the
	// fit: its rows' values are drawn uniformly over the table's range
	// (workload.Inserter), so a larger table spreads its touches over a
	// larger index, and a fit of a few short rounds that found less holds
	// only at the measured size.
	out.HotPages = math.Min(hot, math.Max(float64(r.cellStart), d))
	out.Whole = out.HotPages >= 0.75*float64(r.cellStart) || r.role == results.RoleDataIndex
	return out
}

// hotSet fits d = H (1 − e^{−x}) and u = H (1 − e^{−R x}) (x = aW/H) to a
// round's pages d and all R rounds' u: the hot set H and x. All pages new
// in every round (u ≈ R d) is the linear limit (H beyond any cycle);
// the same pages in every round (u ≈ d) the saturated one (H = d).
func hotSet(d, u, rounds float64) (hot, x float64) {
	rho := u / d
	switch {
	case rho <= 1+1e-9:
		return d, 50 // saturated: every cycle touches all of them
	case rho >= rounds*(1-1e-6):
		return math.Inf(1), 0
	}
	f := func(x float64) float64 { return (1 - math.Exp(-rounds*x)) / (1 - math.Exp(-x)) }
	lo, hi := 1e-9, 50.0 // f falls from rounds to 1
	for range 100 {
		mid := (lo + hi) / 2
		if f(mid) > rho {
			lo = mid
		} else {
			hi = mid
		}
	}
	x = (lo + hi) / 2
	return d / (1 - math.Exp(-x)), x
}
