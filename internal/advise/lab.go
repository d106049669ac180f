package advise

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/server"
	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/workload/mix"
)

// The lab: the keybench run that builds a table of the user's shape on the
// embedded server — the key as stored, the row's width, the inserting
// backends, and above all the key index over the cache, the ratio a key's
// cost follows (000, 001). The user's rows and cache are scaled down
// together: the lab's table holds the rows whose key index is the same
// multiple of the lab's shared_buffers.

// Bounds of the lab's table and cache: rows enough for a btree of several
// levels, few enough to fill in seconds; a cache PostgreSQL accepts and
// keybench's embedded server can hold.
const (
	labSharedBuffersMB = 16 // the embedded server's cold-cache default
	labMinRows         = 10_000
	labMaxRows         = 5_000_000
	labMinSBMB         = 1
	labMaxSBMB         = 1024
	labMaxClients      = 64
)

// labLeafDensity is the leaf density of the lab table's key index: keybench
// fills a table, then builds its indexes (CREATE INDEX packs a btree's leaves
// to its fillfactor, 90%, whatever the key's order), so the lab's key index
// holds more rows per byte than a user's random key grown by inserts (about
// 70%): the lab keeps the ratio of the index to the cache, the variable a
// key's cost follows, not the row count.
const (
	labLeafDensity = 0.90
	btreeLeafBytes = 8192 - 24 - 16 // page less its header and btree special space
)

// labKey is the keybench key spec standing for a table's key as stored,
// with the bytes one of its values takes in a row; ok false with why when
// keybench has no such key.
func labKey(k *Key) (spec string, keyBytes int, why string) {
	storage, keyBytes := "", 0
	typ := k.Type
	if len(k.types) > 1 {
		typ = k.types[0] // a key of several columns: the lab's key is its first, which sets its order (LabFor says so)
	}
	switch {
	case typ == "uuid":
		keyBytes = 16
	case k.UUIDText && typ == "character(32)":
		storage, keyBytes = ":as=char32", 33
	case k.UUIDText:
		storage, keyBytes = ":as=text", 37
	case typ == "bigint":
		if k.Order != Ordered {
			return "", 0, "a bigint key not made in order: keybench's bigint keys come from a sequence"
		}
		spec = "bigint"
		if k.SequenceCache > 1 {
			spec += fmt.Sprintf(":cache=%d", k.SequenceCache)
		}
		return spec + uniqueIndex(k), 8, ""
	case typ == "integer":
		if k.Order != Ordered {
			return "", 0, "an integer key not made in order: keybench's int keys come from a sequence"
		}
		return "int" + uniqueIndex(k), 4, ""
	default:
		return "", 0, fmt.Sprintf("a %s key whose values are not uuids: keybench has no key like it", typ)
	}
	switch {
	case k.Order == Ordered && k.UUIDVersion == 1:
		return "", 0, "uuidv1 values stored in order: keybench's uuidv1 is time_low first, unordered"
	case k.Order == Ordered:
		spec = "uuidv7"
	case k.UUIDVersion == 1:
		spec = "uuidv1"
	default:
		spec = "uuidv4"
	}
	return spec + storage + uniqueIndex(k), keyBytes, ""
}

func uniqueIndex(k *Key) string {
	if k.Kind == "unique" {
		return ":index=unique"
	}
	return ""
}

// lookupRows is the size below which a table with no inserts is a lookup
// table: no lab for it.
const lookupRows = 10_000

// labIndexBytesPerRow is the key index's bytes per row the lab's table will
// have: one index tuple (its 8-byte header and the key, MAXALIGNed) and its
// line pointer per row, at the leaf density CREATE INDEX leaves.
func labIndexBytesPerRow(keyBytes int) float64 {
	tuple := float64((8+keyBytes+7)/8*8 + 4)
	return tuple / labLeafDensity * 8192 / btreeLeafBytes
}

// LabFor builds the lab run of a table with a key (nil when keybench has
// no key like the table's, the why in the table's verdict).
func LabFor(t *Table, s Server) *Lab {
	if t.Key == nil {
		return nil
	}
	if rows, ok := t.Rows.Get(); ok && rows < lookupRows && t.InsertsPerS.Value() == 0 && t.InsertsPerS.Reason() == "" {
		t.Verdict.Why = append(t.Verdict.Why, fmt.Sprintf("No lab run: a lookup table (%d rows, below %d, and no insert in the sample): its key's order costs nothing a lab would measure.", rows, lookupRows))
		return nil
	}
	spec, keyBytes, why := labKey(t.Key)
	if spec == "" {
		t.Verdict.Why = append(t.Verdict.Why, "No lab run: "+why+".")
		return nil
	}
	lab := &Lab{Key: spec, Ratio: t.KeyIndexOverCache}
	if n := len(t.Key.Columns); n > 1 {
		lab.Notes = append(lab.Notes, fmt.Sprintf("a key of %d columns: the lab's key is its first, %s, alone (keybench's keys are one column): it sets where each insert lands, what the order costs",
			n, sqltree.Printable(t.Key.Columns[0])))
	}
	sbMB := labSize(lab, keyBytes)
	if rb, ok := t.RowBytes.Get(); ok {
		// The row less its key, data and the secondary columns the lab makes itself.
		lab.Payload = int(math.Max(0, math.Round(rb-float64(keyBytes)-8-float64(secondaryBytes(t)))))
	} else {
		lab.Notes = append(lab.Notes, "the row's width could not be read ("+t.RowBytes.Reason()+"): no payload")
	}
	replays := !t.Mix.InsertsOnly()
	lab.Clients = labClients(t, replays, lab)
	keys := []string{spec}
	for _, alt := range alternatives(t.Key) {
		if !slices.Contains(keys, alt) {
			keys = append(keys, alt)
		}
	}
	shape := fmt.Sprintf("--rows %d --shared-buffers %dMB --payload %d -c %d", lab.Rows, int(sbMB), lab.Payload, lab.Clients)
	lab.PgVersion = labMajor(s, lab)
	lab.RateTPS = labRate(t, lab)
	lab.TxnsPerClient = labWindow(lab.Rows, lab.Clients, lab.RateTPS)
	shape += fmt.Sprintf(" --rounds %d -t %d", labRounds, lab.TxnsPerClient)
	if lab.PgVersion != "" {
		shape += " --pg-version " + lab.PgVersion
	}
	if sec := labSecondary(t, lab); sec != "" {
		lab.Secondary = sec
		shape += " --secondary " + sec
	}
	if lab.RateTPS > 0 {
		shape += fmt.Sprintf(" -R %g", lab.RateTPS)
	}
	lab.Workload, lab.Mix = "insert", ""
	if replays {
		lab.Workload, lab.Mix = mixWorkload(t.Mix), t.Mix.Text()
	}
	lab.Command = fmt.Sprintf("keybench run %s --keys %s %s", lab.Workload, strings.Join(keys, ","), shape)
	if t.Key.Order != Ordered && strings.HasPrefix(spec, "uuidv4") {
		storage := strings.TrimPrefix(spec, "uuidv4")
		t.MigrateTo = migrateTarget
		// The same traffic as the lab (its rate is the lab's: the mix's where it replays one).
		t.Migrate = fmt.Sprintf("keybench run %s --keys %s%s:prefill=uuidv4,%s,%s%s %s", lab.Workload, migrateTarget, storage, spec, migrateTarget, storage, shape)
	}
	return lab
}

// labSize sets the lab's rows and cache so that its key index stands to
// its cache as the table's does (lab.Ratio), within the lab's bounds (each
// bound reached said in a note); it returns the cache in MB.
func labSize(lab *Lab, keyBytes int) float64 {
	bpr := labIndexBytesPerRow(keyBytes)
	sbMB := float64(labSharedBuffersMB)
	rowsFor := func(sbMB float64) float64 { return lab.Ratio * sbMB * (1 << 20) / bpr }
	rows := rowsFor(sbMB)
	switch {
	case lab.Ratio <= 0:
		rows = labMinRows
		lab.Notes = append(lab.Notes, "the table's key index is empty: the lab starts from a small table")
	case rows > labMaxRows:
		sbMB = math.Max(labMinSBMB, math.Floor(labMaxRows*bpr/lab.Ratio/(1<<20)))
		rows = rowsFor(sbMB)
		if rows > labMaxRows {
			rows = labMaxRows
			lab.Notes = append(lab.Notes, fmt.Sprintf("the key index is %s× the cache: the lab stops at %d rows on a 1 MB cache, a ratio of %s", results.Significant(lab.Ratio), labMaxRows, results.Significant(labMaxRows*bpr/(1<<20))))
		}
	case rows < labMinRows:
		sbMB = math.Min(labMaxSBMB, math.Ceil(labMinRows*bpr/lab.Ratio/(1<<20)))
		rows = rowsFor(sbMB)
		if rows < labMinRows {
			rows = labMinRows
			lab.Notes = append(lab.Notes, fmt.Sprintf("the key index is a tiny share of the cache (%s): the lab's %d rows on %d MB hold more", results.Digits(lab.Ratio, 2), labMinRows, labMaxSBMB))
		}
	}
	lab.Rows = roundTo3(rows)
	lab.SharedBuffers = int64(sbMB) << 20
	return sbMB
}

// labClients is the lab's clients: the backends seen writing the table,
// or, for a lab that replays reads too, reading or writing it (a note
// says why one client where none was counted).
func labClients(t *Table, replays bool, lab *Lab) int {
	if n, ok := t.Users.Get(); replays && ok && n > 0 {
		return min(max(n, t.Inserters.Value()), labMaxClients)
	}
	if n, ok := t.Inserters.Get(); ok && n > 0 {
		return min(n, labMaxClients)
	}
	if r := t.Inserters.Reason(); r != "" {
		lab.Notes = append(lab.Notes, "one client: the writing backends could not be counted ("+r+")")
	} else {
		lab.Notes = append(lab.Notes, "one client: no backend was seen writing the table during the sample")
	}
	return 1
}

// mixWorkload is the mix workload replaying a table's traffic: its
// statements per second by kind as the weights.
func mixWorkload(m *Mix) string {
	w := "mix"
	for _, k := range mix.Kinds {
		w += fmt.Sprintf(" --mix-%s %g", k, m.PerS[k])
	}
	return w
}

// labRounds are the lab's rounds: enough for its comparisons to decide
// (rounds interleaved across the keys: independent samples).
const labRounds = 6

// labWindowShare is the share of the lab table's rows its window inserts
// over all rounds, so that the key index keeps the table's shape while it
// is measured (a window of three times a small table's rows measured
// another, larger table); labMinWindow the fewest transactions it runs,
// so that each round holds enough for its rate; labMaxWindowS the longest
// a key's window lasts at the table's own rate (a tenth of a large table at
// a few hundred inserts a second would take minutes a key).
const (
	labWindowShare = 0.10
	labMinWindow   = 2400
	labMaxWindowS  = 30
	// labMinWindowS is the window a slow table's lab runs at least: six
	// rounds of 20 s at its rate.
	labMinWindowS = 120
)

// labWindow is the lab's transactions per client (-t) at rate (0: flat out).
func labWindow(rows int64, clients int, rate float64) int {
	total := labWindowShare * float64(rows)
	least := float64(labMinWindow)
	if rate > 0 {
		// At the table's own rate, whatever it is: a window long enough for
		// it (labMinWindow transactions, or labMinWindowS at a slow rate).
		total = math.Min(total, labMaxWindowS*rate)
		least = math.Min(least, labMinWindowS*rate)
	}
	total = math.Max(total, least)
	return int(math.Ceil(total / float64(max(clients, 1))))
}

// labMajor is the server's major version for the lab's embedded server
// (--pg-version), so that the lab runs the user's PostgreSQL; "" with a
// note when keybench embeds no such major.
func labMajor(s Server, lab *Lab) string {
	if s.VersionNum <= 0 {
		lab.Notes = append(lab.Notes, "on keybench's default PostgreSQL: the server's version could not be read")
		return ""
	}
	major := strconv.Itoa(s.VersionNum / 10000)
	if slices.Contains(server.Majors(), major) {
		return major
	}
	lab.Notes = append(lab.Notes, fmt.Sprintf("on keybench's default PostgreSQL: the server runs %s, and keybench's embedded server runs %s", major, strings.Join(server.Majors(), ", ")))
	return ""
}

// migrateTarget is the ordered key advise proposes switching a random uuid
// key's new rows to: a uuid still, of the same width, ordered by time.
const migrateTarget = "uuidv7"

// alternatives are the ordered keys the lab measures beside the table's:
// a sequence, and uuidv7 as the table stores its uuids and as uuid.
func alternatives(k *Key) []string {
	alts := []string{"bigint", "uuidv7"}
	if k.UUIDText {
		storage := ":as=text"
		if k.Type == "character(32)" {
			storage = ":as=char32"
		}
		alts = append(alts, "uuidv7"+storage)
	}
	if k.Order == Ordered {
		alts = append(alts, "uuidv4") // what an ordered key spares the table
	}
	return alts
}

func roundTo3(v float64) int64 {
	if v <= 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(v))-2)
	return int64(math.Round(v/e) * e)
}

// labRate is the table's measured insert rate for its lab (--rate), so that
// the lab says what each key costs at the user's own rate; 0, with a note
// on the lab, when it was not measured or is too low to measure at.
func labRate(t *Table, lab *Lab) float64 {
	ins, ok := t.InsertsPerS.Get()
	if !t.Mix.InsertsOnly() {
		if total := t.Mix.Total(); total > 0 {
			return roundRate(total)
		}
		lab.Notes = append(lab.Notes, "flat out: the table's statements were not counted in the sample")
		return 0
	}
	switch {
	case !ok && t.InsertsPerS.Reason() != "":
		lab.Notes = append(lab.Notes, "flat out: the table's insert rate could not be measured ("+t.InsertsPerS.Reason()+")")
	case !ok:
		lab.Notes = append(lab.Notes, "flat out: the table's insert rate was not measured")
	case ins <= 0:
		lab.Notes = append(lab.Notes, "flat out: no row was inserted during the sample")
	default:
		return roundRate(ins)
	}
	return 0
}

// roundRate is a rate to three significant digits, as the lab's -R takes it.
func roundRate(r float64) float64 {
	p := math.Pow(10, 2-math.Floor(math.Log10(r)))
	return math.Round(r*p) / p
}

// labMaxSecondary is the most secondary indexes a lab table carries
// (--secondary's bound).
const labMaxSecondary = 8

// labSecondary is the table's other indexes as --secondary gives them to
// the lab table: each in its order (time for a time-ordered one, random of
// its column's width otherwise), so the lab's inserts touch as many
// indexes in the same orders as the table's do.
func labSecondary(t *Table, lab *Lab) string {
	var out []string
	for _, s := range t.Secondary {
		switch {
		case len(out) == labMaxSecondary:
			lab.Notes = append(lab.Notes, fmt.Sprintf("index %s left out: the lab carries %d secondary indexes at most", sqltree.Printable(s.Index), labMaxSecondary))
		case s.Order == Ordered:
			out = append(out, "time")
		case s.Order == Random:
			out = append(out, fmt.Sprintf("random:%d", min(max(s.Width, 1), 256)))
		default:
			lab.Notes = append(lab.Notes, fmt.Sprintf("index %s left out: its column %s has no statistics to tell its order", sqltree.Printable(s.Index), sqltree.Printable(s.Column)))
		}
	}
	return strings.Join(out, ",")
}

// secondaryBytes are the widths of the columns of the table's secondary
// indexes that its lab table makes itself (labSecondary).
func secondaryBytes(t *Table) int {
	n := 0
	for i, s := range t.Secondary {
		if i < labMaxSecondary && (s.Order == Ordered || s.Order == Random) {
			n += s.Width
		}
	}
	return n
}

// switches are what changing the table's key would cost: an unordered
// uuid's new rows to uuidv7 (its default only), a uuid stored as text to
// the uuid type, an int4 key to bigint (each a rewrite of the table, its
// indexes and every referencing column).
func switches(t *Table) []Switch {
	k := t.Key
	if k == nil || len(k.Columns) != 1 {
		return nil
	}
	name := t.QualifiedName()
	var out []Switch
	if t.Migrate != "" {
		out = append(out, Switch{To: t.MigrateTo + " for new rows", How: SwitchDefault,
			Locks:   []string{"ACCESS EXCLUSIVE on " + name + " for ALTER COLUMN ... SET DEFAULT: milliseconds, but it waits for every open transaction on the table and every later query waits behind it (set lock_timeout)"},
			Measure: t.Migrate})
	}
	rewrite := func(to string) Switch {
		sw := Switch{To: to, How: SwitchType, RewriteBytes: t.TableBytes + t.IndexesBytes,
			Locks: []string{"ACCESS EXCLUSIVE on " + name + " for the whole rewrite: no read or write of the table meanwhile"}}
		for _, fk := range t.ReferencedBy {
			fk.Table, fk.Constraint = sqltree.EscapeControls(fk.Table), sqltree.Printable(fk.Constraint)
			sw.Rebuilt = append(sw.Rebuilt, fk.Table+" "+fk.Constraint)
			sw.RewriteBytes += fk.IndexBytes
			sw.Locks = append(sw.Locks, "ACCESS EXCLUSIVE on "+fk.Table+" while its column is rewritten, then SHARE ROW EXCLUSIVE on both tables while "+fk.Constraint+" is validated")
		}
		return sw
	}
	switch {
	case k.UUIDText:
		out = append(out, rewrite("uuid (the type: 16 bytes a key instead of its text)"))
	case (k.Type == "integer" || k.Type == "smallint") && len(t.RunsOut) > 0:
		out = append(out, rewrite("bigint"))
	}
	return out
}

// WhyNoLab says why no table of the report has a lab to run: how many
// tables were read, and of those that pay, why each has none.
func WhyNoLab(rep *Report) string {
	paying, why := 0, []string{}
	for i := range rep.Tables {
		t := &rep.Tables[i]
		switch t.Verdict.Class {
		case Pays, PaysInSize, NotShown:
			paying++
			for _, w := range t.Verdict.Why {
				if strings.HasPrefix(w, "No lab run: ") {
					why = append(why, t.QualifiedName()+": "+strings.TrimSuffix(strings.TrimPrefix(w, "No lab run: "), "."))
				}
			}
		}
	}
	if paying == 0 {
		return fmt.Sprintf("none of the %d tables read pays for its key (a lab measures what a paying table's key costs)", len(rep.Tables))
	}
	return fmt.Sprintf("%d of the %d tables pay for their key, and keybench has no lab of them: %s", paying, len(rep.Tables), strings.Join(why, "; "))
}
