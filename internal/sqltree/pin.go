package sqltree

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Pin binds every session opened with cc to PostgreSQL's own objects:
// its search_path is pg_catalog, then schema (keybench's own; none for
// advise, which creates nothing), then pg_temp, each named so that no
// other schema is searched (a user's public.now() or a function of the
// DSN's options=-csearch_path=… never shadows PostgreSQL's), and
// standard_conforming_strings is on, so that a quote doubled is the only
// escape in a literal; default_table_access_method is heap, so that a
// table keybench makes is stored by PostgreSQL's own code. The settings are startup parameters, which win
// over the role's and the database's defaults and over the DSN's options;
// each session checks them once connected (a login event trigger may
// have changed them) and fails if they do not hold.
func Pin(cc *pgx.ConnConfig, schema string) {
	path := PinnedPath(schema)
	cc.RuntimeParams["search_path"] = path
	cc.RuntimeParams["standard_conforming_strings"] = "on"
	cc.RuntimeParams["default_table_access_method"] = "heap"
	before := cc.AfterConnect
	cc.AfterConnect = func(ctx context.Context, c *pgconn.PgConn) error {
		if before != nil {
			if err := before(ctx, c); err != nil {
				return err
			}
		}
		res := c.ExecParams(ctx, "SELECT pg_catalog.current_setting('search_path'), pg_catalog.current_setting('standard_conforming_strings')", nil, nil, nil, nil).Read()
		if res.Err != nil {
			return res.Err
		}
		if len(res.Rows) != 1 || len(res.Rows[0]) != 2 || string(res.Rows[0][0]) != path || string(res.Rows[0][1]) != "on" {
			got := ""
			if len(res.Rows) == 1 && len(res.Rows[0]) == 2 {
				got = fmt.Sprintf(" (search_path %s, standard_conforming_strings %s)", res.Rows[0][0], res.Rows[0][1])
			}
			return fmt.Errorf("the session's search_path and standard_conforming_strings are not the ones keybench set%s: something on the server changes them at login; keybench runs only where its SQL binds to PostgreSQL's own objects", got)
		}
		return nil
	}
}

// PinnedPath is the search_path Pin sets, as current_setting prints it.
func PinnedPath(schema string) string {
	if schema == "" {
		return "pg_catalog, pg_temp"
	}
	return "pg_catalog, " + pgx.Identifier{schema}.Sanitize() + ", pg_temp"
}

// Quote is a string as an SQL literal, by the driver's own escaping
// (pgconn's EscapeString), which holds only on a session whose
// standard_conforming_strings is on (Pin): it fails otherwise.
func Quote(c *pgconn.PgConn, s string) (string, error) {
	e, err := c.EscapeString(s)
	if err != nil {
		return "", err
	}
	return "'" + e + "'", nil
}

// A Resolver asks the server what a statement resolves to, without
// running or planning it: the statement is parsed and analysed by the
// server (the extended protocol's Parse, which plans nothing and runs no
// function of the statement's) on a session of its own whose
// debug_print_rewritten sends the rewritten tree back as a LOG message,
// and ReadTree reads the OIDs from it. The message also reaches the
// server's log, a few lines a statement.
type Resolver struct {
	conn *pgx.Conn
	mu   sync.Mutex
	got  []string
}

// NewResolver opens the resolver's session with cc (a copy is taken).
func NewResolver(ctx context.Context, cc *pgx.ConnConfig) (*Resolver, error) {
	r := &Resolver{}
	cc = cc.Copy()
	cc.RuntimeParams["debug_print_rewritten"] = "on"
	cc.RuntimeParams["debug_pretty_print"] = "off"
	cc.RuntimeParams["client_min_messages"] = "log"
	cc.RuntimeParams["application_name"] = "keybench resolver"
	cc.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if n.Severity == "LOG" && strings.HasPrefix(n.Message, "rewritten parse tree") {
			r.got = append(r.got, n.Detail)
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, err
	}
	r.conn = conn
	return r, nil
}

// Close ends the resolver's session.
func (r *Resolver) Close(ctx context.Context) error { return r.conn.Close(ctx) }

// Resolve is what sql (one statement) resolves to on the server. An
// error the server gives while analysing it (a name it does not know) is
// returned as refused, the server's words as the reason.
func (r *Resolver) Resolve(ctx context.Context, sql string, paramOIDs ...uint32) (res *Resolved, refused string, err error) {
	r.mu.Lock()
	r.got = nil
	r.mu.Unlock()
	if _, err := r.conn.PgConn().Prepare(ctx, "", sql, paramOIDs); err != nil {
		if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
			return nil, "the server does not read it: " + FirstLine(pe.Message), nil
		}
		return nil, "", err
	}
	r.mu.Lock()
	got := r.got
	r.mu.Unlock()
	if len(got) == 0 {
		return nil, "the server did not show how it resolves the statement (debug_print_rewritten): keybench cannot judge what it would call", nil
	}
	res = newResolved()
	for _, text := range got {
		one, err := ReadTree(text)
		if err != nil {
			return nil, "the server's resolved tree could not be read: " + err.Error(), nil
		}
		res.Add(one)
	}
	return res, "", nil
}
