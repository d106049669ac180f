package versions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/server"
)

var bin string

// TestMain builds the keybench binary once: the tests run it as a user would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "keybench-versions-test-*")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "keybench")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/keybench/keybench/cmd/keybench").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building keybench: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// since is the first major that has what a figure needs.
var since = map[string]int{
	"io":                    16, // pg_stat_io
	"wal_fpi_by_relation":   16, // pg_get_wal_block_info
	"key_index_fpi_per_row": 16,
	"btree_splits":          16,
	"btree_splits_per_row":  16,
}

// TestEveryClaimedMajor: for each major keybench claims, its server reads
// back every key keybench makes as keybench printed it (gen), and a quick
// run ends with exit 0, each version-dependent figure measured from its
// major on and unavailable, naming the version, before it.
func TestEveryClaimedMajor(t *testing.T) {
	for _, major := range server.Majors() {
		t.Run("PostgreSQL "+major, func(t *testing.T) {
			n := 0
			fmt.Sscan(major, &n)
			roundTrips(t, major, n)
			quickRun(t, major, n)
		})
	}
}

// roundTrips prints 100 values of every key strategy in its default
// storage with keybench gen and has the server read each back: the same
// text, and from 17 on the uuid version PostgreSQL reads and the time in
// the versions whose time it reads.
func roundTrips(t *testing.T, major string, n int) {
	ctx := context.Background()
	e, err := server.Start(ctx, server.Options{Version: major})
	if err != nil {
		t.Fatalf("starting PostgreSQL %s: %v", major, err)
	}
	defer e.Stop()
	c, err := pgx.Connect(ctx, e.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, st := range keys.All() {
		if st.Client == nil {
			continue
		}
		out, err := exec.Command(bin, "gen", st.Name+":gen=client", "-n", "100").Output()
		if err != nil {
			t.Errorf("gen %s: %v", st.Name, err)
			continue
		}
		spec, _ := keys.Parse(st.Name)
		col := spec.ColumnType()
		for _, v := range strings.Fields(string(out)) {
			var back string
			if err := c.QueryRow(ctx, "SELECT $1::"+col+"::text", v).Scan(&back); err != nil || back != v {
				t.Errorf("PostgreSQL %s reads %s's %q as %q (%v)", major, st.Name, v, back, err)
				break
			}
		}
		version := map[string]int{"uuidv1": 1, "uuidv4": 4, "uuidv6": 6, "uuidv7": 7}[st.Name]
		if version == 0 || n < 17 {
			continue
		}
		first := strings.Fields(string(out))[0]
		var v int
		var ts *time.Time
		if err := c.QueryRow(ctx, "SELECT uuid_extract_version($1::uuid), uuid_extract_timestamp($1::uuid)", first).Scan(&v, &ts); err != nil || v != version {
			t.Errorf("PostgreSQL %s: uuid_extract_version(%s) = %d (%v), want %d", major, first, v, err, version)
		}
		// uuid_extract_timestamp reads version 1 from 17 on, version 7 from 18 (others: NULL).
		if (version == 1 || version == 7 && n >= 18) && (ts == nil || time.Since(*ts).Abs() > time.Hour) {
			t.Errorf("PostgreSQL %s: uuid_extract_timestamp(%s) = %v", major, first, ts)
		}
	}
}

// quickRun runs the default preset's smoke run on the major and checks its figures.
func quickRun(t *testing.T, major string, n int) {
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--quick", "--pg-version", major, "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("run --quick --pg-version %s: %v\n%s", major, err, stderr.String())
	}
	t.Logf("run --quick --pg-version %s: exit 0 in %s", major, time.Since(start).Round(time.Second))
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Environment struct {
			ServerVersion string `json:"server_version"`
		} `json:"environment"`
		Cells []struct {
			Key     string                     `json:"key"`
			KeyGen  string                     `json:"key_generated_by"`
			KeyNote string                     `json:"key_note"`
			Metrics map[string]json.RawMessage `json:"metrics"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Environment.ServerVersion, major+".") {
		t.Errorf("the run's server is %s, not %s", r.Environment.ServerVersion, major)
	}
	var unavailable []string
	for _, c := range r.Cells {
		for name, raw := range c.Metrics {
			reason, isUnavailable := unavailableIn(raw)
			from, versioned := since[name]
			switch {
			case versioned && n >= from && isUnavailable:
				t.Errorf("%s on PostgreSQL %s: %s unavailable: %s", c.Key, major, name, reason)
			case versioned && n < from && !isUnavailable:
				t.Errorf("%s on PostgreSQL %s: %s measured, though it needs %d", c.Key, major, name, from)
			case isUnavailable && strings.Contains(reason, "needs PostgreSQL") && !strings.Contains(reason, fmt.Sprint(n)):
				t.Errorf("%s on PostgreSQL %s: %s's reason does not name the version: %s", c.Key, major, name, reason)
			}
			if isUnavailable && c.Key == r.Cells[0].Key {
				unavailable = append(unavailable, name+": "+reason)
			}
		}
		if _, ok := unavailableIn(c.Metrics["checkpoints"]); ok {
			t.Errorf("%s on PostgreSQL %s: checkpoints unavailable (pg_stat_bgwriter before 17, pg_stat_checkpointer since)", c.Key, major)
		}
		var bc struct {
			UsageCounts json.RawMessage `json:"usage_counts_final"`
		}
		_ = json.Unmarshal(c.Metrics["buffercache"], &bc)
		if reason, ok := unavailableIn(bc.UsageCounts); n >= 16 && ok || n < 16 && (!ok || !strings.Contains(reason, fmt.Sprint(n))) {
			t.Errorf("%s on PostgreSQL %s: buffer usage counts %s", c.Key, major, bc.UsageCounts)
		}
		if c.Key == "uuidv7" {
			if n >= 18 && c.KeyGen != "server" || n < 18 && (c.KeyGen != "client" || !strings.Contains(c.KeyNote, fmt.Sprintf("PostgreSQL %d has no uuidv7()", n))) {
				t.Errorf("uuidv7 on PostgreSQL %s: made by %s (%s)", major, c.KeyGen, c.KeyNote)
			}
		}
	}
	t.Logf("PostgreSQL %s: unavailable in %s's cell: %s", major, r.Cells[0].Key, strings.Join(unavailable, "; "))
}

// unavailableIn reads {"unavailable": "reason"}.
func unavailableIn(raw json.RawMessage) (string, bool) {
	var u struct {
		Unavailable *string `json:"unavailable"`
	}
	if json.Unmarshal(raw, &u) != nil || u.Unavailable == nil {
		return "", false
	}
	return *u.Unavailable, true
}
