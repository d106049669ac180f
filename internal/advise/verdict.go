package advise

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
)

// The order of a key as stored, from the measured figures first (the key
// index's leaf order, then pg_stats.correlation), from how its values are
// made where neither could be read.
const (
	Ordered       = "ordered"
	PartlyOrdered = "partly ordered"
	Random        = "random"
	UnknownOrder  = "unknown"
)

// Thresholds of the order: consecutive keys of a random key lie in heap
// order half the time (each pair is a coin toss), an ordered key's nearly
// always; pg_stats.correlation is near 0 for a random key and near ±1 for
// one stored in order.
const (
	orderedLeafOrder     = 0.9
	randomLeafOrder      = 0.7
	orderedCorrelation   = 0.9
	randomCorrelation    = 0.5
	smallKeyIndexBytes   = 1 << 20 // below this and a tenth of the cache, a key's order costs nothing measurable
	smallKeyIndexOfCache = 0.1
)

// orderOf decides a key's order from what was measured, else from how its
// values are made, and says on what it decided.
func orderOf(k *Key) (order, evidence string) {
	var parts []string
	if len(k.Columns) > 1 {
		// A key of several columns is ordered as its first: it decides where
		// each insert lands in the key index.
		parts = append(parts, "its first column "+sqltree.Printable(k.Columns[0])+" sets it")
	}
	if k.Made != "" {
		parts = append(parts, "made by "+k.Made)
	}
	lo, haveLO := k.LeafOrder.Get()
	if haveLO {
		parts = append(parts, fmt.Sprintf("%.0f%% of consecutive keys in heap order", lo*100))
	}
	c, haveC := k.Correlation.Get()
	if haveC {
		parts = append(parts, fmt.Sprintf("correlation %.2f", c))
	}
	evidence = strings.Join(parts, "; ")
	switch {
	case haveLO && lo < orderedLeafOrder && haveC && c >= orderedCorrelation && madeInOrder(k):
		// Values made in order whose neighbours several backends put on
		// different heap pages: the key index still takes every insert at
		// its right edge (the heap walk sees the interleaving, the
		// correlation the order).
		return Ordered, evidence + "; made in order by concurrent inserters, whose neighbouring rows interleave in the heap"
	case haveLO && lo >= orderedLeafOrder:
		return Ordered, evidence
	case haveLO && lo <= randomLeafOrder:
		return Random, evidence
	case haveLO:
		return PartlyOrdered, evidence
	case haveC && math.Abs(c) >= orderedCorrelation:
		return Ordered, evidence
	case haveC && math.Abs(c) < randomCorrelation:
		return Random, evidence
	case haveC:
		return PartlyOrdered, evidence
	}
	switch {
	case madeInOrder(k):
		return Ordered, evidence + " (expected, not measured)"
	case strings.HasPrefix(k.Made, "gen_random_uuid()") || k.UUIDVersion == 4:
		return Random, evidence + " (expected, not measured)"
	}
	return UnknownOrder, evidence
}

// madeInOrder says the key's values are made increasing: by a sequence or
// an identity, or as uuids of a time-ordered version.
func madeInOrder(k *Key) bool {
	return k.Made == "identity" || k.Made == "sequence" || k.Made == "now()" || strings.HasPrefix(k.Made, "uuidv7()") || k.UUIDVersion == 7 || k.UUIDVersion == 6
}

// reveals is what a key's values tell whoever sees them.
func reveals(k *Key) string {
	switch {
	case k.Order == Ordered && (k.UUIDVersion == 7 || k.UUIDVersion == 6 || k.UUIDVersion == 1 || strings.HasPrefix(k.Made, "uuidv7()")):
		return "creation time"
	case k.Made == "identity" || k.Made == "sequence":
		return "a count (how many rows were made before it)"
	}
	return ""
}

// Judge classifies every table, puts a cost on each paying one (cost may
// be nil: no curves), ranks the paying ones and sorts them, most paying first.
func Judge(tables []Table, s Server, sample Sample, cost func(*Table) *Cost) {
	for i := range tables {
		tables[i].Verdict = judge(&tables[i], s, sample)
		emergency(&tables[i]) // first: the sequence's line then leaves the time to it
		if line := overflowText(&tables[i]); line != "" {
			tables[i].Verdict.Why = append(tables[i].Verdict.Why, line)
		}
		if o := originOf(&tables[i]); o != nil {
			tables[i].Origin = o
			tables[i].Verdict.Why = append(tables[i].Verdict.Why, fmt.Sprintf("Looks made by %s (a likely origin: %s). In its words: %s (%s).", o.Framework, o.Because, o.Fix, o.Source))
		}
		if c := tables[i].Verdict.Class; cost != nil && (c == Pays || c == PaysInSize || c == NotShown) {
			tables[i].Verdict.Cost = cost(&tables[i])
		}
	}
	order(tables)
}

// order sorts the tables by class, then by what they pay, and ranks the
// paying ones, most paying first.
func order(tables []Table) {
	sort.SliceStable(tables, func(i, j int) bool { return Before(&tables[i], &tables[j]) })
	rank := 0
	for i := range tables {
		if c := tables[i].Verdict.Class; c == Pays || c == PaysInSize {
			rank++
			tables[i].Verdict.Rank = rank
		}
	}
}

// Before says whether a comes before b in advise's order, in one
// database or across several: by class (a column running out first, the
// soonest first), then by what the table pays (score), then by its key
// index's size.
func Before(a, b *Table) bool {
	if ca, cb := classRank(a.Verdict.Class), classRank(b.Verdict.Class); ca != cb {
		return ca < cb
	}
	if a.Verdict.Class == RunsOut { // the soonest first, across every table
		return mustGet(a.Soonest().RunsOutInS) < mustGet(b.Soonest().RunsOutInS)
	}
	if sa, sb := score(a), score(b); sa != sb {
		return sa > sb
	}
	return a.KeyIndexBytes > b.KeyIndexBytes
}

func classRank(c string) int {
	for i, x := range []string{RunsOut, Pays, PaysInSize, NotShown, OrderUnknown, NoDifference, TooSmall, DoesNotPay, NoKey, Skipped} {
		if c == x {
			return i
		}
	}
	return 99
}

// score ranks paying tables: inserts per second weighted by how far the key
// index is beyond the cache (a random key's extra reads and full-page
// images per insert grow with that ratio; with curves, the rate lost), and
// by what its lab measured it to pay per insert beyond the ordered key —
// the work's and the WAL's excess, each at its interval's lower bound —
// whether or not its work differs.
func score(t *Table) float64 {
	ins, _ := t.InsertsPerS.Get()
	paid := 1 + t.KeyIndexOverCache
	if c := t.Verdict.Cost; c != nil {
		paid = 1 - c.Relative
	}
	if r := t.LabResult; r != nil {
		paid *= 1 + excess(r.Cost) + excess(r.WAL)
	}
	return ins * paid
}

// excess is how much more a lab's ratio is sure to be than 1 (its lower
// bound's excess; 0 where its direction is not known).
func excess(r *LabRatio) float64 {
	if r == nil || !r.Significant {
		return 0
	}
	return max(r.Lo-1, 0)
}

func judge(t *Table, s Server, sample Sample) Verdict {
	sampleSeconds := sample.Seconds
	k := t.Key
	if t.Skipped != "" {
		return Verdict{Class: Skipped, Why: []string{"Not read: " + t.Skipped + "."}}
	}
	if k == nil {
		return Verdict{Class: NoKey, Why: []string{"It has no primary key and no unique key: no key to judge (and no foreign key can reference it)."}}
	}
	var why []string
	order, evidence := orderOf(k)
	k.Order = order
	k.Reveals = reveals(k)
	ins, haveIns := t.InsertsPerS.Get()
	insText := func() string {
		if !haveIns {
			return "inserts per second unavailable: " + t.InsertsPerS.Reason()
		}
		s := fmt.Sprintf("%s inserts/s over the %.0f s sample", rate(ins), sampleSeconds)
		if n, ok := t.Inserters.Get(); ok && n > 0 {
			s += fmt.Sprintf(", %s seen writing it", plural(n, "backend"))
		}
		if t.InsertsFrom != "" {
			s += " (" + t.InsertsFrom + ")"
		}
		return s
	}
	cacheText := fmt.Sprintf("its key index (%s) is %s shared_buffers (%s)", results.Bytes(t.KeyIndexBytes), ratioText(t.KeyIndexOverCache), results.Bytes(s.SharedBuffers))
	if r, ok := t.KeyIndexOverRAM.Get(); ok {
		cacheText += fmt.Sprintf(" and %s the RAM", ratioText(r))
	}
	if c, ok := t.CacheShare.Get(); ok {
		cacheText += ", " + results.Digits(c*100, 2) + "% of the cache holding its pages now"
	}
	switch order {
	case Ordered:
		why = append(why, fmt.Sprintf("Its key is stored in order (%s): inserts land on the key index's rightmost leaf, which stays in the cache, and fill leaves to 90%%.", evidence))
		if haveIns && ins > 0 {
			why = append(why, capitalize(insText())+".")
		}
		if k.Reveals != "" {
			why = append(why, fmt.Sprintf("Its key reveals %s to whoever sees it.", k.Reveals))
		}
		return Verdict{Class: DoesNotPay, Why: why}
	case UnknownOrder:
		why = append(why, fmt.Sprintf("Its key's order could not be read (%s): %s.", cmp.Or(evidence, "-"), orderUnavailable(k)))
		return Verdict{Class: OrderUnknown, Why: why}
	}
	why = append(why, fmt.Sprintf("Its key is %s (%s): each insert lands on a leaf anywhere in the key index.", order, evidence))
	if t.KeyIndexBytes < smallKeyIndexBytes && t.KeyIndexOverCache < smallKeyIndexOfCache {
		why = append(why, capitalize(cacheText)+": too small for the key's order to cost anything measurable.")
		return Verdict{Class: TooSmall, Why: why}
	}
	class := PaysInSize
	if haveIns && ins > 0 {
		class = Pays
		why = append(why, capitalize(insText())+".")
	} else {
		why = append(why, capitalize(insText())+": it pays in size and in the cache its scattered pages take, not per insert now.")
	}
	why = append(why, capitalize(cacheText)+": "+cacheSays(t)+".")
	if class == Pays {
		why = append(why, "")
		class, why[len(why)-1] = paysShown(t, sample)
	}
	if d, ok := t.LeafDensity.Get(); ok {
		why = append(why, fmt.Sprintf("Its leaves are %.0f%% full (%s); an ordered key's fill to 90%%.", d*100, t.DensityMethod))
	}
	if k.UUIDText {
		why = append(why, fmt.Sprintf("Its uuids are stored as %s: 37 bytes a key or more instead of uuid's 16, in the key index and in every foreign key.", k.Type))
	}
	if len(t.ReferencedBy) > 0 {
		var b int64
		for _, f := range t.ReferencedBy {
			b += f.IndexBytes
		}
		why = append(why, fmt.Sprintf("%s reference it; their indexes (%s) take the same order.", plural(len(t.ReferencedBy), "foreign key"), results.Bytes(b)))
	}
	return Verdict{Class: class, Why: why}
}

// splitDensity is the leaf density below which a key index's leaves show
// the page splits of inserts in the middle: an ordered key fills its
// leaves to 90%, a random one leaves them about 70% full.
const splitDensity = 0.8

// cachedWhole is the share of a key index cached above which it counts as
// cached whole: inserts find their leaf.
const cachedWhole = 0.95

// costFigures sorts the figures advise read of a random key's table into
// those that show what the order costs (reads of leaves not cached,
// full-page images, split leaves), those that point the other way, and
// those it could not read, with why.
func costFigures(t *Table, sample Sample) (shown, against, missing []string) {
	share, known := t.CacheShare.Get()
	switch {
	case t.KeyIndexOverCache >= 1:
		shown = append(shown, fmt.Sprintf("its key index is %s the cache, so inserts read leaves that are not cached", ratioText(t.KeyIndexOverCache)))
	case known && t.KeyIndexOverCache > 0 && share/t.KeyIndexOverCache < cachedWhole:
		shown = append(shown, results.ShareText(1-share/t.KeyIndexOverCache)+" of its key index is not cached now, so inserts read those leaves back")
	case known:
		against = append(against, "its key index is cached whole")
	default:
		missing = append(missing, "the key index's share of the cache ("+t.CacheShare.Reason()+")")
	}
	switch fpi, ok := sample.FPIPerS.Get(); {
	case ok && fpi > 0:
		shown = append(shown, fmt.Sprintf("%s full-page images/s in the sample's WAL (the database cluster's, every table's: pg_stat_wal does not split them by table)", results.Significant(fpi)))
	case ok:
		against = append(against, "no full-page image in the sample's WAL")
	default:
		missing = append(missing, "full-page images ("+orText(sample.FPIPerS.Reason(), "not read")+")")
	}
	switch d, ok := t.LeafDensity.Get(); {
	case ok && t.DensityMethod == "pgstatindex" && d < splitDensity:
		shown = append(shown, fmt.Sprintf("its leaves are %.0f%% full (pgstatindex), split by inserts in the middle", d*100))
	case ok && t.DensityMethod == "pgstatindex":
		against = append(against, fmt.Sprintf("its leaves are %.0f%% full (pgstatindex)", d*100))
	default:
		missing = append(missing, "the key index's leaf density (measured only by pgstattuple's pgstatindex; "+orText(t.DensityNote, "estimated")+")")
	}
	return shown, against, missing
}

// paysShown is the class of a random key's table inserted into now, and
// the line that says why: Pays with the figures that show the order's
// cost, or NotShown with those against it and those it could not read.
func paysShown(t *Table, sample Sample) (class, line string) {
	shown, against, missing := costFigures(t, sample)
	switch {
	case len(shown) > 0:
		return Pays, "What shows its cost: " + strings.Join(shown, "; ") + "."
	case len(missing) > 0:
		return NotShown, "No figure read shows what its order costs, and " + strings.Join(missing, "; ") + " could not be read" +
			prefixed("; against it: ", strings.Join(against, ", ")) + ": its lab measures it (advise --lab)."
	}
	return NotShown, "No figure read shows what its order costs at this size and rate: " + strings.Join(against, ", ") + ": its lab measures it (advise --lab)."
}

// prefixed is s after prefix, or "" when s is.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// cacheSays is what the key index against the cache means for a random
// key's inserts, said only as far as the figures read show it: its share
// of the index cached now (pg_buffercache) decides whether inserts find
// their leaf cached or read it back; a claim on full-page images needs a
// table whose inserts ran between two checkpoints, so it is said as what
// the order makes happen, not as what was seen.
func cacheSays(t *Table) string {
	share, known := t.CacheShare.Get()
	cachedOfIndex := 0.0
	if known && t.KeyIndexOverCache > 0 {
		cachedOfIndex = math.Min(1, share/t.KeyIndexOverCache)
	}
	switch {
	case t.KeyIndexOverCache >= 1:
		return "larger than the cache, so an insert needs an index page that is not cached, read from the OS or the disk; after a checkpoint the first change to each leaf it lands on writes the leaf's whole image"
	case known && cachedOfIndex < 0.5:
		return fmt.Sprintf("it would fit the cache, but only %s of it is cached now: inserts read their leaves back in as other tables' pages evict them, and after a checkpoint the first change to each leaf writes its whole image", results.ShareText(cachedOfIndex))
	case known:
		return fmt.Sprintf("%s of it is cached now, so inserts find their leaf cached; what a random order costs it is the whole-leaf images after each checkpoint (the first change to each leaf) and the reads once it outgrows the cache", results.ShareText(cachedOfIndex))
	}
	return "it fits the cache; whether its leaves stay cached was not read (" + t.CacheShare.Reason() + "): after each checkpoint the first change to each leaf an insert lands on writes the leaf's whole image"
}

// orderUnavailable says what would let advise read a key's order.
func orderUnavailable(k *Key) string {
	var rs []string
	if r := k.LeafOrder.Reason(); r != "" {
		rs = append(rs, "leaf order: "+r)
	}
	if r := k.Correlation.Reason(); r != "" {
		rs = append(rs, "correlation: "+r)
	}
	if len(rs) == 0 {
		return "no figure"
	}
	return strings.Join(rs, "; ")
}

func ratioText(r float64) string {
	if r >= 1 {
		return results.Digits(r, 2) + "×"
	}
	return results.Digits(r*100, 2) + "% of"
}

func rate(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return results.Significant(v)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// RunsOutDays is how soon a key that runs out of values is an emergency.
const RunsOutDays = 30

// emergency makes a table with a column that runs out of values within
// RunsOutDays its own class, first of all: each such column said first,
// with when (in the unit a person reads, and the moment), from what, and
// the fix for its shape; a column whose sequence cannot be read says which
// right would read it.
func emergency(t *Table) {
	var lines []string
	for i := range t.RunsOut {
		ro := &t.RunsOut[i]
		if why := ro.Last.Reason(); why != "" {
			t.Verdict.Why = append(t.Verdict.Why, fmt.Sprintf("When column %s runs out cannot be said: %s.", sqltree.Printable(ro.Column), why))
			continue
		}
		if s, ok := ro.RunsOutInS.Get(); ok && s <= RunsOutDays*86400 {
			lines = append(lines, runsOutLine(t, ro))
		}
	}
	if len(lines) == 0 {
		return
	}
	t.Verdict.Class = RunsOut
	t.Verdict.Why = append(lines, t.Verdict.Why...)
}

// humanDays is a span in the unit a person reads: minutes, hours or days.
func humanDays(days float64) string {
	switch m := days * 24 * 60; {
	case m < 1.0/60:
		return "less than a second"
	case m < 2: // the last minutes, in seconds
		return fmt.Sprintf("%.0f seconds", m*60)
	case m < 10:
		return strconv.FormatFloat(math.Round(m*10)/10, 'f', -1, 64) + " minutes"
	case m < 120:
		return fmt.Sprintf("%.0f minutes", m)
	case m < 48*60:
		return fmt.Sprintf("%.0f hours", m/60)
	}
	return fmt.Sprintf("%.0f days", days)
}

// overflowText says, for a table none of whose columns runs out soon,
// when the soonest does within ten years ("" when none does, or none is
// fed by a sequence).
func overflowText(t *Table) string {
	ro := t.Soonest()
	if ro == nil || t.Verdict.Class == RunsOut {
		return ""
	}
	if s, _ := ro.RunsOutInS.Get(); s > 10*365*86400 {
		return ""
	}
	return runsOutLine(t, ro)
}

func mustGet(m results.M[float64]) float64 { v, _ := m.Get(); return v }
