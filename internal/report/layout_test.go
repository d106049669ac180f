package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results/resultstest"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload/all"
)

// layoutProbe runs in the page once Chromium has laid it out and writes
// what sticks out past the page's right margin: any element whose box ends
// right of the body's, and any table wider than the box that holds it
// (a table the reader would have to scroll sideways to read).
const layoutProbe = `<script>
window.addEventListener('load', function () {
  var body = document.body.getBoundingClientRect(), out = [];
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > body.right + 1 && !el.closest('div.fit')) {
      out.push(el.tagName + ' ends at ' + Math.round(r.right) + ' past ' + Math.round(body.right) + ': ' + (el.textContent || '').slice(0, 50));
    }
  });
  document.querySelectorAll('div.fit').forEach(function (el) {
    if (el.scrollWidth > el.clientWidth + 1) {
      out.push('a table ' + el.scrollWidth + ' wide in ' + el.clientWidth + ': ' + (el.textContent || '').slice(0, 50));
    }
  });
  var pre = document.createElement('pre');
  pre.id = 'layout-probe';
  pre.textContent = 'checked ' + document.querySelectorAll('table').length + ' tables\n' + out.join('\n');
  document.body.appendChild(pre);
});
</script>`

// TestReportTablesFitThePage (issue 40): the pages of the widest stored
// runs (40 cells of five workloads, the growth run's eleven-column "why"
// table) laid out by Chromium at a laptop's and a small window's widths:
// no table runs past the right margin and none has to be scrolled.
func TestReportTablesFitThePage(t *testing.T) {
	bin := chromium(t)
	runs, _ := filepath.Glob(filepath.Join("testdata", "runs", "*.json.gz"))
	more, _ := filepath.Glob(filepath.Join("testdata", "cost", "*.json.gz"))
	dir := t.TempDir()
	checked := regexp.MustCompile(`(?s)<pre id="layout-probe">checked (\d+) tables\n(.*?)</pre>`)
	for _, path := range append(runs, more...) {
		r, err := verdict.Parse(resultstest.ReadGzip(t, path), path, all.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		b, err := Render(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".json.gz")+".html")
		if err := os.WriteFile(page, []byte(strings.Replace(string(b), "</body>", layoutProbe+"</body>", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, width := range []string{"1280", "1024"} {
			out, err := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"),
				"--window-size="+width+",1000", "--dump-dom", "file://"+page).Output()
			if err != nil {
				t.Fatalf("chromium: %v", err)
			}
			m := checked.FindStringSubmatch(string(out))
			switch {
			case m == nil:
				t.Fatalf("%s at %s px: the layout probe did not run", filepath.Base(path), width)
			case m[1] == "0":
				t.Errorf("%s at %s px: the page has no table to check", filepath.Base(path), width)
			case strings.TrimSpace(m[2]) != "":
				t.Errorf("%s at %s px: past the right margin:\n%s", filepath.Base(path), width, m[2])
			}
		}
	}
}
