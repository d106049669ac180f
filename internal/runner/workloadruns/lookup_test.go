package workloadruns_test

import (
	"context"
	"testing"

	"github.com/keybench/keybench/internal/runner/runnertest"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/runner"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/workload/bulk"
	"github.com/keybench/keybench/internal/workload/lookup"
	"github.com/keybench/keybench/internal/workload/update"
)

// TestLookupReadsByKey runs every query kind over a filled table: every
// cell records its query and read distribution, reads find their rows
// (a point read that misses fails its cell), the count is an index-only
// scan, "latest" says whether it read the newest rows, and a keyset page
// of a random key visits a heap block per row where a time-ordered key's
// page shares a few.
func TestLookupReadsByKey(t *testing.T) {
	cfg := runnertest.Config(t, "lookup", "bigint,uuidv4", func(p *scenario.Params) {
		p.Rows, p.Options = []int64{20_000}, map[string]string{"query": "point,range,latest,count", "read-dist": "uniform,recent"}
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// point, range and count in two distributions, latest in none: 7 per key.
	if len(res.Cells) != 14 {
		t.Fatalf("%d cells, want 14", len(res.Cells))
	}
	heap := map[string]float64{}
	for _, c := range res.Cells {
		if c.Status != results.StatusOK || c.Txns == 0 {
			t.Fatalf("%s %s: %s %s", c.Key, c.Task(), c.Status, c.Error)
		}
		query, dist := c.Options["query"], c.Options["read-dist"]
		wantDist := query != lookup.QueryLatest
		if query == "" || (dist != "") != wantDist || c.Variant[0] != query {
			t.Errorf("%s: options %v, variant %v", c.Task(), c.Options, c.Variant)
		}
		s, ok := c.Metrics.Summary.(*lookup.LookupSummary)
		if !ok {
			t.Fatalf("%s: summary %T", c.Task(), c.Metrics.Summary)
		}
		b, ok := c.Metrics.BlocksPerTxn.Get()
		if !ok {
			t.Fatalf("%s: blocks per transaction %s", c.Task(), c.Metrics.BlocksPerTxn.Reason())
		}
		plan, ok := s.Plan.Get()
		if !ok {
			t.Fatalf("%s: plan %s", c.Task(), s.Plan.Reason())
		}
		switch query {
		case lookup.QueryCount:
			if plan.Scan != "Index Only Scan" || plan.HeapFetches == nil || *plan.HeapFetches != 0 {
				t.Errorf("%s %s: count ran as %+v, want an index-only scan without heap fetches after VACUUM", c.Key, c.Task(), plan)
			}
		case lookup.QueryLatest:
			share, ok := s.LatestNewest.Get()
			if want := map[string]float64{"bigint": 1, "uuidv4": 0}[c.Key]; !ok || c.Key == "bigint" && share != want || c.Key == "uuidv4" && share > 0.5 {
				t.Errorf("%s latest: %v of its rows among the newest", c.Key, s.LatestNewest)
			}
		case lookup.QueryRange:
			heap[c.Key+" "+dist] = b.Heap
		}
	}
	for _, d := range []string{"uniform", "recent"} {
		if v4, big := heap["uuidv4 "+d], heap["bigint "+d]; v4 < 10*big {
			t.Errorf("range %s: uuidv4 touched %.1f heap blocks per page, bigint %.1f: want at least 10x", d, v4, big)
		}
	}
}

// TestUpdateAndMaintenance: updates find their rows; an indexed column
// makes none of them HOT; VACUUM, ANALYZE, REINDEX and COPY TO are timed
// after the update window and after a load (maintenance_s), while the key
// index's bloat and density are read before that REINDEX.
func TestUpdateAndMaintenance(t *testing.T) {
	for _, tc := range []struct {
		workload string
		set      func(p *scenario.Params)
	}{
		{"update", func(p *scenario.Params) {
			p.Rows, p.Options = []int64{20_000}, map[string]string{"update-indexed": "true"}
		}},
		{"bulk", func(p *scenario.Params) {
			p.Rows, p.Clients, p.Options = []int64{20_000}, []int{1}, map[string]string{"chunk": "5000"}
		}},
	} {
		cfg := runnertest.Config(t, tc.workload, "bigint,uuidv4", func(p *scenario.Params) {
			p.Workload = tc.workload
			tc.set(p)
		})
		res, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Cells {
			if c.Status != results.StatusOK {
				t.Fatalf("%s %s: %s %s", c.Key, c.Task(), c.Status, c.Error)
			}
			var m results.M[results.Maintenance]
			switch s := c.Metrics.Summary.(type) {
			case *update.UpdateSummary:
				m = s.Maintenance
				if tu, ok := c.Metrics.Tuples.Get(); !ok || tu.Updated < c.Txns || tu.HOTUpdated != 0 {
					t.Errorf("%s: tuples %+v after %d updates of an indexed column, want every one counted and none HOT", c.Key, c.Metrics.Tuples, c.Txns)
				}
			case *bulk.LoadSummary:
				m = s.Maintenance
			default:
				t.Fatalf("%s: summary %T", c.Task(), s)
			}
			mt, ok := m.Get()
			if !ok {
				t.Fatalf("%s %s: maintenance %s", c.Key, c.Task(), m.Reason())
			}
			for name, v := range map[string]results.M[float64]{"vacuum": mt.Vacuum, "analyze": mt.Analyze, "reindex": mt.Reindex, "copy to": mt.CopyTo} {
				if s, ok := v.Get(); !ok || s <= 0 {
					t.Errorf("%s %s: %s %v", c.Key, c.Task(), name, v)
				}
			}
		}
	}
}

// TestSwitchingKeys: a table filled with uuidv4 keys takes uuidv7 inserts
// (prefill_key recorded); they land at one point inside the uuidv4 key
// space and split leaves there, so the index grows by more per inserted
// row than in an all-uuidv7 table, whose new keys fill its right edge.
func TestSwitchingKeys(t *testing.T) {
	cfg := runnertest.Config(t, "migrate", "uuidv7:prefill=uuidv4,uuidv7", func(p *scenario.Params) {
		p.Rows, p.Duration, p.Clients = []int64{50_000}, 2e9, []int{4}
	})
	res, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	growth := map[string]float64{}
	for _, c := range res.Cells {
		if c.Status != results.StatusOK {
			t.Fatalf("%s: %s %s", c.Key, c.Status, c.Error)
		}
		if want := map[string]string{"uuidv7:prefill=uuidv4": "uuidv4", "uuidv7": ""}[c.Key]; c.PrefillKey != want {
			t.Errorf("%s: prefill_key %q, want %q", c.Key, c.PrefillKey, want)
		}
		g, ok := c.Metrics.KeyIndexGrowthPerRow.Get()
		if !ok || g <= 0 {
			t.Fatalf("%s: key index growth per row %v", c.Key, c.Metrics.KeyIndexGrowthPerRow)
		}
		growth[c.Key] = g
	}
	if growth["uuidv7:prefill=uuidv4"] <= growth["uuidv7"] {
		t.Errorf("uuidv7 into a uuidv4 history grew its index by %.1f B per row, into an all-uuidv7 table %.1f B: want more", growth["uuidv7:prefill=uuidv4"], growth["uuidv7"])
	}
}
