package cli_test

// Ctrl-C as a user at a terminal gives it: keybench runs under a
// pseudo-terminal (so it draws progress bars), and the terminal's interrupt
// reaches it in prefill and in the measured window (issue 10, failure 0).

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/testenv"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the controlling side and the
// terminal a child process gets as its stdin, stdout and stderr.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		testenv.Skip(t, "no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	ctl = os.NewFile(uintptr(fd), "/dev/ptmx")
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
	return ctl, tty
}

// ptyRun starts keybench on a terminal of its own, as the leader of a new
// session whose controlling terminal it is; screen collects what it draws.
type ptyRun struct {
	cmd    *exec.Cmd
	ctl    *os.File
	mu     sync.Mutex
	screen bytes.Buffer
}

func startOnTerminal(t *testing.T, args ...string) *ptyRun {
	t.Helper()
	ctl, tty := openPTY(t)
	r := &ptyRun{cmd: exec.Command(bin, args...), ctl: ctl}
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = tty, tty, tty
	r.cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ctl.Read(buf)
			r.mu.Lock()
			r.screen.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		ctl.Close()
	})
	return r
}

func (r *ptyRun) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.screen.String()
}

// waitFor waits until the terminal shows s.
func (r *ptyRun) waitFor(t *testing.T, s string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(r.text(), s) {
			return
		}
	}
	t.Fatalf("the terminal never showed %q:\n%s", s, tail(r.text(), 1500))
}

// interrupt types Ctrl-C on the terminal: the line discipline sends SIGINT
// to the foreground process group, as it does for a user.
func (r *ptyRun) interrupt(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(r.ctl, "\x03"); err != nil {
		t.Fatal(err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func TestCtrlCOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		phase     string
		args      []string
		showing   string
		minCells  int
		afterWait time.Duration
	}{
		// A large prefill: interrupted while its bar is drawn.
		{"prefill", []string{"insert-read", "--keys", "uuidv4:as=text", "--rows", "3000000", "-T", "5s"}, "prefill", 0, 300 * time.Millisecond},
		// The second cell's window: the first cell is kept.
		{"window", []string{"insert", "--keys", "bigint,uuidv4", "--rows", "0", "-T", "20s", "--warmup", "0s", "-c", "2"}, "measuring", 1, 0},
	} {
		t.Run(tc.phase, func(t *testing.T) {
			out := t.TempDir()
			r := startOnTerminal(t, append([]string{"run", "--out", out}, tc.args...)...)
			if tc.minCells > 0 {
				waitCells(t, out, tc.minCells)
			}
			r.waitFor(t, tc.showing, 2*time.Minute)
			time.Sleep(tc.afterWait + 500*time.Millisecond)
			servers := postgresChildren(r.cmd.Process.Pid)
			start := time.Now()
			r.interrupt(t)
			done := make(chan struct{})
			go func() { r.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				if os.Getenv("KEYBENCH_TEST_DUMP") != "" {
					r.cmd.Process.Signal(syscall.SIGQUIT)
					time.Sleep(time.Second)
					os.WriteFile(os.Getenv("KEYBENCH_TEST_DUMP"), []byte(r.text()), 0o644)
				}
				t.Fatalf("keybench still running 5 s after Ctrl-C in %s; terminal:\n%s", tc.phase, tail(r.text(), 1500))
			}
			code := r.cmd.ProcessState.ExitCode()
			t.Logf("Ctrl-C in %s: exit %d after %s", tc.phase, code, time.Since(start).Round(time.Millisecond))
			if code != 130 {
				t.Errorf("exit %d, want 130; terminal:\n%s", code, tail(r.text(), 1500))
			}
			res := readResults(t, out)
			if res.Status != "interrupted" || len(res.Cells) < tc.minCells {
				t.Errorf("results after Ctrl-C: %+v", res)
			}
			for _, c := range res.Cells[:tc.minCells] {
				if c.Status != "ok" {
					t.Errorf("a finished cell was not kept: %+v", c)
				}
			}
			time.Sleep(200 * time.Millisecond)
			for _, p := range servers {
				if alive(p) {
					t.Errorf("postgres %d outlived keybench", p)
				}
			}
		})
	}
}
