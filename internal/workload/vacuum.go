package workload

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/keybench/keybench/internal/results"
)

// VACUUM after a workload's deletes, timed and read from its report: the
// figures the delete and retention workloads keep of it.

// DeleteVacuum is the VACUUM after the deletes (VACUUM VERBOSE), before
// the evidence: its time, the dead entries it removed from the key index
// (the dead item identifiers it removed from the heap: an index keeps an
// entry for each until VACUUM, unless an index scan found it dead first)
// and the key index's pages it freed (newly deleted). The cell's
// key_index_bytes, leaf_density and bloat_ratio are the index as it left it.
type DeleteVacuum struct {
	Seconds         float64          `json:"seconds"`
	KeyIndexRemoved results.M[int64] `json:"key_index_entries_removed,omitzero"`
	KeyIndexFreed   results.M[int64] `json:"key_index_pages_deleted,omitzero"`
}

// vacuumDead and vacuumPages read VACUUM VERBOSE's report (PostgreSQL
// 15-18): the dead item identifiers it removed from the heap, whose entries
// it removed from every index, and an index's pages newly deleted.
var (
	vacuumDead  = regexp.MustCompile(`had (\d+) dead item identifiers removed`)
	vacuumPages = regexp.MustCompile(`index "([^"]+)": pages: \d+ in total, (\d+) newly deleted`)
)

// VacuumDeleted times VACUUM (VERBOSE) of the table and reads, from its
// report, what it did to the key index.
func VacuumDeleted(ctx context.Context, conn *pgx.Conn, t *Table) results.M[DeleteVacuum] {
	// VACUUM VERBOSE reports as notices: a connection of its own hears them.
	var report strings.Builder
	cfg := conn.Config().Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { report.WriteString(n.Message + "\n" + n.Detail + "\n") }
	vconn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return results.Unavailable[DeleteVacuum]("connecting to VACUUM: " + err.Error())
	}
	defer vconn.Close(context.Background())
	t0 := time.Now()
	_, err = vconn.Exec(ctx, "VACUUM (VERBOSE) "+t.Qualified())
	secs := time.Since(t0).Seconds()
	if err != nil {
		return results.Unavailable[DeleteVacuum](err.Error())
	}
	v := DeleteVacuum{Seconds: secs}
	names := KeyIndexNames(t)
	if len(names) == 0 {
		return results.Of(v)
	}
	key := names[0][strings.LastIndex(names[0], ".")+1:]
	text := report.String()
	v.KeyIndexRemoved = results.Of[int64](0) // no index scan: nothing to remove
	if m := vacuumDead.FindStringSubmatch(text); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		v.KeyIndexRemoved = results.Of(n)
	}
	v.KeyIndexFreed = results.Unavailable[int64]("VACUUM VERBOSE did not report the key index's pages")
	for _, m := range vacuumPages.FindAllStringSubmatch(text, -1) {
		if m[1] == key {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			v.KeyIndexFreed = results.Of(n)
		}
	}
	return results.Of(v)
}
