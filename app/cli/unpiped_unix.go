//go:build unix

package cli

import (
	"os"
	"syscall"
)

// unpiped returns a copy of f (standard output or error) on another file
// descriptor. Go ends a process that writes to a closed pipe on
// descriptors 1 and 2 (SIGPIPE); on a copy the write fails (EPIPE) and
// the process goes on. So `shrimp chat … | head -1` finishes its request,
// keeps its session and learns from it after head has gone, instead of
// dying at its next line with the request cut off. Failing, it returns f.
func unpiped(f *os.File) *os.File {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), f.Name())
}
