package childproc

import "syscall"

// Attr is the SysProcAttr for a child in its own process group that the
// kernel sends sig when Shrimp dies.
func Attr(sig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: sig}
}
