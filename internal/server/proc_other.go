//go:build !linux

package server

import "syscall"

// tieToParent has no parent-death signal outside Linux; Stop and the signal handler are the only guard there.
func tieToParent(*syscall.SysProcAttr) {}
