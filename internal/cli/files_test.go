package cli_test

// Input files, output files and pipes as a hostile or hurried user meets
// them (issue 10, failures 10, 11, 14 and 15).

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/cli/clitest"
)

// Devices and pipes were read without end and ignored SIGINT (failure 10).
func TestReportReadsRegularFilesOnly(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "results.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"report", "/dev/zero"}, {"compare", "../results/testdata/war.json", "/dev/zero"}, {"report", fifo}} {
		_, stderr, code := keybench(t, args...) // it ends: /dev/zero and a FIFO are not read without end
		if code != 2 || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("keybench %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
}

// Two runs started in the same second wrote the same default directory
// (failure 11).
func TestRunsStartedTogetherGetTheirOwnDirectories(t *testing.T) {
	cwd := t.TempDir()
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(bin, "run", "insert", "--keys", "bigint", "-T", "1s", "--warmup", "0s", "--rows", "0", "-c", "1")
			cmd.Dir = cwd
			if err := cmd.Run(); err != nil {
				codes[i] = -1
			}
		}(i)
	}
	wg.Wait()
	dirs, _ := filepath.Glob(filepath.Join(cwd, "keybench-results", "*", "results.json"))
	if codes[0] != 0 || codes[1] != 0 || len(dirs) != 2 {
		t.Errorf("exits %v, results %v", codes, dirs)
	}
}

// A report written over a directory left DIR.tmp behind (failure 14).
func TestNoTemporaryFilesLeft(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "page")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile("../results/testdata/war.json")
	res := filepath.Join(dir, "results.json")
	os.WriteFile(res, src, 0o644)
	if _, _, code := keybench(t, "report", res, "--html", target); code == 0 {
		t.Error("report over a directory succeeded")
	}
	if _, _, code := keybench(t, "compare", res, res, "--html", target); code == 0 {
		t.Error("compare over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "page" && e.Name() != "results.json" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// Names and messages from a results file reached the terminal with their
// escape sequences (failure 15).
func TestConsoleOutputHasNoControlCharacters(t *testing.T) {
	var r map[string]any
	src, _ := os.ReadFile("../results/testdata/war.json")
	if err := json.Unmarshal(src, &r); err != nil {
		t.Fatal(err)
	}
	cells := r["cells"].([]any)
	cells[0].(map[string]any)["key"] = "uuidv4\x1b]0;owned\x07\x1b[2J"
	r["notes"] = []string{"note \x1b[31mred\x1b[0m \u009b2J end"}
	b, _ := json.Marshal(r)
	p := filepath.Join(t.TempDir(), "results.json")
	os.WriteFile(p, b, 0o644)
	for _, args := range [][]string{{"report", p}, {"compare", p, p}} {
		stdout, stderr, code := keybench(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.ContainsAny(stdout, "\x1b\x07\u009b") {
			t.Errorf("%v: control characters in the output: %q", args, stdout[:min(len(stdout), 400)])
		}
		if args[0] == "report" && !strings.Contains(stdout, "uuidv4]0;owned") {
			t.Errorf("the key's printable part is missing: %q", stdout[:min(len(stdout), 400)])
		}
	}
}

// keybench run | head -c 10 killed keybench by SIGPIPE before report.html
// was written (failure 15).
func TestClosedPipeStillWritesTheFiles(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "insert", "--keys", "bigint,uuidv4", "-T", "1s", "--warmup", "0s", "--rows", "0", "-c", "1", "--out", out)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Read nothing and go away at once, as head does once it has its bytes.
	stdout.Close()
	code, _ := clitest.ExitOf(cmd, time.Now())
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	for _, f := range []string{"results.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
