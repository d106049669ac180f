package advise

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
)

// A column runs out of values when the sequence that feeds it reaches the
// most its type holds: an int4 key at 2,147,483,647, the next insert
// failing with "integer out of range". Applications feed columns from
// sequences in many shapes, and each is read here as the server holds it,
// not by one pattern:
//
//   - an identity column, or a serial's sequence the column owns
//     (pg_depend);
//   - a DEFAULT nextval('…') naming any sequence, owned or not (Pagila's
//     every id: CREATE SEQUENCE, then an int4 column's DEFAULT), read from
//     the default's stored tree (pg_attrdef.adbin), never from its text;
//   - one sequence feeding several columns of several tables;
//   - a column in a composite key or in none, a partitioned table's
//     column (said under the table's name: its partitions share it).
//
// How long it lasts is counted from the sequence's own position and the
// values it gave a second over the sample (all its users together), read
// twice: before the table's figures and after the sample. The fix is the
// shape's: every column the sequence feeds that its type limits, every
// column referencing one through a foreign key, and the sequence's own
// type or MAXVALUE, with what the rewrite locks.

// FedColumn is one integer column fed by a sequence, and when it runs out.
type FedColumn struct {
	Column string `json:"column"`
	// Type is the column's type (through a domain to its base).
	Type string `json:"type"`
	// Sequence feeds it; FedBy says how: "identity", "serial" (a sequence
	// the column owns) or "default" (DEFAULT nextval of a sequence the
	// column does not own); SharedWith the other columns it feeds.
	Sequence   string   `json:"sequence"`
	FedBy      string   `json:"fed_by"`
	SharedWith []string `json:"shared_with,omitempty"`
	// Last is the sequence's value when last read, Limit the most this
	// column takes from it (the least of its type's and the sequence's
	// MAXVALUE), Increment its step.
	Last      results.M[int64] `json:"last_value,omitzero"`
	Limit     int64            `json:"limit"`
	Increment int64            `json:"increment"`
	// PerS is the values the sequence gave a second between its two reads
	// (every column it feeds), unmeasured where it gave none.
	PerS results.M[float64] `json:"values_per_s,omitzero"`
	// RunsOutInS is how long it lasts from ReadAt at PerS; At when (UTC,
	// RFC 3339). Always present: its value, or why it cannot be said.
	RunsOutInS results.M[float64] `json:"runs_out_in_s"`
	ReadAt     string             `json:"read_at,omitempty"`
	At         string             `json:"at,omitempty"`
	// Referencing are the columns referencing this one through a foreign
	// key whose type the fix changes too.
	Referencing []string `json:"referencing,omitempty"`
	// Fix are the statements that move the column past its limit, and
	// RewriteBytes what they rewrite under an ACCESS EXCLUSIVE lock (0:
	// none is rewritten: the sequence's own limit alone).
	Fix          []string `json:"fix"`
	RewriteBytes int64    `json:"rewrite_bytes"`
	Locks        string   `json:"locks,omitempty"`

	seq              uint32
	typLimit, seqMax int64
	seqType          string
	readAt           time.Time
	firstLast        *int64
	firstAt          time.Time
	// paceLost is why the sequence was not read a second time (the sample
	// not taken): its pace is unknown, not none.
	paceLost string
	table    string
}

// feed is one column a sequence feeds.
type feed struct {
	rel             uint32
	table, column   string // table qualified and printable
	typ             uint32 // the column's type, through a domain
	typName, fedBy  string
	partition       bool
	relBytes, index int64
}

// integerMax is the most each integer type holds, by OID.
var integerMax = map[uint32]int64{21: math.MaxInt16, 23: math.MaxInt32, 20: math.MaxInt64}

// sequenceFeeds reads, once for the database, every column a sequence
// feeds: identity and owned sequences from pg_depend, any other sequence
// from the stored tree of a default that calls nextval on a constant.
func (r *reader) sequenceFeeds(ctx context.Context, tx pgx.Tx) (map[uint32][]feed, error) {
	out := map[uint32][]feed{}
	add := func(seq uint32, f feed) {
		for _, g := range out[seq] {
			if g.rel == f.rel && g.column == f.column {
				return
			}
		}
		out[seq] = append(out[seq], f)
	}
	const cols = `c.oid, pg_catalog.format('%s.%s', pg_catalog.quote_ident(n.nspname), pg_catalog.quote_ident(c.relname)), a.attname::text,
		CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END, pg_catalog.format_type(a.atttypid, a.atttypmod), c.relispartition,
		pg_catalog.pg_table_size(c.oid), pg_catalog.pg_indexes_size(c.oid)`
	rows, _ := tx.Query(ctx, `SELECT d.objid, CASE WHEN d.deptype = 'i' THEN 'identity' ELSE 'serial' END, `+cols+`
		FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S'
		JOIN pg_catalog.pg_class c ON c.oid = d.refobjid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.refobjsubid JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
		WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
			AND d.deptype IN ('a', 'i') AND d.refobjsubid > 0 AND c.relkind IN ('r', 'p')`)
	var seq uint32
	var f feed
	if _, err := pgx.ForEachRow(rows, []any{&seq, &f.fedBy, &f.rel, &f.table, &f.column, &f.typ, &f.typName, &f.partition, &f.relBytes, &f.index}, func() error {
		add(seq, f)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading the sequences' columns: %w", err)
	}
	// Defaults that call nextval (OID 1574) on a constant: the tree names
	// the sequence by OID, whoever owns it.
	rows, _ = tx.Query(ctx, `SELECT ad.adbin::text, `+cols+`
		FROM pg_catalog.pg_attrdef ad JOIN pg_catalog.pg_class c ON c.oid = ad.adrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = ad.adnum JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
		WHERE c.relkind IN ('r', 'p') AND ad.adbin::text LIKE '%:funcid 1574 %'`)
	var tree string
	if _, err := pgx.ForEachRow(rows, []any{&tree, &f.rel, &f.table, &f.column, &f.typ, &f.typName, &f.partition, &f.relBytes, &f.index}, func() error {
		res, err := sqltree.ReadTree(tree)
		if err != nil {
			return nil // a default advise cannot read names no sequence it can judge
		}
		for s := range res.Sequences {
			g := f
			g.fedBy = "default"
			if owned := slices.ContainsFunc(out[s], func(o feed) bool { return o.rel == f.rel && o.column == f.column }); !owned {
				add(s, g)
			}
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading the columns' defaults: %w", err)
	}
	return out, nil
}

// runsOut reads, for the table oid, every integer column a sequence feeds:
// the sequence's position, limit and step, the columns referencing it, and
// the fix. A partition's own columns are its table's (said there).
func (r *reader) runsOut(ctx context.Context, tx pgx.Tx, oid uint32, t *Table, feeds map[uint32][]feed) error {
	for seq, fs := range feeds {
		for _, f := range fs {
			if f.rel != oid || integerMax[f.typ] == 0 {
				continue
			}
			ro := FedColumn{Column: f.column, Type: f.typName, FedBy: f.fedBy, seq: seq, typLimit: integerMax[f.typ], table: f.table}
			for _, o := range fs {
				if (o.rel != oid || o.column != f.column) && !o.partition {
					ro.SharedWith = append(ro.SharedWith, o.table+"."+sqltree.Printable(o.column))
				}
			}
			var last *int64
			var seqType string
			if err := tx.QueryRow(ctx, `SELECT pg_catalog.format('%s.%s', pg_catalog.quote_ident(n.nspname), pg_catalog.quote_ident(c.relname)),
					s.seqmax, s.seqincrement, pg_catalog.format_type(s.seqtypid, NULL),
					CASE WHEN pg_catalog.has_sequence_privilege(c.oid, 'SELECT,USAGE') THEN pg_catalog.pg_sequence_last_value(c.oid) END
				FROM pg_catalog.pg_sequence s JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
				WHERE s.seqrelid = $1`, seq).Scan(&ro.Sequence, &ro.seqMax, &ro.Increment, &seqType, &last); err != nil {
				if err == pgx.ErrNoRows {
					continue // dropped meanwhile
				}
				return err
			}
			ro.seqType = seqType
			if ro.Increment <= 0 {
				continue // a descending sequence runs out at its MINVALUE, which no key reaches by inserts
			}
			ro.Limit = min(ro.typLimit, ro.seqMax)
			ro.readAt = time.Now().UTC()
			ro.ReadAt = ro.readAt.Format(time.RFC3339Nano)
			if last == nil {
				ro.Last = results.Unavailable[int64](fmt.Sprintf("the sequence %s was never read, or its value is not readable (GRANT SELECT ON SEQUENCE %s TO %s)",
					sqltree.EscapeControls(ro.Sequence), sqltree.EscapeControls(ro.Sequence), sqltree.Printable(r.srv.Role)))
			} else {
				ro.Last, ro.firstLast, ro.firstAt = results.Of(*last), last, ro.readAt
			}
			if err := r.fixFor(ctx, tx, &ro, f, fs); err != nil {
				return err
			}
			t.RunsOut = append(t.RunsOut, ro)
		}
	}
	slices.SortFunc(t.RunsOut, func(a, b FedColumn) int { return strings.Compare(a.Column, b.Column) })
	return nil
}

// fixFor is what moves the column past its limit: every column the
// sequence feeds whose type limits it, and every column referencing those
// through a foreign key, to bigint (a partitioned table's ALTER reaches its
// partitions), then the sequence's own type or MAXVALUE; with the bytes
// rewritten under ACCESS EXCLUSIVE.
func (r *reader) fixFor(ctx context.Context, tx pgx.Tx, ro *FedColumn, f feed, fs []feed) error {
	altered := map[string]bool{}
	alter := func(table, column string, bytes int64) {
		key := table + "." + column
		if altered[key] {
			return
		}
		altered[key] = true
		ro.Fix = append(ro.Fix, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s TYPE bigint;", table, quoteIdent(column)))
		ro.RewriteBytes += bytes
	}
	if ro.typLimit < math.MaxInt64 {
		for _, o := range fs {
			if !o.partition && integerMax[o.typ] > 0 && integerMax[o.typ] < math.MaxInt64 {
				alter(o.table, o.column, o.relBytes+o.index)
			}
		}
		// Columns referencing a fed column, of a type that would run out first.
		rows, _ := tx.Query(ctx, `SELECT pg_catalog.format('%s.%s', pg_catalog.quote_ident(n.nspname), pg_catalog.quote_ident(c.relname)), a.attname::text,
				CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END, pg_catalog.pg_table_size(c.oid) + pg_catalog.pg_indexes_size(c.oid)
			FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class c ON c.oid = con.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_catalog.pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attname = $2
			CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(con.confkey), pg_catalog.unnest(con.conkey)) k(ref, col)
			JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.col JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
			WHERE con.contype = 'f' AND con.confrelid = $1 AND k.ref = fa.attnum AND NOT c.relispartition
			ORDER BY 1, 2`, f.rel, f.column)
		var table, column string
		var typ uint32
		var bytes int64
		if _, err := pgx.ForEachRow(rows, []any{&table, &column, &typ, &bytes}, func() error {
			if m := integerMax[typ]; m > 0 && m < math.MaxInt64 {
				ro.Referencing = append(ro.Referencing, table+"."+sqltree.Printable(column))
				alter(table, column, bytes)
			}
			return nil
		}); err != nil {
			return err
		}
		if len(ro.Fix) > 0 {
			ro.Locks = "each ALTER holds its table's ACCESS EXCLUSIVE lock while it rewrites the table and its indexes: no read or write of it meanwhile"
		}
	}
	switch {
	case ro.seqType != "bigint":
		ro.Fix = append(ro.Fix, fmt.Sprintf("ALTER SEQUENCE %s AS bigint;", ro.Sequence))
	case ro.seqMax < math.MaxInt64:
		ro.Fix = append(ro.Fix, fmt.Sprintf("ALTER SEQUENCE %s NO MAXVALUE;", ro.Sequence))
	}
	return nil
}

// rereadRunsOut reads each fed column's sequence again after the sample:
// where it stands then, and the values it gave a second since its first
// read (one read a sequence, however many columns it feeds).
func (r *reader) rereadRunsOut(ctx context.Context, tables []Table) error {
	type read struct {
		last *int64
		at   time.Time
	}
	seen := map[uint32]read{}
	for i := range tables {
		for j := range tables[i].RunsOut {
			ro := &tables[i].RunsOut[j]
			if ro.firstLast == nil {
				continue
			}
			got, ok := seen[ro.seq]
			if !ok {
				err := r.readOnly(ctx, func(tx pgx.Tx) error {
					return tx.QueryRow(ctx, `SELECT CASE WHEN pg_catalog.has_sequence_privilege($1::oid, 'SELECT,USAGE') THEN pg_catalog.pg_sequence_last_value($1::oid) END`, ro.seq).Scan(&got.last)
				})
				if err != nil {
					return err
				}
				got.at = time.Now().UTC()
				seen[ro.seq] = got
			}
			if got.last == nil {
				continue
			}
			gave := float64(*got.last-*ro.firstLast) / float64(ro.Increment)
			ro.Last, ro.readAt = results.Of(*got.last), got.at
			ro.ReadAt = ro.readAt.Format(time.RFC3339Nano)
			if secs := got.at.Sub(ro.firstAt).Seconds(); secs > 0 && gave > 0 {
				ro.PerS = results.Of(gave / secs)
			} else {
				ro.PerS = results.Unavailable[float64](fmt.Sprintf("the sequence gave no value in the %.0f s between its reads", secs))
			}
		}
	}
	return nil
}

// runsOutTimes sets each fed column's time left, from its sequence's
// position and pace (or why it cannot be said), and the table's
// OverflowDays and OverflowAt from the soonest.
func runsOutTimes(t *Table) {
	soonest := -1
	for i := range t.RunsOut {
		ro := &t.RunsOut[i]
		last, ok := ro.Last.Get()
		switch perS, paced := ro.PerS.Get(); {
		case !ok:
			ro.RunsOutInS = results.Unavailable[float64](ro.Last.Reason())
		case last >= ro.Limit:
			ro.RunsOutInS = results.Of(0.0)
		case !paced && ro.paceLost != "":
			ro.RunsOutInS = results.Unavailable[float64]("its pace was not read: " + ro.paceLost)
		case !paced:
			ro.RunsOutInS = results.Unavailable[float64](cmp.Or(ro.PerS.Reason(), "its pace was not read") + ": at that pace it never runs out")
		default:
			s := float64(ro.Limit-last) / float64(ro.Increment) / perS
			ro.RunsOutInS = results.Of(s)
			if s <= 10*365*86400 {
				ro.At = ro.readAt.Add(time.Duration(s * float64(time.Second))).Truncate(time.Second).Format(time.RFC3339)
			}
		}
		if s, ok := ro.RunsOutInS.Get(); ok && (soonest < 0 || s < mustGet(t.RunsOut[soonest].RunsOutInS)) {
			soonest = i
		}
	}
	if soonest >= 0 {
		ro := t.RunsOut[soonest]
		t.OverflowDays, t.OverflowAt = results.Of(mustGet(ro.RunsOutInS)/86400), ro.At
	}
}

// Soonest is the table's fed column that runs out first (nil: none known).
func (t *Table) Soonest() *FedColumn {
	var best *FedColumn
	for i := range t.RunsOut {
		ro := &t.RunsOut[i]
		if s, ok := ro.RunsOutInS.Get(); ok && (best == nil || s < mustGet(best.RunsOutInS)) {
			best = ro
		}
	}
	return best
}

// runsOutLine says when a fed column runs out and what fixes it, in one
// line: "Column payment_id (integer, DEFAULT nextval of public.payment_payment_id_seq,
// a sequence it does not own) runs out in about 13 minutes, around …".
func runsOutLine(t *Table, ro *FedColumn) string {
	how := map[string]string{"identity": "an identity", "serial": "its own sequence " + ro.Sequence,
		"default": "DEFAULT nextval of " + ro.Sequence + ", a sequence it does not own"}[ro.FedBy]
	s := fmt.Sprintf("Column %s (%s, %s", sqltree.Printable(ro.Column), ro.Type, how)
	if len(ro.SharedWith) > 0 {
		s += ", shared with " + strings.Join(ro.SharedWith, ", ")
	}
	s += ")"
	secs, ok := ro.RunsOutInS.Get()
	last, _ := ro.Last.Get()
	switch {
	case !ok:
		return s + ": when it runs out cannot be said (" + ro.RunsOutInS.Reason() + ")."
	case secs == 0:
		s += fmt.Sprintf(" has run out: its sequence is at %d, the most it takes %d, and every insert fails", last, ro.Limit)
	case ro.At == "":
		s += fmt.Sprintf(" lasts more than ten years: its sequence is at %d of %d", last, ro.Limit)
	default:
		perS, _ := ro.PerS.Get()
		s += fmt.Sprintf(" runs out in about %s, around %s UTC: its sequence is at %d of %d, giving %s values/s", humanDays(secs/86400),
			strings.Replace(strings.TrimSuffix(ro.At, "Z"), "T", " ", 1), last, ro.Limit, rate(perS))
	}
	if len(ro.Fix) > 0 {
		s += ". Fix: " + strings.TrimSuffix(strings.Join(ro.Fix, " "), ";")
		if ro.RewriteBytes > 0 {
			s += fmt.Sprintf(" (rewrites %s; %s)", results.Bytes(ro.RewriteBytes), ro.Locks)
		}
	}
	return s + "."
}
