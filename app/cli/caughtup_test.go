package cli

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/bus"
)

// TestQuestionAfterItsCall: a tool call's question waits for the printer
// to print what was published before it (the "→ tool" line), so the call
// is on the screen above its question, even when the printer lags.
func TestQuestionAfterItsCall(t *testing.T) {
	b := bus.New[agent.Event]()
	defer b.Close(context.Background())
	var printed atomic.Bool
	sub, err := b.Subscribe("printer", func(ctx context.Context, e agent.Event) error {
		time.Sleep(50 * time.Millisecond) // a printer behind the loop
		printed.Store(true)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A loaded machine may take its time over the printer: the bound is
	// generous here, so what is tested is that the question waits at all.
	defer func(was time.Duration) { caughtUpWait = was }(caughtUpWait)
	caughtUpWait = time.Minute
	c := &chatter{}
	c.caughtUp() // no request running: nothing to wait for
	c.printing.Store(sub)
	b.Publish(agent.Event{Type: agent.TypeToolCall, Session: "s"})
	c.caughtUp()
	if !printed.Load() {
		t.Fatal("the question would be written before the call it asks about")
	}
}
