package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed on the terminal f and not read yet.
func flushInput(f *os.File) {
	_ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}

// typedAhead returns how many bytes of whole lines typed on the terminal f
// wait to be read (TIOCINQ counts only complete lines in canonical mode).
func typedAhead(f *os.File) int {
	n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
	if err != nil {
		return 0
	}
	return n
}
