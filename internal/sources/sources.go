// Package sources names the five write-ups keybench reproduces, once: each
// by the number the code and the output cite it by ("001"), with the title
// and the one line that tell a reader who never saw it what it was. Where
// console text cites one, Legend gives the line that explains it, so that a
// number on screen never stands alone.
package sources

import (
	"regexp"
	"strings"
)

// Source is one write-up.
type Source struct {
	ID    string // "000": how the code and the output cite it
	Title string // its own title, or what it is called
	What  string // what it measured, in a line
}

// All are the write-ups, by number.
var All = []Source{
	{"000", "postgresql unordered uuid performance test",
		"PostgreSQL 10 on one HDD: pgbench single-row inserts, uuid v4 vs sequential uuid vs bigint, at 0 to 100M rows"},
	{"001", "UUID Benchmark War",
		"PostgreSQL 17, 10 clients each inserting a row and reading one by an indexed column of a 20M-row table"},
	{"002", "sequence caching in PostgreSQL, bigint and uuidv7",
		"sequence CACHE 50 vs 1, gen_random_uuid and uuidv7 at 16-64 clients; index size before and after REINDEX"},
	{"003", "standard uuid vs. custom data type uuid_v1",
		"a timestamp-first uuid type: COPY rate as a 200M-row table grows, bloat and VACUUM time"},
	{"004", "HTAP scenario 31: burn after reading",
		"a queue of 2048 heap partitions without an index: producers insert and consumers delete 1000 rows at a time"},
}

// ByID is the write-up cited as id (nil: none is).
func ByID(id string) *Source {
	for i := range All {
		if All[i].ID == id {
			return &All[i]
		}
	}
	return nil
}

// A citation is a write-up's number standing as a word of its own: "(001)",
// "000's table", "001:", never the digits of "50,000" or "1000".
var citation = regexp.MustCompile(`(^|[\s(])(00[0-4])('s|[),:;.\s]|$)`)

// Cited are the write-ups text cites, in order of number.
func Cited(text string) []Source {
	found := map[string]bool{}
	for _, m := range citation.FindAllStringSubmatch(text, -1) {
		found[m[2]] = true
	}
	var out []Source
	for _, s := range All {
		if found[s.ID] {
			out = append(out, s)
		}
	}
	return out
}

// Legend is the line that explains the write-ups text cites ("" when it
// cites none): `001: "UUID Benchmark War" (PostgreSQL 17, …)`.
func Legend(text string) string {
	cited := Cited(text)
	if len(cited) == 0 {
		return ""
	}
	parts := make([]string, len(cited))
	for i, s := range cited {
		parts[i] = s.ID + ": \"" + s.Title + "\" (" + s.What + ")"
	}
	return "Write-ups cited: " + strings.Join(parts, "; ") + "."
}
