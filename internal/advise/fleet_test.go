package advise

import (
	"math"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/results"
)

// TestFleetRanksAcrossDatabases (issue 79): the fleet's list ranks every
// database's tables as one database ranks its own — the columns that run
// out first, the soonest whatever its database, then the keys that pay
// most — each entry pointing at its table; the tables that neither pay
// nor run out are counted by class, and a database not read has no entry.
func TestFleetRanksAcrossDatabases(t *testing.T) {
	now := time.Now().UTC()
	judged := func(tables ...Table) *Report {
		for i := range tables {
			runsOutTimes(&tables[i])
		}
		Judge(tables, Server{SharedBuffers: 128 << 20}, Sample{Seconds: 60}, nil)
		return &Report{Tables: tables}
	}
	serial := func() *Key {
		return &Key{Columns: []string{"id"}, Type: "integer", Made: "sequence", Correlation: results.Of(1.0)}
	}
	random := func() *Key {
		return &Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Correlation: results.Of(0.01)}
	}
	later := table("orders", serial(), 1<<20, 50)
	later.RunsOut = []FedColumn{fed("orders", math.MaxInt32-1_000_000, 50, now)} // about 5.6 hours
	sooner := table("tickets", serial(), 1<<20, 50)
	sooner.RunsOut = []FedColumn{fed("tickets", math.MaxInt32-30_000, 50, now)} // 10 minutes
	f := &Fleet{Databases: []FleetDatabase{
		{Database: "a", Report: judged(table("hot", random(), 1<<30, 100), later, table("plain", serial(), 1<<20, 10))},
		{Database: "gone", NotRead: "refused"},
		{Database: "b", Report: judged(table("hotter", random(), 1<<30, 1000), sooner)},
	}}
	f.Rank()
	want := []string{"b.tickets", "a.orders", "b.hotter", "a.hot"}
	if len(f.Tables) != len(want) {
		t.Fatalf("%d listed, want %d: %+v", len(f.Tables), len(want), f.Tables)
	}
	for i, w := range want {
		e := f.Tables[i]
		if got := f.Databases[e.Database].Database + "." + f.Table(e).Name; got != w || e.Place != i+1 || e.Class != f.Table(e).Verdict.Class {
			t.Errorf("place %d: %s (%+v), want %s", i+1, got, e, w)
		}
	}
	if f.Others[DoesNotPay] != 1 || len(f.Others) != 1 || f.NotRead() != 1 {
		t.Errorf("others %v, not read %d", f.Others, f.NotRead())
	}
}
