package report

import (
	"fmt"
	"sort"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// keysTable shows what each key of the run costs in bytes (measured on its
// cells' tables, pg_column_size) and gives away (the catalog's facts): a
// key's speed is read beside what it reveals.
func keysTable(d *Doc, res *results.Results) {
	if len(res.Keys) == 0 {
		return
	}
	t := NewTable("key", "column", "bytes (measured)", "sortable by time", "reveals", "random bits", "collision: 1B rows", "URL chars").AlignRight(2, 5, 6, 7)
	for _, k := range res.Keys {
		bytes := fmt.Sprintf("%d", k.StoredBytes)
		if v, ok := measuredKeyBytes(res, k.Key); ok {
			bytes = fmt.Sprintf("%.1f", v)
		}
		bits := "-"
		if k.RandomBits > 0 {
			bits = fmt.Sprint(k.RandomBits)
			if k.PerUnitS > 0 {
				bits += " per " + time.Duration(k.PerUnitS*float64(time.Second)).String()
			}
		}
		coll := "-"
		switch {
		case k.CollisionB != nil:
			coll = fmt.Sprintf("%.1e", *k.CollisionB)
		case k.Unique != "":
			coll = "0 on one generator"
		}
		t.AppendRow(k.Key, k.Column, bytes, k.Sortable, k.Reveals, bits, coll, k.URLChars)
	}
	d.Add(t)
	d.Println("keys: bytes: the key's mean stored size in the cells' tables (pg_column_size over a sample of rows; the catalog's where no cell measured it); " +
		"random bits: those that tell apart values made in the same unit of time; collision: the probability that two of 1B values made at 1,000 a second are the same " +
		"(keybench keys: the formula, and a million a second for a year); \"0 on one generator\": unique by construction where one generator makes them.")
}

// measuredKeyBytes is the median of the key's cells' measured key bytes.
func measuredKeyBytes(res *results.Results, key string) (float64, bool) {
	var vs []float64
	for i := range res.Cells {
		if c := &res.Cells[i]; c.Key == key {
			if v, ok := c.Metrics.KeyBytes.Get(); ok {
				vs = append(vs, v)
			}
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	sort.Float64s(vs)
	if n := len(vs); n%2 == 0 {
		return (vs[n/2-1] + vs[n/2]) / 2, true
	}
	return vs[len(vs)/2], true
}

// reveals is what the key's values give away, when they give away their
// creation time: the verdict says it beside a time-ordered winner.
func reveals(res *results.Results, key string) string {
	for _, k := range res.Keys {
		if k.Key == key && k.RevealsTime {
			return k.Reveals
		}
	}
	return ""
}
