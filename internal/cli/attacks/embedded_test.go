package attacks_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/cli/clitest"
)

// TestATriggerAddedToAnEmbeddedRunStopsIt is the trial of 2026-12-02: the
// embedded server's socket is private, but every embedded server runs as
// the same user of the machine, which a superuser of any one of them
// (keybench server --tcp hands one out) can act as, and so reach another
// run's socket. A build that did not judge the embedded server's tables
// around its rounds let a trigger added mid-run fire in every round after
// it, the run ending "ok". Here the test acts as that user (root reaches
// the socket): it adds a trigger to the run's table as soon as the table
// is there, and the run must stop, naming it.
func TestATriggerAddedToAnEmbeddedRunStopsIt(t *testing.T) {
	cmd := exec.Command(bin, "run", "--keys", "bigint,uuidv4", "--rows", "2000", "-c", "2", "--rounds", "6", "-T", "6s",
		"--warmup", "0s", "--out", t.TempDir())
	stderr := &clitest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	added := false
	var code int
wait:
	for {
		select {
		case <-exited:
			code = cmd.ProcessState.ExitCode()
			break wait
		case <-time.After(50 * time.Millisecond):
			// Once the rounds run: the fill's own check (under its lock) is
			// another test's; this one is the rounds'.
			if !added && strings.Contains(stderr.String(), "round 1/") {
				added = addTrigger(cmd.Process.Pid)
			}
		}
	}
	if !added {
		t.Fatalf("the run ended (exit %d) before a trigger could be added to its table:\n%s", code, stderr.String())
	}
	if code == 0 || !strings.Contains(stderr.String(), "trigger hook") {
		t.Errorf("a trigger added to the embedded run's table went unnoticed (exit %d):\n%s", code, stderr.String())
	} else {
		t.Logf("exit %d: %s", code, clitest.LastLine(stderr.String()))
	}
}

// addTrigger adds a trigger to the table keybench.kb_cell on the embedded
// server the process pid started (its postmaster, a child of it: -k its
// socket's directory, -p its port), as the server's own user; false
// while there is no such server or table yet.
func addTrigger(pid int) bool {
	// A child is listed under the thread that started it: any of keybench's.
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var children []string
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		children = append(children, strings.Fields(string(b))...)
	}
	for _, f := range children {
		cmdline, err := os.ReadFile("/proc/" + f + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		var socket string
		var port int
		for i := 0; i+1 < len(args); i++ {
			switch args[i] {
			case "-k":
				socket = args[i+1]
			case "-p":
				port, _ = strconv.Atoi(args[i+1])
			}
		}
		if socket == "" || port == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, fmt.Sprintf("host=%s port=%d user=keybench dbname=postgres sslmode=disable", socket, port))
		if err != nil {
			continue
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(ctx, `DO $$ BEGIN IF pg_catalog.to_regclass('keybench.kb_cell') IS NOT NULL THEN
			SET LOCAL lock_timeout = '500ms';
			CREATE FUNCTION public.hook() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RETURN NEW; END $f$;
			CREATE TRIGGER hook BEFORE INSERT ON keybench.kb_cell FOR EACH ROW EXECUTE FUNCTION public.hook();
			ELSE RAISE EXCEPTION 'not yet'; END IF; END $$`)
		return err == nil
	}
	return false
}
