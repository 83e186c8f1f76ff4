//go:build unix && !linux

package childproc

import "syscall"

// Attr is the SysProcAttr for a child in its own process group; sig is
// not delivered on this system (see the package doc).
func Attr(sig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
