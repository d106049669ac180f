package keys

import (
	"strings"
	"testing"
	"time"
)

// TestLayoutParams: created-at= and partition= on a key spec, and the
// plan's --created-at and --partition-by under a key's own.
func TestLayoutParams(t *testing.T) {
	for raw, want := range map[string]Partitioning{
		"1d": {Every: 24 * time.Hour}, "time:6h": {Every: 6 * time.Hour}, "90m": {Every: 90 * time.Minute}, "1d12h": {Every: 36 * time.Hour},
		"100000rows": {Rows: 100_000}, "count:5000": {Rows: 5000}, "none": {},
	} {
		got, err := ParsePartitioning(raw)
		if err != nil || got != want {
			t.Errorf("ParsePartitioning(%q) = %+v, %v", raw, got, err)
		}
	}
	for _, bad := range []string{"1s", "0d", "-1h", "rows", "0rows", "lots", "400d", "1e3rows"} {
		if _, err := ParsePartitioning(bad); err == nil {
			t.Errorf("ParsePartitioning(%q) accepted", bad)
		}
	}
	s, err := Parse("uuidv7:created-at=indexed:partition=1d")
	if err != nil || s.CreatedAt != CreatedAtIndexed || s.Partition.Every != 24*time.Hour || s.PartitionColumn() != "id" || s.String() != "uuidv7:created-at=indexed:partition=1d" {
		t.Fatalf("%+v %v", s, err)
	}
	if err := s.ApplyLayout(CreatedAtNone, Partitioning{Every: time.Hour}); err != nil || s.CreatedAt != CreatedAtIndexed || s.Partition.Every != 24*time.Hour {
		t.Errorf("the plan's layout over the key's own: %+v %v", s, err)
	}
	s, _ = Parse("uuidv4")
	if err := s.ApplyLayout(CreatedAtColumn, Partitioning{Every: time.Hour}); err != nil || s.PartitionColumn() != "created_at" {
		t.Errorf("uuidv4 under --created-at column --partition-by time:1h: %v %q", err, s.PartitionColumn())
	}
	s, _ = Parse("uuidv4")
	if err := s.ApplyLayout("", Partitioning{Every: time.Hour}); err == nil || !strings.Contains(err.Error(), "created_at") {
		t.Errorf("uuidv4 partitioned by time without created_at: %v", err)
	}
	for _, bad := range []string{"uuidv4:partition=1d", "uuidv7:partition=1d:index=unique", "uuidv7:partition=1d:prefill=uuidv4", "uuidv7:created-at=yes", "bigint:partition=soon"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	for d, want := range map[time.Duration]string{time.Hour: "1h", 90 * time.Minute: "1h30m", 48 * time.Hour: "2d", 90 * time.Second: "1m30s", 0: "0s", 36 * time.Hour: "36h"} {
		if got := FormatSpan(d); got != want {
			t.Errorf("FormatSpan(%s) = %q, want %q", d, got, want)
		}
	}
	if s, _ := Parse("bigint:partition=1h"); s.PartitionColumn() != "id" || !s.OrdersByTime() {
		t.Error("a counter is partitioned on its values")
	}
}
