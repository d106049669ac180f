package keys

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A key spec also says how the keyed table is laid out around the key, as
// index= does: whether it has a created_at column (created-at=), and
// whether it is partitioned by time (partition=). Both may be given for
// the whole plan (run --created-at, --partition-by) and per key, the key's
// own winning: the time preset compares uuidv7 partitioned on its key with
// uuidv4 partitioned on created_at in one run.

// The created_at column of the keyed table: none, a timestamptz column,
// or the column with an index of its own — what a table whose key does not
// order by time needs for a time-range query, and what a uuidv7 key might
// replace.
const (
	CreatedAtNone    = "none"
	CreatedAtColumn  = "column"
	CreatedAtIndexed = "indexed"
)

// CreatedAtValues are created-at's values.
var CreatedAtValues = []string{CreatedAtNone, CreatedAtColumn, CreatedAtIndexed}

// Partitioning is how the keyed table is range-partitioned by time: every
// Every of the rows' history (partition=1d), or every Rows rows of it
// (partition=100000rows). A key that orders by time is partitioned on
// itself (bounds made from timestamps: TimeBound; a counter's from the
// history's row at each time); another on its table's created_at column.
type Partitioning struct {
	Every time.Duration
	Rows  int64
}

// On says the table is partitioned.
func (p Partitioning) On() bool { return p.Every > 0 || p.Rows > 0 }

// String is the partitioning as a spec gives it ("1d", "100000rows", "none").
func (p Partitioning) String() string {
	switch {
	case p.Rows > 0:
		return strconv.FormatInt(p.Rows, 10) + "rows"
	case p.Every > 0:
		return FormatSpan(p.Every)
	}
	return "none"
}

// MinPartitionEvery bounds a time partition from below: a partition per
// second of history is a mistake, not a layout.
const MinPartitionEvery = time.Minute

// ParsePartitioning reads a partitioning: "none", a span ("1d", "6h",
// "90m"; "time:1d" as --partition-by writes it) or a count of rows
// ("100000rows"; "count:100000").
func ParsePartitioning(s string) (Partitioning, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "none" || s == "":
		return Partitioning{}, nil
	case strings.HasPrefix(s, "count:") || strings.HasSuffix(s, "rows"):
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(s, "count:"), "rows"), 10, 64)
		if err != nil || n < 1 || n > 1<<40 {
			return Partitioning{}, fmt.Errorf("a count of rows per partition must be a whole number from 1 to %d, not %q", int64(1<<40), s)
		}
		return Partitioning{Rows: n}, nil
	}
	d, err := ParseSpan(strings.TrimPrefix(s, "time:"))
	if err != nil {
		return Partitioning{}, fmt.Errorf("partition must be none, a span of time (1d, 6h, 90m) or a count of rows (100000rows), not %q", s)
	}
	if d < MinPartitionEvery || d > 366*24*time.Hour {
		return Partitioning{}, fmt.Errorf("a partition's span must be from %s to 366d, not %s", FormatSpan(MinPartitionEvery), s)
	}
	return Partitioning{Every: d}, nil
}

// ParseSpan reads a span of time in Go's units (300ms, 1.5h) or in days
// ("10d", "1d12h").
func ParseSpan(s string) (time.Duration, error) {
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil || n < 0 || n > 100_000 {
			return 0, fmt.Errorf("%q is not a span of time", s)
		}
		days, s = time.Duration(n*24*float64(time.Hour)), s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a span of time", s)
	}
	return days + d, nil
}

// FormatSpan writes a span in days when it is whole days ("10d"), else as
// Go does without its trailing zero units ("1h", "1h30m", "90s").
func FormatSpan(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// OrdersByTime says the key's values follow their rows' time in a way a
// range partition or a range query on the key can use: a time-ordered
// key's leading bits (TimeBound), or a counter's value (its rows' order).
func (s *Spec) OrdersByTime() bool { return s.HasTimeBound() || s.Counts() }

// Counts says the key's values count the rows: 1, 2, 3, ... (a sequence;
// not gen=random).
func (s *Spec) Counts() bool { return s.Strategy.Counter && !s.Random }

// HasCreatedAt says the keyed table has a created_at column.
func (s *Spec) HasCreatedAt() bool {
	return s.CreatedAt == CreatedAtColumn || s.CreatedAt == CreatedAtIndexed
}

// PartitionColumn is the column a time-partitioned table is partitioned
// on: the key where it orders by time, else created_at ("" when the table
// is not partitioned, or cannot be).
func (s *Spec) PartitionColumn() string {
	switch {
	case !s.Partition.On():
		return ""
	case s.OrdersByTime():
		return "id"
	case s.HasCreatedAt():
		return "created_at"
	}
	return ""
}

// checkLayout checks the table layout a spec asks for: a table
// partitioned by time needs a column that orders by time, and its key
// index must be one PostgreSQL can make on a partitioned table.
func (s *Spec) checkLayout() error {
	if !s.Partition.On() {
		return nil
	}
	if s.PartitionColumn() == "" {
		return fmt.Errorf("%s does not order by time: partitioning it by time needs a created_at column (created-at=column or indexed)", s.Strategy.Name)
	}
	switch s.Index {
	case IndexUnique:
		return fmt.Errorf("a table partitioned by time takes its key's uniqueness from a primary key (index=pk), not index=unique")
	}
	if s.Prefill != nil {
		return fmt.Errorf("a table partitioned by time is filled with its own key, not prefill=%s", s.Prefill.Raw)
	}
	return nil
}

// ApplyLayout gives the spec the plan's layout where the spec says none of
// its own (--created-at, --partition-by), and checks it.
func (s *Spec) ApplyLayout(createdAt string, part Partitioning) error {
	if s.CreatedAt == "" {
		s.CreatedAt = createdAt
	}
	if !s.partitionGiven {
		s.Partition = part
	}
	if err := s.checkLayout(); err != nil {
		return usagef("key %q: %v", s.Raw, err)
	}
	return nil
}
