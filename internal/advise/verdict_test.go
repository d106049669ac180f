package advise

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

func TestMadeBy(t *testing.T) {
	for _, c := range []struct{ identity, def, want string }{
		{"a", "", "identity"},
		{"", "nextval('t_id_seq'::regclass)", "sequence"},
		{"", "gen_random_uuid()", "gen_random_uuid()"},
		{"", "(gen_random_uuid())::text", "gen_random_uuid()"},
		{"", "uuid_generate_v4()", "gen_random_uuid()"},
		{"", "uuidv7()", "uuidv7()"},
		{"", "", "application"},
		{"", "my_ids.next_id()", "function my_ids.next_id()"},
		{"", "'x'::text", "default 'x'::text"},
	} {
		if got := madeBy(c.identity, c.def); got != c.want {
			t.Errorf("madeBy(%q, %q) = %q, want %q", c.identity, c.def, got, c.want)
		}
	}
}

func TestUUIDShape(t *testing.T) {
	v4 := []string{"1b4e28ba-2fa1-4d2a-883f-0016d3cca427", "6fa459ea-ee8a-4ca4-894e-db77e160355e", "e4eaaaf2-d142-41d2-9c9b-7a4c1a4b2f3e"}
	k := &Key{Columns: []string{"id"}, Type: "text"}
	uuidShape(k, v4)
	if !k.UUIDText || k.UUIDVersion != 4 {
		t.Errorf("text uuids: %+v", k)
	}
	k = &Key{Columns: []string{"id"}, Type: "character(32)"}
	uuidShape(k, []string{"018d6e2f4a117b3c8abcdef012345678", "018d6e2f4a127b3c8abcdef012345678"})
	if !k.UUIDText || k.UUIDVersion != 7 {
		t.Errorf("char(32) uuidv7: %+v", k)
	}
	k = &Key{Columns: []string{"id"}, Type: "text"}
	uuidShape(k, []string{"alice", "bob", v4[0]})
	if k.UUIDText {
		t.Errorf("names are not uuids: %+v", k)
	}
	k = &Key{Columns: []string{"id"}, Type: "uuid"}
	uuidShape(k, v4)
	if k.UUIDText || k.UUIDVersion != 4 {
		t.Errorf("uuid column: %+v", k)
	}
}

func TestArrayElements(t *testing.T) {
	got := arrayElements(`{a,"b c","d,e",f\"g}`)
	want := []string{"a", "b c", "d,e", `f"g`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := arrayElements("{}"); len(got) != 0 {
		t.Errorf("{} = %q", got)
	}
}

func TestWriteTargets(t *testing.T) {
	for q, want := range map[string]string{
		"INSERT INTO sessions (data) VALUES ($1)":            ".sessions",
		`insert into public."Users" values (1)`:              "public.Users",
		"COPY app.events (id) FROM STDIN":                    "app.events",
		"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x": ".t",
		"SELECT * FROM sessions":                             "",
		"SELECT * FROM sessions FOR UPDATE OF sessions":      "",
		"UPDATE sessions SET data = 1":                       ".sessions",
		"DELETE FROM ONLY s.old WHERE id = 1":                "s.old",
		// A CTE writing two tables names both (issue 51).
		"WITH c AS (INSERT INTO customers (email) VALUES ($1) RETURNING id) INSERT INTO orders (customer_id) SELECT id FROM c": ".customers .orders",
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET n = t.n + 1":                                                  ".t",
	} {
		var got []string
		for _, target := range writeTargets(q) {
			got = append(got, target[0]+"."+target[1])
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
}

func TestOrderOf(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want string
	}{
		{Key{LeafOrder: results.Of(0.99), Correlation: results.Of(0.1)}, Ordered}, // the index's own order first
		{Key{LeafOrder: results.Of(0.5)}, Random},
		{Key{LeafOrder: results.Of(0.8)}, PartlyOrdered},
		{Key{LeafOrder: results.Unavailable[float64]("no"), Correlation: results.Of(-0.97)}, Ordered},
		{Key{Correlation: results.Of(0.02)}, Random},
		{Key{Made: "identity", Correlation: results.Unavailable[float64]("no")}, Ordered},
		{Key{Made: "gen_random_uuid()"}, Random},
		{Key{Made: "application", UUIDVersion: 7}, Ordered},
		{Key{Made: "application"}, UnknownOrder},
	} {
		if got, _ := orderOf(&c.k); got != c.want {
			t.Errorf("%+v: %s, want %s", c.k, got, c.want)
		}
	}
}

func table(name string, k *Key, keyIndex int64, ins float64) Table {
	return Table{Schema: "public", Name: name, Key: k, Rows: results.Of[int64](1_000_000), KeyIndexBytes: keyIndex,
		KeyIndexOverCache: float64(keyIndex) / (128 << 20), InsertsPerS: results.Of(ins), RowBytes: results.Of(80.0), Inserters: results.Of(4),
		LeafDensity: results.Of(0.7), CacheShare: results.Unavailable[float64]("pg_buffercache is not installed"),
		UpdatesPerS: results.Of(0.0), DeletesPerS: results.Of(0.0)}
}

// TestJudge: classes and ranks from the figures alone.
func TestJudge(t *testing.T) {
	random := func() *Key {
		return &Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Correlation: results.Of(0.01)}
	}
	tables := []Table{
		table("ordered", &Key{Columns: []string{"id"}, Type: "bigint", Made: "identity", Correlation: results.Of(1.0)}, 400<<20, 500),
		table("small", random(), 200<<10, 50),
		table("quiet", random(), 300<<20, 0),
		table("hot", random(), 400<<20, 200),
		table("warm", random(), 40<<20, 100),
		{Schema: "public", Name: "nokey"},
	}
	Judge(tables, Server{SharedBuffers: 128 << 20}, Sample{Seconds: 60}, nil)
	var got []string
	for _, tb := range tables {
		got = append(got, tb.Name+":"+tb.Verdict.Class+":"+string(rune('0'+tb.Verdict.Rank)))
	}
	// warm's index is a third of the cache and no figure that would show
	// its cost was read: its class says so, not "pays" (issue 51).
	want := []string{"hot:pays:1", "quiet:pays in size:2", "warm:cost not shown:0", "small:too small:0", "ordered:does not pay:0", "nokey:no key:0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if !strings.Contains(strings.Join(tables[0].Verdict.Why, " "), "3.1× shared_buffers") {
		t.Errorf("hot's why: %v", tables[0].Verdict.Why)
	}
	if r := tables[4].Key.Reveals; r == "" {
		t.Errorf("an identity key reveals a count")
	}
}

// TestLabScales: the lab's rows and cache keep the table's key index over
// its cache, within the rounding, whatever the table's size.
func TestLabScales(t *testing.T) {
	for _, ratio := range []float64{0.003, 0.2, 1, 3.7, 40, 900} {
		k := &Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Order: Random, Kind: "primary key"}
		tb := table("t", k, 0, 10)
		tb.KeyIndexOverCache = ratio
		lab := LabFor(&tb, Server{SharedBuffers: 1 << 30})
		if lab == nil {
			t.Fatal("no lab")
		}
		got := float64(lab.Rows) * labIndexBytesPerRow(16) / float64(lab.SharedBuffers)
		if lab.Rows < labMinRows || lab.Rows > labMaxRows {
			t.Errorf("ratio %g: %d rows", ratio, lab.Rows)
		}
		if len(lab.Notes) == 0 && (got/ratio < 0.99 || got/ratio > 1.01) {
			t.Errorf("ratio %g: the lab's is %g (%d rows, %d MB)", ratio, got, lab.Rows, lab.SharedBuffers>>20)
		}
		if !strings.HasPrefix(lab.Command, "keybench run insert --keys uuidv4,bigint,uuidv7 --rows ") || !strings.Contains(lab.Command, " -c 4") || !strings.Contains(lab.Command, "--payload 56") {
			t.Errorf("command: %s", lab.Command)
		}
	}
	k := &Key{Columns: []string{"id"}, Type: "text", UUIDText: true, Order: Random, Kind: "unique"}
	tb := table("t", k, 100<<20, 1)
	LabFor(&tb, Server{SharedBuffers: 1 << 30})
	if !strings.Contains(tb.Migrate, "--keys uuidv7:as=text:index=unique:prefill=uuidv4,uuidv4:as=text:index=unique,uuidv7:as=text:index=unique ") {
		t.Errorf("migrate: %s", tb.Migrate)
	}
	// A key of two columns, a random uuid first: its lab's key is the
	// first column alone, said so.
	k = &Key{Columns: []string{"tenant", "id"}, Type: "uuid, bigint", types: []string{"uuid", "bigint"}, Order: Random}
	tb = table("t", k, 100<<20, 1)
	if lab := LabFor(&tb, Server{SharedBuffers: 1 << 30}); lab == nil || !strings.HasPrefix(lab.Key, "uuidv4") || !strings.Contains(strings.Join(lab.Notes, " "), "a key of 2 columns: the lab's key is its first, tenant, alone") {
		t.Errorf("a two-column key's lab: %+v %v", lab, tb.Verdict.Why)
	}
	// A lookup table: a few rows, no insert: no lab.
	tb = table("t", &Key{Columns: []string{"id"}, Type: "integer", Order: Ordered}, 16<<10, 0)
	tb.Rows = results.Of[int64](6)
	if lab := LabFor(&tb, Server{SharedBuffers: 1 << 30}); lab != nil || !strings.Contains(strings.Join(tb.Verdict.Why, " "), "a lookup table (6 rows") {
		t.Errorf("a lookup table's lab: %+v %v", lab, tb.Verdict.Why)
	}
}

// TestReportJSON: the report reads back into the same structs, unavailable figures with their reasons.
func TestReportJSON(t *testing.T) {
	tb := table("t", &Key{Columns: []string{"id"}, Type: "uuid", Correlation: results.Unavailable[float64]("GRANT SELECT"), LeafOrder: results.Of(0.5)}, 1<<20, 3)
	rep := Report{Server: Server{Version: "18.1", SharedBuffers: 1 << 27}, Sample: Sample{Seconds: 60, WALBytesPerS: results.Of(1e6), FPIPerS: results.Unavailable[float64]("standby")}, Tables: []Table{tb}}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b) != string(b2) {
		t.Errorf("round trip:\n%s\n%s", b, b2)
	}
	if !strings.Contains(string(b), `"correlation":{"unavailable":"GRANT SELECT"}`) {
		t.Errorf("unavailable figure: %s", b)
	}
}

// fed is an int4 key column fed by a sequence at last, giving perS values
// a second (0: unmeasured), read at readAt.
func fed(table string, last int64, perS float64, readAt time.Time) FedColumn {
	ro := FedColumn{Column: "id", Type: "integer", FedBy: "default", Sequence: "public." + table + "_id_seq", Last: results.Of(last),
		Limit: math.MaxInt32, Increment: 1, readAt: readAt, typLimit: math.MaxInt32, seqType: "bigint",
		Fix: []string{"ALTER TABLE public." + table + " ALTER COLUMN id TYPE bigint;"}, RewriteBytes: 3 << 30, Locks: "ACCESS EXCLUSIVE"}
	if perS > 0 {
		ro.PerS = results.Of(perS)
	} else {
		ro.PerS = results.Unavailable[float64]("the sequence gave no value in the 60 s between its reads")
	}
	return ro
}

// TestRunsOutTimes (issues 39, 75): a column at 2,147,000,000 of an int4's
// 2,147,483,647, its sequence giving 10 values a second, runs out in
// 483,647 / 10 s = 0.56 days, said with the fix; at 0.01 a second in 560
// days; with no value given, never at that pace: said, with the figure
// absent and why; whatever the horizon, the figure is in the JSON.
func TestRunsOutTimes(t *testing.T) {
	now := time.Now().UTC()
	tb := Table{Schema: "public", Name: "t", RunsOut: []FedColumn{fed("t", 2147000000, 10, now)}}
	runsOutTimes(&tb)
	secs, ok := tb.RunsOut[0].RunsOutInS.Get()
	if want := 483647.0 / 10; !ok || math.Abs(secs-want) > 1e-6 {
		t.Fatalf("runs out in %v s (%s), want %v", secs, tb.RunsOut[0].RunsOutInS.Reason(), want)
	}
	if days, _ := tb.OverflowDays.Get(); math.Abs(days-secs/86400) > 1e-9 {
		t.Errorf("the table's overflow: %v days", days)
	}
	if line := overflowText(&tb); !strings.Contains(line, "runs out in about 13 hours") || !strings.Contains(line, "Fix: ALTER TABLE public.t ALTER COLUMN id TYPE bigint") {
		t.Errorf("%q", line)
	}
	if at, err := time.Parse(time.RFC3339, tb.RunsOut[0].At); err != nil || math.Abs(at.Sub(now).Seconds()-secs) > 1 {
		t.Errorf("at %q (%v)", tb.RunsOut[0].At, err)
	}
	tb.RunsOut[0].PerS = results.Of(0.01)
	runsOutTimes(&tb)
	if line := overflowText(&tb); !strings.Contains(line, "runs out in about 560 days") {
		t.Errorf("%q", line)
	}
	tb.RunsOut[0] = fed("t", 2147000000, 0, now)
	runsOutTimes(&tb)
	b, _ := json.Marshal(tb.RunsOut[0])
	if _, ok := tb.RunsOut[0].RunsOutInS.Get(); ok || !strings.Contains(string(b), `"runs_out_in_s":{"unavailable":"the sequence gave no value`) {
		t.Errorf("no value given: %s", b)
	}
	ran := Table{Schema: "public", Name: "t", RunsOut: []FedColumn{fed("t", math.MaxInt32, 100, now)}}
	runsOutTimes(&ran)
	if line := runsOutLine(&ran, &ran.RunsOut[0]); !strings.Contains(line, "has run out") || strings.Contains(line, "runs out in") {
		t.Errorf("a column at its end: %q", line)
	}
}

// TestConcurrentInsertersKeepAnOrderedKeyOrdered: an identity key whose
// neighbouring rows three backends put on different heap pages (72% of
// consecutive keys in heap order, correlation 1.00, as on a PostgreSQL 15
// with three writers) is ordered: its index takes every insert at its
// right edge; a random key's walk and correlation stay random.
func TestConcurrentInsertersKeepAnOrderedKeyOrdered(t *testing.T) {
	k := &Key{Made: "identity", LeafOrder: results.Of(0.72), Correlation: results.Of(1.0)}
	if o, why := orderOf(k); o != Ordered || !strings.Contains(why, "concurrent inserters") {
		t.Errorf("identity, 72%% in heap order, correlation 1: %s (%s)", o, why)
	}
	r := &Key{Made: "gen_random_uuid()", LeafOrder: results.Of(0.5), Correlation: results.Of(0.01)}
	if o, _ := orderOf(r); o != Random {
		t.Errorf("a random key: %s", o)
	}
	clustered := &Key{Made: "gen_random_uuid()", LeafOrder: results.Of(0.75), Correlation: results.Of(0.99)}
	if o, _ := orderOf(clustered); o == Ordered {
		t.Errorf("a random key in a clustered heap called ordered")
	}
}

// TestEmergenciesFirst (issues 51, 75): an int4 column 30,450 values from
// its end at 19.8 values a second runs out in about 26 minutes: its own
// class, ranked above every paying table, the time in minutes, the moment,
// and the fix with what it rewrites; one 5 minutes from its end ranks
// above it; a column 58 days from its end is no emergency; a sequence
// whose position cannot be read says which GRANT would read it.
func TestEmergenciesFirst(t *testing.T) {
	now := time.Now().UTC()
	key := func() *Key {
		return &Key{Columns: []string{"id"}, Type: "integer", Made: "sequence", Correlation: results.Of(1.0)}
	}
	paying := table("hot", &Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Correlation: results.Of(0.01)}, 1<<30, 500)
	soon := table("tickets", key(), 1<<20, 19.8)
	soon.RunsOut = []FedColumn{fed("tickets", math.MaxInt32-30450, 19.8, now)}
	sooner := table("payment", key(), 1<<20, 50)
	sooner.RunsOut = []FedColumn{fed("payment", math.MaxInt32-15000, 50, now)}
	later := table("orders", key(), 1<<20, 19.8) // about 58 days
	later.RunsOut = []FedColumn{fed("orders", math.MaxInt32-100_000_000, 19.8, now)}
	unread := table("blind", key(), 1<<20, 5)
	unread.RunsOut = []FedColumn{fed("blind", 0, 5, now)}
	unread.RunsOut[0].Last = results.Unavailable[int64]("the sequence public.blind_id_seq was never read, or its value is not readable (GRANT SELECT ON SEQUENCE public.blind_id_seq TO monitor)")
	tables := []Table{paying, later, unread, soon, sooner}
	for i := range tables {
		runsOutTimes(&tables[i])
	}
	Judge(tables, Server{SharedBuffers: 128 << 20}, Sample{Seconds: 60}, nil)
	if tables[0].Name != "payment" || tables[1].Name != "tickets" || tables[1].Verdict.Class != RunsOut {
		t.Fatalf("first: %s, %s (%s)", tables[0].Name, tables[1].Name, tables[1].Verdict.Class)
	}
	why := tables[1].Verdict.Why[0]
	for _, want := range []string{"about 26 minutes", "UTC", "Fix: ALTER TABLE public.tickets ALTER COLUMN id TYPE bigint (rewrites 3.0 GiB", "ACCESS EXCLUSIVE"} {
		if !strings.Contains(why, want) {
			t.Errorf("the emergency's line lacks %q: %s", want, why)
		}
	}
	for _, tb := range tables {
		switch tb.Name {
		case "orders":
			if tb.Verdict.Class == RunsOut {
				t.Errorf("a key 58 days from its end is an emergency")
			}
		case "blind":
			if !strings.Contains(strings.Join(tb.Verdict.Why, " "), "GRANT SELECT ON SEQUENCE public.blind_id_seq") {
				t.Errorf("an unreadable sequence does not say the GRANT: %v", tb.Verdict.Why)
			}
		}
	}
	if humanDays(3.0/24) != "3 hours" || humanDays(10) != "10 days" || humanDays(1e-6) != "less than a second" || humanDays(87.0/86400) != "87 seconds" || humanDays(5.9/1440) != "5.9 minutes" {
		t.Errorf("units: %s, %s, %s", humanDays(3.0/24), humanDays(10), humanDays(0.0001))
	}
}

// TestFollowLab: a lab that found the key's work larger keeps "pays" with
// the measurement first; one that found no difference makes the class
// "measured: no difference", unranked, with what would decide it; one
// without a cost comparison leaves the class and says so.
func TestFollowLab(t *testing.T) {
	lab := &Lab{Rows: 100000, Ratio: 2, Clients: 4, Key: "uuidv4"}
	mk := func(name string, r *LabResult) Table {
		return Table{Name: name, Lab: lab, LabResult: r, KeyIndexBytes: 1 << 20, Verdict: Verdict{Class: Pays, Rank: 1}}
	}
	tables := []Table{
		mk("undecided", &LabResult{Key: "uuidv4", Against: "bigint", Cost: &LabRatio{Ratio: 1.05, Interval: stats.Interval{Lo: 0.9, Hi: 1.2, Level: 0.95}}}),
		mk("paying", &LabResult{Key: "uuidv4", Against: "bigint", Cost: &LabRatio{Ratio: 1.3, Interval: stats.Interval{Lo: 1.2, Hi: 1.4, Level: 0.95}, Significant: true}}),
		mk("unread", &LabResult{Key: "uuidv4", Unavailable: "the lab failed: exit 1"}),
	}
	FollowLab(tables)
	got := map[string]Table{}
	for _, tb := range tables {
		got[tb.Name] = tb
	}
	if v := got["undecided"].Verdict; v.Class != NoDifference || v.Rank != 0 || !strings.Contains(v.Why[0], "no difference found") || !strings.Contains(v.Why[0], "--rows 400,000") {
		t.Errorf("an undecided lab: %+v", v)
	}
	if v := got["paying"].Verdict; v.Class != Pays || v.Rank != 1 || !strings.Contains(v.Why[0], "1.30×") {
		t.Errorf("a lab that found the cost: %+v", v)
	}
	if v := got["unread"].Verdict; v.Class != Pays || !strings.Contains(v.Why[0], "no verdict") {
		t.Errorf("a lab without a verdict: %+v", v)
	}
	if tables[len(tables)-1].Name != "undecided" {
		t.Errorf("a table its lab found no difference for is ranked after the paying ones: %v", []string{tables[0].Name, tables[1].Name, tables[2].Name})
	}
}

// TestFlatOutLab (issue 51): a lab at the table's rate that found no
// difference in work asks for the same lab flat out (NeedsFlatOut), and
// the table's answer — "measured: no difference" at its rate — says what
// the flat-out lab found: a cost at a higher rate, or none either.
func TestFlatOutLab(t *testing.T) {
	lab := &Lab{Rows: 100000, Ratio: 2, Clients: 4, Key: "uuidv4", RateTPS: 300}
	undecided := &LabResult{Key: "uuidv4", Against: "bigint", Cost: &LabRatio{Ratio: 1.02, Interval: stats.Interval{Lo: 0.95, Hi: 1.1, Level: 0.99}}}
	paying := &LabResult{Key: "uuidv4", Against: "bigint", Cost: &LabRatio{Ratio: 1.4, Interval: stats.Interval{Lo: 1.3, Hi: 1.5, Level: 0.99}, Significant: true}}
	if !NeedsFlatOut(&Table{Lab: lab, LabResult: undecided}) || NeedsFlatOut(&Table{Lab: lab, LabResult: paying}) {
		t.Error("the flat-out lab is asked for where the rate's found a cost, or not where it found none")
	}
	flatLab := *lab
	flatLab.RateTPS = 0
	if NeedsFlatOut(&Table{Lab: &flatLab, LabResult: undecided}) {
		t.Error("a lab already flat out asks for another")
	}
	tables := []Table{
		{Name: "busier", Lab: lab, LabResult: undecided, LabFlatOut: paying, Verdict: Verdict{Class: Pays, Rank: 1}},
		{Name: "never", Lab: lab, LabResult: undecided, LabFlatOut: undecided, Verdict: Verdict{Class: Pays, Rank: 2}},
	}
	FollowLab(tables)
	for _, tb := range tables {
		v := tb.Verdict
		if v.Class != NoDifference || !strings.Contains(v.Why[0], "300 tx/s") {
			t.Errorf("%s: %+v", tb.Name, v)
		}
		switch tb.Name {
		case "busier":
			if !strings.Contains(v.Why[0], "Flat out, the same lab found uuidv4 doing 1.40× the work") {
				t.Errorf("the flat-out cost is not said: %s", v.Why[0])
			}
		case "never":
			if !strings.Contains(v.Why[0], "found no difference either") {
				t.Errorf("the flat-out lab's none is not said: %s", v.Why[0])
			}
		}
	}
}

// TestSentencesFollowTheirFigures (issue 51): every sentence of a random
// key's verdict is walked against figures that point each way — an index
// cached whole, none of it cached, larger than the cache; full-page images
// in the sample or none, or not read; leaves split or full, measured or
// estimated — and says only what its figures show: no read of leaves where
// the index is cached whole, no cached leaf where none is, no image where
// the sample had none; "pays" only with a figure that shows the cost, and
// otherwise the class that says which figures are missing.
func TestSentencesFollowTheirFigures(t *testing.T) {
	type cache struct {
		name  string
		share func(ratio float64) results.M[float64]
	}
	caches := []cache{
		{"cached whole", func(r float64) results.M[float64] { return results.Of(math.Min(r, 1)) }},
		{"none cached", func(float64) results.M[float64] { return results.Of(0.0) }},
		{"share unread", func(float64) results.M[float64] {
			return results.Unavailable[float64]("pg_buffercache is not installed")
		}},
	}
	fpis := map[string]results.M[float64]{"images": results.Of(40.0), "no image": results.Of(0.0), "images unread": results.Unavailable[float64]("pg_stat_wal: permission denied")}
	type density struct {
		d      results.M[float64]
		method string
	}
	densities := map[string]density{"split": {results.Of(0.7), "pgstatindex"}, "full": {results.Of(0.9), "pgstatindex"},
		"estimated": {results.Of(0.7), "estimated"}, "unread": {results.Unavailable[float64]("no pgstattuple"), ""}}
	walked := 0
	for _, ratio := range []float64{0.3, 2.5} {
		for _, c := range caches {
			for fname, fpi := range fpis {
				for dname, d := range densities {
					for _, ins := range []float64{0, 120} {
						k := &Key{Columns: []string{"id"}, Type: "uuid", Made: "gen_random_uuid()", Correlation: results.Of(0.01), Kind: "primary key"}
						tb := table("t", k, int64(ratio*float64(128<<20)), ins)
						tb.CacheShare, tb.LeafDensity, tb.DensityMethod = c.share(ratio), d.d, d.method
						v := judge(&tb, Server{SharedBuffers: 128 << 20}, Sample{Seconds: 60, FPIPerS: fpi})
						text := strings.Join(v.Why, " ")
						at := fmt.Sprintf("index %.1f× cache, %s, %s, leaves %s, %.0f inserts/s: %s: %s", ratio, c.name, fname, dname, ins, v.Class, text)
						walked++
						whole := c.name == "cached whole" && ratio < 1
						for _, bad := range []string{"not cached", "read their leaves back", "read leaves", "read those leaves"} {
							if whole && strings.Contains(text, bad) {
								t.Errorf("an index cached whole is said %q\n%s", bad, at)
							}
						}
						if c.name == "none cached" && strings.Contains(text, "find their leaf cached") {
							t.Errorf("an index none of which is cached is said to find its leaves cached\n%s", at)
						}
						if fname != "images" && strings.Contains(text, "full-page images/s") {
							t.Errorf("images are cited where the sample had none or did not read them\n%s", at)
						}
						shows := ratio >= 1 || c.name == "none cached" || fname == "images" || dname == "split"
						switch {
						case ins == 0 && v.Class == Pays:
							t.Errorf("a table not inserted into pays per insert\n%s", at)
						case ins > 0 && shows && v.Class != Pays:
							t.Errorf("a figure shows the cost, the class is %q\n%s", v.Class, at)
						case ins > 0 && !shows && v.Class != NotShown:
							t.Errorf("no figure shows the cost, the class is %q\n%s", v.Class, at)
						}
						if v.Class == NotShown {
							for missing, named := range map[bool]string{c.name == "share unread": "share of the cache", fname == "images unread": "full-page images", dname == "unread" || dname == "estimated": "leaf density"} {
								if missing && !strings.Contains(text, named) {
									t.Errorf("the missing figure %q is not named\n%s", named, at)
								}
							}
						}
					}
				}
			}
		}
	}
	if walked != 2*3*3*4*2 {
		t.Errorf("walked %d verdicts", walked)
	}
}

// TestRunsOutSaidOnceFromItsRead (issue 63): a column that runs out is
// timed from the read of its sequence at the end of the sample, at the
// pace the sequence went between its two reads (not the table's insert
// rate), and said once.
func TestRunsOutSaidOnceFromItsRead(t *testing.T) {
	read := time.Now().Add(-10 * time.Minute).UTC()
	tb := Table{Schema: "public", Name: "t", Key: &Key{Columns: []string{"id"}, Type: "integer", Made: "sequence"}, InsertsPerS: results.Of(25.4),
		RunsOut: []FedColumn{fed("t", math.MaxInt32-42000, 100, read)}}
	runsOutTimes(&tb)
	tables := []Table{tb}
	Judge(tables, Server{}, Sample{}, nil)
	v := tables[0].Verdict
	if v.Class != RunsOut {
		t.Fatalf("class %q: %v", v.Class, v.Why)
	}
	at, err := time.Parse(time.RFC3339, tables[0].OverflowAt)
	if want := read.Add(420 * time.Second); err != nil || at.Sub(want).Abs() > time.Second {
		t.Errorf("runs out at %s (%v), want 420 s after the read at %s", tables[0].OverflowAt, err, read.Format(time.RFC3339))
	}
	said := 0
	for _, w := range v.Why {
		if strings.Contains(w, "runs out") {
			said++
		}
	}
	if said != 1 || !strings.Contains(v.Why[0], "runs out in about 7 minutes") || !strings.Contains(v.Why[0], "giving 100 values/s") {
		t.Errorf("said %d times: %q", said, v.Why)
	}
}

// TestLabAtTheTablesRate (issue 63): a lab runs at the table's rate
// however low (no floor of 100/s), its window long enough for it; a lab
// that found the same work but more WAL classes the table as paying and
// says the WAL; a lab below its schedule says so.
func TestLabAtTheTablesRate(t *testing.T) {
	lab := &Lab{}
	tb := &Table{InsertsPerS: results.Of(25.4)}
	if r := labRate(tb, lab); r != 25.4 || len(lab.Notes) != 0 {
		t.Errorf("a table at 25.4 inserts/s: its lab at %v (%v)", r, lab.Notes)
	}
	if n := labWindow(1_000_000, 1, 2); n != 240 {
		t.Errorf("at 2 inserts/s a lab's window is %d transactions, want 240 (120 s)", n)
	}
	tables := []Table{{Schema: "public", Name: "t", Verdict: Verdict{Class: NotShown},
		Lab: &Lab{Rows: 1000, Ratio: 2, Clients: 1, RateTPS: 25.4},
		LabResult: &LabResult{Key: "uuidv4", Against: "bigint", Cost: &LabRatio{Ratio: 1.01, Interval: stats.Interval{Lo: 0.97, Hi: 1.05, Level: 0.95}},
			WAL: &LabRatio{Ratio: 9.4, Interval: stats.Interval{Lo: 8.9, Hi: 9.9, Level: 0.95}, Significant: true}, Shortfall: "uuidv4 ran 86 of 100 tps (86%)"}}}
	FollowLab(tables)
	v := tables[0].Verdict
	why := strings.Join(v.Why, " ")
	if v.Class != Pays || !strings.Contains(why, "writes 9.40× bigint's WAL") || !strings.Contains(why, "did not keep the table's rate: uuidv4 ran 86 of 100 tps") {
		t.Errorf("class %q: %s", v.Class, why)
	}
}

// TestRankedByWhatTheyPay (issue 63): a table whose lab measured the same
// work but 9.4× the WAL ranks above a busier table whose lab found nothing
// more, and above an idle one; its lab's counts are said beside its work.
func TestRankedByWhatTheyPay(t *testing.T) {
	same := &LabRatio{Ratio: 1.01, Interval: stats.Interval{Lo: 0.97, Hi: 1.05, Level: 0.95}}
	lab := &Lab{Rows: 1000, Ratio: 2, Clients: 1, RateTPS: 100}
	tables := []Table{
		{Schema: "public", Name: "busier", InsertsPerS: results.Of(120.0), Verdict: Verdict{Class: NotShown}, Lab: lab,
			LabResult: &LabResult{Key: "uuidv4", Against: "bigint", Cost: same, WAL: &LabRatio{Ratio: 1.2, Interval: stats.Interval{Lo: 1.1, Hi: 1.3, Level: 0.95}, Significant: true}}},
		{Schema: "public", Name: "idle", InsertsPerS: results.Of(0.0), Verdict: Verdict{Class: NotShown}, Lab: lab,
			LabResult: &LabResult{Key: "uuidv4", Against: "bigint", Cost: same, WAL: &LabRatio{Ratio: 9, Interval: stats.Interval{Lo: 8, Hi: 10, Level: 0.95}, Significant: true}}},
		{Schema: "public", Name: "busy", InsertsPerS: results.Of(100.0), Verdict: Verdict{Class: NotShown}, Lab: lab,
			LabResult: &LabResult{Key: "uuidv4", Against: "bigint", Cost: same, WAL: &LabRatio{Ratio: 9.4, Interval: stats.Interval{Lo: 8.9, Hi: 9.9, Level: 0.95}, Significant: true},
				Counts: []results.Reason{{Figure: "wal_bytes_per_txn", Ratio: results.Ratio{Ratio: 9.4, Interval: stats.Interval{Lo: 8.9, Hi: 9.9, Level: 0.95}}}, {Figure: "wal_fpi_per_txn", Ratio: results.Ratio{Ratio: 49, Interval: stats.Interval{Lo: 44, Hi: 55, Level: 0.95}}}}}},
	}
	FollowLab(tables)
	var names []string
	for _, tb := range tables {
		names = append(names, fmt.Sprintf("%s#%d", tb.Name, tb.Verdict.Rank))
	}
	if got := strings.Join(names, " "); got != "busy#1 busier#2 idle#3" {
		t.Errorf("ranked %s", got)
	}
	if why := strings.Join(tables[0].Verdict.Why, " "); !strings.Contains(why, "Its lab's counts per transaction, uuidv4 over bigint's: 9.40× [8.90–9.90, 95%] the WAL, 49× [44–55, 95%] the full-page images") {
		t.Errorf("the busy table's verdict: %s", why)
	}
}
