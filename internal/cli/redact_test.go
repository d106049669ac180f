package cli

import (
	"strings"
	"testing"
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
