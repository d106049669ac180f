// Package cluster reads a cell on a Citus cluster where its rows live.
// From the coordinator, every figure of a key's cost is unavailable: its
// tables there are empty shells, the pages, WAL, splits and images are
// the workers'. So the package finds the workers that hold the cell's
// shards (pg_dist_shard, pg_dist_placement and pg_dist_node on the
// coordinator), connects to each with the user's own connection settings
// (only the host and port change), and runs there the very collectors
// keybench runs on one server (a metrics session over the worker's
// shards, each round), plus what only a cluster has: each shard's rows
// and each round's inserts per shard and per worker, whose skew is the
// evidence for or against a hot shard.
//
// keybench writes nothing on a worker. It reads statistics, sizes and
// pgstatindex there (an extension the worker lacks is a figure
// unavailable with the reason, never created), takes a CHECKPOINT at each
// round's start where it may (as it does on one server, so that full-page
// images per row compare), and the shards themselves are made and dropped
// through the coordinator, which records them. A worker keybench cannot
// reach or read is recorded with the reason; the others are still shown.
package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Node is a worker as pg_dist_node names it; Coordinator marks the
// coordinator itself holding placements (a reference table's copy).
type Node struct {
	Host        string
	Port        int
	Coordinator bool
}

func (n Node) String() string { return net.JoinHostPort(n.Host, strconv.Itoa(n.Port)) }

// Placement is one shard of one of the cell's tables on its node.
type Placement struct {
	// Table is the distributed table's name (unqualified), Shard its shard id.
	Table string
	Shard int64
	Node  Node
}

// ShardName is the name Citus gives a shard of a relation (a table or
// one of its indexes) on a worker: the relation's name and the shard id.
func ShardName(relation string, shard int64) string {
	return relation + "_" + strconv.FormatInt(shard, 10)
}

// placementsQuery lists the primary placements of the given tables'
// shards (Citus 11 and later keep them in these three catalogs).
const placementsQuery = `SELECT c.relname::text, s.shardid, n.nodename::text, n.nodeport, n.groupid = 0
	FROM pg_dist_shard s
	JOIN pg_class c ON c.oid = s.logicalrelid
	JOIN pg_dist_placement p ON p.shardid = s.shardid
	JOIN pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary'
	WHERE s.logicalrelid = ANY($1::regclass[])
	ORDER BY n.nodeid, s.shardid`

// Placements reads where the shards of tables (schema-qualified names) are.
func Placements(ctx context.Context, coord *pgx.Conn, tables []string) ([]Placement, error) {
	rows, err := coord.Query(ctx, placementsQuery, tables)
	if err != nil {
		return nil, fmt.Errorf("reading the shards' placements: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Placement, error) {
		var p Placement
		err := r.Scan(&p.Table, &p.Shard, &p.Node.Host, &p.Node.Port, &p.Node.Coordinator)
		return p, err
	})
}

// Nodes are the distinct nodes of placements, in their order.
func Nodes(ps []Placement) []Node {
	var out []Node
	seen := map[Node]bool{}
	for _, p := range ps {
		if !seen[p.Node] {
			seen[p.Node] = true
			out = append(out, p.Node)
		}
	}
	return out
}

// connectTo opens a connection to node with base's settings (user,
// password, database, TLS), only its host and port changed.
func connectTo(ctx context.Context, base *pgx.ConnConfig, n Node) (*pgx.Conn, error) {
	cc := base.Copy()
	cc.Host, cc.Port, cc.Fallbacks = n.Host, uint16(n.Port), nil
	cc.RuntimeParams["application_name"] = "keybench cluster reader"
	// Citus hides its shards from the catalog views (pg_class,
	// pg_stat_user_tables) of sessions it does not name; the statistics
	// keybench reads are the shards'.
	cc.RuntimeParams["citus.show_shards_for_app_name_prefixes"] = "*"
	cc.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	return pgx.ConnectConfig(ctx, cc)
}

// localPostmaster is the PID and data directory of the server on conn
// when it runs on this machine and keybench may read its postmaster.pid
// (its processes' CPU is then measured as the embedded server's is);
// zero and the reason otherwise.
func localPostmaster(ctx context.Context, conn *pgx.Conn, n Node) (int, string, string) {
	if !loopback(n.Host) {
		return 0, "", "the worker runs on another machine (" + n.Host + "): its processes cannot be seen from here"
	}
	var dir string
	if err := conn.QueryRow(ctx, "SELECT setting FROM pg_settings WHERE name = 'data_directory'").Scan(&dir); err != nil || dir == "" {
		return 0, "", "the worker's data directory is not readable with this role (pg_read_all_settings)"
	}
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return 0, "", "the worker's postmaster.pid: " + err.Error()
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, "", "the worker's postmaster.pid holds no PID"
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		return 0, "", "the worker's postmaster is not a process of this machine"
	}
	return pid, dir, ""
}

func loopback(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
