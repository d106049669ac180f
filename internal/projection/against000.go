package projection

import (
	"cmp"
	"fmt"
	"math"

	"github.com/keybench/keybench/internal/results"
)

// An outside check of the cost model: 000's published table, predicted
// from a run's measured parts priced on 000's machine. 000 ran PostgreSQL
// 10.4 on CentOS 7, 8 CPUs, 32 GB and one HDD (its iostat: %util 97-99%,
// await 3-28 ms), pgbench -c 8 -j 8 -T 60, one single-row INSERT per
// transaction into a table of the key alone: char(32) uuids (random, and
// time-ordered by uuid_time_nextval) and a bigint sequence.

// Published000 is one key's row of 000's table.
type Published000 struct {
	// Name is 000's, RunKey the run's key standing for it, TupleBytes its
	// btree tuple with line pointer (char(32): MAXALIGN(8+33)+4; bigint: 16+4).
	Name       string
	RunKey     string
	TupleBytes float64
	Ordered    bool
	TPS        []float64 // at Rows000
}

// Rows000 are the table sizes 000 measured at. Its 50M and 100M tables were
// loaded without a key and had it added after (CREATE INDEX: leaves 90%
// full); the smaller ones grew by inserts with the key in place.
var Rows000 = []int64{0, 1_000_000, 10_000_000, 50_000_000, 100_000_000}

// Table000 is 000's table (the average of its three runs).
var Table000 = []Published000{
	{Name: "disorder uuid (uuid_generate_v4, char(32))", RunKey: "uuidv4", TupleBytes: 52, TPS: []float64{906, 365, 260, 163, 131}},
	{Name: "orderly uuid (uuid_time_nextval, char(32))", RunKey: "seq-uuid-time", TupleBytes: 52, Ordered: true, TPS: []float64{933, 927, 870, 883, 834}},
	{Name: "sequence (bigint)", RunKey: "bigint", TupleBytes: 20, Ordered: true, TPS: []float64{1289, 1169, 1278, 1220, 1139}},
}

// Machine000 is 000's machine as the model prices it. Measured by 000: 8
// cores, 32 GB, the flush (its await at the empty bigint table, whose disk
// did little but flush WAL: 3.4 ms). Assumed, and stated: shared_buffers
// PostgreSQL 10's default 128 MB (000 does not give it), 24 GB of the OS
// page cache for the key index (32 GB less the server's and the OS's own),
// a random 8 kB access of 8 ms (a 7,200 rpm disk), 100 MB/s sequential
// writes, 0.02 ms for a read the OS cache serves.
var Machine000 = Machine{Cores: 8, Disk: Disk{ReadMS: 8, WriteMBps: 100, FlushMS: 3.4},
	SharedBuffers: 128 << 20, OSCache: 24 << 30, OSReadMS: 0.02}

// Clients000 are 000's pgbench clients.
const Clients000 = 8

// Row000 is one cell of 000's table beside the model's prediction.
type Row000 struct {
	Key        string     `json:"key"`
	RunKey     string     `json:"run_key"`
	Rows       int64      `json:"rows"`
	Published  float64    `json:"published_tps"`
	Ratio      float64    `json:"key_index_cache_ratio"`
	Prediction Prediction `json:"prediction"`
	// Error is the prediction over 000's figure, less 1.
	Error float64 `json:"error"`
	// Extrapolated says the ratio lies beyond the run's measured cells.
	Extrapolated bool `json:"extrapolated,omitempty"`
}

// Against000 predicts 000's table from the run's parts.
func Against000(r *results.Results) ([]Row000, error) {
	parts, missing, err := PartsCurves(r, 0)
	if err != nil {
		return nil, err
	}
	var out []Row000
	for _, k := range Table000 {
		pc := parts[k.RunKey]
		if len(pc) == 0 {
			why := cmp.Or(missing[k.RunKey], "not measured")
			return nil, fmt.Errorf("the run has no parts for %s (000's %s): %s", k.RunKey, k.Name, why)
		}
		grown := randomLeafDensity
		if c := grownCell(r, k.RunKey); c != nil {
			if d, ok := c.Metrics.LeafDensity.Get(); ok && d > 0 {
				grown = d // the run's own: its index grown by inserts alone
			}
		}
		for i, rows := range Rows000 {
			density := grown
			if k.Ordered || rows >= 50_000_000 {
				density = 0.90
			}
			// An empty table's window grows it by the rows 60 s of inserts add.
			n := math.Max(float64(rows), k.TPS[i]*60)
			index := int64(n * k.TupleBytes / density * 8192 / 8152)
			ratio := float64(index) / float64(Machine000.SharedBuffers)
			p := Predict(pc.At(ratio), index, Clients000, Machine000)
			out = append(out, Row000{Key: k.Name, RunKey: k.RunKey, Rows: rows, Published: k.TPS[i], Ratio: ratio, Prediction: p,
				Error: p.TPS/k.TPS[i] - 1, Extrapolated: ratio < pc[0].Ratio || ratio > pc[len(pc)-1].Ratio})
		}
	}
	return out, nil
}

// randomLeafDensity is a random key's btree grown by inserts, about 70%,
// where the run did not measure one grown by inserts alone (grownCell).
const randomLeafDensity = 0.70
