package cluster

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
)

// Table is one of the cell's distributed tables as the watch needs it:
// its name in keybench's schema, its relations by role (the table itself
// and its indexes: workload.Relations), and, for the keyed table, its key
// index's name and whether it is a btree (pgstatindex reads only those).
type Table struct {
	Name      string
	Relations map[string]string
	Keyed     bool
	KeyIndex  string
	Btree     bool
}

// Watch reads one cell on each worker that holds its shards.
type Watch struct {
	// NoCheckpoints: run no CHECKPOINT on the workers (run --checkpoints off).
	NoCheckpoints bool
	schema        string
	keyed         Table
	workers       []*worker
	// shards are the keyed table's shards in id order, with their worker.
	shards []shardAt
	rounds []results.ClusterRound
	// perShard are each round's inserts by shard placement (absent: unread).
	perShard []map[shardAt]int64
	out      *results.Cluster
}

// shardAt is a shard's placement on a worker: a reference table's one
// shard has one on every node.
type shardAt struct {
	id     int64
	worker int
}

// worker is one worker and what the watch has read on it.
type worker struct {
	node Node
	conn *pgx.Conn
	// unreachable says why the worker could not be read at all.
	unreachable string
	env         metrics.Env
	// keyed are the keyed table's shards on it, keyIndexes their key indexes (qualified).
	keyed      []int64
	keyIndexes []string
	btree      bool
	sess       *metrics.Session
	began      time.Time
	// insBefore is each keyed shard's n_tup_ins at the round's start;
	// pagesBefore the key indexes' pages then.
	insBefore map[int64]int64
	// keyedBefore is its keyed shards' rows written at the round's start,
	// keyedTook what they took over the rounds (keyedErr: a round unread).
	keyedBefore results.Tuples
	keyedTook   results.Tuples
	keyedErr    error
	pagesBefore int64
	baseline    int64
	// rounds are its metrics session's figures, one per round; pages the
	// key indexes' new pages per round (-1: unread).
	rounds []results.Metrics
	pages  []int64
}

// Open finds where the cell's tables' shards are (on the coordinator)
// and connects to each of their workers; a worker that cannot be reached
// is kept with the reason. out receives the cell's cluster figures.
func Open(ctx context.Context, coord *pgx.Conn, base *pgx.ConnConfig, schema string, tables []Table, out *results.Cluster) (*Watch, error) {
	names := make([]string, len(tables))
	w := &Watch{schema: schema, out: out}
	for i, t := range tables {
		names[i] = schema + "." + t.Name
		if t.Keyed {
			w.keyed = t
		}
	}
	ps, err := Placements(ctx, coord, names)
	if err != nil {
		return nil, err
	}
	for _, n := range Nodes(ps) {
		wk := &worker{node: n, btree: w.keyed.Btree}
		wk.env = metrics.Env{Schema: schema, Relations: map[string]string{}, Lagging: map[string]bool{},
			NoStandby: "a worker's standbys are not keybench's"}
		w.workers = append(w.workers, wk)
		wk.conn, err = connectTo(ctx, base, n)
		if err != nil {
			wk.unreachable = fmt.Sprintf("keybench cannot connect to the worker from here: %v", err)
			continue
		}
		wk.env.Admin, wk.env.ConnConfig = wk.conn, wk.conn.Config()
		wk.env.Ext = metrics.FindExtensions(ctx, wk.conn)
		wk.env.Major = majorOf(wk.conn.PgConn().ParameterStatus("server_version"))
		wk.env.ServerPID, wk.env.DataDir, wk.env.NoProcess = localPostmaster(ctx, wk.conn, n)
	}
	w.place(ps, tables)
	return w, nil
}

// place gives each worker the shard names of the cell's relations it holds.
func (w *Watch) place(ps []Placement, tables []Table) {
	byName := map[string]Table{}
	for _, t := range tables {
		byName[t.Name] = t
	}
	idx := map[Node]int{}
	for i, wk := range w.workers {
		idx[wk.node] = i
	}
	for _, p := range ps {
		wk := w.workers[idx[p.Node]]
		t := byName[p.Table]
		for rel, role := range t.Relations {
			wk.env.Relations[ShardName(rel, p.Shard)] = role
		}
		wk.env.LeafTables = append(wk.env.LeafTables, ShardName(t.Name, p.Shard))
		if t.Keyed {
			wk.keyed = append(wk.keyed, p.Shard)
			if t.KeyIndex != "" {
				wk.keyIndexes = append(wk.keyIndexes, w.schema+"."+ShardName(t.KeyIndex, p.Shard))
			}
			w.shards = append(w.shards, shardAt{id: p.Shard, worker: idx[p.Node]})
		}
	}
	sort.Slice(w.shards, func(i, j int) bool { return w.shards[i].id < w.shards[j].id })
	for _, wk := range w.workers {
		if len(wk.keyed) > 0 {
			wk.env.Table = ShardName(w.keyed.Name, wk.keyed[0])
		}
	}
}

// Close ends the connections to the workers.
func (w *Watch) Close() {
	for _, wk := range w.workers {
		if wk.conn != nil {
			wk.conn.Close(context.Background())
		}
	}
}

// StartRound checkpoints each worker (where the role may: full-page
// images per row then compare between rounds, as on one server) and
// starts its metrics session and its shards' counts.
func (w *Watch) StartRound(ctx context.Context) {
	for _, wk := range w.workers {
		if wk.conn == nil {
			continue
		}
		if !w.NoCheckpoints {
			_, _ = wk.conn.Exec(ctx, "CHECKPOINT")
		}
		wk.baseline = citusBackends(ctx, wk.conn)
		wk.insBefore, _ = shardInserts(ctx, wk.conn, w.schema, w.keyed.Name, wk.keyed)
		wk.keyedBefore, wk.keyedErr = keyedTuples(ctx, wk.conn, w.schema, w.keyed.Name, wk.keyed, wk.keyedErr)
		wk.pagesBefore = indexPages(ctx, wk.conn, wk.keyIndexes)
		wk.began = time.Now()
		wk.sess = metrics.Start(ctx, wk.env)
	}
}

// EndRound waits until the coordinator's connections of the round's
// clients have left each worker (their backends' statistics are flushed
// as they exit), then reads each worker's session and its shards' inserts.
func (w *Watch) EndRound(ctx context.Context) {
	answers := make([]answer, len(w.workers))
	for i, wk := range w.workers {
		a := &answers[i]
		if wk.conn == nil || wk.sess == nil {
			a.why = wk.unreachable
			continue
		}
		waitForBackends(ctx, wk.conn, wk.baseline)
		// The round's own CHECKPOINT on the worker, as on the coordinator:
		// the pages this key dirtied there are written within its round
		// (its WAL read back first, which the checkpoint may recycle).
		wk.sess.ReadWAL(ctx)
		if !w.NoCheckpoints {
			_, _ = wk.conn.Exec(ctx, "CHECKPOINT")
		}
		var m results.Metrics
		wk.sess.Stop(ctx, &m)
		wk.sess = nil
		a.secs = time.Since(wk.began).Seconds()
		wk.rounds = append(wk.rounds, m)
		a.wal, a.cpu = m.WALBytes, m.CPU
		a.shards, a.before = wk.keyed, wk.insBefore
		var err error
		if a.after, err = shardInserts(ctx, wk.conn, w.schema, w.keyed.Name, wk.keyed); err != nil {
			a.after, a.unread = nil, "the shards' statistics: "+err.Error()
		}
		var now results.Tuples
		if now, wk.keyedErr = keyedTuples(ctx, wk.conn, w.schema, w.keyed.Name, wk.keyed, wk.keyedErr); wk.keyedErr == nil {
			wk.keyedTook.Inserted += now.Inserted - wk.keyedBefore.Inserted
			wk.keyedTook.Updated += now.Updated - wk.keyedBefore.Updated
			wk.keyedTook.Deleted += now.Deleted - wk.keyedBefore.Deleted
		}
		pages := int64(-1)
		if p := indexPages(ctx, wk.conn, wk.keyIndexes); p >= 0 && wk.pagesBefore >= 0 {
			pages = p - wk.pagesBefore
		}
		wk.pages = append(wk.pages, pages)
	}
	round, perShard := mergeRound(len(w.rounds)+1, w.shards, answers)
	w.rounds = append(w.rounds, round)
	w.perShard = append(w.perShard, perShard)
}

// answer is what one worker told of one round: its keyed shards' n_tup_ins
// before and after it, its WAL and CPU and the round's length; why says
// the worker could not be read at all, unread that its shards could not.
type answer struct {
	why, unread   string
	shards        []int64
	before, after map[int64]int64
	wal           results.M[int64]
	cpu           results.M[results.CPU]
	secs          float64
}

// mergeRound makes a round's spread from the workers' answers: each
// shard's inserts (nil where its worker's were unread), their skew across
// the shards and the workers, and each worker's WAL and CPU per second.
// The skews need every worker's answer: a spread over part of the
// cluster would hide the part that was not read.
func mergeRound(n int, shards []shardAt, answers []answer) (results.ClusterRound, map[shardAt]int64) {
	round := results.ClusterRound{Round: n}
	perShard := map[shardAt]int64{}
	complete := true
	var workerIns []int64
	for i, a := range answers {
		wr := results.WorkerRound{}
		switch {
		case a.why != "":
			wr.Inserted, wr.WALBytesPerS, wr.CPUCores = results.Unavailable[int64](a.why), results.Unavailable[float64](a.why), results.Unavailable[float64](a.why)
			complete = false
		case a.after == nil || a.before == nil:
			why := cmp.Or(a.unread, "the shards' statistics at the round's start could not be read")
			wr.Inserted, complete = results.Unavailable[int64](why), false
		default:
			var total int64
			for _, s := range a.shards {
				at := shardAt{id: s, worker: i}
				perShard[at] = a.after[s] - a.before[s]
				total += perShard[at]
			}
			wr.Inserted = results.Of(total)
			workerIns = append(workerIns, total)
		}
		if a.why == "" {
			wr.WALBytesPerS, wr.CPUCores = perSecond(a.wal, a.secs), serverCores(a.cpu, a.secs)
		}
		round.PerWorker = append(round.PerWorker, wr)
	}
	if !complete {
		const why = "a worker's shards could not be read in this round"
		round.Shards, round.Workers = results.Unavailable[results.Skew](why), results.Unavailable[results.Skew](why)
		return round, perShard
	}
	shardIns := make([]int64, len(shards))
	for i, s := range shards {
		shardIns[i] = perShard[s]
	}
	round.Shards, round.Workers = SkewOf(shardIns), SkewOf(workerIns)
	return round, perShard
}

// AddToCost adds the last round's work on the workers to its cost (the
// coordinator's alone), as metrics.AddWorkers does; a worker keybench
// could not read leaves the cost unavailable with its reason.
func (w *Watch) AddToCost(c *results.RoundCost) {
	if c == nil {
		return
	}
	var ms []results.Metrics
	var nodes []string
	for _, wk := range w.workers {
		if wk.node.Coordinator {
			continue // the round's cost already holds the coordinator's backends and IO
		}
		nodes = append(nodes, wk.node.String())
		ms = append(ms, results.Metrics{})
		i := len(ms) - 1
		switch {
		case wk.conn == nil:
			ms[i].CPU = results.Unavailable[results.CPU](wk.unreachable)
		case len(wk.rounds) > 0:
			ms[i] = wk.rounds[len(wk.rounds)-1]
		default:
			ms[i].CPU = results.Unavailable[results.CPU]("no round was read on the worker")
		}
	}
	metrics.AddWorkers(c, ms, nodes)
}

func perSecond(v results.M[int64], secs float64) results.M[float64] {
	n, ok := v.Get()
	switch {
	case !ok:
		return results.Unavailable[float64](v.Reason())
	case secs <= 0:
		return results.Unavailable[float64]("the round took no time")
	}
	return results.Of(float64(n) / secs)
}

func serverCores(c results.M[results.CPU], secs float64) results.M[float64] {
	cpu, ok := c.Get()
	if !ok {
		return results.Unavailable[float64](c.Reason())
	}
	s, ok := cpu.ServerS.Get()
	if !ok {
		return results.Unavailable[float64](cpu.ServerS.Reason())
	}
	if secs <= 0 {
		return results.Unavailable[float64]("the round took no time")
	}
	return results.Of(s / secs)
}
