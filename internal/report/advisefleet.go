package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/advise"
)

// FleetDoc is what `keybench advise` found across several databases: the
// one list of every database's paying tables, the columns that run out
// first, each row naming its database and server; the databases not read
// with why; then each listed table's evidence and lab command.
func FleetDoc(f *advise.Fleet) *Doc {
	return withDetails(fleetDoc(f), fleetTables(f))
}

// RenderFleet is the fleet's advice as a self-contained HTML page: the
// same list, then each listed table's evidence.
func RenderFleet(f *advise.Fleet) ([]byte, error) {
	return advicePage(fmt.Sprintf("keybench advise: %d databases", len(f.Databases)), fleetDoc(f), fleetTables(f))
}

// fleetDoc is the fleet's summary: what was read, the emergencies, the
// ranked list, what is not listed and what was not read.
func fleetDoc(f *advise.Fleet) *Doc {
	d := &Doc{}
	d.Printf("%d databases on %d servers, read-only, %d at a time, each database's rates over the same %.0f s sample window: %s.",
		len(f.Databases), servers(f), f.Parallel, f.SampleSeconds, fleetStatus(f))
	var listed []advise.Table
	for _, e := range f.Tables {
		tb := *f.Table(e)
		listed = append(listed, tb)
		for _, line := range runsOutLines(tb) {
			d.Printf("RUNS OUT: %s: %s: %s", f.Databases[e.Database].Label(), tb.QualifiedName(), line)
		}
	}
	switch {
	case len(f.Tables) == 0 && slices.ContainsFunc(f.Databases, func(db advise.FleetDatabase) bool { return db.Report != nil }):
		d.Println("No table of the databases read pays for its key, and no column runs out.")
	case len(f.Tables) > 0:
		t := NewTable("#", "database", "table", "key", "order", "index / cache", "ins/s", "verdict").AlignRight(5, 6)
		for _, e := range f.Tables {
			tb := *f.Table(e)
			t.AppendRow(append([]any{e.Place, f.Databases[e.Database].Label(), tableName(tb)}, adviceFigures(tb)...)...)
		}
		d.Add(t)
	}
	if others := othersText(f.Others); others != "" {
		d.Println("Not listed: " + others + " (each database's own tables: --json).")
	}
	for _, db := range f.Databases {
		if db.NotRead != "" {
			d.Printf("Not read: %s: %s.", db.Name, db.NotRead)
		}
	}
	legend(d, listed)
	for _, n := range fleetNotes(f) {
		d.Println("Not read " + n + ".")
	}
	if f.LabsNote != "" {
		d.Println(f.LabsNote + ".")
	}
	return d
}

// servers counts the servers the fleet's databases are on.
func servers(f *advise.Fleet) int {
	seen := map[string]bool{}
	for _, db := range f.Databases {
		seen[fmt.Sprint(db.Host, db.Port)] = true
	}
	return len(seen)
}

// fleetStatus says how many databases were read, and how the look ended.
func fleetStatus(f *advise.Fleet) string {
	n := f.NotRead()
	s := fmt.Sprintf("%d read", len(f.Databases)-n)
	if n > 0 {
		s += fmt.Sprintf(", %d not read or not whole (said below)", n)
	}
	if f.Status == advise.FleetInterrupted {
		s += "; interrupted: what was read before"
	}
	return s
}

// othersText counts the tables not listed, by class ("" when none).
func othersText(others map[string]int) string {
	var classes []string
	total := 0
	for c, n := range others {
		classes = append(classes, fmt.Sprintf("%s %d", c, n))
		total += n
	}
	if total == 0 {
		return ""
	}
	sort.Strings(classes)
	return fmt.Sprintf("%d tables that neither pay for their key nor run out (%s)", total, strings.Join(classes, ", "))
}

// fleetNotes are the databases' notes of what they could not read, each
// once, with the databases it holds in (a missing extension is likely
// missing in many).
func fleetNotes(f *advise.Fleet) []string {
	var order []string
	where := map[string][]string{}
	for _, db := range f.Databases {
		if db.Report == nil {
			continue
		}
		for _, n := range db.Report.Server.Notes {
			if where[n] == nil {
				order = append(order, n)
			}
			where[n] = append(where[n], db.Label())
		}
	}
	out := make([]string, len(order))
	for i, n := range order {
		dbs := where[n]
		in := strings.Join(dbs, ", ")
		if len(dbs) > 3 {
			in = fmt.Sprintf("%s and %d more", strings.Join(dbs[:3], ", "), len(dbs)-3)
		}
		out[i] = fmt.Sprintf("in %s: %s", in, n)
	}
	return out
}

// fleetTables are the listed tables' evidence, each titled with its
// database.
func fleetTables(f *advise.Fleet) []adviceTable {
	var out []adviceTable
	for _, e := range f.Tables {
		a := adviceTableOf(*f.Table(e))
		a.Title = f.Databases[e.Database].Label() + ": " + a.Title
		out = append(out, a)
	}
	return out
}
