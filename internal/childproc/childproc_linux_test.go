package childproc

import (
	"syscall"
	"testing"
)

// TestParentDeathSignal: on Linux the signal asked for is the one the
// kernel is told to send.
func TestParentDeathSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		if got := Attr(sig).Pdeathsig; got != sig {
			t.Errorf("Attr(%v).Pdeathsig = %v", sig, got)
		}
	}
}
