package metrics

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/sqltree"
	"github.com/keybench/keybench/internal/workspace"
)

// Extensions records where pg_buffercache, pgstattuple and pg_walinspect are, creating them
// in keybench's schema when they are missing and the role may, or why they
// cannot be used.
type Extensions struct {
	// Schema maps an installed extension to the schema its functions live in.
	Schema map[string]string
	// Missing maps an unusable extension to the reason.
	Missing map[string]string
	// Created lists the extensions keybench created (recorded in its workspace, dropped at the end).
	Created []string
}

// EnsureExtensions finds the extensions the collectors use, or creates
// them in keybench's workspace, which records each.
func EnsureExtensions(ctx context.Context, conn *pgx.Conn, ws *workspace.Workspace) *Extensions {
	schema := ws.Schema()
	e := &Extensions{Schema: map[string]string{}, Missing: map[string]string{}}
	for _, name := range collectorExtensions {
		if e.find(ctx, conn, name) {
			continue
		}
		if _, missing := e.Missing[name]; missing {
			continue
		}
		create := workspace.Object{Kind: workspace.Extension, Name: name, SQL: []string{fmt.Sprintf("CREATE EXTENSION %s SCHEMA %s", name, schema)}}
		if err := ws.Create(ctx, conn, create); err != nil {
			e.Missing[name] = fmt.Sprintf("extension %s is not installed and could not be created: %v", name, err)
			continue
		}
		e.Schema[name], e.Created = schema, append(e.Created, name)
	}
	return e
}

// collectorExtensions are the extensions the collectors read through.
var collectorExtensions = []string{"pg_buffercache", "pgstattuple", "pg_walinspect"}

// FindExtensions finds the extensions the collectors use and creates
// none: on a server where keybench writes nothing (a cluster's worker), a
// missing one leaves its figures unavailable with the reason.
func FindExtensions(ctx context.Context, conn *pgx.Conn) *Extensions {
	e := &Extensions{Schema: map[string]string{}, Missing: map[string]string{}}
	for _, name := range collectorExtensions {
		if !e.find(ctx, conn, name) {
			if _, failed := e.Missing[name]; !failed {
				e.Missing[name] = fmt.Sprintf("extension %s is not installed there (keybench creates nothing on that server)", name)
			}
		}
	}
	return e
}

// find records where extension name is installed: false when it is not
// (Missing holds the reason when looking failed, or when what keybench
// would call of it is not the extension's own: sqltree.Extension).
func (e *Extensions) find(ctx context.Context, conn *pgx.Conn, name string) bool {
	ns, why, err := sqltree.Extension(ctx, conn, name, sqltree.ExtensionUses[name]...)
	switch {
	case err != nil:
		e.Missing[name] = err.Error()
	case why != "":
		e.Missing[name] = why
	case ns != "":
		e.Schema[name] = pgx.Identifier{ns}.Sanitize()
		return true
	}
	return false
}

// fn returns the schema-qualified name of an extension function, or the reason it is missing.
func (e *Extensions) fn(ext, name string) (string, error) {
	if e == nil {
		return "", errors.New("extensions not checked")
	}
	if s, ok := e.Schema[ext]; ok {
		return s + "." + name, nil
	}
	return "", errors.New(e.Missing[ext])
}
