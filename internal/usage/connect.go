package usage

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Connect is a failed connection to the user's own server (--dsn, the PG*
// variables) as a usage error: the address, the role or the password is
// what the user gave, for `run` as for `advise`. pgx tries every address a
// host name resolves to, each with TLS and then without, and joins every
// attempt's error; the same error is said once, on one line. The server is
// named by its host, port, user and database (Describe), and what pgx or
// the server said passes through Redact: nothing of the connection string
// dsn (cc's) beyond them is printed.
func Connect(err error, cc *pgx.ConnConfig, dsn string) error {
	return Errorf("cannot connect to %s: %s", Describe(&cc.Config), Redact(ConnectReason(err), dsn))
}

// ConnectReason is a connection error's message with each distinct
// attempt's error once.
func ConnectReason(err error) string {
	ce, ok := errors.AsType[*pgconn.ConnectError](err)
	if !ok {
		return err.Error()
	}
	var parts []string
	add := func(e error) {
		if m := strings.TrimSpace(e.Error()); !slices.Contains(parts, m) {
			parts = append(parts, m)
		}
	}
	inner := ce.Unwrap()
	if joined, ok := inner.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			add(e)
		}
	} else if inner != nil {
		add(inner)
	}
	return fmt.Sprintf("failed to connect to `user=%s database=%s`: %s", ce.Config.User, ce.Config.Database, strings.Join(parts, "; "))
}
