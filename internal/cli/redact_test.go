package cli

import (
	"strings"
	"testing"
	"unicode"

	"github.com/jackc/pgx/v5"
)

func TestRedactArgsHidesPasswords(t *testing.T) {
	for _, dsn := range []string{
		"postgres://kb:Sekr1t-pw@db.example:5432/app?sslmode=disable",
		"postgresql://kb:Sekr1t-pw@db/app",
		"postgres://kb@db/app?password=Sekr1t-pw",
		"host=db user=kb password=Sekr1t-pw dbname=app",
		"host=db user=kb password = Sekr1t-pw dbname=app",
		"host=db user=kb password='Sekr1t-pw' dbname=app",
		"postgres://kb:Sekr1t-pw@[::1",
	} {
		for _, args := range [][]string{{"run", "--dsn", dsn}, {"run", "--dsn=" + dsn}} {
			got := strings.Join(redactArgs(args), " ")
			if strings.Contains(got, "Sekr1t-pw") || !strings.Contains(got, "--dsn") {
				t.Errorf("redactArgs(%q) = %q", args, got)
			}
		}
	}
	if got := redactDSN("host=db user=kb dbname=app"); got != "host=db user=kb dbname=app" {
		t.Errorf("a DSN without a password changed: %q", got)
	}
	if got := redactDSN("postgres://kb:pw@db/app"); got != "postgres://kb:xxxxx@db/app" {
		t.Errorf("redactDSN = %q", got)
	}
}

// dsnError is what keybench prints for a connection string that does not
// parse, or for a connection that failed with msg (a server's or pgx's
// message, which may quote a part of the DSN).
func dsnError(dsn, msg string) string {
	if _, err := pgx.ParseConfig(dsn); err != nil {
		return "--dsn is not a valid connection string: " + redact(err.Error(), dsn)
	}
	return "cannot connect: " + redact(msg, dsn)
}

// TestMalformedDSNsPrintNoPassword (issue 49): a URL cut after its
// password, whose %-escape does not decode, and a key=value string whose
// password key is misspelled (a server may echo it), print no password.
func TestMalformedDSNsPrintNoPassword(t *testing.T) {
	for _, c := range []struct{ dsn, echo string }{
		{"postgres://user:secret%2", ""},
		{"postgres://user:secret%2@localhost/db", ""},
		{"host=127.0.0.1 user=bob pasword=s3cr3t-value", `FATAL: unrecognized configuration parameter "pasword" = "s3cr3t-value"`},
		{"host=127.0.0.1 user=bob passwrd='s3cr3t value'", `invalid value "s3cr3t value"`},
	} {
		secret := "secret"
		if strings.Contains(c.dsn, "s3cr3t") {
			secret = "s3cr3t"
		}
		if got := dsnError(c.dsn, c.echo); strings.Contains(got, secret) {
			t.Errorf("%q printed its password: %s", c.dsn, got)
		}
	}
	if got := dsnError("postgres://localhost:5432/db", "dial tcp 127.0.0.1:5432: connection refused"); !strings.Contains(got, "5432") {
		t.Errorf("a port was taken for a password: %s", got)
	}
}

// FuzzRedactSecretsOfDSNs: whatever a connection string holds around a
// password — URL or key=value, well formed or not, a misspelled key — the
// error keybench prints for it, and for a message that quotes the
// password, does not hold the password.
func FuzzRedactSecretsOfDSNs(f *testing.F) {
	f.Add("secret%2", "localhost/db", 0)
	f.Add("Sekr1t-pw", "db.example:5432/app?sslmode=disable", 1)
	f.Add("s3cr3t", "host=x", 2)
	f.Add("p@ss:w%rd", "", 3)
	f.Fuzz(func(t *testing.T, pw, rest string, form int) {
		if len(pw) < 4 || strings.ContainsAny(pw, "'\"=&?/@\x00") || strings.IndexFunc(pw, unicode.IsSpace) >= 0 {
			return // a password in these forms has no blanks (any space: \f and \v end a libpq value too) or separators
		}
		if strings.Contains(rest, "@") {
			return // another @ makes what precedes it the password: a longer one
		}
		var dsn string
		switch form % 4 {
		case 0:
			dsn = "postgres://user:" + pw + "@" + rest
		case 1:
			if isPort(pw) {
				return // postgres://host:5432: a port, by the URL's rules
			}
			dsn = "postgres://user:" + pw
		case 2:
			dsn = "host=127.0.0.1 user=bob password=" + pw + " " + rest
		default:
			dsn = "host=127.0.0.1 user=bob pasword=" + pw + " " + rest
		}
		got := dsnError(dsn, "server said: "+pw)
		if strings.Contains(got, pw) && !strings.Contains("--dsn is not a valid connection string: cannot connect: server said: xxxxx <dsn>", pw) {
			t.Fatalf("%q printed its password %q: %s", dsn, pw, got)
		}
	})
}
