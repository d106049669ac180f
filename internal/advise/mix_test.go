package advise

import (
	"math/rand/v2"
	"testing"
)

// TestVersionMixCoverage simulates tables half uuidv4, half uuidv7, laid
// out as a switch part-way leaves them (runs of pages of one version, a
// page or two of both), samples pages as TABLESAMPLE SYSTEM does, and
// checks that the printed 95% interval holds the true share 93–97% of the
// time: the pages, not the rows, are the independent draws.
func TestVersionMixCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 7))
	for _, layout := range []struct {
		name string
		run  int // pages of one version in a row
	}{{"switched once", 5000}, {"runs of 20 pages", 20}, {"interleaved rows", 0}} {
		const total, perPage, trials = 10000, 120, 2000
		table := make([]pageCount, total)
		v4 := 0
		for i := range table {
			p := pageCount{rows: perPage, byVersion: map[string]int{}}
			switch {
			case layout.run == 0:
				for range perPage {
					p.byVersion[[]string{"v4", "v7"}[rng.IntN(2)]]++
				}
			case (i/layout.run)%2 == 0:
				p.byVersion["v4"] = perPage
			default:
				p.byVersion["v7"] = perPage
			}
			v4 += p.byVersion["v4"]
			table[i] = p
		}
		truth := float64(v4) / float64(total*perPage)
		held := 0
		for range trials {
			var sample []pageCount
			for _, p := range table {
				if rng.Float64() < 0.04 {
					sample = append(sample, p)
				}
			}
			for _, s := range clusterShares(sample, total) {
				if s.Version == "v4" && s.Lo <= truth && truth <= s.Hi {
					held++
				}
			}
		}
		if cover := float64(held) / trials; cover < 0.93 || cover > 0.97 {
			t.Errorf("%s: the 95%% interval held the true share %.3f in %.1f%% of %d samples", layout.name, truth, 100*cover, trials)
		}
	}
}

// TestVersionMixWholeTable: every page read is the table itself, exact.
func TestVersionMixWholeTable(t *testing.T) {
	pages := []pageCount{{rows: 3, byVersion: map[string]int{"v4": 3}}, {rows: 2, byVersion: map[string]int{"v7": 2}}}
	s := clusterShares(pages, 2)
	if len(s) != 2 || s[0].Share != 0.6 || s[0].Lo != 0.6 || s[0].Hi != 0.6 {
		t.Errorf("the whole table read: %+v", s)
	}
	if one := clusterShares(pages[:1], 100); one[0].Lo != 0 || one[0].Hi != 1 {
		t.Errorf("one page says nothing of the spread: %+v", one)
	}
}
