package usage

import (
	"strings"
	"testing"
)

func TestRedactSecrets(t *testing.T) {
	for _, s := range []string{
		"host=primary port=5432 user=rep password=Sekr1t-pw application_name=standby",
		"host=primary password = 'Sekr1t-pw with spaces' user=rep",
		`host=primary PASSWORD="Sekr1t-pw"`,
		"sslpassword=Sekr1t-pw",
		"token=Sekr1t-pw",
		"host=primary password='it\\'s Sekr1t-pw'",
	} {
		got := RedactSecrets(s)
		if strings.Contains(got, "Sekr1t-pw") || !strings.Contains(got, "xxxxx") {
			t.Errorf("RedactSecrets(%q) = %q", s, got)
		}
	}
	for _, s := range []string{"16MB", "on", "host=primary user=rep", "pg_stat_statements,auto_explain"} {
		if got := RedactSecrets(s); got != s {
			t.Errorf("RedactSecrets(%q) changed it to %q", s, got)
		}
	}
}

// TestRedactEach: each connection string's password is removed from a
// message about any of them, however it is written, and nothing else:
// one database's string is not cut out of another's name.
func TestRedactEach(t *testing.T) {
	dsns := []string{"dbname=app1", "postgres://u:Sekr1t-pw@h/app2", "host=h password='an0ther pw' dbname=app3", "postgres://u@h/app4?password=th1rd-pw"}
	msg := "host=h port=5432 user=u dbname=app10: refused; postgres://u:Sekr1t-pw@h/app2 an0ther pw th1rd-pw"
	got := RedactEach(msg, dsns)
	for _, secret := range []string{"Sekr1t-pw", "an0ther pw", "th1rd-pw"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q is left in %q", secret, got)
		}
	}
	if !strings.HasPrefix(got, "host=h port=5432 user=u dbname=app10: refused; postgres://u:xxxxx@h/app2") {
		t.Errorf("RedactEach changed more than the secrets: %q", got)
	}
}

// FuzzRedactSecrets: a password written as password=… after any text is
// never left in the output, and redacting twice changes nothing more.
func FuzzRedactSecrets(f *testing.F) {
	f.Add("host=primary user=rep", "Sekr1t-pw")
	f.Add("postgres://u@h/db?sslmode=disable", "p4ss")
	f.Fuzz(func(t *testing.T, prefix, secret string) {
		secret = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
				return r
			}
			return -1
		}, secret)
		if len(secret) < 6 || strings.Contains("xxxxx", secret) {
			return
		}
		s := prefix + " password=" + secret
		got := RedactSecrets(s)
		if strings.Contains(got, " password="+secret) {
			t.Fatalf("RedactSecrets(%q) = %q", s, got)
		}
		if again := RedactSecrets(got); again != got {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
	})
}
