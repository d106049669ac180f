package advise

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/usage"
)

// Settings are the session settings advise reads with: every transaction
// read-only, every statement and lock wait short, no JIT compilation (a
// catalog query is never worth compiling, and a large catalog's costs can
// cross jit_above_cost), so that a look at a busy production server never
// holds it up. Inspect sets them on its connection; the CLI also passes them
// at connect time, so the server's logs name advise from the first moment.
func Settings(statementTimeout time.Duration) map[string]string {
	if statementTimeout <= 0 {
		statementTimeout = 5 * time.Second
	}
	return map[string]string{
		"application_name":                    "keybench advise",
		"default_transaction_read_only":       "on",
		"statement_timeout":                   fmt.Sprint(statementTimeout.Milliseconds()),
		"lock_timeout":                        fmt.Sprint(LockTimeout.Milliseconds()),
		"idle_in_transaction_session_timeout": "60000",
		"jit":                                 "off",
	}
}

// LockTimeout is how long advise waits for a lock (ACCESS SHARE, which only
// an ACCESS EXCLUSIVE holder blocks) before it skips the table: a DDL
// statement queued behind advise would queue every query of the table
// behind itself.
const LockTimeout = time.Second

// pgstatindexLimit is the largest key index pgstatindex is asked to read
// (it reads every page); beyond it the density is estimated from the catalog.
const pgstatindexLimit = 256 << 20

// leafSamples and leafSampleRows: the key index is read at this many points
// of its key range (pg_stats' histogram bounds), this many consecutive keys
// at each — a few hundred heap pages at most.
const (
	leafSamples    = 8
	leafSampleRows = 64
)

// reader runs advise's reads on one connection. Nothing is read in one long
// transaction: the server and the table list in one, then each table in its
// own short READ ONLY transactions, so that advise holds the ACCESS SHARE
// locks of one table at a time and no snapshot long enough to hold back
// vacuum; each optional read runs under a savepoint, so that a read the
// role may not do costs that figure only.
type reader struct {
	conn *pgx.Conn
	// res resolves advise's own reads of a user's table before they run
	// (sqltree.Resolver, rule sqltree.ReadOnly): opened at the first.
	res *sqltree.Resolver
	// feeds are the columns each sequence feeds (sequenceFeeds).
	feeds map[uint32][]feed
	srv   *Server
	ext   map[string]string // installed extension -> its schema
	// bases are the key types unread has judged, by oid.
	bases map[uint32]baseType
	// blockSize is the server's page size: it bounds the rows a page of the
	// heap and of a btree can hold, so statistics claiming more are
	// contradicted by the relation's size.
	blockSize int64
}

// readOnly runs fn in one READ ONLY transaction.
func (r *reader) readOnly(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, r.conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, fn)
}

// why is a read's error as a reason: PostgreSQL's message, with the grant
// that gives the read where it is a privilege.
func why(err error, grant string) string {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		if pe.Code == "42501" && grant != "" { // insufficient_privilege
			return pe.Message + " (" + grant + ")"
		}
		switch pe.Code {
		case "55P03": // lock_not_available
			return fmt.Sprintf("another session holds a lock that conflicts with reading it (waited lock_timeout, %s)", LockTimeout)
		case "57014": // query_canceled: statement_timeout
			return "a read took longer than statement_timeout: " + pe.Message
		}
		return pe.Message
	}
	return err.Error()
}

// errDropped is a table gone between the listing and its reading.
var errDropped = errors.New("dropped while advise ran")

// Progress is told after each table is read: how many of how many.
type Progress func(done, total int)

// Inspect reads the database conn is connected to. Errors are the
// user's (a table that does not exist: a usage error) or the server's (the
// connection lost); a table that cannot be read (dropped, locked, not
// readable) is skipped with its reason and the rest are read.
func Inspect(ctx context.Context, conn *pgx.Conn, o Options) (*Report, error) {
	rd, err := Prepare(ctx, conn, o)
	if err != nil {
		return nil, err
	}
	rd.logf("sampling the rates for %s", o.Sample)
	if err := rd.Begin(ctx, conn); err != nil {
		return nil, err
	}
	if err := Watch(ctx, conn, o.Sample, []*Reading{rd}); err != nil {
		return nil, err
	}
	if err := rd.End(ctx, conn, o.Sample); err != nil {
		return nil, err
	}
	return rd.Finish(), nil
}

// A Reading is one database's look in its three steps, so that several
// databases can share one sample window (ReadFleet): Prepare reads the
// server, the tables and each table's figures; Begin reads the counters
// the window starts from; Watch looks at the writing backends during the
// window; End reads the counters again and the sequences; Finish judges.
// Each step may run on a connection of its own to the same database.
type Reading struct {
	r      *reader
	o      Options
	rep    *Report
	oids   []uint32
	tables []Table
	// a are the counters at the window's start, seen what the window saw
	// of each table's backends.
	a    *counters
	seen inserters
}

// Prepare reads the database conn is connected to up to its sample
// window: the server, the table list and each table's figures, each in
// short read-only transactions of its own; advise's own reads of the
// tables are then flushed to the statistics, so that the window does not
// count them as the tables' traffic.
func Prepare(ctx context.Context, conn *pgx.Conn, o Options) (*Reading, error) {
	r := &reader{conn: conn, srv: &Server{RAM: o.RAM}, ext: map[string]string{}}
	defer func() {
		if r.res != nil {
			_ = r.res.Close(context.Background())
		}
	}()
	if err := r.configure(ctx, o.StatementTimeout); err != nil {
		return nil, err
	}
	rd := &Reading{r: r, o: o, rep: &Report{}}
	err := r.readOnly(ctx, func(tx pgx.Tx) error {
		if err := r.server(ctx, tx); err != nil {
			return err
		}
		var err error
		if rd.oids, rd.tables, err = r.tables(ctx, tx, o.Tables); err != nil {
			return err
		}
		r.feeds, err = r.sequenceFeeds(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	rd.logf("reading %d tables of %s, each in short read-only transactions of its own", len(rd.tables), r.srv.Database)
	var cache results.M[map[uint32]int64]
	if err := r.readOnly(ctx, func(tx pgx.Tx) error { cache = r.cacheByFilenode(ctx, tx); return nil }); err != nil {
		return nil, err
	}
	tables := rd.tables
	for i := range tables {
		if err := r.table(ctx, rd.oids[i], &tables[i], cache); err != nil {
			if fatal(ctx, conn, err) {
				return nil, err
			}
			tables[i] = Table{Schema: tables[i].Schema, Name: tables[i].Name, Skipped: why(err, "")}
		}
		if o.Progress != nil {
			o.Progress(i+1, len(tables))
		}
	}
	rd.rep.Server = *r.srv
	r.flushOwnStatistics(ctx)
	return rd, nil
}

// logf passes a line to Options.Log, when set.
func (rd *Reading) logf(format string, a ...any) {
	if rd.o.Log != nil {
		rd.o.Log(format, a...)
	}
}

// attach has the reading's next step run on conn: a connection of its
// own to the same database is set up as Prepare's was.
func (rd *Reading) attach(ctx context.Context, conn *pgx.Conn) error {
	if rd.r.conn == conn {
		return nil
	}
	rd.r.conn = conn
	return rd.r.configure(ctx, rd.o.StatementTimeout)
}

// Begin reads the counters the sample window starts from.
func (rd *Reading) Begin(ctx context.Context, conn *pgx.Conn) error {
	if err := rd.attach(ctx, conn); err != nil {
		return err
	}
	a, err := rd.r.counters(ctx, readOIDs(rd.oids, rd.tables))
	rd.a = a
	return err
}

// End reads the counters at the window's end and sets every table's
// rates over the window (asked: how long advise waited between its two
// reads), then where each sequence stands and how fast it went, all its
// columns together: when a column runs out is counted from this read
// (issues 63, 75).
func (rd *Reading) End(ctx context.Context, conn *pgx.Conn, asked time.Duration) error {
	if err := rd.attach(ctx, conn); err != nil {
		return err
	}
	if err := rd.r.rates(ctx, asked, rd.a, rd.seen, rd.oids, rd.tables, rd.rep); err != nil {
		return err
	}
	if err := rd.r.rereadRunsOut(ctx, rd.tables); err != nil {
		if fatal(ctx, conn, err) {
			return err
		}
		rd.logf("the sequences could not be read again after the sample: %v", err)
	}
	return nil
}

// Unsampled says that the window's rates were not read, and why (the
// look interrupted, a counter read refused): each table read keeps its
// figures, its rates and its sequences' pace unavailable.
func (rd *Reading) Unsampled(why string) {
	for i := range rd.tables {
		t := &rd.tables[i]
		if t.Skipped != "" {
			continue
		}
		for _, m := range []*results.M[float64]{&t.InsertsPerS, &t.UpdatesPerS, &t.DeletesPerS} {
			*m = results.Unavailable[float64](why)
		}
		t.Inserters = results.Unavailable[int](why)
		for j := range t.RunsOut {
			t.RunsOut[j].paceLost = why
		}
	}
	rd.rep.Sample = Sample{WALBytesPerS: results.Unavailable[float64](why), FPIPerS: results.Unavailable[float64](why)}
	rd.rep.Server.Notes = append(rd.rep.Server.Notes, "no sample: "+why)
}

// Finish judges every table from what was read: when each column runs
// out, the verdicts ranked, each table's lab and switches.
func (rd *Reading) Finish() *Report {
	rep, tables, o := rd.rep, rd.tables, rd.o
	for i := range tables {
		runsOutTimes(&tables[i])
	}
	var cost func(*Table) *Cost
	if o.Curves != nil {
		rep.Curves = o.CurvesFile
		cost = func(t *Table) *Cost { return costOf(o.Curves, t, rep.Server) }
	} else {
		rep.CurvesCommand = "keybench run growth --out growth && keybench advise --curves growth/results.json ..."
	}
	Judge(tables, rep.Server, rep.Sample, cost)
	for i := range tables {
		tables[i].Lab = LabFor(&tables[i], rep.Server)
		tables[i].Switches = switches(&tables[i])
	}
	rep.Tables = tables
	return rep
}

// configure sets Settings on the session, whatever the connection was
// opened with (SET is not a write: nothing reaches the WAL).
func (r *reader) configure(ctx context.Context, statementTimeout time.Duration) error {
	var names, values []string
	for name, value := range Settings(statementTimeout) {
		names, values = append(names, name), append(values, value)
	}
	if _, err := r.conn.Exec(ctx, `SELECT pg_catalog.set_config(s.name, s.value, false) FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::text[])) AS s(name, value)`, names, values); err != nil {
		return fmt.Errorf("setting %s for advise's session: %w", strings.Join(names, ", "), err)
	}
	changed, err := sqltree.Tampered(ctx, r.conn)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		return usage.Errorf("in this database PostgreSQL's own objects were changed (%s): advise's reads of the catalog could run code of someone else's through them; advise calls nothing of yours", strings.Join(changed, ", "))
	}
	return nil
}

// fatal tells an error that ends advise (interrupted, connection lost)
// from one that costs one table.
func fatal(ctx context.Context, conn *pgx.Conn, err error) bool {
	if ctx.Err() != nil || conn.IsClosed() || errors.Is(err, context.Canceled) {
		return true
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") // connection exception, operator intervention
	}
	return false
}

func (r *reader) server(ctx context.Context, tx pgx.Tx) error {
	s := r.srv
	if err := tx.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('server_version_num')::int, pg_is_in_recovery(),
		current_database(), current_user, pg_size_bytes(current_setting('shared_buffers')), current_setting('block_size')::int8`).
		Scan(&s.Version, &s.VersionNum, &s.Standby, &s.Database, &s.Role, &s.SharedBuffers, &r.blockSize); err != nil {
		return err
	}
	// Each extension advise reads through is used only as installed: a
	// member replaced or shadowed would run code of the user's at every read.
	for _, name := range []string{"pg_buffercache", "pg_stat_statements", "pg_walinspect", "pgstattuple"} {
		schema, why, err := sqltree.Extension(ctx, tx, name, sqltree.ExtensionUses[name]...)
		switch {
		case err != nil:
			return err
		case why != "":
			s.Notes = append(s.Notes, why+"; its figures are not read")
		case schema != "":
			r.ext[name] = schema
			s.Extensions = append(s.Extensions, name)
		}
	}
	for _, e := range []struct{ name, gives string }{
		{"pgstattuple", "the key index's leaf density measured (pgstatindex) instead of estimated"},
		{"pg_buffercache", "the key index's share of the cache"},
		{"pg_walinspect", "a standby's rates, counted in the WAL it replays"},
		{"pg_stat_statements", "each table's statements, replayed by its lab (without it: the table's counters)"},
	} {
		if _, ok := r.ext[e.name]; !ok && (e.name != "pg_walinspect" || s.Standby) && !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.HasPrefix(n, "extension "+e.name+" ") }) {
			s.Notes = append(s.Notes, fmt.Sprintf("%s is not installed: it would give %s (CREATE EXTENSION %s, by its owner; advise creates nothing)", e.name, e.gives, e.name))
		}
	}
	return nil
}

// tables lists the user tables advise looks at: the named ones (each must
// exist), or every ordinary and partitioned table outside the system
// schemas and extensions that is no partition of another.
func (r *reader) tables(ctx context.Context, tx pgx.Tx, names []string) ([]uint32, []Table, error) {
	var oids []uint32
	var tables []Table
	add := func(oid uint32, schema, name string) {
		oids = append(oids, oid)
		tables = append(tables, Table{Schema: schema, Name: name})
	}
	if len(names) > 0 {
		for _, n := range names {
			var oid *uint32
			var schema, name, kind string
			if err := tx.QueryRow(ctx, `SELECT c.oid, n.nspname, c.relname, c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE c.oid = to_regclass($1)`, n).Scan(&oid, &schema, &name, &kind); err != nil {
				if errors.Is(err, pgx.ErrNoRows) {
					return nil, nil, usage.Errorf("--table %s: no such table in database %s", n, r.srv.Database)
				}
				if pe, ok := errors.AsType[*pgconn.PgError](err); ok && strings.HasPrefix(pe.Code, "42") {
					return nil, nil, usage.Errorf("--table %s: %s", n, pe.Message)
				}
				return nil, nil, err
			}
			if kind != "r" && kind != "p" {
				return nil, nil, usage.Errorf("--table %s: %s.%s is not an ordinary table", n, sqltree.Printable(schema), sqltree.Printable(name))
			}
			add(*oid, schema, name)
		}
		return oids, tables, nil
	}
	// A partitioned table is one table, its partitions' rows, sizes and
	// rates summed under its name (its statements name it): its partitions
	// are not listed apart.
	rows, _ := tx.Query(ctx, `SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%'
		AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
		ORDER BY 2, 3`)
	var oid uint32
	var schema, name string
	_, err := pgx.ForEachRow(rows, []any{&oid, &schema, &name}, func() error { add(oid, schema, name); return nil })
	return oids, tables, err
}

// cacheByFilenode counts shared_buffers' pages by relation file
// (pg_buffercache), or says why it cannot.
func (r *reader) cacheByFilenode(ctx context.Context, tx pgx.Tx) results.M[map[uint32]int64] {
	schema, ok := r.ext["pg_buffercache"]
	if !ok {
		return results.Unavailable[map[uint32]int64]("pg_buffercache is not installed")
	}
	pages := map[uint32]int64{}
	err := pgx.BeginFunc(ctx, tx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `SELECT b.relfilenode::int8, count(*) FROM `+pgx.Identifier{schema, "pg_buffercache"}.Sanitize()+` b
			WHERE b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) GROUP BY 1`)
		var node, n int64
		_, err := pgx.ForEachRow(rows, []any{&node, &n}, func() error { pages[uint32(node)] = n; return nil })
		return err
	})
	if err != nil {
		return results.Unavailable[map[uint32]int64](why(err, "GRANT pg_monitor TO "+quoteIdent(r.srv.Role)))
	}
	return results.Of(pages)
}

// Page capacities: the most heap tuples a page holds (PostgreSQL's
// MaxHeapTuplesPerPage: each tuple a 24-byte header and a line pointer) and
// the most btree tuples a leaf holds (each at least 16 bytes and a line
// pointer, past the page header and the btree's special space).
func maxHeapTuplesPerPage(blockSize int64) int64 { return (blockSize - 24) / (24 + 4) }
func maxIndexTuplesPerPage(blockSize int64) int64 {
	return (blockSize - 24 - 16) / (16 + 4)
}

// tableFacts are what the catalog transaction read that later reads need.
type tableFacts struct {
	heapBytes int64
	canSelect bool
	// partitioned: the table is partitioned; leafOID is its largest leaf
	// (itself for a plain table), where its rows are sampled, and
	// leafIndexOID that leaf's part of the key index.
	partitioned  bool
	leafOID      uint32
	leafIndexOID uint32
	// leafStats: the statistics are the largest partition's (the parent
	// was never analysed itself).
	leafStats bool
	// policed: row-level security applies to advise's role on the table:
	// its rows are not read (its policies' expressions would run).
	policed   bool
	analysed  bool
	indexOID  uint32
	keyTypLen int
	stats     map[string]columnStat
	inherited bool // pg_stats holds the table's statistics with its children only
}

// table reads one table's figures, each group in a short transaction of
// its own: sizes, rows, key, statistics, cache share and foreign keys in
// one; the key's leaf order in another (its planner settings end with it);
// pgstatindex in a third.
func (r *reader) table(ctx context.Context, oid uint32, t *Table, cache results.M[map[uint32]int64]) error {
	var f tableFacts
	if err := r.readOnly(ctx, func(tx pgx.Tx) error { return r.catalog(ctx, tx, oid, t, &f, cache) }); err != nil {
		return err
	}
	k := t.Key
	if k == nil {
		return nil
	}
	grantSelect := r.grantSelect(t)
	var bounds []string
	if s, ok := f.stats[k.Columns[0]]; ok && len(k.Columns) == 1 {
		bounds = s.bounds
	}
	var sampled []string
	switch {
	case len(k.Columns) != 1:
		k.LeafOrder = results.Unavailable[float64]("a key of several columns: the leaf order is read of one")
	case !f.canSelect:
		k.LeafOrder = results.Unavailable[float64](grantSelect)
	case r.unread(f, k) != "":
		k.LeafOrder = results.Unavailable[float64](r.unread(f, k))
	default:
		k.LeafOrder, sampled = r.leafOrder(ctx, r.sampled(ctx, t, f), k, bounds)
	}
	uuidShape(k, append(bounds, sampled...))
	if len(k.UUIDVersions) > 0 && len(k.Columns) == 1 {
		r.readMix(ctx, t, f)
	}
	if k.Type != "uuid" && len(k.Columns) == 1 && (k.Made == "gen_random_uuid()" || k.Made == "uuidv7()") &&
		(strings.HasPrefix(k.Type, "text") || strings.HasPrefix(k.Type, "character")) {
		k.UUIDText = true // a uuid function's value cast to text: uuid-shaped by its default, sampled or not
	}
	keyWidth := results.Unavailable[float64](r.noColumnStats(t, f, k.Columns[0]))
	if f.keyTypLen > 0 {
		keyWidth = results.Of(float64(f.keyTypLen))
	} else if s, ok := f.stats[k.Columns[0]]; ok && len(k.Columns) == 1 {
		keyWidth = results.Of(float64(s.avgWidth))
	}
	t.LeafDensity, t.DensityMethod, t.DensityNote = r.density(ctx, cmp.Or(f.leafIndexOID, f.indexOID), t, keyWidth)
	for i := range t.ReferencedBy {
		fk := &t.ReferencedBy[i]
		switch w, ok := keyWidth.Get(); {
		case !fk.Indexed:
		case !ok:
			fk.KeyBytes = results.Unavailable[float64]("the key's width: " + keyWidth.Reason())
		default:
			fk.KeyBytes = results.Of(w * float64(fk.Rows))
		}
	}
	return nil
}

func (r *reader) grantSelect(t *Table) string {
	return fmt.Sprintf("needs SELECT on the table: GRANT SELECT ON %s.%s TO %s, or GRANT pg_read_all_data", quoteIdent(t.Schema), quoteIdent(t.Name), quoteIdent(r.srv.Role))
}

// noStats is why pg_stats holds nothing of a table's columns, from what
// the catalog says of it: no right to see them, statistics of its
// inheritance children only, analysed with no live row, or never analysed.
func (r *reader) noStats(t *Table, f tableFacts) string {
	switch {
	case !f.canSelect:
		return r.grantSelect(t)
	case f.partitioned:
		return "a partitioned table: pg_stats holds nothing of it (autovacuum never analyses a partitioned table; ANALYZE it) nor of its largest partition"
	case f.inherited:
		return "pg_stats holds its statistics with its inheritance children only: it had no row of its own when analysed"
	case f.analysed:
		return "analysed, but pg_stats holds nothing of its columns: it had no live row when analysed"
	case r.srv.Standby:
		return "pg_stats holds nothing of its columns: never analysed, or no live row at its last ANALYZE (a standby does not record when the primary analysed)"
	}
	return "never analysed: pg_stats holds nothing of its columns (ANALYZE would)"
}

// noColumnStats is why pg_stats holds nothing of one column: nothing of the
// table (noStats), or this column alone missing from what it holds.
func (r *reader) noColumnStats(t *Table, f tableFacts, col string) string {
	if len(f.stats) == 0 {
		return r.noStats(t, f)
	}
	return fmt.Sprintf("pg_stats holds %d of the table's columns but not %s (its statistics target is 0, or it was added after the last ANALYZE)", len(f.stats), sqltree.Printable(col))
}

// catalog reads a table's sizes, rows, key, statistics, cache share and
// the foreign keys referencing it. A table gone since the listing is errDropped.
func (r *reader) catalog(ctx context.Context, tx pgx.Tx, oid uint32, t *Table, f *tableFacts, cache results.M[map[uint32]int64]) error {
	var reltuples *float64
	var heapBytes, tableBytes, indexesBytes, liveTup *int64
	var canSelect, analysed *bool
	var partitions int
	// Every figure summed over the table's leaves: itself, or a partitioned
	// table's partitions (pg_partition_tree).
	err := tx.QueryRow(ctx, `SELECT -- no count (NULL) when a leaf was never analysed (reltuples -1): n_live_tup then
			(SELECT CASE WHEN bool_and(lc.reltuples >= 0) THEN sum(lc.reltuples)::float8 END FROM pg_class lc WHERE lc.oid = ANY (lv.leaves)),
			coalesce((SELECT sum(pg_relation_size(x))::int8 FROM unnest(lv.leaves) x), 0), coalesce((SELECT sum(pg_table_size(x))::int8 FROM unnest(lv.leaves) x), 0),
			coalesce((SELECT sum(pg_indexes_size(x))::int8 FROM unnest(lv.leaves) x), 0),
			(SELECT sum(ls.n_live_tup)::int8 FROM pg_stat_user_tables ls WHERE ls.relid = ANY (lv.leaves)),
			(SELECT bool_or(ls.last_analyze IS NOT NULL OR ls.last_autoanalyze IS NOT NULL) FROM pg_stat_user_tables ls WHERE ls.relid = ANY (lv.leaves)),
			has_table_privilege(c.oid, 'SELECT'),
			-- row-level security applies unless the role bypasses it, or owns
			-- the table and it is not forced (PostgreSQL's check_enable_rls)
			c.relrowsecurity AND NOT (SELECT r.rolsuper OR r.rolbypassrls FROM pg_roles r WHERE r.rolname = current_user)
				AND (c.relforcerowsecurity OR NOT pg_has_role(c.relowner, 'USAGE')),
			c.relkind = 'p',
			-- the largest leaf: where a partitioned table's rows are sampled
			coalesce((SELECT x FROM unnest(lv.leaves) x ORDER BY pg_relation_size(x) DESC LIMIT 1), c.oid),
			coalesce(cardinality(lv.leaves), 0)
		FROM pg_class c CROSS JOIN LATERAL (SELECT array_agg(l.relid) AS leaves FROM `+r.leaves("c.oid")+` l) lv WHERE c.oid = $1`, oid).
		Scan(&reltuples, &heapBytes, &tableBytes, &indexesBytes, &liveTup, &analysed, &canSelect, &f.policed, &f.partitioned, &f.leafOID, &partitions)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && (heapBytes == nil || tableBytes == nil || indexesBytes == nil || canSelect == nil) {
		return errDropped
	}
	if err != nil {
		return err
	}
	t.TableBytes, t.IndexesBytes, f.heapBytes, f.canSelect = *tableBytes, *indexesBytes, *heapBytes, *canSelect
	if f.partitioned {
		t.Partitions = partitions
	}
	f.analysed = analysed != nil && *analysed
	t.Rows = r.rows(reltuples, liveTup, f.heapBytes)
	if f.stats, f.inherited, err = r.columnStats(ctx, tx, oid, f.partitioned); err != nil {
		return err
	}
	if len(f.stats) == 0 && f.partitioned && f.leafOID != oid {
		// A partitioned table analysed only by autovacuum, which never
		// analyses a parent: its largest partition's statistics.
		if f.stats, _, err = r.columnStats(ctx, tx, f.leafOID, false); err != nil {
			return err
		}
		f.leafStats = len(f.stats) > 0
	}
	t.RowBytes = r.rowBytes(t, *f)
	k, indexOID, keyTypLen, err := r.key(ctx, tx, oid)
	if err != nil || k == nil {
		return err
	}
	t.Key, f.indexOID, f.keyTypLen = k, indexOID, keyTypLen
	nodes, err := r.keyIndex(ctx, tx, t, f, indexOID)
	if err != nil {
		return err
	}
	if s, ok := f.stats[k.Columns[0]]; ok {
		// A key of several columns is ordered as its first column is: it
		// decides where each insert lands in the key index.
		k.Correlation = s.correlation
	} else {
		k.Correlation = results.Unavailable[float64](r.noColumnStats(t, *f, k.Columns[0]))
	}
	t.CacheShare = r.cacheShare(cache, nodes)
	if t.Secondary, err = r.secondaries(ctx, tx, oid, indexOID, f.stats); err != nil {
		return err
	}
	if err := r.runsOut(ctx, tx, oid, t, r.feeds); err != nil {
		return err
	}
	if err := r.readPooled(ctx, tx, t); err != nil {
		return err
	}
	t.ReferencedBy, err = r.referencedBy(ctx, tx, oid)
	return err
}

// keyIndex reads the key index's size (over a partitioned table's
// leaves), sets it against the cache and the RAM, and returns its files
// (to find its pages in the cache).
func (r *reader) keyIndex(ctx context.Context, tx pgx.Tx, t *Table, f *tableFacts, indexOID uint32) ([]int64, error) {
	var indexBytes *int64
	var nodes []int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(sum(pg_relation_size(l.relid)), 0)::int8, coalesce(array_agg(pg_relation_filenode(l.relid)::int8) FILTER (WHERE pg_relation_filenode(l.relid) IS NOT NULL), '{}'),
			coalesce((SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = $2 AND i.indexrelid IN (SELECT x.relid FROM `+r.leaves("$1::oid")+` x)), $1::oid)
		FROM `+r.leaves("$1::oid")+` l`, indexOID, f.leafOID).Scan(&indexBytes, &nodes, &f.leafIndexOID); err != nil {
		return nil, err
	}
	if indexBytes == nil {
		return nil, errDropped
	}
	t.KeyIndexBytes = *indexBytes
	r.checkRowsAgainstIndex(t)
	t.KeyIndexOverCache = float64(t.KeyIndexBytes) / float64(r.srv.SharedBuffers)
	if r.srv.RAM > 0 {
		t.KeyIndexOverRAM = results.Of(float64(t.KeyIndexBytes) / float64(r.srv.RAM))
	}
	return nodes, nil
}

// rowBytes is the average width of a row: its columns' (pg_stats), else
// the heap's bytes per row less a tuple's header and line pointer.
func (r *reader) rowBytes(t *Table, f tableFacts) results.M[float64] {
	if len(f.stats) > 0 {
		var w float64
		for _, s := range f.stats {
			w += float64(s.avgWidth)
		}
		return results.Of(w)
	}
	rows, ok := t.Rows.Get()
	if !ok || rows <= 0 || f.heapBytes <= 0 {
		return results.Unavailable[float64](r.noStats(t, f))
	}
	if w := float64(f.heapBytes)/float64(rows) - 28; w > 0 {
		return results.Of(w)
	}
	return results.Unavailable[float64](fmt.Sprintf("%s; the heap's %s over its %d rows leaves no room for a row", r.noStats(t, f), results.Bytes(f.heapBytes), rows))
}

// cacheShare is the key index's share of shared_buffers: its files' pages
// in the cache (pg_buffercache, read once for all tables) over the cache.
func (r *reader) cacheShare(cache results.M[map[uint32]int64], nodes []int64) results.M[float64] {
	c, ok := cache.Get()
	switch {
	case !ok:
		return results.Unavailable[float64](cache.Reason())
	case len(nodes) == 0:
		return results.Unavailable[float64]("the key index has no file of its own (pg_relation_filenode)")
	}
	var pages int64
	for _, n := range nodes {
		pages += c[uint32(n)]
	}
	return results.Of(float64(pages*r.blockSize) / float64(r.srv.SharedBuffers))
}

// secondaries reads the table's other indexes (valid, one plain column,
// no predicate): the order of each one's inserts from its column's
// pg_stats correlation (|c| of at least orderedCorrelation, the key's
// threshold: time-ordered,
// like a created_at; else random, like an email) and its width, which
// the lab table's --secondary reproduces.
func (r *reader) secondaries(ctx context.Context, tx pgx.Tx, oid, keyIndex uint32, stats map[string]columnStat) ([]SecondaryIndex, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname::text, a.attname::text, i.indisunique
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE i.indrelid = $1 AND i.indexrelid <> $2 AND i.indisvalid AND i.indnatts = 1 AND i.indexprs IS NULL AND i.indpred IS NULL
		ORDER BY c.relname`, oid, keyIndex)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (s SecondaryIndex, err error) {
		err = row.Scan(&s.Index, &s.Column, &s.Unique)
		st, ok := stats[s.Column]
		switch c, okC := st.correlation.Get(); {
		case !ok:
			s.Order = OrderUnknown
		case okC && math.Abs(c) >= orderedCorrelation:
			s.Order, s.Width = Ordered, st.avgWidth
		default:
			s.Order, s.Width = Random, st.avgWidth
		}
		return s, err
	})
}

// rows is the table's row count as the catalog holds it, unless its heap
// is too small to hold that many: statistics the relation's size
// contradicts (stale, or set by hand) are flagged, not believed.
func (r *reader) rows(reltuples *float64, liveTup *int64, heapBytes int64) results.M[int64] {
	var claimed int64
	var source string
	switch {
	case reltuples != nil && *reltuples >= 0:
		claimed, source = int64(*reltuples), "pg_class.reltuples"
	case liveTup != nil && !r.srv.Standby && (*liveTup > 0 || heapBytes == 0):
		claimed, source = *liveTup, "pg_stat_user_tables.n_live_tup"
	case liveTup != nil && !r.srv.Standby:
		// Counters flushed late (a session's inserts reach them seconds
		// after it commits): none counted beside a heap of pages is no count.
		return results.Unavailable[int64](fmt.Sprintf("never analysed, and pg_stat_user_tables counts no live row beside a heap of %s: the catalog holds no row count", results.Bytes(heapBytes)))
	default:
		return results.Unavailable[int64]("never analysed or vacuumed: the catalog holds no row count")
	}
	if most := heapBytes / r.blockSize * maxHeapTuplesPerPage(r.blockSize); claimed > most {
		return results.Unavailable[int64](fmt.Sprintf("%s says %d rows, but its heap of %s holds at most %d: the statistics are stale or altered, not believed (ANALYZE the table)",
			source, claimed, results.Bytes(heapBytes), most))
	}
	return results.Of(claimed)
}

// checkRowsAgainstIndex flags a row count its primary key's index is too
// small to hold (a primary key has one index tuple per row at least).
func (r *reader) checkRowsAgainstIndex(t *Table) {
	rows, ok := t.Rows.Get()
	if !ok || t.Key.Kind != "primary key" {
		return
	}
	leaves := max(0, t.KeyIndexBytes/r.blockSize-1) // less the metapage
	if most := leaves * maxIndexTuplesPerPage(r.blockSize); rows > most {
		t.Rows = results.Unavailable[int64](fmt.Sprintf("the statistics say %d rows, but its primary key's index of %s holds at most %d: stale or altered, not believed (ANALYZE the table)",
			rows, results.Bytes(t.KeyIndexBytes), most))
	}
}

type columnStat struct {
	avgWidth    int
	correlation results.M[float64]
	bounds      []string
}

// columnStats reads pg_stats of every column of the table (rows the role
// may not see are absent: pg_stats shows a column's only to who may read
// it); inherited says pg_stats holds the table's statistics with its
// inheritance children and none of its own.
func (r *reader) columnStats(ctx context.Context, tx pgx.Tx, oid uint32, partitioned bool) (map[string]columnStat, bool, error) {
	// The table's names compared as one row, which the planner pushes into
	// the view (a join on them reads every table's statistics first).
	rows, _ := tx.Query(ctx, `SELECT s.attname::text, s.inherited, s.avg_width, s.correlation::float8, s.histogram_bounds::text FROM pg_stats s
		WHERE (s.schemaname, s.tablename) = (SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1)`, oid)
	out := map[string]columnStat{}
	inherited := false
	var name string
	var inh bool
	var width int
	var corr *float64
	var hist *string
	_, err := pgx.ForEachRow(rows, []any{&name, &inh, &width, &corr, &hist}, func() error {
		if inh != partitioned { // a partitioned table's own statistics are of its partitions' rows
			inherited = inherited || inh
			return nil
		}
		s := columnStat{avgWidth: width}
		if corr != nil {
			s.correlation = results.Finite(*corr)
		} else {
			s.correlation = results.Unavailable[float64]("pg_stats has no correlation: every value distinct and the table too small for a histogram, or one value")
		}
		if hist != nil {
			s.bounds = arrayElements(*hist)
		}
		out[name] = s
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, inherited && len(out) == 0, nil
}

// key reads the table's primary key, or its largest valid unique index
// without predicate or expressions, with how its values are made.
func (r *reader) key(ctx context.Context, tx pgx.Tx, oid uint32) (*Key, uint32, int, error) {
	var k Key
	var indexOID uint32
	var contype string
	var attnums []int16
	err := tx.QueryRow(ctx, `SELECT i.indexrelid, i.indexrelid::regclass::text, coalesce(con.conname::text, ''), coalesce(con.contype::text, 'i'), i.indkey::int2[]
		FROM pg_index i LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u')
		WHERE i.indrelid = $1 AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
		ORDER BY i.indisprimary DESC, pg_relation_size(i.indexrelid) DESC LIMIT 1`, oid).Scan(&indexOID, &k.Index, &k.Constraint, &contype, &attnums)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, err
	}
	k.Kind = "unique"
	if contype == "p" {
		k.Kind = "primary key"
	}
	if k.Constraint == "" {
		k.Constraint = k.Index
	}
	rows, _ := tx.Query(ctx, `SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attidentity::text, coalesce(pg_get_expr(d.adbin, d.adrelid), ''),
			CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE ty.oid END, ty.typlen::int,
			coalesce((SELECT s.seqcache FROM pg_depend dep JOIN pg_sequence s ON s.seqrelid = dep.objid
				WHERE dep.classid = 'pg_class'::regclass AND dep.refclassid = 'pg_class'::regclass AND dep.refobjid = $1
				AND dep.refobjsubid = a.attnum AND dep.deptype IN ('a', 'i') LIMIT 1), 0)
		FROM unnest($2::int2[]) WITH ORDINALITY u(attnum, ord)
		JOIN pg_attribute a ON a.attrelid = $1 AND a.attnum = u.attnum
		JOIN pg_type ty ON ty.oid = a.atttypid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		ORDER BY u.ord`, oid, attnums)
	typLen := 0
	var types []string
	var name, typ, identity, def string
	var tl int
	var base uint32
	var cache int64
	if _, err := pgx.ForEachRow(rows, []any{&name, &typ, &identity, &def, &base, &tl, &cache}, func() error {
		k.Columns = append(k.Columns, name)
		types = append(types, typ)
		k.types = append(k.types, typ)
		if len(k.Columns) == 1 {
			k.baseOID = base
			typLen, k.Default, k.SequenceCache = tl, def, cache
			k.Made = madeBy(identity, def)
		}
		return nil
	}); err != nil {
		return nil, 0, 0, err
	}
	k.Type = strings.Join(types, ", ")
	if len(k.Columns) > 1 {
		typLen = 0 // the key's width is its columns' together (pg_stats')
	}
	return &k, indexOID, typLen, nil
}

// Recheck reads each fed column's sequence again for a report printed
// minutes after the sample (after the labs): when each runs out is
// counted anew from this read, at the pace since the first, and a column
// that ran out meanwhile says so. Read-only, one transaction a sequence.
func Recheck(ctx context.Context, conn *pgx.Conn, rep *Report) error {
	r := &reader{conn: conn, srv: &rep.Server}
	if err := r.rereadRunsOut(ctx, rep.Tables); err != nil {
		return err
	}
	for i := range rep.Tables {
		t := &rep.Tables[i]
		if len(t.RunsOut) == 0 {
			continue
		}
		if t.Verdict.Class == RunsOut {
			t.Verdict.Why = slices.DeleteFunc(t.Verdict.Why, func(w string) bool { return strings.HasPrefix(w, "Column ") })
		}
		runsOutTimes(t)
		emergency(t)
	}
	return nil
}

// quoteIdent quotes an identifier only where SQL needs it, as a grant to
// copy reads best.
func quoteIdent(s string) string {
	if plainIdentRE.MatchString(s) {
		return s
	}
	return pgx.Identifier{s}.Sanitize()
}

var plainIdentRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

var callRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*)\s*\(`)

// madeBy names how a key column's values are made, from its identity and default.
func madeBy(identity, def string) string {
	d := strings.ToLower(def)
	switch {
	case identity == "a" || identity == "d":
		return "identity"
	case strings.Contains(d, "nextval("):
		return "sequence"
	case strings.Contains(d, "gen_random_uuid()"), strings.Contains(d, "uuid_generate_v4()"), strings.Contains(d, "uuidv4()"):
		return "gen_random_uuid()"
	case strings.Contains(d, "uuidv7("), strings.Contains(d, "uuid_generate_v7("):
		return "uuidv7()"
	case strings.Contains(d, "now()"), strings.Contains(d, "clock_timestamp()"), strings.Contains(d, "current_timestamp"), strings.Contains(d, "statement_timestamp()"), strings.Contains(d, "transaction_timestamp()"):
		return "now()"
	case def == "":
		return "application"
	}
	if m := callRE.FindStringSubmatch(def); m != nil {
		return "function " + m[1] + "()"
	}
	return "default " + def
}

var (
	uuidRE  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	hex32RE = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)
)

// uuidShape reads sampled key values: uuids stored as text (most samples
// uuid-shaped) and the uuid version most of them carry.
func uuidShape(k *Key, values []string) {
	if len(values) == 0 || len(k.Columns) != 1 {
		return
	}
	shaped, versions := 0, map[byte]int{}
	for _, v := range values {
		var hex string
		switch {
		case uuidRE.MatchString(v):
			hex = strings.ReplaceAll(v, "-", "")
		case hex32RE.MatchString(v):
			hex = v
		default:
			continue
		}
		shaped++
		versions[hex[12]]++
	}
	if shaped*10 < len(values)*9 {
		return
	}
	textual := k.Type != "uuid"
	k.UUIDText = textual && (strings.HasPrefix(k.Type, "text") || strings.HasPrefix(k.Type, "character"))
	k.UUIDVersions = map[string]int{}
	for v, n := range versions {
		if n*10 >= shaped*9 && v >= '1' && v <= '8' {
			k.UUIDVersion = int(v - '0')
		}
		k.UUIDVersions["v"+string(v)] += n
	}
}

// arrayElements splits a PostgreSQL array literal's text ({a,b,"c d"}) into its elements.
func arrayElements(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	var out []string
	var cur strings.Builder
	quoted, escaped := false, false
	for _, c := range s {
		switch {
		case escaped:
			cur.WriteRune(c)
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(c)
		}
	}
	if cur.Len() > 0 || len(out) > 0 {
		out = append(out, cur.String())
	}
	return out
}

// leafOrder reads runs of consecutive keys through the key index at
// sampled points of the key range and counts the pairs whose rows lie in
// heap order; it returns the share, and the keys it read (a value sample).
// It runs in a transaction of its own: the planner settings that make it
// walk the index (set_config, local to it) end with that transaction, never costing a
// later query as if a scan were forbidden.
func (r *reader) leafOrder(ctx context.Context, qualified string, k *Key, bounds []string) (results.M[float64], []string) {
	col := pgx.Identifier{k.Columns[0]}.Sanitize()
	var starts []*string
	if len(bounds) == 0 {
		starts = []*string{nil}
	}
	for i := 0; i < leafSamples && len(bounds) > 0; i++ {
		b := bounds[i*len(bounds)/leafSamples]
		starts = append(starts, &b)
	}
	inOrder, pairs := 0, 0
	var sampled []string
	err := r.readOnly(ctx, func(tx pgx.Tx) error {
		// an ordered walk of the key index, never a sort of the table
		if _, err := tx.Exec(ctx, `SELECT pg_catalog.set_config(s, 'off', true) FROM pg_catalog.unnest(ARRAY['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) AS s`); err != nil {
			return err
		}
		// The key as its base type (a domain's CHECK does not run on a
		// read), printed by format (the type's own output function, never
		// a cast of the user's to text), compared and ordered by
		// PostgreSQL's own operators; the row's place read as a tid.
		q := fmt.Sprintf(`SELECT pg_catalog.format('%%s', t.%[1]s::%[2]s), t.ctid FROM ONLY %[3]s AS t`, col, k.base, qualified)
		if starts[0] != nil {
			q += fmt.Sprintf(" WHERE t.%s::%s OPERATOR(pg_catalog.>=) $1::%s", col, k.base, k.base)
		}
		q += fmt.Sprintf(" ORDER BY t.%s::%s LIMIT %d", col, k.base, leafSampleRows)
		// Every point's read is one text, its bound a parameter: judged
		// once, then every point read in one round trip.
		if why, err := r.vetRead(ctx, q); err != nil || why != "" {
			return cmp.Or(err, errors.New(why))
		}
		batch := &pgx.Batch{}
		for _, start := range starts {
			if start == nil {
				batch.Queue(q)
			} else {
				batch.Queue(q, *start)
			}
		}
		br := tx.SendBatch(ctx, batch)
		for range starts {
			rows, _ := br.Query()
			n, ordered, err := inHeapOrder(rows, &sampled)
			if err != nil {
				_ = br.Close()
				return err
			}
			pairs, inOrder = pairs+n, inOrder+ordered
		}
		return br.Close()
	})
	if err != nil {
		return results.Unavailable[float64](why(err, "")), nil
	}
	if pairs == 0 {
		return results.Unavailable[float64]("the table has fewer than two rows"), sampled
	}
	return results.Of(float64(inOrder) / float64(pairs)), sampled
}

// inHeapOrder reads one run of consecutive keys (value, tid) and counts
// its pairs and those whose rows lie in heap order; the values are added
// to sampled.
func inHeapOrder(rows pgx.Rows, sampled *[]string) (pairs, inOrder int, err error) {
	var prevBlock, prevItem int64 = -1, -1
	var v string
	var tid pgtype.TID
	_, err = pgx.ForEachRow(rows, []any{&v, &tid}, func() error {
		block, item := int64(tid.BlockNumber), int64(tid.OffsetNumber)
		*sampled = append(*sampled, v)
		if prevBlock >= 0 {
			pairs++
			if block > prevBlock || block == prevBlock && item > prevItem {
				inOrder++
			}
		}
		prevBlock, prevItem = block, item
		return nil
	})
	return pairs, inOrder, err
}

// density measures the key index's leaf density with pgstatindex where it
// is installed, granted and the index small enough to read whole, else
// estimates it: the rows' index tuples over the index's pages.
func (r *reader) density(ctx context.Context, indexOID uint32, t *Table, keyWidth results.M[float64]) (_ results.M[float64], method, note string) {
	var reason string
	schema, installed := r.ext["pgstattuple"]
	switch {
	case !installed:
		reason = "pgstattuple is not installed"
	case t.KeyIndexBytes > pgstatindexLimit:
		reason = fmt.Sprintf("the key index is %s; pgstatindex would read all of it", results.Bytes(t.KeyIndexBytes))
	default:
		var d float64
		err := r.readOnly(ctx, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `SELECT avg_leaf_density::float8 FROM `+pgx.Identifier{schema, "pgstatindex"}.Sanitize()+`($1::oid::regclass)`, indexOID).Scan(&d)
		})
		if err == nil && !math.IsNaN(d) {
			return results.Of(d / 100), "pgstatindex", ""
		}
		if err != nil {
			reason = "pgstatindex: " + why(err, "GRANT pg_stat_scan_tables TO "+quoteIdent(r.srv.Role))
		} else {
			reason = "pgstatindex: the index has no leaf tuples"
		}
	}
	rows, haveRows := t.Rows.Get()
	w, haveWidth := keyWidth.Get()
	switch {
	case !haveRows:
		return results.Unavailable[float64](reason + "; no estimate: " + t.Rows.Reason()), "", ""
	case !haveWidth:
		return results.Unavailable[float64](reason + "; no estimate without the key's width: " + keyWidth.Reason()), "", ""
	case t.KeyIndexBytes < 2*8192 || rows == 0:
		return results.Unavailable[float64](reason + "; no estimate: the index is empty"), "", ""
	}
	tuple := math.Ceil((8+w)/8)*8 + 4
	leafPages := float64(t.KeyIndexBytes/r.blockSize - 1) // less the metapage; inner pages are ~1%
	est := float64(rows) * tuple / (leafPages * float64(r.blockSize-24-16))
	if est > 1.05 { // 5%: the inner pages counted as leaves, and reltuples' own sampling
		return results.Unavailable[float64](fmt.Sprintf("%s; no estimate: %d rows of %.0f-byte keys do not fit the key index's %.0f pages (%.0f%% full): the row count is stale",
			reason, rows, w, leafPages, est*100)), "", ""
	}
	return results.Of(math.Min(1, est)), "estimated from the row count and the key's width", reason
}

// referencedBy lists the foreign keys referencing the table, each with the
// size of the referencing table's index on its columns.
func (r *reader) referencedBy(ctx context.Context, tx pgx.Tx, oid uint32) ([]ForeignKey, error) {
	rows, err := tx.Query(ctx, `SELECT con.conrelid::regclass::text, con.conname::text, greatest((SELECT reltuples FROM pg_class WHERE oid = con.conrelid), 0)::int8,
			(SELECT max(pg_relation_size(i.indexrelid)) FROM pg_index i WHERE i.indrelid = con.conrelid AND i.indisvalid
				AND (SELECT array_agg(k ORDER BY k) FROM unnest(i.indkey::int2[]) WITH ORDINALITY u(k, o) WHERE o <= cardinality(con.conkey))
					= (SELECT array_agg(k ORDER BY k) FROM unnest(con.conkey) k))
		FROM pg_constraint con WHERE con.contype = 'f' AND con.confrelid = $1 ORDER BY 1, 2`, oid)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (f ForeignKey, err error) {
		var size *int64
		err = row.Scan(&f.Table, &f.Constraint, &f.Rows, &size)
		if size != nil {
			f.Indexed, f.IndexBytes = true, *size
		}
		return f, err
	})
}

// unread says why the rows of a table are not read ("" when they may be):
// row-level security applies to advise's role (its policies would run), or
// the key's type, through a domain to its base, is not PostgreSQL's own or
// reaches code of the user's as it is compared or ordered (an operator
// class or cast of theirs on it: sqltree.Lookups). It names the base type
// the reads cast the key to.
func (r *reader) unread(f tableFacts, k *Key) string {
	if f.policed {
		return "row-level security applies to this role on the table: its rows are not read (its policies would run as advise reads them; a role with BYPASSRLS reads them)"
	}
	if k.base != "" {
		return ""
	}
	bt, ok := r.bases[k.baseOID]
	if !ok {
		var err error
		if bt, err = r.baseType(k.baseOID); err != nil {
			return "its key's type could not be read: " + err.Error()
		}
		if r.bases == nil {
			r.bases = map[uint32]baseType{}
		}
		r.bases[k.baseOID] = bt
	}
	k.base = bt.base
	return bt.why
}

// baseType is what a key's base type allows advise to read: its name as
// advise's reads cast to it, or why its values are not read.
type baseType struct{ base, why string }

// baseType reads whether the values of the type oid can be read without
// running anything of the user's: PostgreSQL's own type, ordered by its
// own btree class, no comparison or cast of its reaching the user's
// (read once a database: every table keyed by the type shares it).
func (r *reader) baseType(oid uint32) (baseType, error) {
	ctx := context.Background()
	var name, typname string
	var own bool
	if err := r.conn.QueryRow(ctx, `SELECT pg_catalog.format_type($1, NULL), (SELECT typname::text FROM pg_catalog.pg_type WHERE oid = $1), $1 < 16384 AND EXISTS (SELECT 1 FROM pg_catalog.pg_opclass o JOIN pg_catalog.pg_am a ON a.oid = o.opcmethod
			WHERE a.amname = 'btree' AND o.opcdefault AND o.opcintype = $1 AND o.oid < 16384)`, oid).Scan(&name, &typname, &own); err != nil {
		return baseType{}, err
	}
	if !own {
		return baseType{why: fmt.Sprintf("its key's type %s is not PostgreSQL's own, or PostgreSQL does not order it: its rows are not read (its functions would run)", sqltree.EscapeControls(name))}, nil
	}
	if why, err := sqltree.Lookups(ctx, r.conn, []uint32{oid}); err != nil || why != "" {
		return baseType{why: "its rows are not read: " + cmp.Or(why, fmt.Sprint(err))}, nil
	}
	return baseType{base: pgx.Identifier{"pg_catalog", typname}.Sanitize()}, nil
}

// vetRead has the server resolve one of advise's reads of a user's table
// (on a session of its own, planning and running nothing) and says why it
// would run anything but PostgreSQL's own functions and operators on its
// own types ("" when it would not): a policy's expression, a cast or
// operator of the user's (sqltree.Judge, rule Read).
func (r *reader) vetRead(ctx context.Context, q string) (string, error) {
	if r.res == nil {
		res, err := sqltree.NewResolver(ctx, r.conn.Config())
		if err != nil {
			return "", err
		}
		r.res = res
	}
	tree, why, err := r.res.Resolve(ctx, q)
	if err != nil || why != "" {
		return why, err
	}
	return sqltree.Judge(ctx, r.conn, tree, sqltree.ReadOnly, sqltree.Scope{})
}

// leaves is a FROM item of the leaves of the relation expr names (a
// table's or an index's partitions; the relation itself when it has none):
// a column relid.
func (r *reader) leaves(expr string) string {
	if r.srv.VersionNum >= 120000 {
		// pg_partition_tree lists nothing of a relation that is neither
		// partitioned nor a partition: the relation itself is its leaf.
		return "(SELECT relid::pg_catalog.oid AS relid FROM pg_catalog.pg_partition_tree(" + expr + ") WHERE isleaf" +
			" UNION ALL SELECT (" + expr + ")::pg_catalog.oid WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_partition_tree(" + expr + ")))"
	}
	return "(SELECT (" + expr + ")::pg_catalog.oid AS relid)"
}

// sampled is the relation whose rows a table's reads sample, qualified: the
// table, or a partitioned table's largest partition.
func (r *reader) sampled(ctx context.Context, t *Table, f tableFacts) string {
	if !f.partitioned || f.leafOID == 0 {
		return pgx.Identifier{t.Schema, t.Name}.Sanitize()
	}
	var schema, name string
	if err := r.conn.QueryRow(ctx, `SELECT n.nspname::text, c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1`, f.leafOID).Scan(&schema, &name); err != nil {
		return pgx.Identifier{t.Schema, t.Name}.Sanitize()
	}
	t.SampledPartition = sqltree.Printable(schema) + "." + sqltree.Printable(name)
	return pgx.Identifier{schema, name}.Sanitize()
}
