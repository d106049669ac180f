package results

import (
	"slices"
	"strconv"
	"strings"
)

// MergeMajors makes one run of the runs of one plan on several PostgreSQL
// majors, one server after another (--pg-version 15,18): every cell of
// each, marked with its major (Cell.PgMajor, which keeps its keys apart
// from the other majors' in every comparison), the majors in the order
// they ran with each run's directory (dirs, relative to the merged
// file's), the first run's environment and plan, each run's notes once,
// and the worst status. Its analysis is made anew (package verdict).
func MergeMajors(runs []*Results, dirs []string) *Results {
	out := *runs[0]
	out.Cells, out.Analysis, out.Notes, out.Warnings, out.Keys = nil, nil, nil, nil, nil
	for i, r := range runs {
		major := MajorOf(r.Environment.ServerVersion)
		out.Majors = append(out.Majors, MajorRun{Major: major, ServerVersion: r.Environment.ServerVersion, Dir: dirs[i]})
		for _, c := range r.Cells {
			c.PgMajor = major
			out.Cells = append(out.Cells, c)
		}
		for _, n := range r.Notes {
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
		for _, w := range r.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
		for _, k := range r.Keys {
			if !slices.ContainsFunc(out.Keys, func(o KeyFacts) bool { return o.Key == k.Key }) {
				out.Keys = append(out.Keys, k)
			}
		}
		if r.Status != StatusOK {
			out.Status, out.Error = r.Status, r.Error
		}
		out.FinishedAt = r.FinishedAt
	}
	return &out
}

// MajorOf is a server version's major ("15.10" → 15, "18devel" → 18; 0
// when it does not start with one).
func MajorOf(version string) int {
	end := strings.IndexFunc(version, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(version)
	}
	n, _ := strconv.Atoi(version[:end])
	return n
}
