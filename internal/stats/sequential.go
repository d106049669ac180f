package stats

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Sequential is a group-sequential design for the keys of one task
// compared within rounds: the run looks at the rounds after each one from
// MinRounds on and stops as soon as every pair of keys is decided, or at
// MaxRounds. A pair is decided
//
//   - different, when its blocked t test's p-value is at most the
//     group-sequential boundary of its level at that look: each pair starts
//     at Alpha over the pairs (Bonferroni), and a pair found different
//     passes its level on to the others (Holm's step-down as a graphical
//     procedure: Maurer and Bretz, 2013); the boundary spends each level
//     over the looks with Lan and DeMets' O'Brien–Fleming-type spending
//     function, so that looking after every round does not raise the
//     family-wise rate of false winners above Alpha, as "peek until
//     p < 0.05" would. O'Brien–Fleming's spends little at the first looks:
//     a difference stops the rounds early only when it is large against
//     the noise, and the last look's boundary is near the fixed design's;
//   - the same within MinEffect, when its repeated confidence interval
//     (the interval at the looks' boundary for the pair's Bonferroni
//     level, which covers at every look at once) lies within ±MinEffect:
//     an equivalence, a result in its own right;
//   - undecidable within the budget, when neither can happen by MaxRounds:
//     at the current estimate the chance of a difference by then is below
//     FutilityPower, and the interval could not shrink within ±MinEffect.
//     Stopping for it never names a winner, so it costs no false winners.
//
// A pair still open at MaxRounds has no verdict ("~"), as in a fixed design.
//
// The p-values are Student's t's (Blocks.Compare, with its degrees of
// freedom) read against boundaries computed for normal statistics, at 70%
// of the level (tLevel: t statistics' looks are less correlated). That is
// an approximation at few rounds; the package's tests measure what it gives
// for every layout a preset uses (SequentialLayouts): false winners at most
// Alpha, the power for a 15% and a 25% difference, and the rounds used.
type Sequential struct {
	MinRounds int     `json:"min_rounds"`
	MaxRounds int     `json:"max_rounds"`
	Alpha     float64 `json:"alpha"`
	// MinEffect is the equivalence margin: ratios within [1/(1+m), 1+m]
	// are "the same" (0: no equivalence is claimed).
	MinEffect float64 `json:"min_effect"`
	// Spending is SpendOBF (keybench's) or SpendPocock.
	Spending string `json:"spending"`
	// Family is what the design decides: FamilyPairs (every pair, Holm's
	// step-down) or FamilyBest (each key against the best of the others).
	Family string `json:"family,omitempty"`
	// Reference is FamilyReference's key; ref its index in the layout
	// decided (1-based, 0: not found; set by Against).
	Reference string `json:"reference,omitempty"`
	ref       int
	// overrun scales the boundaries of the look restated over rounds past
	// MaxRounds (0: none): OverrunShare.
	overrun float64
}

// OverrunShare is the share of the last look's nominal level at which a
// layout's rounds past the design's last look (run for another family:
// the work's extension) are tested, as one more look: at the whole level
// the pairs of two keys, 8 rounds' design over 16, were found different in
// 5.9% of A/A runs (2,000 simulated), at half of it in 5.0%, at 0.4 in
// 4.3% (TestOverrunKeepsTheLevel shows each layout).
const OverrunShare = 0.4

// NewSequential is keybench's design for a run of at most maxRounds
// rounds: from MinBlocks rounds on, at Alpha, O'Brien–Fleming spending.
func NewSequential(maxRounds int, minEffect float64) Sequential {
	return Sequential{MinRounds: MinBlocks, MaxRounds: maxRounds, Alpha: Alpha, MinEffect: minEffect, Spending: SpendOBF}
}

// NewRateDesign is the design of a run's rates beside their costs: at
// Alpha/Families, the costs' family holding the rest (NewCostDesign).
func NewRateDesign(maxRounds int, minEffect float64) Sequential {
	d := NewSequential(maxRounds, minEffect)
	d.Alpha = Alpha / Families
	return d
}

// CostExtension is how many times the preset's rounds a run may go on to
// while a cost comparison is undecided (within its time budget), where
// the family asks for every pair or each key against a reference.
const CostExtension = 2

// BestRounds is the fewest rounds a FamilyBest run may go on to; it does
// not go past the preset's rounds otherwise. What holds its rounds past
// them is mostly keys a percent or three from the least, neither shown
// costlier nor shown within MinEffect of it, which more rounds rarely
// decide: with the server's CPU scattering 7–10% from round to round (war
// on this project's 2-core machine, 2026-11-29) they were still undecided
// at 14 and 15 of CostExtension's 16 rounds in two runs of three; going
// on to 10, three runs took 6, 10 and 10 rounds (median wall 49 s), to 8
// (none past the preset's) 6, 8 and 8 (39 s), naming uuidv4 costlier than
// bigint and uuidv7 in each; an A/A run of four bigint tables went to 13
// and 16 rounds to say "the same within 5%", and with none past 8 stopped
// at 3 to 5 naming nothing. A layout of fewer rounds goes on to 8: in the
// program's simulation a key doing 25% more work than the least is found
// in 97% of runs of 3 keys × 6 rounds (60% stopping at 6).
const BestRounds = 8

// NewCostDesign is the design of a run's work (per transaction) beside its
// rates, deciding family: at Alpha/Families, looking from MinBlocks rounds
// on as the rates' does (a real difference in the work is decided in a
// few rounds and the run can stop there), its last look at the preset's
// rounds (and at least BestRounds) for FamilyBest, at CostExtension times
// them for the others, O'Brien–Fleming-type spending. A run whose budget
// ends first stops at a look, which keeps the error rate: a look not
// taken spends nothing.
func NewCostDesign(rounds int, minEffect float64, family string) Sequential {
	most := CostExtension * rounds
	if family == FamilyBest {
		most = max(rounds, BestRounds)
	}
	return Sequential{MinRounds: MinBlocks, MaxRounds: most, Alpha: Alpha / Families, MinEffect: minEffect, Spending: SpendOBF, Family: family}
}

// Whole is the design at the whole of Alpha: a rates' design where no
// work is measured beside it, so that the rates need not share the level.
func (d Sequential) Whole() *Sequential {
	d.Alpha = Alpha
	return &d
}

// MinSequentialRounds is the fewest rounds a run stops early from: with
// fewer, the looks a run could stop at (from MinRounds on) are too few to
// pay for what the boundaries cost in power. Simulated here (6% noise
// per key and round, 10% drift, 1000 runs each), a key 25% slower was
// found in 5 rounds by the sequential design in 80% of runs with 4 keys
// and 58% with 7, by the fixed design (every round, then Holm) in 88% and
// 70%, while stopping early saves at most 2 of the 5 rounds; such runs use
// the fixed design.
const MinSequentialRounds = 6

// SequentialLayouts are the layouts (keys of a task × most rounds) whose
// error rates and power the package's tests show: every preset's (the
// scenario tests check that each is here), 2 × 8 (war as an A/A test:
// --keys bigint,bigint), and 2 and 3 keys × MinSequentialRounds, the least.
var SequentialLayouts = []struct{ Keys, Rounds int }{{2, MinSequentialRounds}, {3, MinSequentialRounds}, {2, 8}, {6, 8}}

// FixedLayouts are the layouts (keys of a task × rounds) of every verdict
// a preset draws with the fixed design — every round run, then Holm: the
// presets of fewer than MinSequentialRounds rounds, and war's with
// --sequential off — and 2 × 8 (war as an A/A test) and 3 × 3, the least
// a verdict is drawn from; the package's tests show their error rates (the
// scenario tests check that each preset's is here).
var FixedLayouts = []struct{ Keys, Rounds int }{{3, 3}, {2, 8}, {3, 5}, {4, 5}, {5, 4}, {6, 8}, {7, 5}, {7, 8}, {22, 8}}

// Spending functions: Lan and DeMets' O'Brien–Fleming-type and Pocock-type.
const (
	SpendOBF    = "obrien-fleming"
	SpendPocock = "pocock"
)

// tLevel is the share of a level the boundaries spend. They are computed
// for normal statistics, whose looks are correlated as a Brownian motion's;
// Student's t statistics of few rounds re-estimate the noise at every look
// and are less correlated, so that boundaries at the full level are crossed
// more often than promised: with two keys (the paired t test) in 6 to 8
// rounds, in 5.6-6.2% of A/A runs where 5% was promised (8000 simulated
// runs each), and still 5.4% at 80% of the level; at 70%, 4.0-4.5%. Three
// keys or more (Satterthwaite's degrees of freedom from the whole layout)
// stay within 4% even at the full level: 70% costs them some power.
const tLevel = 0.7

// FutilityPower is the chance of a difference by the last round below
// which an undecided pair is given up (stops the rounds, names no winner).
const FutilityPower = 0.1

// Pair states (Comparison.State).
const (
	PairOpen       = "open"
	PairDifferent  = "different"
	PairEquivalent = "equivalent"
	PairFutile     = "undecidable"
)

// PairDecision is one pair of keys after the looks so far: its comparison
// (b over a) at the look it was decided at (or the last one, open), whose
// State and Look say what was decided when; its PAdjusted is its p-value
// scaled to Alpha by the boundary it met (below Alpha exactly when it met
// it), its interval the repeated confidence interval at its level.
type PairDecision struct {
	A, B       int
	Comparison Comparison
}

// Decide replays the looks of a layout of rates[key][round] (every key
// the same rounds) from MinRounds to its rounds, and returns each pair's
// decision and whether the rounds may stop (every pair decided, or the
// last round). The decisions depend only on the rates, so a results file
// that kept the rounds gives them again.
func (d Sequential) Decide(rates [][]float64) ([]PairDecision, bool) {
	pairs, _, done := d.replay(rates, false)
	return pairs, done
}

// Stop replays the looks of a layout of MaxRounds rounds and returns the
// look at which the rounds stop and the decisions then (what a run of these
// rates would have done).
func (d Sequential) Stop(rates [][]float64) (int, []PairDecision) {
	pairs, look, _ := d.replay(rates, true)
	return look, pairs
}

// replay looks at rounds MinRounds… in turn; with early it returns at the
// first look after which every pair is decided.
func (d Sequential) replay(rates [][]float64, early bool) ([]PairDecision, int, bool) {
	k := len(rates)
	var pairs []PairDecision
	for _, p := range openPairs(k) {
		if d.tested(p.A, p.B) {
			pairs = append(pairs, p)
		}
	}
	if k < 2 || len(rates[0]) < d.MinRounds {
		return pairs, 0, false
	}
	n := min(len(rates[0]), d.MaxRounds) // rounds past the design's (another family's extension) are not its looks: its last one is restated over them
	m := len(pairs)
	rejected := 0
	levels := make([]float64, m) // the level each pair found different was tested at
	for look := d.MinRounds; look <= n; look++ {
		sub := make([][]float64, k)
		for i := range rates {
			sub[i] = rates[i][:look]
		}
		l, ok := NewBlocks(sub)
		if !ok {
			return pairs, look, false
		}
		cs := make([]Comparison, m)
		for i, p := range pairs {
			cs[i] = l.Compare(p.A, p.B)
		}
		// Holm's step-down at this look: the untested pair of the smallest
		// p-value is tested at the level the rejected pairs left. A pair
		// given up (undecidable) is still tested while the rounds go on:
		// the boundaries ignore futility, which only lets the rounds stop.
		testable := func(p PairDecision) bool { return p.Comparison.State == PairOpen || p.Comparison.State == PairFutile }
		for {
			best := -1
			for i, p := range pairs {
				if testable(p) && !cs[i].Degenerate && (best < 0 || cs[i].P < cs[best].P) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			level := d.Alpha / float64(m-rejected)
			if cs[best].P > d.nominal(level, look) {
				break
			}
			pairs[best].Comparison = d.record(cs[best], level, look, look, PairDifferent)
			levels[best] = level
			rejected++
		}
		level := d.Alpha / float64(m-rejected)
		for i := range pairs {
			p := &pairs[i]
			if !testable(*p) {
				continue
			}
			state, at := p.Comparison.State, p.Comparison.Look
			switch {
			case d.equivalent(cs[i], look, m):
				state, at = PairEquivalent, look
			case state == PairOpen && look < d.MaxRounds && d.futile(cs[i], level, look, d.Alpha/float64(m)):
				state, at = PairFutile, look
			}
			p.Comparison = d.record(cs[i], level, at, look, state)
		}
		if look == n || early && d.answered(pairs, rates, look) {
			d = d.overrunOf(rates, pairs, cs, look, early)
			d.restate(pairs, cs, levels, level, look)
			return pairs, look, d.answered(pairs, rates, look) || look >= d.MaxRounds
		}
	}
	return pairs, n, n >= d.MaxRounds
}

// openPairs is every pair of k keys, none decided.
func openPairs(k int) []PairDecision {
	var pairs []PairDecision
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			pairs = append(pairs, PairDecision{A: a, B: b, Comparison: Comparison{Test: TestBlocked, P: 1, PAdjusted: 1, State: PairOpen}})
		}
	}
	return pairs
}

// overrunOf is the design restating its last look (look): where rounds
// past the design's looks (run for another family) are in the keys'
// rates, the estimates shown beside them are of every round (cs set
// anew), at OverrunShare of the last look's boundary.
func (d Sequential) overrunOf(rates [][]float64, pairs []PairDecision, cs []Comparison, look int, early bool) Sequential {
	if all := len(rates[0]); early || all <= look {
		return d
	}
	l, ok := NewBlocks(rates)
	if !ok {
		return d
	}
	for i, p := range pairs {
		cs[i] = l.Compare(p.A, p.B)
	}
	d.overrun = OverrunShare
	return d
}

// restate shows every pair at the last look (cs, the rounds that ran):
// its estimate and repeated confidence interval then, which cover at every
// look at once — so that a pair's ratio is the ratio of the keys' figures
// shown beside it. A pair decided at an earlier look whose interval now
// no longer shows that decision (a difference whose interval now touches
// 1, an equivalence whose interval now leaves the margin) is shown open
// ("~"): the rounds since weakened it, and claiming less never adds a
// false winner. A pair found different keeps the level it was tested at;
// the others are at the level the rejections left (level).
func (d Sequential) restate(pairs []PairDecision, cs []Comparison, levels []float64, level float64, look int) {
	level = min(level, d.Alpha) // every pair rejected: a demoted one is the last, at the whole level
	for i := range pairs {
		p := &pairs[i]
		was := p.Comparison
		if was.State == PairDifferent {
			now := d.record(cs[i], levels[i], was.Look, was.Look, PairDifferent)
			if now.Level > 0 && (now.Lo > 1 || now.Hi < 1) {
				now.PAdjusted, now.Significant = was.PAdjusted, was.Significant
				p.Comparison = now
				continue
			}
			was.State = PairOpen
		}
		now := d.record(cs[i], level, was.Look, look, was.State)
		if was.State == PairEquivalent && !(now.Level > 0 && now.Lo > 1/(1+d.MinEffect) && now.Hi < 1+d.MinEffect) {
			now = d.record(cs[i], level, 0, look, PairOpen)
		}
		p.Comparison = now
	}
}

// record is a pair's comparison at a look (now) with its level and its
// state, decided at look at: its interval the repeated confidence
// interval at now's boundary, its adjusted p-value scaled so that it is
// below Alpha exactly when p met that boundary. A pair found different
// is shown at the look it was found at (now = at).
func (d Sequential) record(c Comparison, level float64, at, now int, state string) Comparison {
	c.State = state
	if state != PairOpen {
		c.Look = at
	}
	if state == PairEquivalent {
		c.Margin = d.MinEffect
	}
	if c.Degenerate {
		return c
	}
	bound := d.nominal(level, now)
	c.PAdjusted = math.Min(1, c.P*Alpha/bound) // on Alpha's scale whatever the design's share of it
	c.Lo, c.Hi, c.Level = d.interval(c, bound)
	c.decide()
	return c
}

// interval is the comparison's interval at the nominal two-sided level bound.
func (d Sequential) interval(c Comparison, bound float64) (lo, hi, confidence float64) {
	if !(c.DF > 0) || c.Effect <= 0 {
		return c.Lo, c.Hi, 0
	}
	mean := math.Log(c.Effect)
	// An early look's strict level on few degrees of freedom reaches
	// quantiles in the hundreds: beyond a millionfold either way the
	// interval says nothing more (it holds 1), and is written as that.
	half := math.Min(tQuantile(1-bound/2, c.DF)*c.SE, maxIntervalLog)
	lo, hi = math.Exp(mean-half), math.Exp(mean+half)
	if !(c.SE > 0) || !(lo > 0) || math.IsInf(hi, 0) || math.IsNaN(hi) {
		return 0, 0, 0
	}
	return lo, hi, 1 - bound
}

// equivalent: the repeated confidence interval at the level of a pair
// (Alpha over the pairs) lies within ±MinEffect.
func (d Sequential) equivalent(c Comparison, look, pairs int) bool {
	if d.MinEffect <= 0 || c.Degenerate {
		return false
	}
	lo, hi, conf := d.interval(c, d.nominal(d.Alpha/float64(pairs), look))
	return conf > 0 && lo > 1/(1+d.MinEffect) && hi < 1+d.MinEffect
}

// futile: by the last round, at the current estimate, the pair would be
// found different with a chance below FutilityPower, and its interval
// could not shrink within ±MinEffect.
func (d Sequential) futile(c Comparison, level float64, look int, eqLevel float64) bool {
	if c.Degenerate || c.Effect <= 0 || !(c.DF > 0) {
		return false
	}
	mean, se := math.Abs(math.Log(c.Effect)), c.SE
	if !(se > 0) {
		return false
	}
	// Information grows with the rounds: at the last one the standard
	// error is se·√(look/MaxRounds); the statistic's trend Z_look/√t.
	frac := float64(look) / float64(d.MaxRounds)
	zNow := mean / se
	cLast := zOf(d.nominal(level, d.MaxRounds))
	drift := zNow / math.Sqrt(frac)
	cp := 1 - normCDF((cLast-zNow*math.Sqrt(frac)-drift*(1-frac))/math.Sqrt(1-frac))
	if cp >= FutilityPower {
		return false
	}
	if d.MinEffect <= 0 {
		return true
	}
	seLast := se * math.Sqrt(frac)
	half := zOf(d.nominal(eqLevel, d.MaxRounds)) * seLast
	return half >= math.Log(1+d.MinEffect)-mean
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// zOf is the two-sided normal quantile of a nominal p-value.
func zOf(p float64) float64 { return distuv.UnitNormal.Quantile(1 - p/2) }

// nominal is the two-sided nominal p-value a test at look (rounds) must
// reach to be significant at level, by the design's spending function:
// boundaries computed for normal statistics at tLevel of the level.
func (d Sequential) nominal(level float64, look int) float64 {
	b := boundaries(d.Spending, level*tLevel, d.MinRounds, d.MaxRounds)
	i := look - d.MinRounds
	if i < 0 || i >= len(b) {
		return 0
	}
	if d.overrun > 0 && look == d.MaxRounds {
		return b[i] * d.overrun
	}
	return b[i]
}

var boundaryCache sync.Map // key → []float64

// boundaries are the nominal two-sided p-values of the looks at rounds
// from..to (every round), for level spent by the spending function over
// information fractions n/to: the Armitage–McPherson–Rowe recursion for
// the statistics' joint distribution (Brownian motion at the looks),
// integrated numerically on a grid, each look's bound found by bisection.
func boundaries(spending string, level float64, from, to int) []float64 {
	key := fmt.Sprintf("%s/%.12g/%d/%d", spending, level, from, to)
	if v, ok := boundaryCache.Load(key); ok {
		return v.([]float64)
	}
	spent := func(t float64) float64 {
		switch spending {
		case SpendOBF: // each side's α/2 spent as O'Brien–Fleming's: 2 − 2Φ(z_{α/4}/√t) per side
			return math.Min(level, 4-4*normCDF(zOf(level/2)/math.Sqrt(t)))
		default: // SpendPocock
			return math.Min(level, level*math.Log(1+(math.E-1)*t))
		}
	}
	const grid = 400
	var out []float64
	// dens holds the density of W(t) on the continuation region of the
	// previous look, on grid points x (step h) from -b to b.
	var xs, dens []float64
	var prevT, prevSpent float64
	for n := from; n <= to; n++ {
		t := float64(n) / float64(to)
		want := spent(t) - prevSpent
		if n == from {
			c := zOf(math.Max(want, 1e-300))
			out = append(out, 2-2*normCDF(c))
			b := c * math.Sqrt(t)
			xs, dens = gridOf(-b, b, grid), make([]float64, grid+1)
			for i, x := range xs {
				dens[i] = math.Exp(-x*x/(2*t)) / math.Sqrt(2*math.Pi*t)
			}
			prevT, prevSpent = t, spent(t)
			continue
		}
		delta := t - prevT
		sd := math.Sqrt(delta)
		h := xs[1] - xs[0]
		cross := func(c float64) float64 {
			b := c * math.Sqrt(t)
			p := 0.0
			for i, u := range xs {
				w := simpson(i, len(xs)) * h / 3
				p += w * dens[i] * (normCDF((-b-u)/sd) + 1 - normCDF((b-u)/sd))
			}
			return p
		}
		lo, hi := 0.0, 40.0
		if want <= 0 {
			lo = hi
		} else {
			for it := 0; it < 80; it++ {
				mid := (lo + hi) / 2
				if cross(mid) > want {
					lo = mid
				} else {
					hi = mid
				}
			}
		}
		c := hi
		out = append(out, 2-2*normCDF(c))
		crossed := cross(c)
		// The density of W(t) restricted to |W(t)| < c√t.
		b := c * math.Sqrt(t)
		nx := gridOf(-b, b, grid)
		nd := make([]float64, len(nx))
		for j, w := range nx {
			s := 0.0
			for i, u := range xs {
				d := (w - u) / sd
				s += simpson(i, len(xs)) * h / 3 * dens[i] * math.Exp(-d*d/2) / (sd * math.Sqrt(2*math.Pi))
			}
			nd[j] = s
		}
		xs, dens = nx, nd
		prevT, prevSpent = t, prevSpent+crossed
	}
	boundaryCache.Store(key, out)
	return out
}

// gridOf is n+1 evenly spaced points from a to b.
func gridOf(a, b float64, n int) []float64 {
	out := make([]float64, n+1)
	for i := range out {
		out[i] = a + (b-a)*float64(i)/float64(n)
	}
	return out
}

// simpson is Simpson's weight of point i of n (n odd: an even number of intervals).
func simpson(i, n int) float64 {
	switch {
	case i == 0 || i == n-1:
		return 1
	case i%2 == 1:
		return 4
	}
	return 2
}

// Describe says the design in words, for the notes under a table.
func (d Sequential) Describe() string {
	spending := "O'Brien–Fleming"
	if d.Spending == SpendPocock {
		spending = "Pocock"
	}
	s := fmt.Sprintf("looks after every round from %d to %d, %s-type alpha spending, Holm's step-down; intervals are repeated confidence intervals", d.MinRounds, d.MaxRounds, spending)
	if d.MinEffect > 0 {
		s += fmt.Sprintf("; the same within %s when the interval lies within ±%s", Percent(d.MinEffect), Percent(d.MinEffect))
	}
	return s
}

// Percent prints a fraction as a percentage without needless decimals: 5%, 2.5%.
func Percent(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }
