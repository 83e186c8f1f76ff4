//go:build unix && !linux

package childproc

import (
	"os/exec"
	"syscall"
)

// Attr is the SysProcAttr for a child in a session (and so a process
// group) of its own, without a controlling terminal; sig is not
// delivered on this system (see the package doc).
func Attr(sig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// Guard readies cmd, not yet started, to run in a process group of its
// own. Nothing tells this system's children that Shrimp died (see the
// package doc), so no guard is put before the program.
func Guard(cmd *exec.Cmd) { cmd.SysProcAttr = Attr(syscall.SIGKILL) }
