package server

import "syscall"

// tieToParent makes the kernel SIGKILL the postmaster when keybench dies, even
// by SIGKILL; its backends notice the postmaster's death and exit. Go applies
// it after switching credentials, which would otherwise clear it.
func tieToParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
