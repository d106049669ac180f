package results

// Cluster is a cell on a distributed engine (Citus) read where its rows
// live: each worker's figures over the cell's shards on it, and each
// shard's rows, so that what happens on the workers (the key index's
// pages, splits, full-page images, WAL, CPU) and how evenly the rows
// spread (a hot shard) are the cell's evidence, not "unavailable" as they
// are from the coordinator.
type Cluster struct {
	// DistributedBy is the keyed table's distribution column (id: the
	// key itself; tenant_id: a tenant, the key local to it); Tenants the
	// tenants the rows were spread over and how (TenantSkew), when by tenant.
	DistributedBy string `json:"distributed_by"`
	// Replicated: the keyed table is a reference table, every node a copy
	// of all its rows (the rows are counted once, each copy checked).
	Replicated bool   `json:"replicated,omitempty"`
	Tenants    int    `json:"tenants,omitempty"`
	TenantSkew string `json:"tenant_skew,omitempty"`
	// Workers are the nodes holding the cell's shards, in pg_dist_node's order.
	Workers []Worker `json:"workers"`
	// Shards are the keyed table's shards, in shard id order.
	Shards []Shard `json:"shards"`
	// Skew is how unevenly the rows lie across the shards at the cell's
	// end; unavailable, with the reason, when a worker's shards could not be counted.
	Skew M[Skew] `json:"skew"`
	// Written is the rows the cell's tables took, counted on the workers
	// (a reference table's copies once): what the clients' are checked against.
	Written M[Tuples] `json:"written"`
	// Rounds are each round's inserts across the shards and the workers,
	// with what each worker spent in the round: the hot-shard evidence.
	Rounds []ClusterRound `json:"rounds,omitempty"`
}

// Worker is one worker's share of a cell.
type Worker struct {
	// Node is the worker as pg_dist_node names it (host:port).
	Node string `json:"node"`
	// Unreachable says why keybench could not read the worker at all
	// (no connection from where keybench runs, no right); its figures are
	// then unavailable with that reason.
	Unreachable string `json:"unreachable,omitempty"`
	// Shards is how many of the keyed table's shards it holds; Rows the
	// rows they hold at the cell's end.
	Shards int      `json:"shards"`
	Rows   M[int64] `json:"rows"`
	// Inserted is the rows its shards took during the cell (windows and
	// warm-ups: what its figures per row divide by).
	Inserted M[int64] `json:"inserted"`
	// Splits is the key index's page splits on the worker and how they
	// were counted (SplitsFrom: pg_walinspect's split records on 16+, or
	// the pages its shards' key indexes grew by, which a B-tree that
	// deletes nothing grows by exactly one per split).
	Splits       M[int64]   `json:"splits"`
	SplitsPerRow M[float64] `json:"splits_per_row"`
	SplitsFrom   string     `json:"splits_from,omitempty"`
	// Metrics are every figure keybench reads on one server, read on the
	// worker over the cell's shards (their per-row figures over Inserted),
	// with the key index's size and leaf density summed over its shards.
	Metrics Metrics `json:"metrics"`
}

// Shard is one shard of the keyed table.
type Shard struct {
	ID   int64  `json:"id"`
	Node string `json:"node"`
	// Rows it holds at the cell's end; Inserted the rows it took in each round.
	Rows     M[int64] `json:"rows"`
	Inserted []int64  `json:"inserted,omitempty"`
	// KeyIndexBytes and LeafDensity are its key index's.
	KeyIndexBytes M[int64]   `json:"key_index_bytes"`
	LeafDensity   M[float64] `json:"leaf_density"`
}

// Skew is how unevenly a count lies across its parts (shards or
// workers): the largest part over the mean (1: even; the share of the
// load the hottest part carries, over its fair share) and the
// coefficient of variation (standard deviation over mean).
type Skew struct {
	Parts       int     `json:"parts"`
	Total       int64   `json:"total"`
	Max         int64   `json:"max"`
	MaxOverMean float64 `json:"max_over_mean"`
	CV          float64 `json:"cv"`
}

// ClusterRound is one round of a cell on a cluster: its inserts across
// the shards and across the workers, and what each worker spent.
type ClusterRound struct {
	Round int `json:"round"`
	// Shards and Workers are the round's inserted rows' skew.
	Shards  M[Skew] `json:"shards"`
	Workers M[Skew] `json:"workers"`
	// PerWorker is each worker's share of the round, in Cluster.Workers' order.
	PerWorker []WorkerRound `json:"per_worker"`
}

// WorkerRound is one worker in one round.
type WorkerRound struct {
	Inserted M[int64] `json:"inserted"`
	// WALBytesPerS is the WAL the worker wrote per second of the round;
	// CPUCores its server's CPU seconds per second (a worker keybench can
	// see the processes of, on this machine).
	WALBytesPerS M[float64] `json:"wal_bytes_per_s"`
	CPUCores     M[float64] `json:"cpu_cores"`
}
