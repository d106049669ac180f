package workload

import (
	"reflect"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/keys"
)

// TestSecondaryIndexes: --secondary random:40,time gives the keyed table
// two columns of their own, a 40-character random text under a unique
// index and a timestamp under a plain one, each attributed to the
// collectors as a secondary index; bad lists are refused.
func TestSecondaryIndexes(t *testing.T) {
	sec, err := ParseSecondary("random:40,time")
	if err != nil || !reflect.DeepEqual(sec, []Secondary{{SecondaryRandom, 40}, {SecondaryTime, 8}}) {
		t.Fatalf("ParseSecondary = %+v, %v", sec, err)
	}
	key := &keys.Resolved{Spec: &keys.Spec{Index: keys.IndexPK, Strategy: &keys.Strategy{Name: "bigint"}}}
	tab := &Table{Schema: "s", Name: CellTable, Key: key, Secondary: sec}
	create := strings.Join(createStatements(tab), ";")
	for _, want := range []string{"sec1 text NOT NULL DEFAULT pg_catalog.left(pg_catalog.repeat(pg_catalog.md5(pg_catalog.random()::pg_catalog.text), 2), 40)", "sec2 timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp()"} {
		if !strings.Contains(create, want) {
			t.Errorf("CREATE lacks %q: %s", want, create)
		}
	}
	ix := IndexStatements(tab)
	if len(ix) != 3 || ix[1] != "CREATE UNIQUE INDEX kb_cell_sec1_idx ON s.kb_cell (sec1)" || ix[2] != "CREATE INDEX kb_cell_sec2_idx ON s.kb_cell (sec2)" {
		t.Errorf("indexes %q", ix)
	}
	rel := Relations([]*Table{tab})
	if rel["kb_cell_sec1_idx"] != RoleSecondaryIndex || rel["kb_cell_sec2_idx"] != RoleSecondaryIndex {
		t.Errorf("relations %v", rel)
	}
	for _, bad := range []string{"random:0", "random:x", "email", "time:8", "random,random,random,random,random,random,random,random,time"} {
		if _, err := ParseSecondary(bad); err == nil {
			t.Errorf("--secondary %s accepted", bad)
		}
	}
}
