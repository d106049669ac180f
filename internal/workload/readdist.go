package workload

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5"
)

// Read distributions over insertion order: which existing row a read
// reads, by its place in the order the rows were inserted (0 the oldest).
const (
	ReadUniform = "uniform" // every row alike
	ReadRecent  = "recent"  // RecentHot of the reads among the newest RecentRows of the rows
	ReadZipf    = "zipf"    // rank k from the newest with probability ∝ (1+k)^-ZipfS
)

// ReadDists are the read distributions, the default first.
var ReadDists = []string{ReadUniform, ReadRecent, ReadZipf}

// RecentHot is the share of a recent read distribution's reads that go to
// its newest rows; the rest are uniform over the whole table (so a share
// RecentHot + (1-RecentHot)·RecentRows of reads lands in the newest rows).
const RecentHot = 0.9

// DefaultRecentRows is the newest share of the rows a recent distribution
// reads most (--recent-rows): 1%, a day of a table that grew for months.
const DefaultRecentRows = 0.01

// DefaultZipfS is the Zipf exponent of the zipf distribution.
const DefaultZipfS = 1.1

// ReadDist draws the insertion positions of the rows a client reads.
type ReadDist struct {
	Kind string
	// RecentRows is the newest share of rows a recent distribution favours.
	RecentRows float64
	// ZipfS is the Zipf exponent (above 1).
	ZipfS float64
}

// ReadDistOptions are the options of a workload that draws existing rows:
// the distribution (a variant: each its own task) and, for recent, the
// newest share of the rows it favours.
func ReadDistOptions(d *ReadDist) []Option {
	d.ZipfS = DefaultZipfS
	return []Option{
		Choice("read-dist", &d.Kind, ReadUniform, ReadDists,
			"which existing rows are drawn, over insertion order: uniform, recent (90% among the newest recent-rows) or zipf").Variants(),
		Float("recent-rows", &d.RecentRows, DefaultRecentRows, 0, 1, true,
			"the newest share of the rows a recent distribution favours").Only(func() bool { return d.Kind == ReadRecent }),
	}
}

// DrawnRows checks the setup of a workload that draws existing rows by
// key (what, e.g. "changes rows"): a filled table to draw from.
func DrawnRows(name, what string, s Setup) error {
	if s.Rows < 1 {
		return fmt.Errorf("%s %s of a filled table: --rows must be at least 1, not %d", name, what, s.Rows)
	}
	return nil
}

// Picker draws positions for one client: it is not safe for concurrent use.
type Picker struct {
	d    ReadDist
	n    int64
	rng  *rand.Rand
	zipf *rand.Zipf
}

// NewPicker draws positions in a table of n rows with rng.
func (d ReadDist) NewPicker(n int64, rng *rand.Rand) *Picker {
	p := &Picker{d: d, n: max(n, 1), rng: rng}
	if d.Kind == ReadZipf && p.n > 1 {
		p.zipf = rand.NewZipf(rng, d.ZipfS, 1, uint64(p.n-1))
	}
	return p
}

// Position is the insertion position (0 the oldest, n-1 the newest) of the next row to read.
func (p *Picker) Position() int64 {
	switch p.d.Kind {
	case ReadRecent:
		if p.rng.Float64() < RecentHot {
			hot := max(1, int64(float64(p.n)*p.d.RecentRows))
			return p.n - 1 - p.rng.Int64N(hot)
		}
	case ReadZipf:
		if p.zipf != nil {
			return p.n - 1 - int64(p.zipf.Uint64())
		}
	}
	return p.rng.Int64N(p.n)
}

// KeyPool holds existing keys by insertion position, in wire form, for
// reads by key: the newest rows exactly (newest first), and a uniform
// sample of the whole table in insertion order. A read of position i takes
// the newest row i from the end when the pool has it, else the sampled row
// nearest to i: reads of recent rows are of distinct rows, reads of the
// whole table of a sample large enough that the cache cannot hold what it
// touches more than the table's own rows would.
//
// Insertion order is read from the heap: a table filled by one stream of
// inserts, as keybench's prefill is, holds its rows in insertion order,
// so ctid order is insertion order.
type KeyPool struct {
	// Rows is the table's size the positions run over.
	Rows int64
	// Newest are the newest rows' keys, newest first.
	Newest [][]byte
	// Sample is a uniform sample of the keys in insertion order.
	Sample [][]byte
}

// Key is the key at insertion position i.
func (k *KeyPool) Key(i int64) []byte {
	if back := k.Rows - 1 - i; back >= 0 && back < int64(len(k.Newest)) {
		return k.Newest[back]
	}
	if len(k.Sample) == 0 {
		return k.Newest[len(k.Newest)-1]
	}
	j := int(i * int64(len(k.Sample)) / max(k.Rows, 1))
	return k.Sample[min(max(j, 0), len(k.Sample)-1)]
}

// poolNewest and poolSample bound a pool: keys held in memory per cell.
const (
	poolNewest = 100_000
	poolSample = 100_000
)

// LoadKeyPool reads a pool of the table's keys (its s.Rows rows, sampled
// with s.Seed) into into.
func LoadKeyPool(ctx context.Context, conn *pgx.Conn, t *Table, s Setup, into **KeyPool) error {
	rows, format := s.Rows, t.Key.WireFormat()
	if rows <= 0 {
		return fmt.Errorf("reads need a filled table (--rows > 0)")
	}
	pool := &KeyPool{Rows: rows}
	newest := min(rows, poolNewest)
	// The newest rows are at the end of the heap: a TID range scan from the
	// block where they start, a little before it to be safe.
	var blocks int64
	if err := conn.QueryRow(ctx, "SELECT pg_relation_size($1::regclass) / current_setting('block_size')::bigint", t.Qualified()).Scan(&blocks); err != nil {
		return err
	}
	from := max(0, blocks-(newest*blocks/rows)*5/4-2)
	for {
		var err error
		pool.Newest, err = KeysOf(ctx, conn, format, fmt.Sprintf("SELECT id FROM %s WHERE ctid >= '(%d,0)'::tid ORDER BY ctid DESC LIMIT %d", t.Qualified(), from, newest))
		if err != nil {
			return err
		}
		if int64(len(pool.Newest)) == newest || from == 0 {
			break
		}
		from = 0
	}
	if rows > newest {
		pct := min(100, float64(poolSample)*100/float64(rows))
		var err error
		pool.Sample, err = KeysOf(ctx, conn, format, fmt.Sprintf("SELECT id FROM %s TABLESAMPLE BERNOULLI (%g) REPEATABLE (%d) ORDER BY ctid", t.Qualified(), pct, s.Seed))
		if err != nil {
			return err
		}
	}
	if len(pool.Newest) == 0 {
		return fmt.Errorf("%s holds no row to read", t.Qualified())
	}
	*into = pool
	return nil
}

func KeysOf(ctx context.Context, conn *pgx.Conn, format int16, sql string) ([][]byte, error) {
	rows, _ := conn.Query(ctx, sql, pgx.QueryResultFormats{format})
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) ([]byte, error) { return append([]byte(nil), row.RawValues()[0]...), nil })
}

// Describe says how the distribution draws its reads over rows rows.
func (d ReadDist) Describe(rows int64) string {
	switch d.Kind {
	case ReadRecent:
		return fmt.Sprintf("recent: %.0f%% of reads uniform among the newest %.3g%% of rows (%d), the rest uniform over all %d", RecentHot*100, d.RecentRows*100, max(1, int64(float64(rows)*d.RecentRows)), rows)
	case ReadZipf:
		return fmt.Sprintf("zipf: the k-th newest row with probability ∝ (1+k)^-%g, over %d rows", d.ZipfS, rows)
	}
	return fmt.Sprintf("uniform over all %d rows", rows)
}
