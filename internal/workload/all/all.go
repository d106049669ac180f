// Package all registers every workload keybench has: importing it (blank)
// is what makes them known to the plan, the runner and the report. A new
// workload is its own package under internal/workload and one line here.
package all

import (
	_ "github.com/keybench/keybench/internal/workload/bulk"       // bulk, bulk-index-after: a load, the key index during or after
	_ "github.com/keybench/keybench/internal/workload/deleterows" // delete: deletes rows by key, VACUUM after
	_ "github.com/keybench/keybench/internal/workload/fkinsert"   // fk-insert: inserts children referencing the keyed table
	_ "github.com/keybench/keybench/internal/workload/insert"     // insert: one row (or a batch) per transaction
	_ "github.com/keybench/keybench/internal/workload/insertread" // insert-read: an insert and a read per transaction
	_ "github.com/keybench/keybench/internal/workload/join"       // join: a parent and its children by key
	_ "github.com/keybench/keybench/internal/workload/lookup"     // lookup: reads by key, ranges, latest, counts
	_ "github.com/keybench/keybench/internal/workload/queue"      // queue, queue-fifo: producers and consumers
	_ "github.com/keybench/keybench/internal/workload/rangequery" // range-query: a time range through the key or created_at
	_ "github.com/keybench/keybench/internal/workload/retention"  // retention: time partitions dropped while inserts go on
	_ "github.com/keybench/keybench/internal/workload/script"     // script: your own SQL (--script FILE, pgbench -f)
	_ "github.com/keybench/keybench/internal/workload/update"     // update: updates rows by key
)
