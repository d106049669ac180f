package workload

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/keybench/keybench/internal/results"
)

// How the server ran a workload's query, read from EXPLAIN after the window:
// the figures a read workload's summary keeps to explain its rate.

// DrawKeys sets a statement's first parameter to a key of pool at a position pick draws.
func DrawKeys(pool *KeyPool, pick *Picker) func([][]byte) {
	return func(p [][]byte) { p[0] = pool.Key(pick.Position()) }
}

// QueryPlan is how the server ran one of the cell's queries after the
// window (EXPLAIN (ANALYZE, BUFFERS) of the query with a key from the
// middle of the table): the plan's scan, its heap fetches (an index-only
// scan's visits to the heap) and the shared blocks it touched; on a
// partitioned table, the partitions it scanned.
type QueryPlan struct {
	Scan        string   `json:"scan"`
	Index       string   `json:"index,omitempty"`
	HeapFetches *float64 `json:"heap_fetches,omitempty"`
	Blocks      int64    `json:"shared_blocks"`
	Rows        float64  `json:"rows"`
	// Scanned are the relations the plan scanned (a partitioned table's
	// partitions, after pruning).
	Scanned int `json:"relations_scanned,omitempty"`
}

// ExplainQuery runs EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) of sql with params.
func ExplainQuery(ctx context.Context, conn *pgx.Conn, sql string, params [][]byte, formats []int16) results.M[QueryPlan] {
	res := conn.PgConn().ExecParams(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sql, params, nil, formats, nil).Read()
	if res.Err != nil {
		return results.Unavailable[QueryPlan](res.Err.Error())
	}
	if len(res.Rows) == 0 {
		return results.Unavailable[QueryPlan]("EXPLAIN returned no plan")
	}
	raw := res.Rows[0][0]
	var doc []struct {
		Plan PlanNode `json:"Plan"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc) == 0 {
		return results.Unavailable[QueryPlan](fmt.Sprintf("reading the plan: %v", err))
	}
	root := doc[0].Plan
	p := QueryPlan{Blocks: root.SharedHit + root.SharedRead, Rows: root.Rows}
	// The scan of the table: the deepest node that names it.
	scanned := map[string]bool{}
	var walk func(n *PlanNode)
	walk = func(n *PlanNode) {
		if n.Relation != "" && p.Scan == "" {
			p.Scan, p.Index = n.Type, n.Index
			p.HeapFetches = n.HeapFetches
		}
		if n.Relation != "" && !n.NeverExecuted() {
			scanned[n.Relation] = true
		}
		for i := range n.Plans {
			walk(&n.Plans[i])
		}
	}
	walk(&root)
	p.Scanned = len(scanned)
	return results.Of(p)
}

// NeverExecuted says the node did not run (a partition pruned at run time).
func (n *PlanNode) NeverExecuted() bool { return n.Loops != nil && *n.Loops == 0 }

type PlanNode struct {
	Type        string     `json:"Node Type"`
	Relation    string     `json:"Relation Name"`
	Index       string     `json:"Index Name"`
	Loops       *float64   `json:"Actual Loops"`
	HeapFetches *float64   `json:"Heap Fetches"`
	Rows        float64    `json:"Actual Rows"` // a mean over loops: fractional on PostgreSQL 18
	SharedHit   int64      `json:"Shared Hit Blocks"`
	SharedRead  int64      `json:"Shared Read Blocks"`
	Plans       []PlanNode `json:"Plans"`
}

// planText is a plan as the tables show it: the scan and its index, and
// the partitions it scanned of a partitioned table.
func (p QueryPlan) Text(partitions int) string {
	out := p.Scan
	if p.Index != "" {
		out += " using " + p.Index
	}
	if partitions > 0 {
		out += fmt.Sprintf(", %d of %d partitions", p.Scanned, partitions)
	}
	return out
}
