package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Run runs the CLI as the shrimp command does, on the process's standard
// streams, and returns the exit status. The first Ctrl-C or SIGTERM
// cancels what the command does (a run ends within about a second and
// keeps its session); a second one ends the process at once. While the
// interactive chat waits for a request or runs one, Ctrl-C is its own: it
// stops that request and the chat goes on (ctrlC).
func Run(args []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			if s == os.Interrupt && ctrlC.take() {
				continue
			}
			cancel()
			// The default action again: a second signal ends the process.
			signal.Stop(sigs)
			return
		}
	}()
	code := Main(ctx, args, unpiped(os.Stdout), unpiped(os.Stderr))
	signal.Stop(sigs)
	return code
}

// ctrlC hands Ctrl-C to whoever claimed it last.
var ctrlC interrupter

// interrupter routes an interrupt to a handler while one is claimed.
type interrupter struct {
	mu      sync.Mutex
	handler func() bool
}

// claim makes h the interrupt's handler until release is called. h
// reports whether it took the interrupt; when it did not, the interrupt
// does what it does without a handler (cancels the command).
func (i *interrupter) claim(h func() bool) (release func()) {
	i.mu.Lock()
	i.handler = h
	i.mu.Unlock()
	return func() {
		i.mu.Lock()
		i.handler = nil
		i.mu.Unlock()
	}
}

// take gives the interrupt to the handler, if any, and reports whether it
// took it.
func (i *interrupter) take() bool {
	i.mu.Lock()
	h := i.handler
	i.mu.Unlock()
	return h != nil && h()
}
