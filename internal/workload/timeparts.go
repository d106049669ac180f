package workload

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/keybench/keybench/internal/keys"
)

// Time partitions (partition=1d, --partition-by): the keyed table is
// range-partitioned by its rows' time, on the key itself where the key
// orders by time — a uuidv7, ulid or snowflake by bounds made from
// timestamps (keys.Spec.TimeBound), a counter (bigint identity) by the
// value its history reached at each time — and on created_at for a key
// that does not (uuidv4). The partitions cover the prefill's history from
// its first bound (a multiple of the span: days start at midnight UTC),
// one whole span past its end, then one open partition to MAXVALUE for the
// rows made later (the window's: a counter's next values cannot be bounded
// by time). keybench creates every partition with the table, each recorded
// in its ledger, and a retention workload drops the oldest through it.

// MaxTimePartitions bounds the partitions of one table.
const MaxTimePartitions = 1000

// TimePart is one partition of a table partitioned by time: it holds the
// rows of [From, To) of the history (To zero: the open partition, to
// MAXVALUE); FromSQL and ToSQL are its bounds as the partition column's
// literals.
type TimePart struct {
	Name             string
	From, To         time.Time
	FromSQL, ToSQL   string
	FirstRow, EndRow int64 // a counter key's values in it: [FirstRow, EndRow)
}

// Open says the partition is the last one, to MAXVALUE.
func (p TimePart) Open() bool { return p.To.IsZero() }

// Every is the span of one partition of the table's history (a count of
// rows per partition is the span those rows took).
func (t *Table) Every() time.Duration {
	p := t.Key.Partition
	if p.Rows > 0 && t.History != nil {
		return time.Duration(float64(p.Rows) / t.History.RowsPerS * float64(time.Second))
	}
	return p.Every
}

// TimePartitioned says the table is range-partitioned by time.
func (t *Table) TimePartitioned() bool { return t.Keyed() && t.Key.Partition.On() }

// FirstBound is where the table's time slices start: the first partition's
// lower bound, or, for a table that is not partitioned, the history's
// start truncated to every.
func (t *Table) FirstBound(every time.Duration) time.Time {
	if t.Key.Partition.Rows > 0 {
		return t.History.Start
	}
	return t.History.Start.Truncate(every)
}

// TimeParts are the table's partitions, oldest first, those a retention
// dropped included (Table.Dropped says how many); none when it is not
// partitioned by time.
func (t *Table) TimeParts() []TimePart {
	if !t.TimePartitioned() || t.History == nil {
		return nil
	}
	every := t.Every()
	if every <= 0 {
		return nil
	}
	end := t.History.End()
	var parts []TimePart
	from := t.FirstBound(every)
	for n := 0; n < MaxTimePartitions; n++ {
		to := from.Add(every)
		p := TimePart{From: from, To: to}
		if t.Key.PartitionColumn() == "id" && t.Key.Counts() {
			p.FirstRow, p.EndRow = t.History.RowAt(from), t.History.RowAt(to)
			if p.FirstRow == p.EndRow {
				from = to
				if from.After(end) {
					break
				}
				continue // no row of the history in it
			}
		}
		parts = append(parts, p)
		from = to
		// One whole span past the history's end (a counter's rows after
		// the history go to the open partition: none is bounded by time).
		if from.After(end.Add(every)) || t.Key.Counts() && !from.Before(end) {
			break
		}
	}
	parts = append(parts, TimePart{From: from})
	for i := range parts {
		p := &parts[i]
		p.Name = fmt.Sprintf("%s_p%d", t.Name, i)
		p.FromSQL, p.ToSQL = t.BoundSQL(p.From), "MAXVALUE"
		if !p.Open() {
			p.ToSQL = t.BoundSQL(p.To)
		}
	}
	return parts
}

// BoundSQL is the partition column's value at time at, as a literal.
func (t *Table) BoundSQL(at time.Time) string {
	k := t.Key
	switch {
	case k.PartitionColumn() == "created_at":
		return TimestampSQL(at)
	case k.Counts():
		return strconv.FormatInt(t.History.RowAt(at), 10)
	}
	raw, err := k.TimeBound(at)
	if err != nil {
		panic(err) // PartitionColumn is "id" only for keys with a time bound or a counter
	}
	return k.Literal(raw)
}

// TimestampSQL is a time as a timestamptz literal (to the microsecond).
func TimestampSQL(at time.Time) string {
	return "'" + at.UTC().Format("2006-01-02 15:04:05.999999") + "+00'::timestamptz"
}

// TimePartitionCount is how many partitions a table of rows rows whose
// history spans span (0: the default) has when partitioned by p.
func TimePartitionCount(rows int64, span time.Duration, p keys.Partitioning) int {
	h := NewHistory(rows, span, time.Now())
	every := p.Every
	if p.Rows > 0 {
		return int(math.Ceil(float64(max(rows, 1))/float64(p.Rows))) + 2
	}
	return int(h.Span()/every) + 3
}

// partitionStatements create the partitions of a table partitioned by
// time, oldest first; each is an object keybench records.
func (t *Table) partitionStatements() (names, stmts []string) {
	for _, p := range t.TimeParts() {
		names = append(names, p.Name)
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s.%s PARTITION OF %s FOR VALUES FROM (%s) TO (%s)", t.Schema, p.Name, t.Qualified(), p.FromSQL, p.ToSQL))
	}
	return names, stmts
}

// LivePartitions are the names of the partitions the table holds now: its
// LIST partitions, or its time partitions less those dropped.
func (t *Table) LivePartitions() []string {
	var out []string
	for i := 0; i < t.Partitions; i++ {
		out = append(out, fmt.Sprintf("%s_p%d", t.Name, i))
	}
	parts := t.TimeParts()
	for i := min(t.Dropped, len(parts)); i < len(parts); i++ {
		out = append(out, parts[i].Name)
	}
	return out
}

// PartitionNames are the schema-qualified names of the table's partitions
// as it holds them now, oldest first (none: it is not partitioned).
func PartitionNames(t *Table) []string {
	var out []string
	for _, p := range t.LivePartitions() {
		out = append(out, t.Schema+"."+p)
	}
	return out
}
