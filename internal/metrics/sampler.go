package metrics

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
)

// sampler watches the window from its own connection: wait events of the
// clients (as "UUID Benchmark War" sampled pg_stat_activity) and the buffer
// cache's share per relation (pg_buffercache).
type sampler struct {
	env *Env
	// window is when the window starts; winStart it, once it has.
	window   *windowStart
	winStart time.Time

	waits       map[string]int64
	waitSamples int64
	waitErr     error

	cache []results.CacheSample
	usage [][]results.UsageCount
	// sizes are the cell's relations' sizes by role, sampled like the
	// cache (001 tracked them every 15 s over its hours).
	sizes      []results.SizeSample
	sizesErr   error
	cacheTotal int64
	cacheErr   error

	// queries and busy measure the sampler's own cost: its queries' count and wall time.
	queries int64
	busy    time.Duration
	ran     time.Duration
	// cacheEvery is the buffer cache's sampling period as run: CacheEvery,
	// or longer when one sample costs more than cacheCostShare of it.
	cacheEvery time.Duration
}

// cacheCostShare bounds the buffer-cache sampler's cost: pg_buffercache
// reads every buffer header, some 60 ms for a 1 GB cache here, so on a
// large cache the period grows until a sample takes at most 1% of it.
const cacheCostShare = 0.01

// watcherConn is a connection of a watcher of its own, named app: its
// statements run against the cell's changing tables, so none is cached.
func (env *Env) watcherConn(ctx context.Context, app string) (*pgx.Conn, error) {
	cc := env.ConnConfig.Copy()
	cc.RuntimeParams["application_name"] = app
	cc.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	return pgx.ConnectConfig(ctx, cc)
}

func (s *sampler) run(ctx context.Context) {
	conn, err := s.env.watcherConn(ctx, "keybench sampler")
	if err != nil {
		s.waitErr, s.cacheErr = err, err
		return
	}
	defer conn.Close(context.Background())
	bufferCache, cacheErr := s.env.Ext.fn("pg_buffercache", "pg_buffercache") // the view
	if cacheErr != nil {
		s.cacheErr = cacheErr
	}
	winStart, ok := s.window.wait(ctx)
	if !ok {
		return
	}
	s.winStart = winStart
	began := time.Now()
	defer func() { s.ran = time.Since(began) }()
	timed := func(f func()) {
		t0 := time.Now()
		f()
		s.busy += time.Since(t0)
		s.queries++
	}
	waitTick := ticker(s.env.WaitEvery)
	s.cacheEvery = s.env.CacheEvery
	var cacheTimer *time.Timer
	var cacheTick <-chan time.Time
	if s.env.CacheEvery > 0 {
		cacheTimer = time.NewTimer(s.cacheEvery)
		defer cacheTimer.Stop()
		cacheTick = cacheTimer.C
	}
	sampleCache := func() {
		t0 := time.Now()
		timed(func() { s.sampleCache(ctx, conn, bufferCache) })
		s.cacheEvery = max(s.cacheEvery, time.Duration(float64(time.Since(t0))/cacheCostShare))
		if cacheTimer != nil {
			cacheTimer.Reset(s.cacheEvery)
		}
	}
	if s.cacheErr == nil && s.env.CacheEvery > 0 {
		sampleCache()
	}
	sizeTick := ticker(s.env.CacheEvery)
	if s.env.CacheEvery > 0 {
		timed(func() { s.sampleSizes(ctx, conn) })
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-waitTick:
			if s.waitErr == nil {
				timed(func() { s.sampleWaits(ctx, conn) })
			}
		case <-cacheTick:
			if s.cacheErr == nil {
				sampleCache()
			}
		case <-sizeTick:
			if s.sizesErr == nil {
				timed(func() { s.sampleSizes(ctx, conn) })
			}
		}
	}
}

func ticker(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return time.NewTicker(d).C
}

func (s *sampler) sampleWaits(ctx context.Context, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity
		WHERE application_name = $1 AND state = 'active'`, s.env.ClientApp)
	if err != nil {
		if ctx.Err() == nil {
			s.waitErr = err
		}
		return
	}
	defer rows.Close()
	for rows.Next() {
		var ev string
		if rows.Scan(&ev) == nil {
			s.waits[ev]++
		}
	}
	if rows.Err() == nil {
		s.waitSamples++
	}
}

// sampleSizes reads the sizes of the cell's relations, summed by role.
func (s *sampler) sampleSizes(ctx context.Context, conn *pgx.Conn) {
	names := slices.Collect(maps.Keys(s.env.Relations))
	rows, err := conn.Query(ctx, `SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c
		WHERE c.relnamespace = $1::regnamespace AND c.relname = ANY($2)`, s.env.Schema, names)
	if err != nil {
		if ctx.Err() == nil {
			s.sizesErr = err
		}
		return
	}
	defer rows.Close()
	smp := results.SizeSample{T: time.Since(s.winStart).Seconds(), Bytes: map[string]int64{}}
	for rows.Next() {
		var rel string
		var n int64
		if rows.Scan(&rel, &n) == nil {
			smp.Bytes[s.env.role(rel)] += n
		}
	}
	if rows.Err() == nil {
		s.sizes = append(s.sizes, smp)
	}
}

func (s *sampler) sampleCache(ctx context.Context, conn *pgx.Conn, fn string) {
	if s.cacheTotal == 0 {
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+fn).Scan(&s.cacheTotal); err != nil {
			s.cacheErr = err
			return
		}
	}
	rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT c.relname, count(*) FROM %s b
		JOIN pg_class c ON b.relfilenode = pg_relation_filenode(c.oid)
		 AND b.reldatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
		WHERE c.relnamespace = $1::regnamespace OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE relnamespace = $1::regnamespace)
		GROUP BY 1`, fn), s.env.Schema)
	if err != nil {
		if ctx.Err() == nil {
			s.cacheErr = err
		}
		return
	}
	smp := results.CacheSample{T: time.Since(s.winStart).Seconds(), Shares: map[string]float64{}}
	for rows.Next() {
		var rel string
		var n int64
		if rows.Scan(&rel, &n) == nil {
			smp.Shares[s.env.role(rel)] += float64(n) / float64(s.cacheTotal)
		}
	}
	rows.Close()
	s.cache = append(s.cache, smp)
	if s.env.Major >= 16 {
		if fn, err := s.env.Ext.fn("pg_buffercache", "pg_buffercache_usage_counts"); err == nil {
			var u []results.UsageCount
			rows, err := conn.Query(ctx, "SELECT usage_count, buffers, dirty FROM "+fn+"() ORDER BY 1")
			if err == nil {
				for rows.Next() {
					var c results.UsageCount
					if rows.Scan(&c.UsageCount, &c.Buffers, &c.Dirty) == nil {
						u = append(u, c)
					}
				}
				rows.Close()
				s.usage = append(s.usage, u)
			}
		}
	}
}

// role names a relation of the cell by what it is (env.Relations: table,
// key_index, data_index, a workload's own), so that cells with different
// keys can be compared; TOAST is "toast", anything else (another cell's
// table, when cells run in rounds) "other".
func (env *Env) role(rel string) string {
	if r, ok := env.Relations[rel]; ok {
		return r
	}
	if strings.HasPrefix(rel, "pg_toast") {
		return "toast"
	}
	return "other"
}

func (s *sampler) report(into *results.Metrics) {
	if s.ran > 0 {
		// An upper bound of what sampling took from the server: the wall time
		// of its queries (server work plus the round trips), as a share of
		// the window and of one core.
		into.Sampling = results.Of(results.Sampling{Queries: s.queries, BusyS: s.busy.Seconds(), WindowS: s.ran.Seconds(),
			BusyShare: s.busy.Seconds() / s.ran.Seconds(), BufferCacheEveryS: s.cacheEvery.Seconds()})
	} else {
		into.Sampling = results.Unavailable[results.Sampling]("the sampler did not run")
	}
	switch {
	case s.env.WaitEvery <= 0:
		into.WaitEvents = results.Unavailable[results.WaitEvents]("sampling switched off")
	case s.waitErr != nil:
		into.WaitEvents = results.Unavailable[results.WaitEvents](fmt.Sprintf("pg_stat_activity: %v", s.waitErr))
	case s.waitSamples == 0:
		into.WaitEvents = results.Unavailable[results.WaitEvents]("the window ended before the first sample")
	default:
		into.WaitEvents = results.Of(results.WaitEvents{Samples: s.waitSamples, EveryMS: s.env.WaitEvery.Milliseconds(), Counts: s.waits, Top: topWaits(s.waits)})
	}
	switch {
	case s.env.CacheEvery <= 0:
		into.SizesOverTime = results.Unavailable[[]results.SizeSample]("sampling switched off")
	case s.sizesErr != nil:
		into.SizesOverTime = results.Unavailable[[]results.SizeSample](s.sizesErr.Error())
	case len(s.sizes) == 0:
		into.SizesOverTime = results.Unavailable[[]results.SizeSample]("the window ended before the first sample")
	default:
		into.SizesOverTime = results.Of(s.sizes)
	}
	switch {
	case s.env.CacheEvery <= 0:
		into.BufferCache = results.Unavailable[results.BufferCache]("sampling switched off")
	case s.cacheErr != nil:
		into.BufferCache = results.Unavailable[results.BufferCache](fmt.Sprintf("pg_buffercache: %v", s.cacheErr))
	case len(s.cache) == 0:
		into.BufferCache = results.Unavailable[results.BufferCache]("the window ended before the first sample")
	default:
		mean := map[string]float64{}
		for _, smp := range s.cache {
			for k, v := range smp.Shares {
				mean[k] += v / float64(len(s.cache))
			}
		}
		out := results.BufferCache{Buffers: s.cacheTotal, MeanShare: mean, FinalShare: s.cache[len(s.cache)-1].Shares, Samples: s.cache}
		if len(s.usage) > 0 {
			out.UsageCountsFinal = results.Of(s.usage[len(s.usage)-1])
		} else if s.env.Major < 16 {
			out.UsageCountsFinal = results.Unavailable[[]results.UsageCount](fmt.Sprintf("pg_buffercache_usage_counts() needs PostgreSQL 16 (this is %d)", s.env.Major))
		}
		into.BufferCache = results.Of(out)
	}
}

// topWaits lists the events by count, most frequent first.
func topWaits(m map[string]int64) []string {
	keys := slices.Collect(maps.Keys(m))
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	return keys
}

// figures: the samplers' costs and the clients' waits stand anywhere (they
// are keybench's and its sessions'); the buffer cache and the relations'
// sizes are the server's own.
func (*sampler) figures() []declared {
	return []declared{
		summed(func(m *results.Metrics) *results.M[results.Sampling] { return &m.Sampling }, fromClients, func(a, b results.Sampling) results.Sampling {
			c := results.Sampling{Queries: a.Queries + b.Queries, BusyS: a.BusyS + b.BusyS, WindowS: a.WindowS + b.WindowS,
				BufferCacheEveryS: max(a.BufferCacheEveryS, b.BufferCacheEveryS)}
			if c.WindowS > 0 {
				c.BusyShare = c.BusyS / c.WindowS
			}
			return c
		}),
		summed(func(m *results.Metrics) *results.M[results.WaitEvents] { return &m.WaitEvents }, fromClients, func(a, b results.WaitEvents) results.WaitEvents {
			c := results.WaitEvents{Samples: a.Samples + b.Samples, EveryMS: a.EveryMS, Counts: map[string]int64{}}
			for k, v := range a.Counts {
				c.Counts[k] += v
			}
			for k, v := range b.Counts {
				c.Counts[k] += v
			}
			c.Top = topWaits(c.Counts)
			return c
		}).show("top waits (share of samples)", topWaitsText, "").called("top waits"),
		merged(func(m *results.Metrics) *results.M[results.BufferCache] { return &m.BufferCache }, onCoordinator, mergeBufferCache).
			show("key index in cache", keyIndexShareText, "key index in cache: mean share of shared_buffers over the window (pg_buffercache)"),
		merged(func(m *results.Metrics) *results.M[[]results.SizeSample] { return &m.SizesOverTime }, onCoordinator, mergeSizes),
	}
}

// keyIndexShareText is the key index's mean share of the cache.
func keyIndexShareText(b results.BufferCache) string {
	if share, ok := b.KeyIndexShare(); ok {
		return results.ShareText(share)
	}
	return "no index then"
}

// topWaitsText is the three waits most sampled, each with its share.
func topWaitsText(we results.WaitEvents) string {
	var parts []string
	for _, s := range we.Shares(3) {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", s.Name, s.Share*100))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("no client active in %d samples", we.Samples)
	}
	return strings.Join(parts, ", ")
}
