package server

import (
	"os"
	"os/exec"
	"os/user"
	"testing"

	"github.com/keybench/keybench/internal/testenv"
)

// TestConcurrentUserCreation is failure 12 of issue 10: two runs creating
// the server's system user at once; one useradd lost to the other's lock
// on /etc/passwd and its initdb could not look up the user. Now they take
// turns, and every caller gets the user. It uses a user of its own.
func TestConcurrentUserCreation(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, "creating a system user needs root")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		testenv.Skip(t, "no useradd here")
	}
	const name = "kbtestuser"
	_ = exec.Command("userdel", name).Run()
	defer func(old string) { serverUserName = old; _ = exec.Command("userdel", name).Run() }(serverUserName)
	serverUserName = name
	const n = 24
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			u, err := serverUser()
			if err == nil && u.name != name {
				err = os.ErrInvalid
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if _, err := user.Lookup(name); err != nil {
		t.Errorf("the user does not exist afterwards: %v", err)
	}
}
