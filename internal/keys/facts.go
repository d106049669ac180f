package keys

import (
	"fmt"
	"math"
	"time"
)

// Facts are what a key gives away and what keeps its values apart, as
// data: whether its values sort by creation time, what an outsider learns
// from one value, and its random bits — from which the probability of a
// collision at a scale is computed (Collision). keybench keys and the
// report show them beside what each key costs.
type Facts struct {
	// Sortable says whether values sort by creation time: SortableYes,
	// SortablePerNode (within one generator), SortableNo, or how.
	Sortable string
	// Reveals is what one value tells an outsider ("nothing", "creation
	// time to the ms", "a count").
	Reveals string
	// RevealsTime says that a value gives away when it was made: the
	// report names what a time-ordered winner reveals.
	RevealsTime bool
	// RandomBits are the random bits of a value that tell apart values
	// made in the same PerUnit of time (0: every value, whenever made).
	RandomBits int
	PerUnit    time.Duration
	// Unique, when set, says how values are unique by construction on one
	// generator (a sequence, a counter per process): no collision there.
	Unique string
}

// What Sortable says.
const (
	SortableYes     = "yes"
	SortablePerNode = "per node"
	SortableNo      = "no"
)

// FactsOf are the spec's facts: its strategy's, with what its parameters
// change (a uuidv7's method, a random bigint).
func (s *Spec) FactsOf() Facts {
	if s.Strategy.FactsFor != nil {
		return s.Strategy.FactsFor(s)
	}
	return s.Strategy.Facts
}

// The scales a collision is computed at: a billion rows made at a thousand
// a second (about 11.6 days), and a year of a million a second.
const (
	BillionRows     = 1e9
	BillionRowsRate = 1e3
	YearRate        = 1e6
)

// Year is a year of seconds.
const Year = 365 * 24 * time.Hour

// Collision is the probability that two of n values made at rate a second
// are the same: the birthday bound over the values that share a unit of
// time (each unit's k values make k²/2 pairs, each equal with probability
// 2^-bits), 1 − exp(−pairs / 2^bits). Values unique by construction on one
// generator collide only across generators: ok is false then (Unique says
// why), as it is for a key without random bits.
func (f Facts) Collision(n, rate float64) (p float64, ok bool) {
	if f.Unique != "" || f.RandomBits == 0 {
		return 0, false
	}
	pairs := n * (n - 1) / 2 // every value against every other
	if f.PerUnit > 0 {
		k := rate * f.PerUnit.Seconds() // values per unit of time
		pairs = n * k / 2               // n/k units of k²/2 pairs each
	}
	return -math.Expm1(-pairs / math.Pow(2, float64(f.RandomBits))), true
}

// CollisionText is Collision as the tables write it.
func (f Facts) CollisionText(n, rate float64) string {
	p, ok := f.Collision(n, rate)
	switch {
	case !ok && f.Unique != "":
		return "0 on one generator"
	case !ok:
		return "-"
	case p < 1e-30:
		return "< 1e-30"
	case p > 0.999:
		return "≈ 1"
	}
	return fmt.Sprintf("%.1e", p)
}

// URLChars is the length of the key's text form, as a URL carries it: its
// own text form (a ULID's 26, a TypeID's prefix and 26), a uuid's 36, an
// integer's most digits.
func (s *Spec) URLChars() int {
	switch {
	case s.Strategy.Text != nil:
		return s.TextLength()
	case s.Strategy.Storages[0] == AsBigint:
		return 19
	case s.Strategy.Storages[0] == AsInt:
		return 10
	}
	return 36
}

// DefaultStorage is the spec with the strategy's own storage (the
// catalog's row: its stored bytes in its usual column).
func (st *Strategy) DefaultStorage() *Spec {
	s, _ := Parse(st.Name)
	return s
}
