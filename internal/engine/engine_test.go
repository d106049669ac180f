package engine

import "testing"

// TestDetect reads the version() texts engines print (copied from each
// engine's documentation and servers) and the citus extension's presence.
func TestDetect(t *testing.T) {
	for _, c := range []struct {
		version, citus string
		workers        int
		want           Engine
		distributed    bool
	}{
		{"PostgreSQL 18.6 on x86_64-pc-linux-gnu, compiled by gcc (GCC) 12.2.0, 64-bit", "", 0, Engine{Kind: PostgreSQL, Version: "18.6"}, false},
		{"PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", "", 0, Engine{Kind: PostgreSQL, Version: "15.18"}, false},
		{"PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu", "13.2-1", 2, Engine{Kind: Citus, Version: "13.2-1", Workers: 2}, true},
		{"CockroachDB CCL v24.1.0 (x86_64-pc-linux-gnu, built 2024/05/15 21:28:29, go1.22.2 X:nocoverageredesign)", "", 0, Engine{Kind: CockroachDB, Version: "v24.1.0"}, true},
		{"PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6, 64-bit", "", 0, Engine{Kind: YugabyteDB, Version: "2.20.1.0-b0"}, true},
	} {
		got := Detect(c.version, c.citus, c.workers)
		if got != c.want || got.Distributed() != c.distributed || (got.Blind() == "") == c.distributed {
			t.Errorf("Detect(%q, %q) = %+v (distributed %v, blind %q), want %+v", c.version, c.citus, got, got.Distributed(), got.Blind(), c.want)
		}
	}
	if (Engine{}).Distributed() {
		t.Error("an engine not recorded (an older run's) is distributed")
	}
	if s := Detect("PostgreSQL 15.18", "13.2-1", 2).String(); s != "Citus 13.2-1 (2 workers)" {
		t.Errorf("String = %q", s)
	}
}
