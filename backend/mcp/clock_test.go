package mcp

import (
	"context"
	"testing"
	"time"
)

// TestClockWaitsForQuestions: a call's clock stops while it is held (holds
// nest) and runs out once released; ending the call is not a timeout.
func TestClockWaitsForQuestions(t *testing.T) {
	// A clock of a second: the hold below starts long before it could
	// run out, even on a loaded machine.
	ctx, end := withClock(context.Background(), time.Second)
	defer end()
	release := holdClock(ctx)
	inner := holdClock(ctx)
	<-time.After(1500 * time.Millisecond) // longer than the clock, held
	release()
	release() // a second release changes nothing
	<-time.After(500 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("the call ran out of time while a question still waited")
	}
	inner()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the call never ran out of time once nothing was held")
	}
	if !timedOut(ctx) {
		t.Errorf("cause %v, want a timeout", context.Cause(ctx))
	}
	holdClock(ctx)() // holding a call out of time does nothing

	ctx, end = withClock(context.Background(), time.Minute)
	end()
	if ctx.Err() == nil || timedOut(ctx) {
		t.Errorf("a call ended by its caller: err %v, timed out %v", ctx.Err(), timedOut(ctx))
	}
	holdClock(context.Background())() // no clock: nothing to hold
}
