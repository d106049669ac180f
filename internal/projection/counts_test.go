package projection

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// TestCountsAtYourScale (issue 50): project carries each key's counts to
// the user's scale through their models: every figure of every key, the
// WAL and images only with an insert rate (the checkpoints' spacing),
// each with its 95% interval from the rounds where several were measured
// and its distance from what the run measured; far beyond it (a key
// index thousands of times the cache) no number, the model and its
// inputs instead.
func TestCountsAtYourScale(t *testing.T) {
	full, err := verdict.Parse(resultstest.ReadGzip(t, "testdata/scale.json.gz"), "scale", all.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	byFigure := func(cs []CountProjection, key string) map[string]CountProjection {
		out := map[string]CountProjection{}
		for _, c := range cs {
			if c.Key == key {
				out[c.Figure] = c
			}
		}
		return out
	}
	near, err := Project(full, Scale{Rows: 64_000_000, CacheBytes: 512 << 20, InsertRate: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"uuidv4", "uuidv7", "bigint"} {
		got := byFigure(near.Counts, key)
		if len(got) != len(countFigures) {
			t.Fatalf("%s: %d figures projected, want %d: %+v", key, len(got), len(countFigures), got)
		}
		for _, f := range countFigures {
			c := got[f.name]
			if c.Unavailable != "" || c.Value <= 0 || len(c.From) < 2 { // a scale whose rounds ran longer than the checkpoints at 2000 rows/s carries no images
				t.Errorf("%s %s at 4× the largest scale: %+v", key, f.name, c)
				continue
			}
			if c.Lo <= 0 || c.Lo > c.Value || c.Hi < c.Value || c.Level != 0.95 {
				t.Errorf("%s %s: %.4g [%.4g–%.4g] at %.3g: no interval around its value", key, f.name, c.Value, c.Lo, c.Hi, c.Level)
			}
			if (f.factor != nil) != (c.Beyond > 0) {
				t.Errorf("%s %s: %.2g× from the measured, want a distance for a modelled figure and none for a level", key, f.name, c.Beyond)
			}
		}
	}
	v4 := byFigure(near.Counts, "uuidv4")
	if v4["wal_fpi_per_txn"].Value < 10*byFigure(near.Counts, "bigint")["wal_fpi_per_txn"].Value {
		t.Errorf("uuidv4's images per insert %.3g, bigint's %.3g: a random key images a leaf an insert at this scale",
			v4["wal_fpi_per_txn"].Value, byFigure(near.Counts, "bigint")["wal_fpi_per_txn"].Value)
	}
	noRate, err := Project(full, Scale{Rows: 64_000_000, CacheBytes: 512 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if c := byFigure(noRate.Counts, "uuidv4")["wal_bytes_per_txn"]; !strings.Contains(c.Unavailable, "--insert-rate") {
		t.Errorf("WAL per transaction without an insert rate: %+v", c)
	}
	far, err := Project(full, Scale{Rows: 64_000_000_000, CacheBytes: 16 << 20, InsertRate: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if c := byFigure(far.Counts, "uuidv4")["server_reads_per_txn"]; c.Value != 0 || !strings.Contains(c.Unavailable, "no number is carried") || !strings.Contains(c.Unavailable, "model:") {
		t.Errorf("blocks read at a key index thousands of times the cache: %+v", c)
	}
}
