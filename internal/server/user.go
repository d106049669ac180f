package server

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// ServerUserName is the system user the embedded server runs as when keybench runs as root.
const ServerUserName = "keybench"

// serverUserName is ServerUserName; tests of the user's creation use another.
var serverUserName = ServerUserName

// runAs is the operating-system identity the embedded server runs under.
type runAs struct {
	name     string
	uid, gid uint32
	switched bool // differs from ours: commands get credentials and files are chowned
}

// serverUser returns who the server runs as: ourselves, or, when we are root
// (PostgreSQL refuses to run as root), the keybench system user, created if needed.
func serverUser() (*runAs, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		name := "?"
		if err == nil {
			name = u.Username
		}
		return &runAs{name: name, uid: uint32(os.Getuid()), gid: uint32(os.Getgid())}, nil
	}
	u, err := user.Lookup(serverUserName)
	if err != nil {
		// Two runs creating the user at once: one useradd lost to the other's
		// lock on /etc/passwd. Take turns, and look again after a failure.
		lock, lerr := lockFile(context.Background(), filepath.Join(os.TempDir(), ".keybench-useradd.lock"))
		if lerr != nil {
			return nil, lerr
		}
		defer lock.unlock()
		if u, err = user.Lookup(serverUserName); err != nil {
			out, cerr := exec.Command("useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
				"--shell", "/usr/sbin/nologin", "--user-group", serverUserName).CombinedOutput()
			if u, err = user.Lookup(serverUserName); err != nil {
				if cerr == nil {
					cerr = err
				}
				return nil, fmt.Errorf("%w: running as root and could not create user %q: %v %s", errNoUser, serverUserName, cerr, out)
			}
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &runAs{name: u.Username, uid: uint32(uid), gid: uint32(gid), switched: true}, nil
}

func (r *runAs) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = []string{"LC_ALL=C", "LANG=C", "PATH=/usr/bin:/bin", "TZ=UTC"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if r.switched {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: r.uid, Gid: r.gid, Groups: []uint32{}}
		cmd.Dir = "/"
	}
	return cmd
}

func (r *runAs) own(paths ...string) error {
	if !r.switched {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, int(r.uid), int(r.gid)); err != nil {
			return err
		}
	}
	return nil
}

// canReach checks that the server user can traverse to and execute path.
func (r *runAs) canReach(path string) error {
	if !r.switched {
		return nil
	}
	abs, _ := filepath.Abs(path)
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		sys := st.Sys().(*syscall.Stat_t)
		bit := os.FileMode(0o001)
		switch {
		case sys.Uid == r.uid:
			bit = 0o100
		case sys.Gid == r.gid:
			bit = 0o010
		}
		if st.Mode().Perm()&bit == 0 {
			return fmt.Errorf("the server user %s cannot reach %s (no access to %s); set KEYBENCH_CACHE to a directory it can read", r.name, abs, d)
		}
		if d == "/" {
			return nil
		}
	}
}
