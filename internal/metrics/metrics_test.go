package metrics

import (
	"reflect"
	"testing"
)

func TestRelationRole(t *testing.T) {
	for rel, want := range map[string]string{
		"kb_cell": "table", "kb_cell_pkey": "key_index", "kb_cell_id_key": "key_index", "kb_cell_id_idx": "key_index",
		"kb_cell_data_idx": "data_index", "pg_toast_16384": "toast", "pg_toast_16384_index": "toast", "kb_cellar": "other:kb_cellar",
		"kb_cell_p0": "table", "kb_cell_p17": "table", "kb_cell_p17_pkey": "key_index", "kb_cell_p3_id_idx": "key_index",
	} {
		if got := relationRole(rel, "kb_cell"); got != want {
			t.Errorf("relationRole(%s) = %s, want %s", rel, got, want)
		}
	}
}

func TestTopWaits(t *testing.T) {
	got := topWaits(map[string]int64{"CPU": 3, "IO:DataFileRead": 10, "LWLock:WALWrite": 3})
	if want := []string{"IO:DataFileRead", "CPU", "LWLock:WALWrite"}; !reflect.DeepEqual(got, want) {
		t.Errorf("topWaits = %v, want %v", got, want)
	}
}
