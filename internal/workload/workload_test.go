package workload

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/keys"
)

func TestDataValueIsAPermutation(t *testing.T) {
	for _, n := range []int64{1, 2, 7, 1000, 65536, 100_003} {
		seen := make([]bool, n+1)
		scattered := false
		for i := int64(1); i <= n; i++ {
			v := DataValue(i, n)
			if v < 1 || v > n || seen[v] {
				t.Fatalf("n=%d: DataValue(%d) = %d repeats or is out of range", n, i, v)
			}
			seen[v] = true
			if v != i {
				scattered = true
			}
		}
		if n > 2 && !scattered {
			t.Errorf("n=%d: values come in row order", n)
		}
	}
	// The SQL twin is the same expression.
	if got := dataValueSQL(1000); got != fmt.Sprintf("(i %% 1000) * %d %% 1000 + 1", scatterPrime) {
		t.Errorf("dataValueSQL = %s", got)
	}
}

func TestPayloadValue(t *testing.T) {
	if PayloadValue(1, 0) != nil {
		t.Error("zero-length payload is not NULL")
	}
	// md5('1') = c4ca4238a0b923820dcc509a6f75849b, repeated and cut as payloadSQL does.
	if got := PayloadValue(1, 40).(string); got != "c4ca4238a0b923820dcc509a6f75849bc4ca4238" {
		t.Errorf("payloadValue(1, 40) = %s", got)
	}
}

// A history clock advances one row's time per reading and ends where it
// was asked to (issue 10, 8a: a prefill of clock-dependent keys stands for
// a history, not for the seconds it took).
func TestHistoryClock(t *testing.T) {
	end := time.Unix(1_800_000_000, 0)
	h := NewHistory(2_000_000, 0, end)
	if got := h.Span(); got != 2000*time.Second || !h.Start.Equal(end.Add(-2000*time.Second)) {
		t.Fatalf("span %s, start %s", got, h.Start)
	}
	clock := h.Clock()
	first, second := clock(), clock()
	if !first.Equal(h.Start) || second.Sub(first) != time.Millisecond {
		t.Errorf("first %s, second %s: want the start and 1 ms later at %g rows/s", first, second, h.RowsPerS)
	}
	for i := 2; i < 2_000_000; i++ {
		clock()
	}
	if last := clock(); !last.Equal(end) {
		t.Errorf("the 2,000,001st reading is %s, want the end %s", last, end)
	}
	// A history of a given span: ten days of 200,000 rows.
	h = NewHistory(200_000, 10*24*time.Hour, end)
	if !h.Start.Equal(end.Add(-240*time.Hour)) || !h.End().Equal(end) {
		t.Errorf("a 10-day history: %s to %s", h.Start, h.End())
	}
	// RowAt is the first row made at or after a time: a counter's value there.
	for _, i := range []int64{1, 2, 19_999, 20_000, 20_001, 199_999, 200_000} {
		if got := h.RowAt(h.At(i)); got != i {
			t.Errorf("RowAt(At(%d)) = %d", i, got)
		}
		if got := h.RowAt(h.At(i).Add(time.Nanosecond)); got != i+1 {
			t.Errorf("RowAt(At(%d)+1ns) = %d", i, got)
		}
	}
	if h.RowAt(h.Start.Add(-time.Hour)) != 1 || h.RowAt(end.Add(time.Hour)) != 200_001 {
		t.Errorf("RowAt outside the history: %d, %d", h.RowAt(h.Start.Add(-time.Hour)), h.RowAt(end.Add(time.Hour)))
	}
}

// Every relation of a cell's tables has its role, partitions and their
// indexes counting as the table's, and a workload's own table as its role.
func TestRelations(t *testing.T) {
	key := &keys.Resolved{Spec: &keys.Spec{Index: keys.IndexPK}}
	keyed := &Table{Schema: "s", Name: CellTable, Key: key, DataIndex: true}
	parts := &Table{Schema: "s", Name: CellTable, Key: &keys.Resolved{Spec: &keys.Spec{Index: keys.IndexBtree}}, Partitions: 2}
	own := OwnTable(Place{"s", CellTable}, "child", "child", "parent_id uuid", Index{Suffix: "parent_idx", Columns: "parent_id"})
	for _, tc := range []struct {
		tables []*Table
		want   map[string]string
	}{
		{[]*Table{keyed, own}, map[string]string{"kb_cell": "table", "kb_cell_pkey": "key_index", "kb_cell_data_idx": "data_index",
			"kb_cell_child": "child", "kb_cell_child_parent_idx": "child_index"}},
		{[]*Table{parts}, map[string]string{"kb_cell": "table", "kb_cell_p0": "table", "kb_cell_p1": "table",
			"kb_cell_p0_id_idx": "key_index", "kb_cell_p1_id_idx": "key_index"}},
	} {
		if got := Relations(tc.tables); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Relations = %v, want %v", got, tc.want)
		}
	}
	if got := IndexStatements(own); len(got) != 1 || got[0] != "CREATE INDEX kb_cell_child_parent_idx ON s.kb_cell_child (parent_id)" {
		t.Errorf("own table's indexes: %q", got)
	}
	if got := LeafTables([]*Table{parts, own}); !reflect.DeepEqual(got, []string{"kb_cell_p0", "kb_cell_p1", "kb_cell_child"}) {
		t.Errorf("LeafTables = %v", got)
	}
}

func TestPlaceOf(t *testing.T) {
	if p := PlaceOf("s", 1); p.Table != CellTable {
		t.Errorf("the first place is %s", p.Table)
	}
	if p := PlaceOf("s", 3); p.Table != "kb_cell3" {
		t.Errorf("the third place is %s", p.Table)
	}
}

// TestDistributeStatement: a keyed table is sharded on its key with the
// asked shard count, a child table on its parent column in its parent's
// shards (Citus refuses a shard count beside colocate_with), and a table
// with no column to shard on is refused.
func TestDistributeStatement(t *testing.T) {
	at := PlaceOf("keybench", 2)
	k := &keys.Resolved{Spec: &keys.Spec{}}
	parent := KeyedTable(at, k, Setup{})
	got, err := DistributeStatement(parent, 32)
	if want := "SELECT create_distributed_table('keybench.kb_cell2', 'id', colocate_with => 'none', shard_count => 32)"; err != nil || got != want {
		t.Errorf("parent: %q %v, want %q", got, err, want)
	}
	if got, _ := DistributeStatement(parent, 0); got != "SELECT create_distributed_table('keybench.kb_cell2', 'id', colocate_with => 'none')" {
		t.Errorf("default shard count: %q", got)
	}
	spec, err := keys.Parse("bigint")
	if err != nil {
		t.Fatal(err)
	}
	child := ChildTable(at, &keys.Resolved{Spec: spec})
	got, err = DistributeStatement(child, 32)
	if want := "SELECT create_distributed_table('keybench.kb_cell2_child', 'parent_id', colocate_with => 'keybench.kb_cell2')"; err != nil || got != want {
		t.Errorf("child: %q %v, want %q", got, err, want)
	}
	ref := KeyedTable(at, k, Setup{})
	ref.Reference = true
	if got, _ := DistributeStatement(ref, 32); got != "SELECT create_reference_table('keybench.kb_cell2')" {
		t.Errorf("reference: %q", got)
	}
	if _, err := DistributeStatement(OwnTable(at, "x", "x", "a int"), 4); err == nil {
		t.Error("a table without a distribution column was distributed")
	}
}
