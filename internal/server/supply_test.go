package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keybench/keybench/internal/server"
)

// mirror serves the cached archive of the default release as a Maven
// repository would (KEYBENCH_MAVEN_REPO), counting the downloads; corrupt
// makes it serve a damaged copy.
type mirror struct {
	jar     []byte
	hits    atomic.Int64
	corrupt atomic.Bool
}

func newMirror(t *testing.T) (*mirror, string) {
	t.Helper()
	version, _ := server.ResolveVersion("")
	// The test server of this package was started from the default cache.
	jars, _ := filepath.Glob(filepath.Join(server.CacheDir(), "downloads", "embedded-postgres-binaries-*-"+version+".jar"))
	if len(jars) != 1 {
		t.Fatalf("no cached archive of %s in %s", version, server.CacheDir())
	}
	b, err := os.ReadFile(jars[0])
	if err != nil {
		t.Fatal(err)
	}
	m := &mirror{jar: b}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/"+filepath.Base(jars[0])) {
			http.NotFound(w, r)
			return
		}
		m.hits.Add(1)
		body := m.jar
		if m.corrupt.Load() {
			body = append([]byte(nil), m.jar...)
			body[len(body)/2] ^= 0xff
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return m, srv.URL
}

func binaries(t *testing.T) (string, string, error) {
	t.Helper()
	var log strings.Builder
	dir, err := server.Binaries(context.Background(), "18.6.0", func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }, nil)
	return dir, log.String(), err
}

// TestSupplyChain: the archive is verified, a damaged cache is detected and
// fetched or extracted again, a cache works offline, and no cache offline
// says to use --pg-bin.
func TestSupplyChain(t *testing.T) {
	m, url := newMirror(t)
	cache := t.TempDir()
	t.Setenv("KEYBENCH_CACHE", cache)
	t.Setenv("KEYBENCH_MAVEN_REPO", url)

	// A fresh cache: downloaded once, verified, extracted.
	dir, log, err := binaries(t)
	if err != nil || m.hits.Load() != 1 || !strings.Contains(log, "downloading") {
		t.Fatalf("fresh cache: %v, %d downloads, log %q", err, m.hits.Load(), log)
	}
	// Again: straight from the cache.
	if _, log, err := binaries(t); err != nil || m.hits.Load() != 1 || log != "" {
		t.Fatalf("cached: %v, %d downloads, log %q", err, m.hits.Load(), log)
	}

	// A damaged extracted file is detected and extracted again from the archive.
	initdb := filepath.Join(dir, "bin", "initdb")
	orig, _ := os.ReadFile(initdb)
	damaged := append([]byte(nil), orig...)
	damaged[100] ^= 0xff
	os.WriteFile(initdb, damaged, 0o755)
	if _, log, err := binaries(t); err != nil || !strings.Contains(log, "bin/initdb has another checksum") || m.hits.Load() != 1 {
		t.Fatalf("damaged binary: %v, log %q, %d downloads", err, log, m.hits.Load())
	}
	if now, _ := os.ReadFile(initdb); string(now) != string(orig) {
		t.Fatal("bin/initdb was not restored")
	}

	// A damaged archive in the cache (and its extraction gone) is fetched again.
	jars, _ := filepath.Glob(filepath.Join(cache, "downloads", "*.jar"))
	b, _ := os.ReadFile(jars[0])
	b[len(b)/3] ^= 0xff
	os.WriteFile(jars[0], b, 0o644)
	os.RemoveAll(dir)
	if _, log, err := binaries(t); err != nil || !strings.Contains(log, "is corrupt") || m.hits.Load() != 2 {
		t.Fatalf("damaged archive: %v, log %q, %d downloads", err, log, m.hits.Load())
	}

	// A mirror serving a damaged archive is refused.
	m.corrupt.Store(true)
	os.RemoveAll(dir)
	os.Remove(jars[0])
	if _, _, err := binaries(t); err == nil || !strings.Contains(err.Error(), "refusing to use it") {
		t.Fatalf("damaged download: %v", err)
	}
	m.corrupt.Store(false)
	if _, _, err := binaries(t); err != nil {
		t.Fatal(err)
	}

	// Offline (nothing listens at the repository) with the cache: works.
	t.Setenv("KEYBENCH_MAVEN_REPO", "http://127.0.0.1:1")
	if _, _, err := binaries(t); err != nil {
		t.Fatalf("offline with a cache: %v", err)
	}
	// Offline without a cache: a clear error that suggests --pg-bin.
	t.Setenv("KEYBENCH_CACHE", t.TempDir())
	if _, _, err := binaries(t); err == nil || !strings.Contains(err.Error(), "--pg-bin") {
		t.Fatalf("offline without a cache: %v", err)
	}
}

// TestConcurrentFirstUse is failure 12 of issue 10: two runs on an empty
// cache removed and renamed each other's extracted trees ("lstat …: no such
// file"). Now they take turns: one download, one extraction, every caller
// gets a complete tree.
func TestConcurrentFirstUse(t *testing.T) {
	m, url := newMirror(t)
	t.Setenv("KEYBENCH_CACHE", t.TempDir())
	t.Setenv("KEYBENCH_MAVEN_REPO", url)
	const n = 4
	errs := make(chan error, n)
	dirs := make(chan string, n)
	for i := 0; i < n; i++ {
		go func() {
			dir, err := server.Binaries(context.Background(), "18.6.0", func(string, ...any) {}, nil)
			errs <- err
			dirs <- dir
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
		if _, err := os.Stat(filepath.Join(<-dirs, "bin", "postgres")); err != nil {
			t.Errorf("caller %d got an incomplete tree: %v", i, err)
		}
	}
	if m.hits.Load() != 1 {
		t.Errorf("%d downloads for %d callers at once, want 1", m.hits.Load(), n)
	}
}
