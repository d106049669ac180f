// Package deleterows is the delete workload: each transaction deletes rows
// by key, drawn over insertion order or oldest first, and the VACUUM of the
// dead key index entries is timed after the window.
package deleterows

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/present"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload"
)

// delete removes existing rows by key, as an application expires or
// purges them: each transaction deletes one row (or batch rows) drawn over
// insertion order — uniform, recent, zipf, or oldest (retention: the
// oldest rows first, each client taking the next ones). What users ask of
// it is measured per key: the rows deleted per second, the blocks each
// delete read (blocks_per_txn: a random key's delete reads a leaf page of
// its own, an ordered key's oldest rows share theirs), and, timed after
// the window, the VACUUM that removes the key index's dead entries: how
// many, how many index pages it freed, and the index's size and leaf
// density after it.
type deleteLoad struct {
	s     workload.Setup
	batch int
	dist  workload.ReadDist
	pool  *workload.KeyPool
	// oldest is the table's oldest keys in insertion order, and next the
	// position the next oldest-first delete takes (shared by the clients).
	oldest [][]byte
	next   atomic.Int64
	sum    *DeleteSummary
}

// readOldest draws the oldest rows first, in insertion order: retention.
const readOldest = "oldest"

func init() {
	workload.Register(workload.Meta{
		Name: "delete",
		Description: "each transaction deletes one existing row (or batch rows) by key, drawn over insertion order (read-dist): " +
			"uniform, recent, zipf, or oldest (retention: the oldest rows first); VACUUM of the dead key index entries timed after the window",
		Kind: deleteKind, View: deleteView,
		New:  func() workload.Workload { return &deleteLoad{} },
		Bare: workload.Bare{Rows: 200_000},
		Accepts: func(s *keys.Spec) string {
			if s.Index == keys.IndexNone || s.Index == keys.IndexBrin {
				return "deleting a row by its key needs an index that finds it (index=" + string(s.Index) + " scans the table)"
			}
			return ""
		},
	})
}

func (d *deleteLoad) Options() []workload.Option {
	d.dist.ZipfS = workload.DefaultZipfS
	return []workload.Option{
		workload.Int("batch", &d.batch, 1, 1, 1000, "rows per delete transaction (DELETE ... WHERE id IN (...))"),
		workload.Choice("read-dist", &d.dist.Kind, workload.ReadUniform, append(append([]string(nil), workload.ReadDists...), readOldest),
			"which rows are deleted, over insertion order: uniform, recent (90% among the newest recent-rows), zipf, or oldest (retention: oldest first)").Variants(),
		workload.Float("recent-rows", &d.dist.RecentRows, workload.DefaultRecentRows, 0, 1, true,
			"the newest share of the rows a recent distribution favours").Only(func() bool { return d.dist.Kind == workload.ReadRecent }),
	}
}

func (d *deleteLoad) Configure(s workload.Setup) error {
	d.s = s
	return workload.DrawnRows("delete", "deletes rows", s)
}

func (d *deleteLoad) Tables(at workload.Place, key *keys.Resolved) []*workload.Table {
	return []*workload.Table{workload.KeyedTable(at, key, d.s)}
}

// deleteOldestMax bounds the oldest keys a cell holds in memory to delete.
const deleteOldestMax = 1_000_000

func (d *deleteLoad) Hooks() workload.Hooks {
	return workload.Hooks{
		PostLoad: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			t := tables[0]
			if d.dist.Kind != readOldest {
				return workload.LoadKeyPool(ctx, conn, t, d.s, &d.pool)
			}
			// A prefill writes the heap in insertion order: its oldest rows come first in ctid order.
			var err error
			d.oldest, err = workload.KeysOf(ctx, conn, t.Key.WireFormat(), fmt.Sprintf("SELECT id FROM %s ORDER BY ctid LIMIT %d", t.Qualified(), min(d.s.Rows, deleteOldestMax)))
			if err == nil && len(d.oldest) == 0 {
				err = fmt.Errorf("%s holds no row to delete", t.Qualified())
			}
			return err
		},
		// Before the evidence, whose REINDEX would remove the dead entries:
		// the evidence then reads the key index as this VACUUM left it.
		BeforeEvidence: func(ctx context.Context, conn *pgx.Conn, tables []*workload.Table) error {
			if d.sum != nil {
				d.sum.Vacuum = workload.VacuumDeleted(ctx, conn, tables[0])
			}
			return nil
		},
	}
}

const deleteStmt = "kb_delete"

func (d *deleteLoad) NewWorker(ctx context.Context, c *pgx.Conn, tables []*workload.Table, _ keys.Generator, id int) (workload.Worker, error) {
	t, conn := tables[0], c.PgConn()
	ph := make([]string, d.batch)
	params, formats := make([][]byte, d.batch), make([]int16, d.batch)
	for i := range ph {
		ph[i], formats[i] = fmt.Sprintf("$%d", i+1), t.Key.WireFormat()
	}
	var set func([][]byte)
	if d.dist.Kind == readOldest {
		set = d.nextOldest
	} else {
		pick := d.dist.NewPicker(d.pool.Rows, rand.New(rand.NewPCG(uint64(d.s.Seed), uint64(id)+1)))
		set = func(p [][]byte) {
			for i := range p {
				p[i] = d.pool.Key(pick.Position())
			}
		}
	}
	deleted := func(n int64, err error) (driver.Work, error) { return driver.Work{Deleted: n}, err }
	return workload.PrepareStmtWorker(ctx, conn, "delete", deleteStmt, fmt.Sprintf("DELETE FROM %s WHERE id IN (%s)", t.Qualified(), strings.Join(ph, ", ")),
		params, formats, set, deleted)
}

// nextOldest sets p to the next oldest keys not yet taken by any client;
// past the keys held, it takes the last one again (deleting nothing).
func (d *deleteLoad) nextOldest(p [][]byte) {
	at := d.next.Add(int64(len(p))) - int64(len(p))
	for i := range p {
		p[i] = d.oldest[min(at+int64(i), int64(len(d.oldest))-1)]
	}
}

// DeleteSummary is a delete cell's own figures: how its rows were drawn,
// the rows its window deleted against the rows it asked for, and the
// VACUUM of the dead key index entries after it.
type DeleteSummary struct {
	results.IsSummary
	Draw    string                           `json:"delete_draw"`
	Batch   int                              `json:"delete_batch"`
	Deleted int64                            `json:"rows_deleted"`
	Asked   int64                            `json:"rows_asked"`
	Vacuum  results.M[workload.DeleteVacuum] `json:"delete_vacuum,omitzero"`
}

func (d *deleteLoad) Summarize(o *workload.Outcome) error {
	s := &DeleteSummary{Batch: d.batch, Deleted: o.Result.Work.Deleted, Asked: o.Result.Txns * int64(d.batch),
		Vacuum: results.Unavailable[workload.DeleteVacuum]("not run: the cell ended before")}
	switch {
	case d.pool != nil:
		s.Draw = d.dist.Describe(d.pool.Rows)
	case d.dist.Kind == readOldest:
		s.Draw = fmt.Sprintf("oldest first: the %d oldest rows in insertion order, each client taking the next", len(d.oldest))
	}
	o.Cell.Metrics.Summary = s
	d.sum = s
	return nil
}

// deleteKind is how delete cells read: the rate, the rows deleted, the
// blocks each delete read, and the VACUUM after them.
var deleteKind = results.Kind{
	RateUnit: "delete txns/s", RateLabel: "delete transactions per second",
	NewSummary: func() results.Summary { return &DeleteSummary{} },
}

// deleteView is how delete cells are shown.
var deleteView = present.View{
	Columns: []present.Column{
		present.Rate, present.RateColumn, present.P99Column,
		workload.SummaryColumn("rows deleted (asked)", false, func(r *results.Results, g *results.Group, s *DeleteSummary) string {
			return fmt.Sprintf("%d (%d)", s.Deleted, s.Asked)
		}),
		present.BlocksColumn("blocks / delete (read)", results.BlocksAndReads),
		workload.SummaryColumn("key index dead entries, pages freed by VACUUM", false, func(r *results.Results, g *results.Group, s *DeleteSummary) string {
			return s.Vacuum.Text(func(v workload.DeleteVacuum) string {
				return v.KeyIndexRemoved.Text(func(n int64) string { return strconv.FormatInt(n, 10) }) + ", " +
					v.KeyIndexFreed.Text(func(n int64) string { return strconv.FormatInt(n, 10) })
			})
		}),
		workload.SummaryColumn("VACUUM", false, func(r *results.Results, g *results.Group, s *DeleteSummary) string {
			return s.Vacuum.Text(func(v workload.DeleteVacuum) string { return fmt.Sprintf("%.2f s", v.Seconds) })
		}),
		{Figure: results.Figure{Header: "key index after (leaf density)"}, Text: func(r *results.Results, g *results.Group) string {
			m := r.Last(g).Metrics
			return m.KeyIndexBytes.Text(results.Bytes) + " (" + m.LeafDensity.Text(func(d float64) string { return fmt.Sprintf("%.0f%%", d*100) }) + ")"
		}},
	},
	Notes: present.Always("rows deleted (asked): a drawn row already deleted deletes nothing; blocks / delete: shared blocks of the table and its indexes per delete, " +
		"read: from outside the cache (pg_statio, warm-up included); dead entries: the key index's entries VACUUM removed after the window (VACUUM VERBOSE), " +
		"pages freed: its index pages VACUUM deleted; key index after: its size and leaf density after that VACUUM (pgstatindex);"),
}
