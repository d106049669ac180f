package cli

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/keybench/keybench/internal/usage"
)

func TestRedactArgsHidesPasswords(t *testing.T) {
	for _, dsn := range []string{
		"postgres://kb:Sekr1t-pw@db.example:5432/app?sslmode=disable",
		"postgresql://kb:Sekr1t-pw@db/app",
		"postgres://kb@db/app?password=Sekr1t-pw",
		"host=db user=kb password=Sekr1t-pw dbname=app",
		"host=db user=kb password = Sekr1t-pw dbname=app",
		"host=db user=kb password='Sekr1t-pw' dbname=app",
		"host=db user=kb pasword=Sekr1t-pw dbname=app",
		"postgres://kb:Sekr1t-pw@[::1",
		"postgres://postgres:x/Sekr1t-pw%zz@127.0.0.1:56462/app",
	} {
		for _, args := range [][]string{{"run", "--dsn", dsn}, {"run", "--dsn=" + dsn}} {
			got := strings.Join(redactArgs(args), " ")
			if strings.Contains(got, "Sekr1t") || !strings.Contains(got, "--dsn") {
				t.Errorf("redactArgs(%q) = %q", args, got)
			}
		}
	}
	if got := usage.DescribeDSN("postgres://kb:pw@db:6543/app"); got != "host=db port=6543 user=kb dbname=app" {
		t.Errorf("DescribeDSN = %q", got)
	}
}

// dsnError is what keybench prints for a connection string: its refusal
// when it does not parse, or the error of a connection to it that failed
// with msg (a server's or pgx's message, which may quote a part of it).
func dsnError(dsn, msg string) string {
	cc, err := usage.ParseDSN(dsn)
	if err != nil {
		return err.Error()
	}
	return usage.Connect(&pgconn.ConnectError{Config: &cc.Config}, cc, dsn).Error() + " " + usage.Redact(msg, dsn)
}

// TestMalformedDSNsPrintNoPassword (issues 49, 60): a URL cut after its
// password, one whose %-escape does not decode, one whose password holds
// an unescaped / or @, and a key=value string whose password key is
// misspelled (a server may echo it), print no part of the password.
func TestMalformedDSNsPrintNoPassword(t *testing.T) {
	for _, c := range []struct{ dsn, secret, echo string }{
		{"postgres://user:secret%2", "secret", ""},
		{"postgres://user:secret%2@localhost/db", "secret", ""},
		{"postgres://postgres:x/HX6SECRETpw%zz@127.0.0.1:56462/app", "HX6SECRETpw", ""},
		{"postgres://postgres:Hx6@Pa:ss/w%rd@127.0.0.1:56462/app", "w%rd", ""},
		{"postgres://postgres:Hx6@Pa:ss/wrd@127.0.0.1:56462/app", "Pa:ss", ""},
		{"postgres://postgres:Hx6/Pa/wrd@127.0.0.1:56462/app", "wrd", ""},
		{"host=127.0.0.1 port=56462 user=postgres pasword=S3cr3tPwBar dbname=app", "S3cr3tPwBar", `FATAL: unrecognized configuration parameter "pasword" = "S3cr3tPwBar"`},
		{"host=127.0.0.1 user=bob passwrd='s3cr3t value'", "s3cr3t", `invalid value "s3cr3t value"`},
		{"host=127.0.0.1 user=bob password=s3cr3t", "s3cr3t", `password authentication failed: s3cr3t`},
		{"host=127.0.0.1 dbname=postgres://bob:s3cr3tURI@db/app", "s3cr3tURI", ""},
		{"host=127.0.0.1 dbname='host=db password=s3cr3tKV'", "s3cr3tKV", ""},
	} {
		got := dsnError(c.dsn, c.echo)
		if strings.Contains(got, c.secret) {
			t.Errorf("%q printed its password: %s", c.dsn, got)
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%q: more than one line: %s", c.dsn, got)
		}
	}
	got := dsnError("postgres://kb@localhost:5432/db", "dial tcp 127.0.0.1:5432: connection refused")
	if !strings.Contains(got, "host=localhost port=5432 user=kb dbname=db") {
		t.Errorf("the server is not named by its host, port, user and database: %s", got)
	}
	var ue *usage.Error
	if _, err := usage.ParseDSN("host=db pasword=x"); !errors.As(err, &ue) || !strings.Contains(err.Error(), `"pasword"`) {
		t.Errorf("a misspelled password key: %v", err)
	}
}

// FuzzRedactSecretsOfDSNs: whatever a connection string holds around a
// password — URL or key=value, well formed or not, any character in the
// password, a misspelled key — what keybench prints for it (its refusal,
// or the server named and what the server said quoting the password) does
// not hold the password.
func FuzzRedactSecretsOfDSNs(f *testing.F) {
	f.Add("secret%2", "localhost/db", 0)
	f.Add("Sekr1t-pw", "db.example:5432/app?sslmode=disable", 1)
	f.Add("s3cr3t", "host=x", 2)
	f.Add("p@ss:w%rd", "127.0.0.1:56462/app", 0)
	f.Add("x/HX6SECRETpw%zz", "127.0.0.1:56462/app", 0)
	f.Add("Hx6@Pa:ss/w%rd", "127.0.0.1:56462/app", 0)
	f.Add("S3cr3tPwBar", "dbname=app", 3)
	f.Fuzz(func(t *testing.T, pw, rest string, form int) {
		if len(pw) < 6 || strings.ContainsAny(pw, "'\"\\\x00") || strings.IndexFunc(pw, unicode.IsSpace) >= 0 {
			return // a libpq value without quotes has no blanks (any space: \f and \v end one too)
		}
		var dsn string
		switch form % 4 {
		case 0:
			dsn = "postgres://user:" + pw + "@" + rest
		case 1:
			port, _, _ := strings.Cut(pw+"/", "/")
			port, _, _ = strings.Cut(port, "?")
			port, _, _ = strings.Cut(port, "#")
			if _, err := strconv.Atoi(port); err == nil || strings.Contains(pw, "@") {
				return // postgres://host:001000/db: a port and a database, and postgres://user:x@host a host after the @, by the URL's rules
			}
			dsn = "postgres://user:" + pw
		case 2:
			if strings.Contains(pw, "=") {
				return
			}
			dsn = "host=127.0.0.1 user=bob password=" + pw + " " + rest
		default:
			if strings.Contains(pw, "=") {
				return
			}
			dsn = "host=127.0.0.1 user=bob pasword=" + pw + " " + rest
		}
		if strings.Count(dsn, pw) > 1 || strings.Contains(strings.ToLower("host=127.0.0.1 port=5432 user=bob dbname= xxxxx <dsn> cannot connect to"), strings.ToLower(pw)) {
			return // the password is also the host, the database or a word of the message
		}
		got := dsnError(dsn, "server said: "+pw)
		if strings.Contains(got, pw) {
			t.Fatalf("%q printed its password %q: %s", dsn, pw, got)
		}
	})
}
