// Package engine tells which database engine speaks PostgreSQL's protocol
// on the other end: PostgreSQL itself, PostgreSQL with Citus (a
// distributed PostgreSQL whose rows live on worker nodes), or another
// engine that borrows the protocol (CockroachDB, YugabyteDB). keybench's
// collectors read PostgreSQL's own views and files; on an engine where a
// view is missing or sees only part of the cluster (Citus's coordinator
// sees none of the workers' pages, WAL or buffers), a figure is recorded
// as unavailable with the engine's reason, never as the part it could see.
//
// Detection reads version() and the citus extension's presence only: it is
// pure and unit-tested without a server.
package engine

import (
	"fmt"
	"regexp"
	"strings"
)

// Kinds of engine.
const (
	PostgreSQL  = "postgresql"
	Citus       = "citus"
	CockroachDB = "cockroachdb"
	YugabyteDB  = "yugabytedb"
)

// Engine is what answered.
type Engine struct {
	// Kind is one of the constants above.
	Kind string `json:"kind"`
	// Version is the engine's own version (Citus's extension version on Citus).
	Version string `json:"version"`
	// Workers is a Citus cluster's active worker nodes (0 elsewhere).
	Workers int `json:"workers,omitempty"`
}

var (
	cockroach = regexp.MustCompile(`CockroachDB \w+ (v[\d.]+\S*)`)
	yugabyte  = regexp.MustCompile(`PostgreSQL [\d.]+-YB-([\d.]+\S*)`)
)

// Detect names the engine from version()'s text and the installed citus
// extension's version ("" when it is not installed).
func Detect(version, citusVersion string, workers int) Engine {
	switch {
	case cockroach.MatchString(version):
		return Engine{Kind: CockroachDB, Version: cockroach.FindStringSubmatch(version)[1]}
	case yugabyte.MatchString(version):
		return Engine{Kind: YugabyteDB, Version: yugabyte.FindStringSubmatch(version)[1]}
	case citusVersion != "":
		return Engine{Kind: Citus, Version: citusVersion, Workers: workers}
	}
	v := strings.TrimPrefix(version, "PostgreSQL ")
	if i := strings.IndexAny(v, " ,"); i > 0 {
		v = v[:i]
	}
	return Engine{Kind: PostgreSQL, Version: v}
}

// String is "PostgreSQL 18.1", "Citus 13.2-1 (2 workers)", "CockroachDB v24.1.0".
func (e Engine) String() string {
	switch e.Kind {
	case Citus:
		return fmt.Sprintf("Citus %s (%d workers)", e.Version, e.Workers)
	case CockroachDB:
		return "CockroachDB " + e.Version
	case YugabyteDB:
		return "YugabyteDB " + e.Version
	}
	return "PostgreSQL " + e.Version
}

// Distributed says that the rows live elsewhere than the server keybench
// talks to: sizes, pages, WAL and caches there are not the cell's. An
// engine not recorded (a run from before engines were told apart) was
// PostgreSQL.
func (e Engine) Distributed() bool { return e.Kind == Citus || e.Foreign() }

// Foreign says the engine is not PostgreSQL's code: PostgreSQL's
// statistics views and functions may be missing or mean something else.
func (e Engine) Foreign() bool { return e.Kind == CockroachDB || e.Kind == YugabyteDB }

// Blind is why a collector reading PostgreSQL's own views on this server
// does not see the cell's rows ("" on PostgreSQL): on Citus they live on
// the workers, on the others in the engine's own storage.
func (e Engine) Blind() string {
	switch e.Kind {
	case Citus:
		return fmt.Sprintf("on Citus the rows live in shards on the %d workers; keybench's connection reaches the coordinator only", e.Workers)
	case CockroachDB, YugabyteDB:
		return e.String() + " keeps its rows in its own distributed storage, not in PostgreSQL's pages"
	}
	return ""
}

// Queries are the statements that tell the engine: version(), the citus
// extension's version, and Citus's active workers.
const (
	VersionQuery = "SELECT version()"
	CitusQuery   = "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'citus'), '')"
	WorkersQuery = "SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND groupid <> 0"
)
