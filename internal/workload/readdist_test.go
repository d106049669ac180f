package workload

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestReadDistributions: the share of reads that land in the newest rows
// is what each distribution says: recent puts RecentHot of its reads in
// the newest RecentRows plus its uniform share of the rest; uniform puts
// RecentRows there; zipf favours the newest rows most of all.
func TestReadDistributions(t *testing.T) {
	const n, draws = 1_000_000, 200_000
	for _, tc := range []struct {
		kind   string
		recent float64
		want   float64 // the share of reads among the newest recent rows
	}{
		{ReadUniform, 0.01, 0.01},
		{ReadRecent, 0.01, RecentHot + (1-RecentHot)*0.01},
		{ReadRecent, 0.05, RecentHot + (1-RecentHot)*0.05},
		{ReadRecent, 0.2, RecentHot + (1-RecentHot)*0.2},
	} {
		d := ReadDist{Kind: tc.kind, RecentRows: tc.recent, ZipfS: DefaultZipfS}
		p := d.NewPicker(n, rand.New(rand.NewPCG(1, 2)))
		hot := int64(n - n*tc.recent)
		in := 0
		for i := 0; i < draws; i++ {
			pos := p.Position()
			if pos < 0 || pos >= n {
				t.Fatalf("%s: position %d outside the table", tc.kind, pos)
			}
			if pos >= hot {
				in++
			}
		}
		got := float64(in) / draws
		// Three standard errors of a binomial share.
		if se := math.Sqrt(tc.want * (1 - tc.want) / draws); math.Abs(got-tc.want) > 3*se+1e-9 {
			t.Errorf("%s %.2f: %.4f of reads among the newest rows, want %.4f ± %.4f", tc.kind, tc.recent, got, tc.want, 3*se)
		}
	}
	z := ReadDist{Kind: ReadZipf, ZipfS: DefaultZipfS}
	p := z.NewPicker(n, rand.New(rand.NewPCG(3, 4)))
	newest := 0
	for i := 0; i < draws; i++ {
		if p.Position() == n-1 {
			newest++
		}
	}
	// P(k = 0) = 1 / Σ_{k<n} (1+k)^-s: about 0.124 over a million rows.
	var norm float64
	for k := 0; k < n; k++ {
		norm += math.Pow(1+float64(k), -DefaultZipfS)
	}
	want := 1 / norm
	if share, se := float64(newest)/draws, math.Sqrt(want*(1-want)/draws); math.Abs(share-want) > 3*se {
		t.Errorf("zipf: the newest row got %.4f of reads, want %.4f ± %.4f", share, want, 3*se)
	}
	for _, bad := range []map[string]string{{"read-dist": "gaussian"}, {"read-dist": "recent", "recent-rows": "1.5"},
		{"read-dist": "recent", "recent-rows": "-0.1"}, {"read-dist": "recent", "recent-rows": "NaN"}, {"read-dist": "recent", "recent-rows": "0"}} {
		if _, err := Build("lookup", Setup{Rows: 10}, bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestKeyPoolPositions: a pool answers the newest positions with the
// newest rows exactly and older ones from its sample in insertion order.
func TestKeyPoolPositions(t *testing.T) {
	pool := &KeyPool{Rows: 1000, Newest: [][]byte{{9}, {8}, {7}}, Sample: [][]byte{{0}, {1}, {2}, {3}}}
	for _, tc := range []struct {
		pos  int64
		want byte
	}{{999, 9}, {998, 8}, {997, 7}, {0, 0}, {300, 1}, {996, 3}} {
		if got := pool.Key(tc.pos); got[0] != tc.want {
			t.Errorf("position %d: key %d, want %d", tc.pos, got[0], tc.want)
		}
	}
}
