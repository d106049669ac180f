package advise

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/workload/mix"
)

// activityEvery is how often the sample window looks at pg_locks and
// pg_stat_activity for the backends writing each table: a backend is
// counted when a look finds it inside a write, so a writer whose writes
// take a share f of its time is missed by L looks with chance (1-f)^L.
const activityEvery = 100 * time.Millisecond

// counters is one snapshot of what the sample window differences.
type counters struct {
	at       time.Time
	ins      map[uint32]int64 // pg_stat_user_tables, per table
	upd, del map[uint32]int64
	keyScans map[uint32]int64 // the primary key index's scans (pg_stat_user_indexes)
	stmts    *stmtSnapshot    // pg_stat_statements (nil: stmtsWhy)
	stmtsWhy string
	heap     map[uint32]int64 // the main fork's bytes, on a standby (its insert rate without the WAL)
	wal, fpi *int64           // pg_stat_wal (a primary's)
	lsn      *int64           // the current (primary) or replayed (standby) WAL position
	walWhy   string
	// paused and receiving: a standby's replay paused, and a WAL receiver
	// running (nil: could not be read), so that a standby that replays
	// nothing is said to, not measured at 0 B/s.
	paused, receiving *bool
}

// counters reads the snapshot: the statistics of every table in one
// statement of the catalog's views (no table is locked), on a standby each
// heap's size in a statement of its own (pg_relation_size takes the
// table's ACCESS SHARE lock, for that statement only).
func (r *reader) counters(ctx context.Context, oids []uint32) (*counters, error) {
	c := &counters{ins: map[uint32]int64{}, upd: map[uint32]int64{}, del: map[uint32]int64{}, heap: map[uint32]int64{}, keyScans: map[uint32]int64{}}
	if !r.srv.Standby {
		c.stmts, c.stmtsWhy = r.statements(ctx)
	}
	err := r.readOnly(ctx, func(tx pgx.Tx) error {
		c.at = time.Now()
		// A partitioned table's counters are its partitions' summed.
		rows, _ := tx.Query(ctx, `SELECT c.oid, coalesce(sum(s.n_tup_ins), 0)::int8, coalesce(sum(s.n_tup_upd), 0)::int8, coalesce(sum(s.n_tup_del), 0)::int8,
				coalesce((SELECT sum(si.idx_scan) FROM pg_index i JOIN pg_stat_user_indexes si ON si.indexrelid = i.indexrelid
					WHERE i.indrelid IN (SELECT relid FROM `+r.leaves("c.oid")+` x) AND i.indisprimary), 0)::int8
			FROM unnest($1::oid[]) u(oid) JOIN pg_class c ON c.oid = u.oid
			LEFT JOIN LATERAL `+r.leaves("c.oid")+` l ON true LEFT JOIN pg_stat_user_tables s ON s.relid = l.relid
			GROUP BY c.oid`, oids)
		var oid uint32
		var ins, upd, del, scans int64
		if _, err := pgx.ForEachRow(rows, []any{&oid, &ins, &upd, &del, &scans}, func() error {
			c.ins[oid], c.upd[oid], c.del[oid], c.keyScans[oid] = ins, upd, del, scans
			return nil
		}); err != nil {
			return err
		}
		lsnFn := "pg_current_wal_lsn()"
		if r.srv.Standby {
			lsnFn = "pg_last_wal_replay_lsn()"
		}
		if err := pgx.BeginFunc(ctx, tx, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `SELECT (`+lsnFn+` - '0/0')::int8`).Scan(&c.lsn)
		}); err != nil {
			c.walWhy = why(err, "GRANT pg_monitor TO "+quoteIdent(r.srv.Role))
		}
		if r.srv.Standby {
			_ = pgx.BeginFunc(ctx, tx, func(tx pgx.Tx) error {
				return tx.QueryRow(ctx, `SELECT pg_is_wal_replay_paused(), EXISTS (SELECT 1 FROM pg_stat_wal_receiver)`).Scan(&c.paused, &c.receiving)
			})
			return nil
		}
		if r.srv.VersionNum < 140000 {
			return nil
		}
		if err := pgx.BeginFunc(ctx, tx, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `SELECT wal_bytes::int8, wal_fpi FROM pg_stat_wal`).Scan(&c.wal, &c.fpi)
		}); err != nil {
			c.walWhy = "pg_stat_wal: " + why(err, "GRANT pg_monitor TO "+quoteIdent(r.srv.Role))
		}
		return nil
	})
	if err != nil || !r.srv.Standby {
		return c, err
	}
	for _, oid := range oids {
		var size *int64
		if err := r.conn.QueryRow(ctx, `SELECT sum(pg_relation_size(l.relid))::int8 FROM `+r.leaves("$1::oid")+` l`, oid).Scan(&size); err != nil {
			if fatal(ctx, r.conn, err) {
				return c, err
			}
			continue // locked by a replayed DDL: that table's growth is unknown
		}
		if size != nil {
			c.heap[oid] = *size
		}
	}
	return c, nil
}

// idle says why a standby's WAL position did not move, when that is not a
// measurement of an idle primary: replay paused, or no WAL arriving.
func (c *counters) idle(b *counters) string {
	switch {
	case c.paused != nil && *c.paused || b.paused != nil && *b.paused:
		return "WAL replay is paused on this standby (pg_is_wal_replay_paused(); pg_wal_replay_resume() resumes it): what it replays now measures nothing of the primary"
	case c.lsn != nil && b.lsn != nil && *c.lsn == *b.lsn && b.receiving != nil && !*b.receiving:
		return "this standby received no WAL during the sample and has no WAL receiver (streaming stopped, or the primary unreachable): its replay measures nothing of the primary"
	}
	return ""
}

// writeRE matches where a statement writes a table (INSERT INTO, UPDATE,
// DELETE FROM, MERGE INTO, COPY), anywhere in it: a CTE inserting into two
// tables names both. The name is captured with or without schema and quotes.
var writeRE = regexp.MustCompile(`(?is)\b(?:insert\s+into|update(?:\s+only)?|delete\s+from(?:\s+only)?|merge\s+into|copy)\s+((?:"[^"]+"|[a-z_][a-z0-9_$]*)(?:\s*\.\s*(?:"[^"]+"|[a-z_][a-z0-9_$]*))?)`)

// notTable are words that follow "update" without naming a table (ON
// CONFLICT DO UPDATE SET, FOR UPDATE OF, FOR UPDATE NOWAIT).
var notTable = map[string]bool{"set": true, "of": true, "nowait": true, "skip": true}

// writeTargets are the tables a statement's text writes, as schema and
// name (schema "" when unqualified).
func writeTargets(query string) (targets [][2]string) {
	unquote := func(s string) string {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, `"`) {
			return strings.Trim(s, `"`)
		}
		return strings.ToLower(s)
	}
	for _, m := range writeRE.FindAllStringSubmatch(query, -1) {
		parts := strings.SplitN(m[1], ".", 2)
		switch {
		case len(parts) == 2:
			targets = append(targets, [2]string{unquote(parts[0]), unquote(parts[1])})
		case !notTable[unquote(parts[0])]:
			targets = append(targets, [2]string{"", unquote(parts[0])})
		}
	}
	return targets
}

// readOIDs are the oids of the tables read: a skipped one has no rates.
func readOIDs(oids []uint32, tables []Table) []uint32 {
	var read []uint32
	for i, oid := range oids {
		if tables[i].Skipped == "" {
			read = append(read, oid)
		}
	}
	return read
}

// rates reads the counters again at the window's end and sets each
// table's rates over the window from a, the counters at its start, and
// seen, the backends the window saw writing it (asked: how long advise
// waited between the two reads).
func (r *reader) rates(ctx context.Context, asked time.Duration, a *counters, seen inserters, oids []uint32, tables []Table, rep *Report) error {
	read := readOIDs(oids, tables)
	b, err := r.counters(ctx, read)
	if err != nil {
		return err
	}
	secs := b.at.Sub(a.at).Seconds()
	rep.Sample.Seconds = secs
	if asked := asked.Seconds(); secs > 1.1*asked {
		rep.Server.Notes = append(rep.Server.Notes, fmt.Sprintf("the sample spans %.0f s, not the %.0f s asked: the server answered its counters %.0f s late "+
			"(a standby stopped or a server stalled during it); every rate is over the %.0f s", secs, asked, secs-asked, secs))
	}
	idle := a.idle(b)
	rep.Sample.WALBytesPerS, rep.Sample.FPIPerS = r.walRates(a, b, idle, secs)
	var replayed map[uint32]*walCounts
	var replayedWhy string
	if r.srv.Standby && idle == "" {
		replayed, replayedWhy = r.replayedRows(ctx, a.lsn, b.lsn, read)
	}
	for i, oid := range oids {
		t := &tables[i]
		if t.Skipped != "" {
			continue
		}
		_, inA := a.ins[oid]
		if _, inB := b.ins[oid]; !inA || !inB {
			*t = Table{Schema: t.Schema, Name: t.Name, Skipped: "dropped while advise ran (during its sample window)"}
			continue
		}
		switch {
		case idle != "":
			for _, m := range []*results.M[float64]{&t.InsertsPerS, &t.UpdatesPerS, &t.DeletesPerS} {
				*m = results.Unavailable[float64](idle)
			}
			t.Inserters = results.Unavailable[int]("the inserting backends run on the primary")
		case r.srv.Standby:
			r.standbyRates(t, oid, a, b, replayed, replayedWhy, secs)
		default:
			r.primaryRates(t, oid, a, b, secs, seen, i)
		}
	}
	return nil
}

// flushOwnStatistics has advise's own reads of the tables (its leaf-order
// walk, its version sample: scans of the key index) counted before the
// window's first snapshot, not during the window, where they would read
// as the table's traffic: a backend flushes its statistics when it next
// goes idle, at most once a second unless asked (PostgreSQL 15's
// pg_stat_force_next_flush; before it, half a second after).
func (r *reader) flushOwnStatistics(ctx context.Context) {
	if r.srv.VersionNum >= 150000 {
		if _, err := r.conn.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err == nil {
			return
		}
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}

// inserters is what the sample window saw of each table's writing
// backends: the distinct backends seen writing it, the backends of other
// roles whose statements were hidden, how many looks, or why it could not
// look.
type inserters struct {
	writers []map[int32]bool
	// users are the backends seen writing or reading each table (its
	// ROW EXCLUSIVE or ACCESS SHARE lock).
	users  []map[int32]bool
	hidden int
	looks  int
	err    error
}

// newInserters is what a window has seen of n tables before it looks.
func newInserters(n int) inserters {
	seen := inserters{writers: make([]map[int32]bool, n), users: make([]map[int32]bool, n)}
	for i := range n {
		seen.writers[i], seen.users[i] = map[int32]bool{}, map[int32]bool{}
	}
	return seen
}

// watched is one database's tables as a look at the server finds them:
// by oid in pg_locks, by name in pg_stat_activity's statements.
type watched struct {
	rd *Reading
	at map[uint32]int
	// hidden counts, in one look, the backends of other roles whose
	// statements the role may not read.
	hidden int
}

// Watch waits out the sample window, looking on conn every activityEvery
// at pg_locks and pg_stat_activity for the backends writing each table of
// each reading (on a primary: a standby's backends write nothing). conn is
// a connection to any database of the readings' server: both views show
// every database's backends, so one connection watches them all.
func Watch(ctx context.Context, conn *pgx.Conn, window time.Duration, readings []*Reading) error {
	dbs := map[string]*watched{}
	for _, rd := range readings {
		n := len(rd.tables)
		rd.seen = newInserters(n)
		if rd.r.srv.Standby {
			continue
		}
		w := &watched{rd: rd, at: make(map[uint32]int, n)}
		for i, oid := range rd.oids {
			w.at[oid] = i
		}
		dbs[rd.r.srv.Database] = w
	}
	tick := time.NewTicker(activityEvery)
	defer tick.Stop()
	end := time.After(window)
	var failed error
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-end:
			return nil
		case <-tick.C:
			if len(dbs) == 0 || failed != nil {
				continue
			}
			if failed = look(ctx, conn, dbs); failed != nil {
				for _, w := range dbs {
					w.rd.seen.err = failed
				}
				continue
			}
			for _, w := range dbs {
				w.rd.seen.looks++
				w.rd.seen.hidden = max(w.rd.seen.hidden, w.hidden)
			}
		}
	}
}

// look adds, at one moment, the backends writing each table of dbs (by
// database name) to its reading's writers: every backend holding the
// table's ROW EXCLUSIVE lock (an INSERT, UPDATE, DELETE or MERGE, however
// it was issued: a CTE, a trigger, a function), and every backend whose
// statement, active or finished within the last second (a pooled
// connection between its statements), names the table as its target.
func look(ctx context.Context, conn *pgx.Conn, dbs map[string]*watched) error {
	names := make([]string, 0, len(dbs))
	for name, w := range dbs {
		names = append(names, name)
		w.hidden = 0
	}
	return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `SELECT d.datname::text, l.pid, l.relation::int8, l.mode = 'RowExclusiveLock' FROM pg_locks l JOIN pg_database d ON d.oid = l.database
			WHERE l.locktype = 'relation' AND l.mode IN ('RowExclusiveLock', 'AccessShareLock') AND l.pid <> pg_backend_pid()
			AND d.datname::text = ANY($1::text[])`, names)
		var db string
		var pid int32
		var rel int64
		var writes bool
		if _, err := pgx.ForEachRow(rows, []any{&db, &pid, &rel, &writes}, func() error {
			w := dbs[db]
			if i, ok := w.at[uint32(rel)]; ok {
				w.rd.seen.users[i][pid] = true
				if writes {
					w.rd.seen.writers[i][pid] = true
				}
			}
			return nil
		}); err != nil {
			return err
		}
		rows, _ = tx.Query(ctx, `SELECT datname::text, pid, coalesce(query, '') FROM pg_stat_activity
			WHERE datname::text = ANY($1::text[]) AND pid <> pg_backend_pid() AND backend_type = 'client backend'
			AND (state = 'active' OR state_change > now() - interval '1 s')`, names)
		var q string
		_, err := pgx.ForEachRow(rows, []any{&db, &pid, &q}, func() error {
			w := dbs[db]
			if q == "<insufficient privilege>" {
				w.hidden++
				return nil
			}
			for _, target := range writeTargets(q) {
				for i, t := range w.rd.tables {
					if t.Name == target[1] && (target[0] == "" || target[0] == t.Schema) {
						w.rd.seen.writers[i][pid], w.rd.seen.users[i][pid] = true, true
					}
				}
			}
			return nil
		})
		return err
	})
}

// walRates are the cluster's WAL bytes and full-page images per second
// between two snapshots, or why not (idle: a standby that replayed nothing).
func (r *reader) walRates(a, b *counters, idle string, secs float64) (bytes, fpi results.M[float64]) {
	switch {
	case idle != "":
		return results.Unavailable[float64](idle), results.Unavailable[float64](idle)
	case a.wal != nil && b.wal != nil:
		return results.Of(float64(*b.wal-*a.wal) / secs), results.Of(float64(*b.fpi-*a.fpi) / secs)
	case a.lsn != nil && b.lsn != nil:
		fpi = results.Unavailable[float64]("pg_stat_wal counts only the WAL this server writes: on a standby, run advise on the primary for full-page images")
		if !r.srv.Standby {
			fpi = results.Unavailable[float64](orText(a.walWhy, "pg_stat_wal is PostgreSQL 14's"))
		}
		return results.Of(float64(*b.lsn-*a.lsn) / secs), fpi
	}
	return results.Unavailable[float64](a.walWhy), results.Unavailable[float64](a.walWhy)
}

// standbyRates sets a table's rates on a standby: from the rows its
// replayed WAL changed, else from its heap's growth.
func (r *reader) standbyRates(t *Table, oid uint32, a, b *counters, replayed map[uint32]*walCounts, replayedWhy string, secs float64) {
	_, sizedA := a.heap[oid]
	_, sizedB := b.heap[oid]
	switch {
	case replayed != nil:
		standbyReplayed(t, replayed[oid], secs)
	case !sizedA || !sizedB:
		standbyGrowth(t, 0, 0, secs, replayedWhy)
		t.InsertsPerS = results.Unavailable[float64]("its heap's size could not be read during the sample (a replayed lock), and " + replayedWhy)
	default:
		standbyGrowth(t, a.heap[oid], b.heap[oid], secs, replayedWhy)
	}
}

// primaryRates sets a table's rates on a primary from its statistics, and
// its inserting backends from what the window saw (table i of them).
func (r *reader) primaryRates(t *Table, oid uint32, a, b *counters, secs float64, seen inserters, i int) {
	t.InsertsPerS = results.Of(float64(b.ins[oid]-a.ins[oid]) / secs)
	t.UpdatesPerS = results.Of(float64(b.upd[oid]-a.upd[oid]) / secs)
	t.DeletesPerS = results.Of(float64(b.del[oid]-a.del[oid]) / secs)
	t.InsertsFrom = "pg_stat_user_tables"
	wrote := b.ins[oid] - a.ins[oid] + b.upd[oid] - a.upd[oid] + b.del[oid] - a.del[oid]
	n := len(seen.writers[i])
	switch {
	case seen.err != nil:
		t.Inserters = results.Unavailable[int]("pg_locks and pg_stat_activity: " + why(seen.err, ""))
	case n == 0 && wrote > 0 && seen.hidden > 0:
		t.Inserters = results.Unavailable[int](fmt.Sprintf("%d rows written, by no backend seen holding its lock, and the statements of %d backends of other roles are hidden: GRANT pg_read_all_stats TO %s", wrote, seen.hidden, r.srv.Role))
	case n == 0 && wrote > 0:
		t.Inserters = results.Unavailable[int](fmt.Sprintf("%d rows written, but no backend was caught holding its lock or running a statement that names it in %d looks: its transactions are shorter than a look", wrote, seen.looks))
	default:
		t.Inserters = results.Of(n)
	}
	if seen.err == nil {
		t.Users = results.Of(len(seen.users[i]))
	}
	t.Mix = r.mixOf(t, oid, a, b, secs)
}

// mixOf is a table's traffic over the window: what pg_stat_statements
// says its statements did where both reads of it were made and a
// statement named the table, else what its counters say.
func (r *reader) mixOf(t *Table, oid uint32, a, b *counters, secs float64) *Mix {
	keyCol := ""
	if t.Key != nil && len(t.Key.Columns) == 1 {
		keyCol = t.Key.Columns[0]
	}
	why := orText(b.stmtsWhy, a.stmtsWhy)
	if a.stmts != nil && b.stmts != nil {
		stmts, hidden := a.stmts.delta(b.stmts)
		m := MixOfStatements(stmts, t.Schema, t.Name, keyCol, secs)
		if hidden > 0 {
			m.Notes = append(m.Notes, fmt.Sprintf("%s calls/s of other roles' statements are hidden from this role (GRANT pg_read_all_stats TO %s)", results.Significant(hidden/secs), quoteIdent(r.srv.Role)))
		}
		if m.Total() > 0 || m.OtherPerS > 0 {
			return m
		}
		why = "no statement in pg_stat_statements named the table during the sample (a trigger's or a function's statements are counted only with pg_stat_statements.track = all)"
	}
	m := &Mix{From: MixFromCounters, PerS: map[string]float64{
		mix.Kinds[mix.Insert]: round3(float64(b.ins[oid]-a.ins[oid]) / secs),
		mix.Kinds[mix.Update]: round3(float64(b.upd[oid]-a.upd[oid]) / secs),
		mix.Kinds[mix.Delete]: round3(float64(b.del[oid]-a.del[oid]) / secs),
	}}
	if why != "" {
		m.Notes = append(m.Notes, why)
	}
	reads := b.keyScans[oid] - a.keyScans[oid] - (b.upd[oid] - a.upd[oid]) - (b.del[oid] - a.del[oid])
	if t.Key != nil && t.Key.Kind == "primary key" {
		m.PerS[mix.Kinds[mix.Lookup]] = round3(float64(max(reads, 0)) / secs)
		m.Notes = append(m.Notes, "reads by key: the scans of its primary key's index less the rows updated and deleted (points and ranges alike; a referencing insert's foreign-key check is one)")
	} else {
		m.Notes = append(m.Notes, "reads by key not counted: the table's key is not a primary key")
	}
	return m
}

// walCounts are the rows one table's heap records in the WAL inserted, updated and deleted.
type walCounts struct{ ins, upd, del int64 }

var ntuplesRE = regexp.MustCompile(`ntuples: (\d+)`)

// replayedRows counts, on a standby, the rows each table's WAL records of
// the sample window inserted, updated and deleted (pg_walinspect's
// pg_get_wal_block_info over the replayed WAL, PostgreSQL 16+): a
// standby's statistics count only its own activity. Nil with why when the
// WAL cannot be read.
func (r *reader) replayedRows(ctx context.Context, from, to *int64, oids []uint32) (map[uint32]*walCounts, string) {
	schema, ok := r.ext["pg_walinspect"]
	switch {
	case from == nil || to == nil:
		return nil, "the replayed WAL position could not be read"
	case !ok:
		return nil, "pg_walinspect is not installed"
	case r.srv.VersionNum < 160000:
		return nil, "pg_get_wal_block_info needs PostgreSQL 16"
	}
	out := map[uint32]*walCounts{}
	err := r.readOnly(ctx, func(tx pgx.Tx) error {
		// The window's WAL, read once: longer than one look at the catalog may take.
		if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = '60s'"); err != nil {
			return err
		}
		nodes := map[int64]uint32{}
		rows, _ := tx.Query(ctx, `SELECT u.oid, coalesce(pg_relation_filenode(u.oid), 0)::int8 FROM unnest($1::oid[]) u(oid)`, oids)
		var oid uint32
		var node int64
		if _, err := pgx.ForEachRow(rows, []any{&oid, &node}, func() error {
			nodes[node] = oid
			out[oid] = &walCounts{}
			return nil
		}); err != nil {
			return err
		}
		rows, _ = tx.Query(ctx, `SELECT b.relfilenode::int8, b.record_type, b.description
			FROM `+pgx.Identifier{schema, "pg_get_wal_block_info"}.Sanitize()+`('0/0'::pg_lsn + $1::numeric, '0/0'::pg_lsn + $2::numeric, false) b
			WHERE b.block_id = 0 AND b.relforknumber = 0 AND b.resource_manager IN ('Heap', 'Heap2')
			AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`, *from, *to)
		var typ, desc string
		_, err := pgx.ForEachRow(rows, []any{&node, &typ, &desc}, func() error {
			oid, ok := nodes[node]
			if !ok {
				return nil
			}
			c := out[oid]
			switch strings.TrimSuffix(typ, "+INIT") {
			case "INSERT":
				c.ins++
			case "MULTI_INSERT":
				if m := ntuplesRE.FindStringSubmatch(desc); m != nil {
					var n int64
					fmt.Sscan(m[1], &n)
					c.ins += n
				}
			case "UPDATE", "HOT_UPDATE":
				c.upd++
			case "DELETE":
				c.del++
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, "pg_get_wal_block_info: " + why(err, "GRANT pg_read_server_files TO "+quoteIdent(r.srv.Role))
	}
	return out, ""
}

const onPrimary = "a standby's statistics count only its own activity: run advise on the primary"

// standbyReplayed sets a table's rates from the rows its replayed WAL records changed.
func standbyReplayed(t *Table, c *walCounts, secs float64) {
	t.Inserters = results.Unavailable[int]("the inserting backends run on the primary")
	if c == nil {
		c = &walCounts{}
	}
	t.InsertsPerS = results.Of(float64(c.ins) / secs)
	t.UpdatesPerS = results.Of(float64(c.upd) / secs)
	t.DeletesPerS = results.Of(float64(c.del) / secs)
	t.InsertsFrom = "the WAL this standby replayed during the sample (pg_walinspect)"
}

// standbyGrowth: without the WAL, a standby's insert rate is the heap's
// growth as replayed, in rows at the table's rows per page — a lower
// bound: rows put into free space inside the heap do not grow it.
func standbyGrowth(t *Table, before, after int64, secs float64, walWhy string) {
	t.UpdatesPerS = results.Unavailable[float64](onPrimary)
	t.DeletesPerS = results.Unavailable[float64](onPrimary)
	t.Inserters = results.Unavailable[int]("the inserting backends run on the primary")
	rows, ok := t.Rows.Get()
	switch {
	case !ok:
		t.InsertsPerS = results.Unavailable[float64](onPrimary + " (and the table's rows per page are unknown: " + t.Rows.Reason() + ")")
	case after <= before || before <= 0 || rows <= 0:
		t.InsertsPerS = results.Unavailable[float64]("on a standby the heap did not grow, and rows put into its free space leave no other trace without the WAL (" + walWhy + ")")
	default:
		perByte := float64(rows) / float64(before)
		t.InsertsPerS = results.Of(float64(after-before) * perByte / secs)
		t.InsertsFrom = "the heap's growth as this standby replayed it (a lower bound: rows put into free space do not grow it; " + walWhy + ")"
	}
}

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
