//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// onResize calls resized each time the terminal's size changes
// (SIGWINCH), until the returned stop is called.
func onResize(resized func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				resized()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
