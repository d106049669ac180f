package results

import (
	"fmt"

	"github.com/keybench/keybench/internal/stats"
)

// AnalysisVersion is the version of the analysis's layout and meaning: a
// file whose analysis has another is analysed anew when it is read.
const AnalysisVersion = 15 // 2: Why for undecided keys too; 3: the answer, each cell's rate and work, the parts adding up; 4: the answer's costlier keys, its material WAL; 5: the rates' estimates over every round; 6: a decision the later rounds no longer show is shown open, at every round; 7: with nothing told apart the answer chooses no key; 8: every interval a stats.Interval (lo, hi, level); 9: each group's rate unit; 10: the median rate named median_rate (it was tps, the name the cells give their pooled rate); 11: a count of the rounds their CountMean everywhere, the work's parts its shares; 12: each group's p99_ms; 13: the answer's group of least work, its tie-break facts and rule; 14: each figure's statistic declared with it (RoundFigure.Statistic), never switched by the data; 15: a comparison's ratio of medians named median_ratio (its "ratio" was not the ratio printed, its effect)

// Analysis is everything decided about a run's cells: the groups (each
// key's measurement, with every comparison), the shapes they are compared
// in with the least costly key of each and what explains the costliest,
// the fixed-rate comparisons of latency, and the machine's load. Package
// verdict computes it once per results and writes it into results.json;
// the console, the page, the exports, compare, project and advise read it
// and compute nothing of their own.
type Analysis struct {
	Version int     `json:"version"`
	Groups  []Group `json:"groups"`
	Shapes  []Shape `json:"shapes"`
	// Busy is the machine's load during the rounds (nil: not read).
	Busy *Busy `json:"busy,omitempty"`
	// Device is the disk the work is priced on (the run's, or a default
	// profile's for a file that recorded none).
	Device Device `json:"device"`
	// Answer is what the run answers, said first (nil: no shape compared
	// its keys' work).
	Answer *Answer `json:"answer,omitempty"`
	// Majors is a run over several PostgreSQL majors: each major's answer
	// and whether each key's work ratio holds from one to the next.
	Majors *Majors `json:"pg_majors,omitempty"`
}

// Majors is what a run over several PostgreSQL majors answers: each
// major's own answer (its cells alone, analysed as a run of their own),
// and, for each key of the headline shape, its work over Reference's on
// every major and how that ratio moved from the first major to each later
// one (the ratio of ratios, at Level: Bonferroni over the keys, its own
// family).
type Majors struct {
	Answers   []MajorAnswer  `json:"answers"`
	Reference string         `json:"reference,omitempty"`
	Level     float64        `json:"level,omitempty"`
	Keys      []AcrossMajors `json:"keys,omitempty"`
}

// MajorAnswer is one major's answer (nil: none compared its keys' work).
type MajorAnswer struct {
	Major  int     `json:"major"`
	Answer *Answer `json:"answer,omitempty"`
}

// AcrossMajors is one key's work over the reference's on each major, and
// how it moved: Moved[i] is major i+1's ratio over the first's (absent
// where either had too few rounds for a standard error; Why says so).
type AcrossMajors struct {
	Key    string       `json:"key"`
	Ratios []MajorRatio `json:"ratios"`
	Moved  []MajorMove  `json:"moved,omitempty"`
	Why    string       `json:"unavailable,omitempty"`
}

// MajorRatio is a key's work over the reference's on one major.
type MajorRatio struct {
	Major int `json:"major"`
	stats.Comparison
}

// MajorMove is how a key's ratio moved from the first major to Major.
type MajorMove struct {
	Major int `json:"major"`
	stats.Comparison
}

// Answer is the run's answer for its headline shape (the last whose keys'
// work was compared), and it names only what the rounds decided: the keys
// of least work as one group — the least and every key not told apart from
// it or shown the same within the margin, in the plan's order, never the
// least of them alone for being least — and the keys shown to do more,
// what to avoid. One key is chosen only where every other key is shown to
// do more, or where a measured fact sets it apart within the group (Rule,
// Facts: the tie-break, in the order TieBreaks gives); the WAL apart, and
// what the work did not measure; the sentence that says it all.
type Answer struct {
	Shape string `json:"shape"`
	// Group are the keys of least work, in the plan's order: each with how
	// it stands against the least ("least", "open": not told apart, "same":
	// shown the same within Margin) and its ratio.
	Group []GroupKey `json:"group"`
	// Span is the span of the group's intervals against the least (none
	// for a group of one), Margin the equivalence margin.
	Span   *stats.Interval `json:"span,omitempty"`
	Margin float64         `json:"margin,omitempty"`
	// Choose is the key the answer recommends (empty: none is): the
	// group's one key, or the one Rule set apart by Facts.
	Choose string `json:"choose,omitempty"`
	// Rule is the tie-break that chose ("only", one of TieBreaks' names),
	// or why none did; Facts the figures it compared, each key's.
	Rule  string `json:"rule,omitempty"`
	Facts []Fact `json:"facts,omitempty"`
	// Costliest is the key shown to do the most work beyond the least's:
	// its work and WAL per transaction over the least's.
	Costliest string `json:"costliest,omitempty"`
	Work      *Ratio `json:"work,omitempty"`
	// Costlier are every key shown to do more work than the least beyond
	// the margin, the costliest first, each its ratio: the keys to avoid.
	Costlier []KeyRatio `json:"costlier,omitempty"`
	// Cheaper are the keys shown to do less work than the question's
	// reference (Shape.Against: the group is then theirs), each its ratio.
	Cheaper []KeyRatio `json:"cheaper,omitempty"`
	// WALLeast is the key of the least WAL per transaction, WALMore the
	// keys whose WAL its own family found above it by a tenth or more
	// (WALMaterial), each its ratio.
	WALLeast string     `json:"wal_least,omitempty"`
	WALMore  []KeyRatio `json:"wal_more,omitempty"`
	// Undecided says why the rounds ended with pairs undecided where more
	// rounds were allowed by the design (a budget), with what would decide them.
	Undecided string `json:"undecided,omitempty"`
	// NotMeasured are the parts of the work the run could not read.
	NotMeasured []string `json:"not_measured,omitempty"`
	Text        string   `json:"text"`
}

// GroupKey is one key of the answer's group.
type GroupKey struct {
	Key string `json:"key"`
	// How: GroupLeast, GroupOpen or GroupSame.
	How string `json:"how"`
	// Ratio is its work over the least's (none for the least).
	Ratio *Ratio `json:"ratio,omitempty"`
}

// How a key of the answer's group stands against the least.
const (
	GroupLeast = "least"
	GroupOpen  = "open"
	GroupSame  = "same"
)

// Fact is one figure a tie-break compared: a key's, by name (a TieBreaks
// name), with its value.
type Fact struct {
	Key   string  `json:"key"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// WALMaterial is the least WAL ratio the answer names: a count as exact
// as the WAL's finds a key 1% above another significant, which no standby
// or archive notices.
const WALMaterial = 1.10

// KeyRatio is a key's Ratio.
type KeyRatio struct {
	Key string `json:"key"`
	Ratio
}

// Ratio is a figure of one key over another's with its interval (none:
// Level 0).
type Ratio struct {
	Ratio float64 `json:"ratio"`
	stats.Interval
}

// RatioOf is a comparison's effect and its interval.
func RatioOf(c *stats.Comparison) Ratio { return Ratio{Ratio: c.Effect, Interval: c.Interval} }

// Shape is the groups measured under the same conditions (task, clients,
// table size): the keys every comparison sets against each other.
type Shape struct {
	Title string `json:"title"`
	// Groups are the shape's groups (indexes into Analysis.Groups) in plan order.
	Groups []int `json:"groups"`
	// Tested: at least one pair of its rates was tested; Ordered: at least
	// one pair differs, so a rank by rate means something.
	Tested  bool `json:"tested"`
	Ordered bool `json:"ordered"`
	// Least is the key of the least median cost (none: the costs were not
	// compared, NoCost says why when the rounds had costs to compare).
	Least  string `json:"least,omitempty"`
	NoCost string `json:"no_cost,omitempty"`
	// Against says that Least is the key the question compares every
	// other with (Plan.Against), not the least work: the keys were tested
	// against it alone.
	Against bool `json:"against,omitempty"`
	// Costliest is the key whose cost lies above Least's by the most of
	// those significantly above it (its Cost.Why says what makes it so).
	Costliest string `json:"costliest,omitempty"`
	// Pace compares the keys' latency at a fixed rate (--rate).
	Pace *PaceShape `json:"pace,omitempty"`
	// WALLeast is the key of the least WAL per transaction (none: the
	// keys' WAL was not compared); WALRate the rate a day's WAL is
	// reckoned at for every key (the fixed rate, or WALLeast's).
	WALLeast string  `json:"wal_least,omitempty"`
	WALRate  float64 `json:"wal_rate,omitempty"`
}

// Reason is one count that sets two keys' work apart: the round figure
// (its JSON name in RoundCost), its medians over the rounds of each, and
// their ratio — within the rounds both ran (the geometric mean of the
// rounds' ratios) with its 95% interval (not adjusted, a figure that
// explains, not one that decides), or the medians' where they share too
// few rounds (no interval).
type Reason struct {
	Figure string `json:"figure"`
	Ratio
	Of      float64 `json:"of"`
	Against float64 `json:"against"`
}

// PaceShape is a fixed-rate shape's latency verdict: each key's median
// p99 over its rounds, compared with the key of the least (Holm over the
// shape's comparisons).
type PaceShape struct {
	Least string    `json:"least"`
	Keys  []PaceKey `json:"keys"`
}

// PaceKey is a key's median p99 at the fixed rate and its comparison with
// the least's (this key's over the least's; nil for the least, or when
// either has no rounds' p99).
type PaceKey struct {
	Key    string            `json:"key"`
	P99MS  float64           `json:"p99_ms"`
	Versus *stats.Comparison `json:"versus,omitempty"`
}

// Busy is what other processes took of the machine during the rounds:
// their share of its CPU and the hypervisor's (steal), and how long the
// server's backends waited for a CPU per transaction, each the rounds'
// mean by its round figure's statistic, as a key's own. Busy says whether that was enough to call the machine busy.
type Busy struct {
	OthersShare float64    `json:"others_share" kb:"share"`
	StealShare  float64    `json:"steal_share" kb:"share"`
	RunQueueMS  M[float64] `json:"runqueue_ms_per_txn,omitzero"`
	Busy        bool       `json:"busy"`
}

// ShapeGroups are the shape's groups.
func (a *Analysis) ShapeGroups(s *Shape) []*Group {
	out := make([]*Group, 0, len(s.Groups))
	for _, i := range s.Groups {
		out = append(out, &a.Groups[i])
	}
	return out
}

// GroupOf is the group of key in the shape (nil: none).
func (a *Analysis) GroupOf(s *Shape, key string) *Group {
	for _, i := range s.Groups {
		if a.Groups[i].Key == key {
			return &a.Groups[i]
		}
	}
	return nil
}

// ShapeOf is the shape of g.
func (a *Analysis) ShapeOf(g *Group) *Shape {
	for i := range a.Shapes {
		for _, j := range a.Shapes[i].Groups {
			if &a.Groups[j] == g {
				return &a.Shapes[i]
			}
		}
	}
	return nil
}

// Check says whether the analysis is whole: its version is this
// keybench's and every index it holds points into the cells and groups.
func (a *Analysis) Check(cells int) error {
	if a.Version != AnalysisVersion {
		return fmt.Errorf("analysis version %d, not %d", a.Version, AnalysisVersion)
	}
	for gi, g := range a.Groups {
		if len(g.Cells) == 0 {
			return fmt.Errorf("group %d has no cells", gi)
		}
		for _, c := range g.Cells {
			if c < 0 || c >= cells {
				return fmt.Errorf("group %d names cell %d of %d", gi, c, cells)
			}
		}
	}
	for si, s := range a.Shapes {
		if len(s.Groups) == 0 {
			return fmt.Errorf("shape %d has no groups", si)
		}
		for _, g := range s.Groups {
			if g < 0 || g >= len(a.Groups) {
				return fmt.Errorf("shape %d names group %d of %d", si, g, len(a.Groups))
			}
		}
	}
	return nil
}
