package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// A production table rarely has its key index alone: an email's unique
// index takes random inserts whatever the key, a created_at index ordered
// ones. Such indexes change what a key costs (each row's insert touches
// every index; the random one's pages compete with the key index's for
// the cache), so a lab table that stands for a user's carries them too
// (--secondary). Their columns get their values from the server
// (DEFAULT), so every key's rows pay the same for them.

// Secondary is one secondary index of the keyed table, on a column of its
// own: random text of Width characters under a unique index (an email),
// or a timestamp set as the row is made under a plain index (a
// created_at): the two orders an index can take.
type Secondary struct {
	Kind  string // SecondaryRandom or SecondaryTime
	Width int    // characters of a random column; 8 bytes for time
}

// The kinds of secondary index.
const (
	SecondaryRandom = "random"
	SecondaryTime   = "time"
)

// Bounds of a random secondary column's width and of the indexes.
const (
	secondaryDefaultWidth = 32
	secondaryMaxWidth     = 256
	maxSecondary          = 8
)

// ParseSecondary reads --secondary: a comma-separated list of random[:WIDTH]
// and time ("random:40,time").
func ParseSecondary(list string) ([]Secondary, error) {
	var out []Secondary
	for _, item := range strings.Split(list, ",") {
		kind, width, hasWidth := strings.Cut(strings.TrimSpace(item), ":")
		s := Secondary{Kind: kind}
		switch {
		case kind == SecondaryTime && !hasWidth:
			s.Width = 8
		case kind == SecondaryRandom && !hasWidth:
			s.Width = secondaryDefaultWidth
		case kind == SecondaryRandom:
			w, err := strconv.Atoi(width)
			if err != nil || w < 1 || w > secondaryMaxWidth {
				return nil, fmt.Errorf("--secondary %s: a random column's width is 1 to %d characters, not %q", item, secondaryMaxWidth, width)
			}
			s.Width = w
		default:
			return nil, fmt.Errorf("--secondary: %q is not random[:WIDTH] or time", item)
		}
		out = append(out, s)
	}
	if len(out) > maxSecondary {
		return nil, fmt.Errorf("--secondary: at most %d indexes, not %d", maxSecondary, len(out))
	}
	return out, nil
}

// String is the index as --secondary takes it.
func (s Secondary) String() string {
	if s.Kind == SecondaryRandom {
		return fmt.Sprintf("%s:%d", s.Kind, s.Width)
	}
	return s.Kind
}

// column is the i-th secondary index's column (from 1) and its definition.
func (s Secondary) column(i int) (name, def string) {
	name = fmt.Sprintf("sec%d", i)
	if s.Kind == SecondaryTime {
		return name, name + " timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp()"
	}
	// md5 gives 32 random hexadecimal characters; repeated for a wider column.
	return name, fmt.Sprintf("%s text NOT NULL DEFAULT pg_catalog.left(pg_catalog.repeat(pg_catalog.md5(pg_catalog.random()::pg_catalog.text), %d), %d)", name, (s.Width+31)/32, s.Width)
}

// secondarySuffix names the i-th secondary index: <table>_sec<i>_idx.
func secondarySuffix(i int) string { return fmt.Sprintf("_sec%d_idx", i) }

// secondaryColumns are the table's secondary columns' definitions, each
// with its leading comma.
func (t *Table) secondaryColumns() string {
	var b strings.Builder
	for i, s := range t.Secondary {
		_, def := s.column(i + 1)
		b.WriteString(", " + def)
	}
	return b.String()
}

// secondaryIndexes are the CREATE INDEX statements of the table's
// secondary indexes: a random column's unique (as an email's is) unless
// the table is partitioned (a unique index would need the partition
// column), a time column's plain.
func (t *Table) secondaryIndexes() []string {
	var out []string
	for i, s := range t.Secondary {
		col, _ := s.column(i + 1)
		unique := ""
		if s.Kind == SecondaryRandom && !t.TimePartitioned() && t.Partitions == 0 {
			unique = "UNIQUE "
		}
		out = append(out, fmt.Sprintf("CREATE %sINDEX %s%s ON %s (%s)", unique, t.Name, secondarySuffix(i+1), t.Qualified(), col))
	}
	return out
}
