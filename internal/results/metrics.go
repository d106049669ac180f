package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Metrics is what the server showed of a cell (package metrics collects
// it), and the workload's own summary of its cell. In results.json they are
// one object, "metrics", whose names are stable: the collectors' below, and
// the summary's own (a load's load_rate_per_chunk, a queue's queue object).
type Metrics struct {
	// Sizes at the end of the cell; a partitioned table's are its partitions' sums.
	TableBytes M[int64] `json:"table_bytes,omitzero"` // heap with its maps and TOAST
	ToastBytes M[int64] `json:"toast_bytes,omitzero"`
	IndexBytes M[int64] `json:"index_bytes,omitzero"`
	TotalBytes M[int64] `json:"total_bytes,omitzero"`

	// The key index: size, bloat (size / size after REINDEX), pgstatindex's leaf figures.
	KeyIndexBytes             M[int64]   `json:"key_index_bytes,omitzero"`
	IndexBytesAfterReindex    M[int64]   `json:"index_bytes_after_reindex,omitzero"`
	KeyIndexBytesAfterReindex M[int64]   `json:"key_index_bytes_after_reindex,omitzero"`
	BloatRatio                M[float64] `json:"bloat_ratio,omitzero" kb:"ratio"`
	// KeyIndexGrowthPerRow is the key index's growth over the cell (its
	// size at the end less its size when the window began) per inserted
	// row: the bytes each new key costs, splits and half-empty pages
	// included; below zero where the cell removed more than it added (a
	// retention that drops partitions).
	KeyIndexGrowthPerRow M[float64] `json:"key_index_growth_per_row,omitzero" kb:"signed"`
	// CacheBytes is the shared_buffers the cell ran with; the key index's
	// size over it (its mean over the window: halfway between its size
	// when the window began and at the end) and the table's (at the end)
	// are what drive a key's cost (a projection to another scale reads
	// them, not row counts).
	CacheBytes         M[int64]   `json:"cache_bytes,omitzero"`
	KeyIndexCacheRatio M[float64] `json:"key_index_cache_ratio,omitzero" kb:"ratio"`
	TableCacheRatio    M[float64] `json:"table_cache_ratio,omitzero" kb:"ratio"`
	LeafDensity        M[float64] `json:"leaf_density,omitzero" kb:"share"`
	LeafFragmentation  M[float64] `json:"leaf_fragmentation,omitzero" kb:"share"`
	LeafPages          M[int64]   `json:"leaf_pages,omitzero"`

	// WAL over the cell (pg_stat_wal), per inserted row, and its full-page
	// images by relation role (pg_walinspect).
	WALRecords        M[int64]            `json:"wal_records,omitzero"`
	WALFPI            M[int64]            `json:"wal_fpi,omitzero"`
	WALBytes          M[int64]            `json:"wal_bytes,omitzero"`
	WALBytesPerRow    M[float64]          `json:"wal_bytes_per_row,omitzero"`
	WALFPIPerRow      M[float64]          `json:"wal_fpi_per_row,omitzero"`
	WALRecordsPerRow  M[float64]          `json:"wal_records_per_row,omitzero"`
	WALFPIByRelation  M[map[string]int64] `json:"wal_fpi_by_relation,omitzero"`
	KeyIndexFPIPerRow M[float64]          `json:"key_index_fpi_per_row,omitzero"`
	// SteadyWAL is the WAL and full-page images per row of a server whose
	// checkpoints are minutes apart, where the figures above are those of
	// rounds that each start at a checkpoint (metrics.FirstTouches).
	SteadyWAL M[SteadyWAL] `json:"steady_wal,omitzero"`

	// B-tree page splits of the key index over the cell (pg_walinspect's
	// SPLIT_L, SPLIT_R and NEWROOT records), and splits per inserted row.
	BtreeSplits       M[BtreeSplits] `json:"btree_splits,omitzero"`
	BtreeSplitsPerRow M[float64]     `json:"btree_splits_per_row,omitzero"`
	// BlocksPerTxn is the shared blocks found in the cache (hit) and read
	// from outside it (read) per transaction, for the cell's tables and
	// their indexes: pg_statio_user_tables' deltas over the cell's
	// sessions (warm-up included) over the transactions of that time.
	BlocksPerTxn M[BlocksPerTxn] `json:"blocks_per_txn,omitzero"`

	// Tuples are the rows the cell's sessions wrote, by kind (pg_stat_user_tables).
	Tuples M[Tuples] `json:"tuples,omitzero"`

	// Replication is what the cell's WAL cost each streaming standby
	// (pg_stat_replication on the primary).
	Replication M[[]Standby] `json:"replication,omitzero"`

	Checkpoints M[Checkpoints] `json:"checkpoints,omitzero"`
	IO          M[IO]          `json:"io,omitzero"`
	// DatabaseIOMS is, before PostgreSQL 16 (no pg_stat_io), the time the
	// database's backends spent reading and writing blocks
	// (pg_stat_database's blk_read_time and blk_write_time, track_io_timing)
	// and the WAL's writes and flushes (pg_stat_wal, track_wal_io_timing):
	// the IO part of what a transaction cost the server there.
	DatabaseIOMS M[float64] `json:"database_io_ms,omitzero"`
	// ServerIO is the server's IO as counts, whatever the timing settings:
	// what every backend read from outside shared buffers, wrote and
	// extended, and the WAL's flushes (the work a key made the disk do).
	ServerIO M[ServerIO] `json:"server_io,omitzero"`
	Blocks   M[Blocks]   `json:"blocks,omitzero"`
	Disk     M[Disk]     `json:"disk,omitzero"`
	CPU      M[CPU]      `json:"cpu,omitzero"`

	// What the sampler saw in the window, and what it cost.
	Sampling    M[Sampling]    `json:"sampling,omitzero"`
	WaitEvents  M[WaitEvents]  `json:"wait_events,omitzero"`
	BufferCache M[BufferCache] `json:"buffercache,omitzero"`
	// SizesOverTime samples the sizes of the cell's relations by role
	// during the window (with the buffer cache's period).
	SizesOverTime M[[]SizeSample] `json:"sizes_over_time,omitzero"`
	// KeyBytes is the mean size of the key as the table stores it
	// (pg_column_size over a sample of its rows): the catalog's bytes,
	// measured.
	KeyBytes M[float64] `json:"key_bytes,omitzero"`
	// Partitions are a partitioned table's partitions at the end of the
	// cell, oldest first: each one's rows and sizes.
	Partitions M[[]PartitionSize] `json:"partitions,omitzero"`

	// Summary is the workload's own summary of the cell (nil when it has none).
	Summary Summary `json:"-"`
}

// Checkpoints counts the checkpoints during the cell.
type Checkpoints struct {
	Timed     int64 `json:"timed"`
	Requested int64 `json:"requested"`
	Total     int64 `json:"total"`
}

// IO is pg_stat_io over the cell (PostgreSQL 16+), for relations, summed
// over all backends and over client backends. In results.json the counts
// are flat: all_reads … all_fsyncs, clients_reads … clients_fsyncs.
type IO struct {
	Source  string   `json:"source"`
	All     IOCounts `json:"-"`
	Clients IOCounts `json:"-"`
	// Set when the clients touched any block.
	ClientsHitRatio    M[float64] `json:"clients_hit_ratio,omitzero" kb:"share"`
	ClientsReadsPerRow M[float64] `json:"clients_reads_per_row,omitzero"`
	// ClientsReadMS is the time client backends spent reading blocks from
	// outside shared_buffers (pg_stat_io read_time, track_io_timing), and
	// ClientsMSPerRead that over their reads: what one such read cost on
	// the run's server (the OS page cache's or the disk's).
	ClientsReadMS    M[float64] `json:"clients_read_ms,omitzero"`
	ClientsMSPerRead M[float64] `json:"clients_ms_per_read,omitzero"`
	// ClientsIOMS is the time client backends spent in relation IO (reads,
	// writes, extends, fsyncs: pg_stat_io with track_io_timing), WALIOMS the
	// WAL's writes and flushes (the client backends' from pg_stat_io on 18,
	// pg_stat_wal's whole cluster before; track_wal_io_timing): the IO part
	// of what a transaction cost the server.
	ClientsIOMS M[float64] `json:"clients_io_ms,omitzero"`
	WALIOMS     M[float64] `json:"wal_io_ms,omitzero"`
	// WALFsyncs are the WAL flushes of the cell (pg_stat_io's wal object on
	// 18, pg_stat_wal.wal_sync before): commits share a flush when they
	// wait together (group commit).
	WALFsyncs M[int64] `json:"wal_fsyncs,omitzero"`
}

// ServerIO is what every process of the server did to the disk, counted:
// blocks read into shared buffers from outside them, blocks written out
// of them (a checkpoint's, the background writer's, a backend's) and new
// blocks that extended a relation, and the WAL's flushes. Source says
// which views counted them (pg_stat_io on 16 and later; before it
// pg_stat_database's blks_read, pg_stat_bgwriter's buffers and
// pg_stat_wal's wal_sync).
type ServerIO struct {
	Source     string `json:"source"`
	Reads      int64  `json:"reads"`
	Writes     int64  `json:"writes"`
	Extends    int64  `json:"extends"`
	WALFlushes int64  `json:"wal_flushes"`
}

// Hits and Reads are the blocks of the table, its indexes and TOAST found
// in the cache and read from outside it.
func (b Blocks) Hits() int64  { return b.HeapHit + b.IdxHit + b.ToastHit }
func (b Blocks) Reads() int64 { return b.HeapRead + b.IdxRead + b.ToastRead }

// IOCounts are pg_stat_io's counts: reads, writes, extends, hits, evictions, fsyncs.
type IOCounts [6]int64

// ioCountNames name IOCounts in results.json, after all_ or clients_.
var ioCountNames = [6]string{"reads", "writes", "extends", "hits", "evictions", "fsyncs"}

// Reads and Hits are the counts the summaries use.
func (c IOCounts) Reads() int64 { return c[0] }
func (c IOCounts) Hits() int64  { return c[3] }

type ioJSON IO

// MarshalJSON writes the counts flat beside the other fields.
func (io IO) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(ioJSON(io))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for i, n := range ioCountNames {
		m["all_"+n], _ = json.Marshal(io.All[i])
		m["clients_"+n], _ = json.Marshal(io.Clients[i])
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the flat counts back.
func (io *IO) UnmarshalJSON(b []byte) error {
	var v ioJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var counts map[string]int64
	_ = json.Unmarshal(b, &counts) // the non-count fields fail to decode as int64 and are skipped
	*io = IO(v)
	for i, n := range ioCountNames {
		io.All[i], io.Clients[i] = counts["all_"+n], counts["clients_"+n]
	}
	return nil
}

// Blocks is pg_statio_user_tables over the cell for its table.
type Blocks struct {
	HeapRead  int64 `json:"heap_blks_read"`
	HeapHit   int64 `json:"heap_blks_hit"`
	IdxRead   int64 `json:"idx_blks_read"`
	IdxHit    int64 `json:"idx_blks_hit"`
	ToastRead int64 `json:"toast_blks_read"`
	ToastHit  int64 `json:"toast_blks_hit"`
}

// BtreeSplits counts the key index's page splits: a left or right split
// (SPLIT_L, SPLIT_R: the new item went to the left or the right half) and
// the new roots the splits made (the tree grew a level).
type BtreeSplits struct {
	Left    int64 `json:"split_l"`
	Right   int64 `json:"split_r"`
	NewRoot int64 `json:"new_root"`
}

// Splits is every page split.
func (b BtreeSplits) Splits() int64 { return b.Left + b.Right }

// BlocksPerTxn is shared blocks per transaction: found in the buffer cache,
// and read from outside it (the OS cache or the disk).
type BlocksPerTxn struct {
	Hit  float64 `json:"hit"`
	Read float64 `json:"read"`
	// Heap is the table's own blocks (hit and read) per transaction: the
	// rows a read visits, apart from the index pages that find them.
	Heap float64 `json:"heap"`
}

// Tuples counts rows written: inserted, updated (HOT: without new index
// entries, on the same page), deleted.
type Tuples struct {
	Inserted   int64 `json:"inserted"`
	Updated    int64 `json:"updated"`
	HOTUpdated int64 `json:"hot_updated"`
	Deleted    int64 `json:"deleted"`
}

// Maintenance is how long maintenance took on a cell's table after its
// window, per command (003 timed them per key): VACUUM, ANALYZE, REINDEX
// of the key index, and COPY of the table to the client.
type Maintenance struct {
	Vacuum  M[float64] `json:"vacuum"`
	Analyze M[float64] `json:"analyze"`
	Reindex M[float64] `json:"reindex"`
	CopyTo  M[float64] `json:"copy_to"`
}

// Disk is /proc/diskstats over the cell for the device of the embedded server's data.
type Disk struct {
	Device       string     `json:"device"`
	Reads        uint64     `json:"reads"`
	ReadBytes    uint64     `json:"read_bytes"`
	Writes       uint64     `json:"writes"`
	WriteBytes   uint64     `json:"write_bytes"`
	BusyFraction float64    `json:"busy_fraction"`
	ReadAwaitMS  M[float64] `json:"read_await_ms"`
	WriteAwaitMS M[float64] `json:"write_await_ms"`
}

// CPU is keybench's own CPU over the cell and, for the embedded server, the server's.
type CPU struct {
	ElapsedS    float64    `json:"elapsed_s"`
	ClientS     float64    `json:"client_s"`
	ClientCores float64    `json:"client_cores"`
	ServerS     M[float64] `json:"server_s"`
	ServerCores M[float64] `json:"server_cores,omitzero"`
}

// Sampling is what the sampler's queries cost: an upper bound of what
// sampling took from the server (their wall time, round trips included).
type Sampling struct {
	Queries           int64   `json:"queries"`
	BusyS             float64 `json:"busy_s"`
	WindowS           float64 `json:"window_s"`
	BusyShare         float64 `json:"busy_share"`
	BufferCacheEveryS float64 `json:"buffercache_every_s,omitempty"`
}

// WaitEvents counts the clients' wait events over the window's samples of pg_stat_activity.
type WaitEvents struct {
	Samples int64            `json:"samples"`
	EveryMS int64            `json:"every_ms"`
	Counts  map[string]int64 `json:"counts"`
	Top     []string         `json:"top"`
}

// Shares is the share of the events, most frequent first, the first n.
func (w *WaitEvents) Shares(n int) []Share {
	total := int64(0)
	for _, v := range w.Counts {
		total += v
	}
	names := slices.Collect(maps.Keys(w.Counts))
	sort.Slice(names, func(i, j int) bool {
		a, b := w.Counts[names[i]], w.Counts[names[j]]
		return a > b || a == b && names[i] < names[j]
	})
	var out []Share
	for i, k := range names {
		if i == n || total == 0 {
			break
		}
		out = append(out, Share{Name: k, Share: float64(w.Counts[k]) / float64(total)})
	}
	return out
}

// Share is one name's share of a whole.
type Share struct {
	Name  string
	Share float64
}

// BufferCache is pg_buffercache's view of the window: each relation role's
// share of shared_buffers, per sample, on average and at the end.
type BufferCache struct {
	Buffers          int64              `json:"buffers"`
	MeanShare        map[string]float64 `json:"mean_share" kb:"share"`
	FinalShare       map[string]float64 `json:"final_share" kb:"share"`
	Samples          []CacheSample      `json:"samples"`
	UsageCountsFinal M[[]UsageCount]    `json:"usage_counts_final,omitzero"`
}

// KeyIndexShare is the key index's mean share of the cache over the
// window; ok false when no sample found a buffer of it: the key had no
// index during the window (index=none, or an index built after a load),
// so a share of 0% would misread as an index that stayed out of the cache.
func (b BufferCache) KeyIndexShare() (float64, bool) {
	for _, s := range b.Samples {
		if _, ok := s.Shares[RoleKeyIndex]; ok {
			return b.MeanShare[RoleKeyIndex], true
		}
	}
	return 0, false
}

// Relation roles: what a relation of a cell is, by which the collectors
// attribute WAL and buffer cache so that cells of different keys compare.
const (
	RoleTable          = "table"
	RoleKeyIndex       = "key_index"
	RoleDataIndex      = "data_index"
	RoleCreatedAtIndex = "created_at_index"
	RoleSecondaryIndex = "secondary_index"
)

// SizeSample is one sample of the cell's relation sizes: seconds into the
// window and bytes by role (table, key_index, …).
type SizeSample struct {
	T     float64          `json:"t"`
	Bytes map[string]int64 `json:"bytes"`
}

// CacheSample is one sample of the buffer cache: seconds into the window and the roles' shares.
type CacheSample struct {
	T      float64            `json:"t"`
	Shares map[string]float64 `json:"shares" kb:"share"`
}

// UsageCount is one row of pg_buffercache_usage_counts().
type UsageCount struct {
	UsageCount int   `json:"usage_count"`
	Buffers    int64 `json:"buffers"`
	Dirty      int64 `json:"dirty"`
}

// metricsJSON has Metrics' fields without its methods (no recursion).
type metricsJSON Metrics

// MarshalJSON writes the collectors' metrics and the summary's fields as one object.
func (m Metrics) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(metricsJSON(m))
	if err != nil || m.Summary == nil {
		return b, err
	}
	s, err := json.Marshal(m.Summary)
	if err != nil {
		return nil, fmt.Errorf("the workload's summary: %w", err)
	}
	s = bytes.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' {
		return nil, fmt.Errorf("the workload's summary is not a JSON object")
	}
	if string(s) == "{}" {
		return b, nil
	}
	if string(b) == "{}" {
		return s, nil
	}
	// {a…} + {b…} = {a…,b…}
	return append(append(b[:len(b)-1:len(b)-1], ','), s[1:]...), nil
}

// UnmarshalJSON reads the collectors' metrics; the summary is read by the
// cell, which knows its workload (see Cell.UnmarshalJSON).
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var v metricsJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = Metrics(v)
	return nil
}

// collectorNames are the JSON names of Metrics' own fields.
var collectorNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeOf(Metrics{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
})

// PartitionSize is one partition of a partitioned keyed table at the end
// of a cell: its rows, its table (heap with its maps and TOAST) and its
// key index.
type PartitionSize struct {
	Name          string `json:"name"`
	Rows          int64  `json:"rows"`
	TableBytes    int64  `json:"table_bytes"`
	KeyIndexBytes int64  `json:"key_index_bytes,omitempty"`
}
