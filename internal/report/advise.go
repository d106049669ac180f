package report

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/keybench/keybench/internal/advise"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// AdviceDoc is what `keybench advise` found: the tables ranked (the
// summary), and with details each one's evidence and lab command after it,
// as the console and --export show it.
func AdviceDoc(rep *advise.Report, details bool) *Doc {
	if !details {
		return adviceDoc(rep)
	}
	return withDetails(adviceDoc(rep), adviceTables(rep))
}

// withDetails is d with each table's evidence after it.
func withDetails(d *Doc, tables []adviceTable) *Doc {
	for _, a := range tables {
		d.Println("")
		d.Blocks = append(d.Blocks, adviceDetails(a).Blocks...)
	}
	return d
}

// RenderAdvice is the advice as a self-contained HTML page in the report's style.
func RenderAdvice(rep *advise.Report) ([]byte, error) {
	return advicePage("keybench advise: "+rep.Server.Database, adviceDoc(rep), adviceTables(rep))
}

// advicePage is a page of advice: its summary d, then each table's evidence.
func advicePage(title string, d *Doc, tables []adviceTable) ([]byte, error) {
	var out bytes.Buffer
	err := adviceTemplate.Execute(&out, map[string]any{"Title": title, "Doc": d, "Tables": tables})
	return out.Bytes(), err
}

// adviceDoc is the summary: the server and sample, and the ranked table.
func adviceDoc(rep *advise.Report) *Doc {
	s := rep.Server
	d := &Doc{}
	role := "primary"
	if s.Standby {
		role = "hot standby"
	}
	d.Printf("Database %s on PostgreSQL %s (%s), read as %s, read-only; shared_buffers %s%s.", s.Database, s.Version, role, s.Role, results.Bytes(s.SharedBuffers), ramText(s.RAM))
	d.Printf("Sample of %.0f s: WAL %s, full-page images %s.", rep.Sample.Seconds,
		figure(rep.Sample.WALBytesPerS, func(v float64) string { return results.Bytes(int64(v)) + "/s" }),
		figure(rep.Sample.FPIPerS, func(v float64) string { return results.Significant(v) + "/s" }))
	// The emergencies first, before any table: each column that runs out
	// soon, soonest first, with its fix (the tables come ranked so).
	for _, tb := range rep.Tables {
		for _, line := range runsOutLines(tb) {
			d.Printf("RUNS OUT: %s: %s", tb.QualifiedName(), line)
		}
	}
	t := NewTable("#", "table", "key", "order", "index / cache", "ins/s", "verdict").AlignRight(4, 5)
	for _, tb := range rep.Tables {
		rank := ""
		if tb.Verdict.Rank > 0 {
			rank = fmt.Sprint(tb.Verdict.Rank)
		}
		t.AppendRow(append([]any{rank, tableName(tb)}, adviceFigures(tb)...)...)
	}
	d.Add(t)
	legend(d, rep.Tables)
	for _, n := range s.Notes {
		d.Println("Not read: " + n + ".")
	}
	if rep.LabsNote != "" {
		d.Println(rep.LabsNote + ".")
	}
	if rep.CurvesCommand != "" {
		d.Println("No cost in rates: a projection needs measured curves. Make them with: " + rep.CurvesCommand)
	}
	return d
}

// runsOutLines are a table's lines saying when each of its columns runs
// out, when its class is "runs out" (none otherwise).
func runsOutLines(tb advise.Table) []string {
	var out []string
	if tb.Verdict.Class != advise.RunsOut {
		return nil
	}
	for _, w := range tb.Verdict.Why {
		if strings.HasPrefix(w, "Column ") {
			out = append(out, w)
		}
	}
	return out
}

// tableName is a table's name as the summary prints it, a partitioned
// table's with its partitions.
func tableName(tb advise.Table) string {
	name := tb.QualifiedName()
	if tb.Partitions > 0 {
		name += fmt.Sprintf(" (%d partitions)", tb.Partitions)
	}
	return name
}

// adviceFigures are a table's cells of the summary after its name: its
// key, order, key index over the cache, inserts per second and class.
func adviceFigures(tb advise.Table) []any {
	key, order, index := "none", "", ""
	if k := tb.Key; k != nil {
		key = k.Type
		if k.UUIDText {
			key += " uuid"
		}
		order = k.Order
		index = ratioOf(tb.KeyIndexOverCache)
	}
	return []any{key, order, index, tb.InsertsPerS.Text(func(v float64) string { return results.Significant(v) }), tb.Verdict.Class}
}

// legend says once what each class shown means.
func legend(d *Doc, tables []advise.Table) {
	seen := map[string]bool{}
	for _, tb := range tables {
		if c := tb.Verdict.Class; !seen[c] && advise.ClassMeaning[c] != "" {
			seen[c] = true
			d.Printf("%s: %s.", c, advise.ClassMeaning[c])
		}
	}
}

// adviceTable is one table's evidence, lab command and unavailable figures.
type adviceTable struct {
	Title, Class            string
	Why                     []string
	Lab, Migrate, MigrateTo string
	LabNotes                []string
	Unavailable             []string
	References              []string
	// Switches are what changing the key costs, a line each; Measured
	// the lab's verdict (advise --lab).
	Switches []string
	Measured string
}

func adviceTables(rep *advise.Report) []adviceTable {
	var out []adviceTable
	for _, t := range rep.Tables {
		out = append(out, adviceTableOf(t))
	}
	return out
}

// adviceTableOf is one table's evidence, lab command and unavailable figures.
func adviceTableOf(t advise.Table) adviceTable {
	a := adviceTable{Title: t.QualifiedName(), Class: t.Verdict.Class, Why: t.Verdict.Why, Migrate: t.Migrate, MigrateTo: t.MigrateTo}
	if t.Lab != nil {
		a.Lab, a.LabNotes = t.Lab.Command, t.Lab.Notes
		if t.Lab.Mix != "" {
			a.LabNotes = append([]string{"it replays the table's traffic in the sample: " + t.Lab.Mix}, a.LabNotes...)
		}
	}
	a.Unavailable = unavailableOf(t)
	for _, f := range t.ReferencedBy {
		idx := "no index on its columns"
		if f.Indexed {
			idx = "index " + results.Bytes(f.IndexBytes) + f.KeyBytes.Text(func(v float64) string {
				return fmt.Sprintf(", of which the key's copies %s (%d rows)", results.Bytes(int64(v)), f.Rows)
			})
		}
		a.References = append(a.References, fmt.Sprintf("%s (%s, %s)", f.Table, f.Constraint, idx))
	}
	if mix := versionMix(t.Key); mix != "" {
		a.Why = append(append([]string(nil), a.Why...), mix)
	}
	for _, sw := range t.Switches {
		a.Switches = append(a.Switches, switchText(sw))
	}
	a.Measured = labResultText(t.LabResult)
	return a
}

// switchText is a switch of the key and what it costs, in a line.
func switchText(sw advise.Switch) string {
	if sw.How == advise.SwitchDefault {
		return fmt.Sprintf("To %s: its default only, no row rewritten; %s. Measured by: %s", sw.To, strings.Join(sw.Locks, "; "), sw.Measure)
	}
	line := fmt.Sprintf("To %s: every row rewritten, %s with the indexes", sw.To, results.Bytes(sw.RewriteBytes))
	if len(sw.Rebuilt) > 0 {
		line += fmt.Sprintf(" and the referencing columns of %s", strings.Join(sw.Rebuilt, ", "))
	}
	return line + "; " + strings.Join(sw.Locks, "; ") + "."
}

// labResultText is the lab's measured verdict on a table's key ("" when
// no lab ran).
func labResultText(r *advise.LabResult) string {
	if r == nil {
		return ""
	}
	if r.Unavailable != "" {
		return "Measured by its lab: no verdict (" + r.Unavailable + ")."
	}
	ratio := func(x *advise.LabRatio, what, why string) string {
		if x == nil {
			return what + " not compared (" + why + ")"
		}
		mark := "~ "
		if x.Significant {
			mark = ""
		}
		return what + " " + mark + stats.RatioText(x.Ratio) + " " + x.RatioText()
	}
	return fmt.Sprintf("Measured by its lab (%s against %s): %s; %s; \"~\": the direction is not known. Results: %s.",
		r.Key, r.Against, ratio(r.Cost, "work per insert", r.CostUnavailable), ratio(r.Rate, "rate", "too few rounds to compare"), r.Results)
}

// unavailableOf lists a table's figures advise could not read, with why.
func unavailableOf(t advise.Table) []string {
	var out []string
	add := func(name, reason string) {
		if reason != "" {
			out = append(out, name+": "+reason)
		}
	}
	add("rows", t.Rows.Reason())
	add("row width", t.RowBytes.Reason())
	add("inserts/s", t.InsertsPerS.Reason())
	add("updates/s", t.UpdatesPerS.Reason())
	add("deletes/s", t.DeletesPerS.Reason())
	add("writing backends", t.Inserters.Reason())
	if t.Key != nil {
		add("correlation", t.Key.Correlation.Reason())
		add("leaf order", t.Key.LeafOrder.Reason())
		add("leaf density", t.LeafDensity.Reason())
		if t.DensityNote != "" {
			out = append(out, "leaf density measured (estimated instead): "+t.DensityNote)
		}
		add("cache share", t.CacheShare.Reason())
	}
	return out
}

// adviceDetails is one table's evidence, references, lab and switch.
func adviceDetails(a adviceTable) *Doc {
	d := &Doc{}
	d.Printf("%s — %s", a.Title, a.Class)
	for _, s := range a.Why {
		d.Println(s)
	}
	if len(a.References) > 0 {
		d.Println("Referenced by: " + strings.Join(a.References, "; ") + ".")
	}
	if a.Lab != "" {
		d.Println("Lab at its shape: " + a.Lab)
		for _, n := range a.LabNotes {
			d.Println("(The lab: " + n + ".)")
		}
	}
	if a.Migrate != "" {
		d.Println("Switching its new rows to " + a.MigrateTo + ": " + a.Migrate)
	}
	if a.Measured != "" {
		d.Println(a.Measured)
	}
	for _, sw := range a.Switches {
		d.Println("Switch: " + sw)
	}
	for _, u := range a.Unavailable {
		d.Println("Unavailable: " + u + ".")
	}
	return d
}

func ramText(ram int64) string {
	if ram <= 0 {
		return ""
	}
	return ", RAM " + results.Bytes(ram)
}

func ratioOf(r float64) string {
	if r >= 1 {
		return results.Digits(r, 2) + "×"
	}
	return results.Digits(r*100, 2) + "%"
}

// figure is a measured figure, or "unavailable (reason)".
func figure[T any](m results.M[T], format func(T) string) string {
	if r := m.Reason(); r != "" {
		return "unavailable (" + r + ")"
	}
	return m.Text(format)
}

var adviceTemplate = template.Must(template.Must(pageTemplate.Clone()).New("advice").Parse(`{{template "head" .}}
<body>
<h1>{{.Title}}</h1>
<p class="status">Which of these tables pay for their key, read from the database itself (read-only).</p>
{{template "doc" .Doc}}
{{range .Tables}}<h2>{{.Title}} <span class="status">— {{.Class}}</span></h2>
<ul>{{range .Why}}<li>{{.}}</li>{{end}}</ul>
{{if .References}}<p>Referenced by: {{range $i, $r := .References}}{{if $i}}; {{end}}{{$r}}{{end}}.</p>{{end}}
{{if .Lab}}<p>The lab at this table's shape:</p><code class="cmd">{{.Lab}}</code>{{range .LabNotes}}<p class="missing">{{.}}</p>{{end}}{{end}}
{{if .Migrate}}<p>Switching its new rows to {{.MigrateTo}}:</p><code class="cmd">{{.Migrate}}</code>{{end}}
{{if .Measured}}<p><b>{{.Measured}}</b></p>{{end}}
{{if .Switches}}<ul>{{range .Switches}}<li>Switch: {{.}}</li>{{end}}</ul>{{end}}
{{if .Unavailable}}<ul class="missing">{{range .Unavailable}}<li>unavailable: {{.}}</li>{{end}}</ul>{{end}}
{{end}}
</body></html>
`))

// versionMix says a key's uuid versions when they are more than one (""
// otherwise): a column part uuidv4, part uuidv7, each version's share of
// the rows with its interval when pages were sampled over the table.
func versionMix(k *advise.Key) string {
	if k == nil || len(k.UUIDVersions) < 2 {
		return ""
	}
	order := " its order is the mix's (new rows of a time-ordered version go to the index's end, the others anywhere)."
	if len(k.UUIDMix) > 1 {
		var parts []string
		for _, s := range k.UUIDMix {
			parts = append(parts, fmt.Sprintf("%s %.0f%% %s", s.Version, 100*s.Share, s.Text(func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) })))
		}
		return fmt.Sprintf("Its key's rows mix uuid versions: %s (%s):%s", strings.Join(parts, ", "), k.UUIDMixRead, order)
	}
	total := 0
	var vs []string
	for v := range k.UUIDVersions {
		total += k.UUIDVersions[v]
		vs = append(vs, v)
	}
	sort.Strings(vs)
	var parts []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", v, 100*float64(k.UUIDVersions[v])/float64(total)))
	}
	why := "points in the key's value order, not a sample of the rows"
	if k.UUIDMixRead != "" {
		why = k.UUIDMixRead
	}
	return fmt.Sprintf("Its key's sampled values mix uuid versions: %s of %d (%s):%s", strings.Join(parts, ", "), total, why, order)
}
