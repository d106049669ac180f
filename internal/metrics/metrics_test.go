package metrics

import (
	"reflect"
	"testing"
)

func TestRole(t *testing.T) {
	env := &Env{Relations: map[string]string{"kb_cell": "table", "kb_cell_pkey": "key_index"}}
	for rel, want := range map[string]string{"kb_cell": "table", "kb_cell_pkey": "key_index", "pg_toast_16384": "toast",
		"pg_toast_16384_index": "toast", "kb_cellar": "other"} {
		if got := env.role(rel); got != want {
			t.Errorf("role(%s) = %s, want %s", rel, got, want)
		}
	}
}

func TestTopWaits(t *testing.T) {
	got := topWaits(map[string]int64{"CPU": 3, "IO:DataFileRead": 10, "LWLock:WALWrite": 3})
	if want := []string{"IO:DataFileRead", "CPU", "LWLock:WALWrite"}; !reflect.DeepEqual(got, want) {
		t.Errorf("topWaits = %v, want %v", got, want)
	}
}
