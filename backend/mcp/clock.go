package mcp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// A call's timeout is the server's time to answer, not the user's: while
// a question the server asked during the call waits for the user (a form
// being filled in), the call's clock stops, and it goes on from where it
// was once the question is answered. The question has a bound of its own,
// QuestionTimeout, as an approval has.

// QuestionTimeout bounds how long a server's question waits for the user
// (as long as an approval waits); it is then cancelled.
const QuestionTimeout = 10 * time.Minute

// errCallTimeout is the cause of a call's context that ran out of time.
var errCallTimeout = errors.New("the call ran out of time")

// callClock ends a call's context once the call has run for its timeout,
// not counting the time it was held.
type callClock struct {
	mu    sync.Mutex
	timer *time.Timer
	left  time.Duration // time left when the clock last stopped
	since time.Time     // when the clock last started
	held  int           // questions waiting; the clock runs at 0
}

// clockKey keys a call's clock in its context.
type clockKey struct{}

// withClock returns ctx with a clock of d: the context ends with
// errCallTimeout as its cause after d of running time, or when the
// returned function is called.
func withClock(ctx context.Context, d time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &callClock{left: d, since: time.Now()}
	c.timer = time.AfterFunc(d, func() { cancel(errCallTimeout) })
	return context.WithValue(ctx, clockKey{}, c), func() {
		c.timer.Stop()
		cancel(context.Canceled)
	}
}

// timedOut reports whether ctx ended because its call ran out of time.
func timedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errCallTimeout)
}

// holdClock stops the clock of the call ctx belongs to (if it has one)
// until the returned function is called. Holds nest.
func holdClock(ctx context.Context) func() {
	c, _ := ctx.Value(clockKey{}).(*callClock)
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	if c.held == 0 {
		if !c.timer.Stop() {
			// Already out of time: the context has ended, or is ending.
			c.mu.Unlock()
			return func() {}
		}
		c.left -= time.Since(c.since)
	}
	c.held++
	c.mu.Unlock()
	return sync.OnceFunc(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.held--; c.held == 0 {
			c.since = time.Now()
			c.timer.Reset(max(c.left, 0))
		}
	})
}
