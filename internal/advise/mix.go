package advise

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/keybench/keybench/internal/stats"
)

// mixPages is how many heap pages the uuid version mix reads, chosen at
// random across the whole table (TABLESAMPLE SYSTEM): enough rows for an
// interval of a few points on a table whose pages each hold one version,
// few enough that a large table is read in milliseconds.
const mixPages = 400

// VersionShare is one uuid version's share of a key's rows, estimated from
// pages sampled across the whole table, with its 95% interval.
type VersionShare struct {
	Version string  `json:"version"`
	Share   float64 `json:"share"`
	stats.Interval
}

// pageCount is one sampled heap page's rows by uuid version.
type pageCount struct {
	rows      int
	byVersion map[string]int
}

// versionMix reads the uuid versions of a key's rows on pages sampled at
// random over the whole table: the histogram bounds and the leaf-order
// reads are points in the key's value order, where a time-ordered version
// crowds together, so their counts are not a sample of the rows. It
// returns the shares with their intervals and the rows and pages read.
func (r *reader) versionMix(ctx context.Context, qualified, col string, k *Key, heapBytes int64) (mix []VersionShare, rows, pages int, err error) {
	heapPages := max(1, heapBytes/8192)
	pct := math.Min(100, 100*float64(mixPages)/float64(heapPages))
	// The value as 32 hex digits by PostgreSQL's own functions on the key's
	// base type, never through a cast of the user's to text.
	// A uuid's are always 32 hex digits; a text's are kept where they are
	// (a regular expression costs more than the rest of the read).
	hex := fmt.Sprintf("pg_catalog.encode(pg_catalog.uuid_send(kb_t.%s::pg_catalog.uuid), 'hex')", col)
	where := ""
	if k.base != `"pg_catalog"."uuid"` {
		hex = fmt.Sprintf("pg_catalog.lower(pg_catalog.replace(kb_t.%s::pg_catalog.text, '-', ''))", col)
		where = `WHERE kb_hex.hex OPERATOR(pg_catalog.~) '^[0-9a-f]{32}$'`
	}
	byPage := map[uint32]*pageCount{}
	var order []uint32
	err = r.readOnly(ctx, func(tx pgx.Tx) error {
		// Every name qualified by an alias of keybench's own: a column of
		// the user's named like one (hex) cannot make it ambiguous.
		q := fmt.Sprintf(`SELECT kb_t.ctid, pg_catalog.substr(kb_hex.hex, 13, 1)
			FROM ONLY %s AS kb_t TABLESAMPLE SYSTEM (%g), LATERAL (SELECT %s) AS kb_hex(hex) %s`, qualified, pct, hex, where)
		if why, err := r.vetRead(ctx, q); err != nil || why != "" {
			return cmp.Or(err, errors.New(why))
		}
		rs, _ := tx.Query(ctx, q)
		var tid pgtype.TID
		var version string
		_, err := pgx.ForEachRow(rs, []any{&tid, &version}, func() error {
			p := byPage[tid.BlockNumber]
			if p == nil {
				p = &pageCount{byVersion: map[string]int{}}
				byPage[tid.BlockNumber] = p
				order = append(order, tid.BlockNumber)
			}
			p.rows++
			p.byVersion["v"+version]++
			return nil
		})
		return err
	})
	if err != nil {
		return nil, 0, 0, err
	}
	slices.Sort(order)
	sampled := make([]pageCount, 0, len(order))
	for _, b := range order {
		sampled = append(sampled, *byPage[b])
	}
	mix = clusterShares(sampled, int(heapPages))
	for _, p := range sampled {
		rows += p.rows
	}
	return mix, rows, len(sampled), nil
}

// clusterShares estimates each version's share of the rows from whole
// pages sampled at random among total pages: a ratio estimator whose
// variance is the pages' (rows of a page are not independent: a table
// filled by one generator and then another holds pages of one version
// each), with the finite-population correction, so a sample of every page
// is exact. The interval is normal at 95%, clipped to [0, 1]; with one
// page the spread is not known and the interval is the whole range.
func clusterShares(pages []pageCount, total int) []VersionShare {
	m := len(pages)
	rows := 0
	versions := map[string]bool{}
	for _, p := range pages {
		rows += p.rows
		for v := range p.byVersion {
			versions[v] = true
		}
	}
	if rows == 0 {
		return nil
	}
	var out []VersionShare
	mean := float64(rows) / float64(m)
	fpc := math.Max(0, 1-float64(m)/float64(max(total, m)))
	for v := range versions {
		y := 0
		for _, p := range pages {
			y += p.byVersion[v]
		}
		share := float64(y) / float64(rows)
		s := VersionShare{Version: v, Share: share, Interval: stats.Interval{Lo: 0, Hi: 1, Level: 1}} // all a share can be
		if m > 1 {
			ss := 0.0
			for _, p := range pages {
				d := float64(p.byVersion[v]) - share*float64(p.rows)
				ss += d * d
			}
			se := math.Sqrt(fpc * ss / float64(m*(m-1)) / (mean * mean))
			s.Interval = stats.Interval{Lo: math.Max(0, share-1.96*se), Hi: math.Min(1, share+1.96*se), Level: 0.95}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out
}

// readMix replaces a uuid key's version counts from its value-order
// samples by those of pages sampled across the table, with intervals; the
// version it names is one that holds at least 90% of the rows.
func (r *reader) readMix(ctx context.Context, t *Table, f tableFacts) {
	k := t.Key
	if !f.canSelect {
		k.UUIDMixRead = "the versions are counted on the sampled key values, not on the table's rows: " + r.grantSelect(t)
		return
	}
	if why := r.unread(f, k); why != "" {
		k.UUIDMixRead = "the versions are counted on the sampled key values, not on the table's rows: " + why
		return
	}
	mix, rows, pages, err := r.versionMix(ctx, r.sampled(ctx, t, f), pgx.Identifier{k.Columns[0]}.Sanitize(), k, f.heapBytes)
	if err != nil {
		k.UUIDMixRead = "the table's pages could not be sampled (" + err.Error() + "): the versions are counted on the sampled key values"
		return
	}
	if rows == 0 {
		k.UUIDMixRead = "no uuid-shaped row on the pages sampled"
		return
	}
	k.UUIDMix, k.UUIDVersion = mix, 0
	k.UUIDVersions = map[string]int{}
	for _, s := range mix {
		k.UUIDVersions[s.Version] = int(math.Round(s.Share * float64(rows)))
		if s.Share >= 0.9 && len(s.Version) == 2 && s.Version[1] >= '1' && s.Version[1] <= '8' {
			k.UUIDVersion = int(s.Version[1] - '0')
		}
	}
	k.UUIDMixRead = fmt.Sprintf("%d rows on %d pages sampled at random over the table's %d", rows, pages, max(1, f.heapBytes/8192))
}
