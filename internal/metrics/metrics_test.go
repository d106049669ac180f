package metrics

import (
	"math"
	"reflect"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

func TestRole(t *testing.T) {
	env := &Env{Relations: map[string]string{"kb_cell": "table", "kb_cell_pkey": "key_index"}}
	for rel, want := range map[string]string{"kb_cell": "table", "kb_cell_pkey": "key_index", "pg_toast_16384": "toast",
		"pg_toast_16384_index": "toast", "kb_cellar": "other"} {
		if got := env.role(rel); got != want {
			t.Errorf("role(%s) = %s, want %s", rel, got, want)
		}
	}
}

func TestTopWaits(t *testing.T) {
	got := topWaits(map[string]int64{"CPU": 3, "IO:DataFileRead": 10, "LWLock:WALWrite": 3})
	if want := []string{"IO:DataFileRead", "CPU", "LWLock:WALWrite"}; !reflect.DeepEqual(got, want) {
		t.Errorf("topWaits = %v, want %v", got, want)
	}
}

// The rounds of a cell merge into its metrics: counts add up, figures per
// row are over every row of the cell, samples follow each other, and a
// figure unavailable in one round is unavailable for the cell.
func TestMergeRounds(t *testing.T) {
	round := func(wal int64, share float64) results.Metrics {
		return results.Metrics{WALBytes: results.Of(wal), WALFPI: results.Of[int64](2), WALRecords: results.Of[int64](10),
			WALFPIByRelation: results.Of(map[string]int64{"key_index": 1}),
			BtreeSplits:      results.Of(results.BtreeSplits{Left: 1, Right: 4, NewRoot: 1}),
			Blocks:           results.Of(results.Blocks{HeapHit: 100, IdxHit: 50, IdxRead: 25}),
			Sampling:         results.Of(results.Sampling{Queries: 2, BusyS: 0.1, WindowS: 1}),
			BufferCache:      results.Of(results.BufferCache{Samples: []results.CacheSample{{T: 0.5, Shares: map[string]float64{"key_index": share}}}}),
			CPU:              results.Of(results.CPU{ElapsedS: 1, ClientS: 0.5, ServerS: results.Unavailable[float64]("elsewhere")})}
	}
	a, b := round(1000, 0.2), round(3000, 0.4)
	b.IO = results.Unavailable[results.IO]("no permission")
	m := MergeRounds([]results.Metrics{a, b}, 100, 50)
	if v, _ := m.WALBytes.Get(); v != 4000 {
		t.Errorf("WAL bytes %d", v)
	}
	if v, _ := m.WALBytesPerRow.Get(); v != 40 {
		t.Errorf("WAL bytes per row %g", v)
	}
	if v, _ := m.KeyIndexFPIPerRow.Get(); v != 0.02 {
		t.Errorf("key index FPI per row %g", v)
	}
	if v, _ := m.BtreeSplitsPerRow.Get(); v != 0.1 {
		t.Errorf("splits per row %g, want 10 splits / 100 rows", v)
	}
	if v, _ := m.BlocksPerTxn.Get(); v.Hit != 6 || v.Read != 1 {
		t.Errorf("blocks per transaction %+v, want 300 hits and 50 reads over 50", v)
	}
	bc, _ := m.BufferCache.Get()
	if len(bc.Samples) != 2 || bc.Samples[1].T != 1.5 || math.Abs(bc.MeanShare["key_index"]-0.3) > 1e-12 {
		t.Errorf("buffer cache %+v", bc)
	}
	if cpu, _ := m.CPU.Get(); cpu.ClientS != 1 || cpu.ServerS.Reason() != "elsewhere" {
		t.Errorf("cpu %+v", cpu)
	}
	c := round(1, 0)
	c.IO = results.Unavailable[results.IO]("no permission")
	if m := MergeRounds([]results.Metrics{c, c}, 1, 1); m.IO.Reason() != "no permission" {
		t.Errorf("io %+v", m.IO)
	}
	if s, _ := m.Sampling.Get(); s.Queries != 4 || math.Abs(s.BusyShare-0.1) > 1e-12 {
		t.Errorf("sampling %+v", s)
	}
}
