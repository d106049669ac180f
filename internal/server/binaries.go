// Package server provides the PostgreSQL that keybench measures: an embedded
// server made from the binaries the zonky project publishes on Maven Central
// (downloaded once, checksum-verified, cached per user), an installed
// PostgreSQL's binaries (--pg-bin), or a server the user already runs (--dsn).
//
// keybench starts the embedded postmaster itself, as a direct child bound to
// a private unix socket, rather than through pg_ctl: only a direct child can
// be tied to keybench's life with a parent-death signal, and only a launcher
// of our own can run it as an unprivileged user when keybench runs as root
// (PostgreSQL refuses to run as root).
package server

import (
	"archive/tar"
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ulikunitz/xz"
)

// DefaultMajor is the PostgreSQL major version used unless --pg-version says otherwise.
const DefaultMajor = "18"

// pinned maps each supported major version to the patch release keybench
// uses and the SHA-256 of its linux-amd64 archive, so that a changed upstream
// file is caught even if its published checksum changed with it.
var pinned = map[string]struct{ version, sha256amd64 string }{
	"15": {"15.19.0", "95f0b66fe72d4ca66c815773c44cb1196ea38552463e89a35f18114b3ed1565f"},
	"16": {"16.15.0", "653abc065c682b85d3da50168fb95dc524bd85426cdec9ce3695a550ef431df2"},
	"17": {"17.11.0", "0dd7b72b6f335b8ecfb355fa24c5781e8a93edd09880bb77eb52ebbf29b3e96d"},
	"18": {"18.6.0", "008ee189eaa7ca2b58bd01dd950291e638b998392cf982297acd4779ec898ac1"},
}

// Majors lists the supported major versions.
func Majors() []string { return []string{"15", "16", "17", "18"} }

// ResolveVersion maps "18" to the pinned patch release and accepts a full "18.6.0".
func ResolveVersion(v string) (string, error) {
	if v == "" {
		v = DefaultMajor
	}
	if p, ok := pinned[v]; ok {
		return p.version, nil
	}
	major, _, _ := strings.Cut(v, ".")
	if _, ok := pinned[major]; ok && strings.Count(v, ".") == 2 {
		return v, nil
	}
	return "", fmt.Errorf("--pg-version must be one of %s (or a full release such as %s), not %q",
		strings.Join(Majors(), ", "), pinned[DefaultMajor].version, v)
}

// mavenRepo is Maven Central; KEYBENCH_MAVEN_REPO points keybench at a mirror.
func mavenRepo() string {
	if r := os.Getenv("KEYBENCH_MAVEN_REPO"); r != "" {
		return strings.TrimRight(r, "/")
	}
	return "https://repo1.maven.org/maven2"
}

func platform() (string, error) {
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64v8", "386": "i386", "ppc64le": "ppc64le"}[runtime.GOARCH]
	if arch == "" || (runtime.GOOS != "linux" && runtime.GOOS != "darwin") {
		return "", fmt.Errorf("no embedded PostgreSQL binaries for %s/%s; use --pg-bin or --dsn", runtime.GOOS, runtime.GOARCH)
	}
	return runtime.GOOS + "-" + arch, nil
}

// CacheDir is where downloaded and extracted binaries are kept:
// $KEYBENCH_CACHE, else $XDG_CACHE_HOME/keybench, else ~/.cache/keybench; for
// root, /var/cache/keybench, so that the unprivileged server user can reach
// the binaries (root's home is closed to it).
func CacheDir() string {
	if d := os.Getenv("KEYBENCH_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "keybench")
	}
	if os.Geteuid() == 0 {
		return "/var/cache/keybench"
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "keybench")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("keybench-cache-%d", os.Getuid()))
}

// Binaries locates (downloading and extracting when needed) the binaries of
// a release and returns the directory holding bin/, lib/ and share/.
// logf reports slow steps (the download) to the user.
func Binaries(ctx context.Context, version string, logf func(string, ...any), progress Progress) (string, error) {
	plat, err := platform()
	if err != nil {
		return "", err
	}
	cache := CacheDir()
	dir := filepath.Join(cache, "pg", version+"-"+plat)
	jar := filepath.Join(cache, "downloads", fmt.Sprintf("embedded-postgres-binaries-%s-%s.jar", plat, version))
	// One run at a time checks, downloads and extracts a release: two runs
	// on an empty cache once removed each other's half-extracted trees.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	lock, err := lockFile(ctx, filepath.Join(filepath.Dir(dir), ".lock-"+version+"-"+plat))
	if err != nil {
		return "", err
	}
	defer lock.unlock()
	sweepStaleTrees(filepath.Dir(dir))
	sweepStaleTrees(filepath.Dir(jar))
	want, err := expectedSHA256(ctx, plat, version)
	if err != nil {
		if _, statErr := os.Stat(jar); statErr == nil {
			logf("could not fetch the published checksum (%v); trusting the archive verified when it was cached", err)
			if b, err := os.ReadFile(jar + ".sha256"); err == nil {
				want = strings.TrimSpace(string(b))
			}
		}
		if want == "" {
			return "", fmt.Errorf("PostgreSQL %s binaries are not cached and cannot be downloaded (%v); use --pg-bin DIR with an installed PostgreSQL, or --dsn", version, err)
		}
	}
	if marker, err := os.ReadFile(filepath.Join(dir, ".keybench-sha256")); err == nil && strings.TrimSpace(string(marker)) == want {
		bad := verifyManifest(dir)
		if bad == "" {
			return dir, nil
		}
		if bad == "no manifest" {
			logf("cached binaries in %s have no manifest (an older keybench extracted them); extracting them again", dir)
		} else {
			logf("cached binaries in %s are corrupt (%s); extracting them again", dir, bad)
		}
	}
	if got, err := fileSHA256(jar); err != nil || got != want {
		if err == nil {
			logf("cached archive %s is corrupt (sha256 %s, want %s); downloading again", jar, got, want)
		}
		if err := download(ctx, artifactURL(plat, version, ".jar"), jar, want, logf, progress); err != nil {
			return "", err
		}
	}
	if err := extractJar(jar, dir); err != nil {
		return "", fmt.Errorf("extracting %s: %w", jar, err)
	}
	if err := writeManifest(dir); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".keybench-sha256"), []byte(want+"\n"), 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

func artifactURL(plat, version, suffix string) string {
	a := "embedded-postgres-binaries-" + plat
	return fmt.Sprintf("%s/io/zonky/test/postgres/%s/%s/%s-%s%s", mavenRepo(), a, version, a, version, suffix)
}

// expectedSHA256 is the pinned checksum for the pinned releases, else the published one.
func expectedSHA256(ctx context.Context, plat, version string) (string, error) {
	for _, p := range pinned {
		if p.version == version && plat == "linux-amd64" {
			return p.sha256amd64, nil
		}
	}
	body, err := httpGet(ctx, artifactURL(plat, version, ".jar.sha256"))
	if err != nil {
		return "", err
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, 1024))
	if err != nil {
		return "", err
	}
	sum := strings.Fields(string(b))
	if len(sum) == 0 || len(sum[0]) != 64 {
		return "", fmt.Errorf("malformed checksum file for %s", version)
	}
	return strings.ToLower(sum[0]), nil
}

func httpGet(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}

// Progress reports a download: given its size (-1 when unknown) it returns a
// writer that receives the bytes as they arrive and a function that ends the display.
type Progress func(total int64) (io.Writer, func())

func download(ctx context.Context, url, dst, want string, logf func(string, ...any), progress Progress) error {
	logf("downloading %s", url)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil && resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err != nil {
		return fmt.Errorf("downloading PostgreSQL binaries: %w (with no network, use --pg-bin DIR)", err)
	}
	body := resp.Body
	defer body.Close()
	var sink io.Writer = io.Discard
	if progress != nil {
		w, done := progress(resp.ContentLength)
		defer done()
		sink = w
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h, sink), body); err != nil {
		tmp.Close()
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("downloaded %s has sha256 %s, want %s: refusing to use it", url, got, want)
	}
	if err := os.WriteFile(dst+".sha256", []byte(want+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// extractJar unpacks the .txz inside the jar into dir, through a temporary
// directory renamed into place so that a half-extracted tree is never used.
func extractJar(jar, dir string) error {
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return err
	}
	defer zr.Close()
	var txz *zip.File
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".txz") {
			txz = f
		}
	}
	if txz == nil {
		return errors.New("no .txz archive inside")
	}
	rc, err := txz.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	xr, err := xz.NewReader(rc)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".extract-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := untar(xr, tmp); err != nil {
		return err
	}
	// A damaged tree may still be in use by a running server of another
	// run: it is moved aside, never deleted here (sweepStaleTrees removes it
	// a day later).
	if _, err := os.Stat(dir); err == nil {
		if err := os.Rename(dir, filepath.Join(filepath.Dir(dir), fmt.Sprintf("%s%s-%d", staleTreePrefix, filepath.Base(dir), time.Now().UnixNano()))); err != nil {
			return err
		}
	}
	return os.Rename(tmp, dir)
}

// staleTreePrefix names binaries trees moved aside when found damaged.
const staleTreePrefix = ".stale-"

// staleTreeAge is how long a tree moved aside is kept for the servers that
// may still run from it.
const staleTreeAge = 24 * time.Hour

// staleDownloadAge is how long a partial download is left for the run
// that may still be writing it (a download takes a minute here).
const staleDownloadAge = time.Hour

// sweepStaleTrees removes trees moved aside more than staleTreeAge ago,
// temporary extraction directories of runs that died a day ago, and the
// partial downloads of runs killed while downloading (an interrupted run
// removes its own).
func sweepStaleTrees(dir string) {
	for pattern, age := range map[string]time.Duration{staleTreePrefix + "*": staleTreeAge, ".extract-*": staleTreeAge, ".download-*": staleDownloadAge} {
		old, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, d := range old {
			if st, err := os.Stat(d); err == nil && time.Since(st.ModTime()) > age {
				_ = os.RemoveAll(d)
			}
		}
	}
}

func untar(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("unsafe path %q in archive", h.Name)
		}
		path := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if filepath.IsAbs(h.Linkname) || strings.HasPrefix(filepath.Clean(filepath.Join(filepath.Dir(name), h.Linkname)), "..") {
				return fmt.Errorf("unsafe link %q -> %q in archive", h.Name, h.Linkname)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, path); err != nil {
				return err
			}
		}
	}
}

// manifestName is the list of the extracted files with their sizes and
// SHA-256, written at extraction and checked at every start, so that a
// damaged cache is extracted again instead of failing in odd ways.
const manifestName = ".keybench-manifest"

func writeManifest(dir string) error {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.HasPrefix(rel, ".keybench-") {
			return nil
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %s\n", sum, info.Size(), rel)
		return nil
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, manifestName), []byte(b.String()), 0o644)
}

// verifyManifest checks the extracted files against the manifest and
// returns what is wrong, or "" when every file is intact.
func verifyManifest(dir string) string {
	m, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return "no manifest"
	}
	lines := strings.Split(strings.TrimSpace(string(m)), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return "empty manifest"
	}
	for _, l := range lines {
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 {
			return "unreadable manifest"
		}
		path := filepath.Join(dir, f[2])
		st, err := os.Stat(path)
		if err != nil {
			return f[2] + " is missing"
		}
		if fmt.Sprint(st.Size()) != f[1] {
			return f[2] + " has another size"
		}
		if sum, err := fileSHA256(path); err != nil || sum != f[0] {
			return f[2] + " has another checksum"
		}
	}
	return ""
}
