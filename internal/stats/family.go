package stats

import "math"

// Families of comparisons a Sequential design decides (its Family): what
// a preset's question asks, which sets the pairs tested and when the
// rounds may stop.
//
//   - FamilyPairs: every pair of keys, tested under Holm's step-down; the
//     rounds stop once every pair is decided (--pairs all).
//   - FamilyBest: "which key is least, and what does each cost against
//     it". The least key is chosen by the data, so a claim that a key costs
//     more than it is a claim about the extreme pair, whose error rate is
//     that of every pair (Tukey's range): the pairs are tested as
//     FamilyPairs tests them — an A/A run names nothing in more than Alpha
//     of runs — but the rounds stop once every key is decided against the
//     least (shown costlier, or the same within MinEffect, or undecidable
//     by the last look), and each key shown costlier against every key not
//     shown so (the contenders for least): pairs of two contenders, or of
//     two costlier keys, do not hold the run. Stopping sooner never raises
//     the error rate of a group-sequential boundary (a look not taken
//     spends nothing). Hsu's
//     multiple comparisons with the best would test less, but its claims
//     are "not better than the best" (a tie satisfies them): keybench's
//     "costlier" is strict.
//   - FamilyReference: "what does each key cost against the reference"
//     (bigint): the k−1 pairs of the reference, chosen before the run,
//     under Holm's step-down; the other pairs are not tested.
const (
	FamilyPairs     = ""
	FamilyBest      = "best"
	FamilyReference = "reference"
)

// FamilyWords says what a family tests, for the run's first screen.
func FamilyWords(family, reference string) string {
	switch family {
	case FamilyBest:
		return "each key against the least (every pair tested, the rounds stopping once each key is decided against the least, and each costlier key against the others)"
	case FamilyReference:
		return "each key against " + reference
	}
	return "every pair of keys"
}

// Against is the design for a task whose keys are keys: a reference
// family's reference found among them (FamilyPairs where it is not: its
// question cannot be asked of these keys).
func (d Sequential) Against(keys []string) Sequential {
	if d.Family != FamilyReference {
		return d
	}
	d.ref = 0
	for i, k := range keys {
		if k == d.Reference {
			d.ref = i + 1
		}
	}
	if d.ref == 0 {
		d.Family = FamilyPairs
	}
	return d
}

// tested says whether the family tests the pair (a, b).
func (d Sequential) tested(a, b int) bool {
	return d.Family != FamilyReference || d.ref == 0 || a == d.ref-1 || b == d.ref-1
}

// answered says whether the rounds may stop: every tested pair decided,
// or, for FamilyBest, every pair of the least key (the least geometric
// mean over the rounds looked at) and every pair of a key shown costlier
// than it with a key not shown so.
func (d Sequential) answered(pairs []PairDecision, rates [][]float64, look int) bool {
	least := -1
	if d.Family == FamilyBest {
		best := math.Inf(1)
		for i, r := range rates {
			s := 0.0
			for _, v := range r[:look] {
				s += math.Log(v)
			}
			if s < best {
				best, least = s, i
			}
		}
	}
	// A key shown costlier than the least is also asked against every key
	// not shown so (each a contender for least): "what does a random key
	// cost" is a claim against uuidv7 as much as against bigint.
	costlier := map[int]bool{}
	for _, p := range pairs {
		if least >= 0 && (p.A == least || p.B == least) && p.Comparison.State == PairDifferent {
			costlier[p.A+p.B-least] = true
		}
	}
	for _, p := range pairs {
		if p.Comparison.State == PairOpen && (least < 0 || p.A == least || p.B == least || costlier[p.A] != costlier[p.B]) {
			return false
		}
	}
	return true
}
