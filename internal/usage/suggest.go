package usage

import "fmt"

// Suggest is ` (did you mean "x"?)` for the valid name nearest to name
// (edit distance at most a third of its length, at least 1, as a typo or
// a habit like "uuid7" for "uuidv7"), or "" when none is near.
func Suggest(name string, valid []string) string {
	best, bestD := "", len(name)/3+1
	for _, v := range valid {
		if d := distance(name, v); d < bestD || d == bestD && best == "" && d <= len(name)/3+1 {
			best, bestD = v, d
		}
	}
	if best == "" || best == name {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
