// Package all is the catalog of every workload keybench has: each is a
// package of its own that registers itself (workload.Register) when
// imported here, and what needs the catalog — the plan (package scenario),
// the report's views — calls Workloads or Views, a dependency the import
// graph shows. A new workload is its own package under internal/workload
// and one line here.
package all

import (
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
	_ "github.com/keybench/keybench/internal/workload/bulk"       // bulk, bulk-index-after: a load, the key index during or after
	_ "github.com/keybench/keybench/internal/workload/deleterows" // delete: deletes rows by key, VACUUM after
	_ "github.com/keybench/keybench/internal/workload/fkinsert"   // fk-insert: inserts children referencing the keyed table
	_ "github.com/keybench/keybench/internal/workload/insert"     // insert: one row (or a batch) per transaction
	_ "github.com/keybench/keybench/internal/workload/insertread" // insert-read: an insert and a read per transaction
	_ "github.com/keybench/keybench/internal/workload/join"       // join: a parent and its children by key
	_ "github.com/keybench/keybench/internal/workload/lookup"     // lookup: reads by key, ranges, latest, counts
	_ "github.com/keybench/keybench/internal/workload/mix"        // mix: inserts, reads, pages, updates, deletes by weight
	_ "github.com/keybench/keybench/internal/workload/queue"      // queue, queue-fifo: producers and consumers
	_ "github.com/keybench/keybench/internal/workload/rangequery" // range-query: a time range through the key or created_at
	_ "github.com/keybench/keybench/internal/workload/retention"  // retention: time partitions dropped while inserts go on
	_ "github.com/keybench/keybench/internal/workload/script"     // script: your own SQL (--script FILE, pgbench -f)
	_ "github.com/keybench/keybench/internal/workload/update"     // update: updates rows by key
)

// Workloads are every workload, by name.
func Workloads() []workload.Meta { return workload.All() }

// Kinds are how each workload's cells read: the catalog a results file
// is read with (results.Read).
func Kinds() results.Kinds {
	out := results.Kinds{}
	for _, m := range workload.All() {
		out[m.Name] = m.Kind
	}
	return out
}

// Views are how each workload's cells are shown, by workload name (a
// workload this catalog does not hold reads as the zero View: the
// transactional columns).
func Views() present.Views {
	out := present.Views{}
	for _, m := range workload.All() {
		out[m.Name] = m.View
	}
	return out
}
