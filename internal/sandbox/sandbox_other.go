//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

var errUnsupported = errors.New("commands can be confined only on Linux (Landlock)")

func selfPath() (string, error) { return os.Executable() }

func execve(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }

// Available reports that commands cannot be confined on this system.
func Available() (int, error) { return 0, errUnsupported }

func confine([]string) error { return errUnsupported }
