package usage

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A connection string may hold a password, so no message keybench prints
// and no file it writes holds one, whole or in part: a server is named by
// its host, port, user and database (DescribeDSN), read from the parsed
// string; a string that does not parse is refused without quoting it or
// pgx's reading of it (which quotes the token it stopped at); a URL whose
// reading is ambiguous (an @ or a / in its password, not percent-encoded)
// is refused before it is read at all, since any reading of it could put a
// part of the password in the host or the database; a key within two
// edits of "password" is refused as a misspelling, its value unsaid. What
// a server or pgx says about a connection is passed through Redact, which
// removes whatever the string could hold as a secret.

// ParseDSN reads --dsn's connection string (a postgres:// URL or libpq's
// key=value pairs; empty: the PG* variables), as a usage error when it
// does not read.
func ParseDSN(dsn string) (*pgx.ConnConfig, error) {
	bad := func(why string) error {
		return Errorf("--dsn is not a valid connection string (a postgres:// URL or key=value pairs): %s; it is not printed, as it may hold a password", why)
	}
	if rest, ok := cutScheme(dsn); ok {
		userinfo, _, _ := strings.Cut(rest, "@")
		if strings.Count(rest, "@") > 1 || strings.Contains(rest, "@") && strings.ContainsAny(userinfo, "/?#") {
			return nil, bad("its user or password holds a character a URL reserves (@ / ? #): write it percent-encoded (@ as %40, / as %2F, ? as %3F, # as %23, % as %25)")
		}
		if !strings.Contains(rest, "@") {
			// No user: what follows a host's colon is its port, and nothing
			// else (a password left without its @ would be read as one).
			host := rest[:strings.IndexAny(rest+"/", "/?#")]
			if i := strings.LastIndex(host, "]"); i >= 0 {
				host = host[i+1:]
			}
			for _, h := range strings.Split(host, ",") {
				if _, port, ok := strings.Cut(h, ":"); ok && !isPort(port) {
					return nil, bad("a host's port is not a number (a password needs its @: postgres://user:password@host/db)")
				}
			}
		}
	}
	cc, err := pgx.ParseConfig(dsn)
	if err != nil {
		if _, ok := cutScheme(dsn); ok {
			return nil, bad("it does not read as a URL (a % not followed by two hex digits, or a port that is not a number?)")
		}
		return nil, bad("it does not read as key=value pairs (an unclosed quote, or a key without =?)")
	}
	if _, uri := cutScheme(cc.Database); uri || strings.Contains(cc.Database, "=") {
		// libpq expands such a dbname as a connection string, pgx does
		// not: it would name a database of that name, and be printed
		// as one, password and all.
		return nil, bad("its dbname is itself a connection string (libpq expands one, keybench does not): write its parts in --dsn itself")
	}
	for k := range cc.RuntimeParams {
		if nearPassword(k) && k != "password" {
			return nil, bad(fmt.Sprintf("it has a key %q, which libpq does not know: a misspelled password?", k))
		}
	}
	return cc, nil
}

// DescribeDSN names the server a connection string reaches — host, port,
// user and database, as key=value pairs — and nothing else of it;
// "<dsn>" when it does not parse.
func DescribeDSN(dsn string) string {
	cc, err := ParseDSN(dsn)
	if err != nil {
		return "<dsn>"
	}
	return Describe(&cc.Config)
}

// Describe names the server of a parsed connection string: its host,
// port, user and database.
func Describe(c *pgconn.Config) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", quoteValue(c.Host), c.Port, quoteValue(c.User), quoteValue(c.Database))
}

// quoteValue writes a value as libpq's key=value pairs take it.
func quoteValue(v string) string {
	if v != "" && !strings.ContainsAny(v, ` '\`) {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(v) + "'"
}

// Redact removes from a message about a connection (a server's or pgx's)
// the connection string dsn and every secret it could hold (secretsOf),
// whatever part of it the message quotes.
func Redact(msg, dsn string) string {
	if dsn != "" { // an empty DSN (the PG* variables' server) hides nothing, and would be "found" between every letter
		msg = strings.ReplaceAll(msg, dsn, "<dsn>")
	}
	if i := strings.Index(msg, "cannot parse `"); i >= 0 {
		if j := strings.Index(msg[i+14:], "`"); j >= 0 {
			msg = msg[:i] + "cannot parse <dsn>" + msg[i+14+j+1:]
		}
	}
	for _, secret := range secretsOf(dsn) {
		msg = strings.ReplaceAll(msg, secret, "xxxxx")
	}
	return RedactSecrets(msg)
}

// RedactEach removes from a message about any of several connections
// every secret each of dsns could hold (secretsOf) and every key=value
// secret. Unlike Redact it leaves the rest of a connection string as it
// is, so that one database's string is not cut out of another's name
// (dbname=app1 within dbname=app10).
func RedactEach(msg string, dsns []string) string {
	for _, dsn := range dsns {
		for _, secret := range secretsOf(dsn) {
			msg = strings.ReplaceAll(msg, secret, "xxxxx")
		}
	}
	return RedactSecrets(msg)
}

// RedactSecrets replaces the value of every key=value secret in s (a
// password in a connection string above all, a --pg-conf's
// primary_conninfo) with xxxxx.
func RedactSecrets(s string) string {
	return secretPattern.ReplaceAllString(s, "${1}${2}xxxxx")
}

// secretPattern finds a password or other secret written as key=value
// (libpq's conninfo and its relatives), quoted or not.
var secretPattern = regexp.MustCompile(`(?i)\b(password|passwd|passfile|sslpassword|secret|token|api_?key)(\s*=\s*)('(?:[^'\\]|\\.)*'|"[^"]*"|[^\s]+)`)

// secretsOf are what a connection string may hold as a secret, read as
// loosely as a malformed one needs: a URL's password (between the user's
// colon and the @, or the end when there is no @), its password query
// parameter, and the value of every key=value whose key is a password's
// or nearly one (a misspelling: pasword, passwd), each also %-decoded as
// far as it decodes. The shortest kept is two characters: a shorter one
// would cut words out of every message.
func secretsOf(dsn string) []string {
	var out []string
	add := func(v string) {
		v = strings.Trim(v, `'" `)
		if len(v) >= 2 {
			out = append(out, v)
			if d, err := url.PathUnescape(v); err == nil && d != v && len(d) >= 2 {
				out = append(out, d)
			}
		}
	}
	if cc, err := pgx.ParseConfig(dsn); err == nil && dsn != "" {
		// As pgx reads it: the password, and the value of a key near one.
		add(cc.Password)
		for k, v := range cc.RuntimeParams {
			if nearPassword(k) {
				add(v)
			}
		}
	}
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			add(pw)
		}
	}
	if rest, ok := cutScheme(dsn); ok {
		userinfo := rest
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			userinfo = rest[:at]
		} else if slash := strings.IndexAny(rest, "/?"); slash >= 0 {
			userinfo = rest[:slash]
		}
		// Without an @ a colon may be a host's port (host:5432) or a
		// truncated URL's password (user:secret): a port stays.
		if _, pw, ok := strings.Cut(userinfo, ":"); ok && (strings.Contains(rest, "@") || !isPort(pw)) {
			add(pw)
		}
		if _, q, ok := strings.Cut(rest, "?"); ok {
			for _, kv := range strings.Split(q, "&") {
				if k, v, ok := strings.Cut(kv, "="); ok && nearPassword(k) {
					add(v)
				}
			}
		}
	}
	for _, m := range keyValue.FindAllStringSubmatch(dsn, -1) {
		if nearPassword(m[1]) {
			add(m[2])
		}
	}
	return out
}

// keyValue is a key=value of a libpq connection string, its value quoted or not.
var keyValue = regexp.MustCompile(`([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]+)`)

// isPort says whether s reads as a port number.
func isPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && n < 65536
}

// cutScheme is a URL without its postgres:// or postgresql:// scheme.
func cutScheme(dsn string) (string, bool) {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if strings.HasPrefix(strings.ToLower(dsn), p) {
			return dsn[len(p):], true
		}
	}
	return "", false
}

// nearPassword says whether a key is a password's, or within two edits of
// "password" (a misspelled one is as secret as a spelled one).
func nearPassword(key string) bool {
	k := strings.ToLower(key)
	if strings.Contains(k, "pass") || strings.Contains(k, "pwd") || strings.Contains(k, "secret") {
		return true
	}
	return distance(k, "password") <= 2
}
