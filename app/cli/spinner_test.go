package cli

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// screenBuf is one terminal's screen that stdout and stderr both write to.
type screenBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screenBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screenBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// await waits until the screen holds want after from, and returns where
// it ends.
func (s *screenBuf) await(t *testing.T, from int, want string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if i := strings.Index(s.String()[from:], want); i >= 0 {
			return from + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q after byte %d:\n%q", want, from, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSpinner: while a run waits for its model the terminal says so, with
// what it waits for; the line is taken back before anything else is
// written, it says what runs while a tool runs, it is not drawn while a
// question holds the terminal, and nothing is left of it when the run
// ends.
func TestSpinner(t *testing.T) {
	screen := &screenBuf{}
	var asking sync.Mutex
	busy := func() bool {
		if asking.TryLock() {
			asking.Unlock()
			return false
		}
		return true
	}
	p := &printer{w: screen, errw: screen, spin: newSpinner(screen, busy)}
	p.start("s")
	send := func(ev agent.Event) {
		t.Helper()
		ev.Session = "s"
		if err := p.handle(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	send(agent.Event{Type: agent.TypeRunStarted, Data: agent.RunStarted{Model: "qwen3:4b", Text: "hi"}})
	at := screen.await(t, 0, " waiting for qwen3:4b")
	send(agent.Event{Type: agent.TypeToolCall, Data: agent.ToolCall{ID: "1", Name: "shell.run", Arguments: []byte(`{"command":"make"}`)}})
	at = screen.await(t, at, "\r\x1b[K→ shell.run") // the line taken back first
	at = screen.await(t, at, " running shell.run")
	send(agent.Event{Type: agent.TypeToolResult, Data: agent.ToolResult{ID: "1", Name: "shell.run", Output: "ok"}})
	at = screen.await(t, at, "\r\x1b[K  ✓ ok\n")
	at = screen.await(t, at, " waiting for qwen3:4b")

	// A question: hushed, and not drawn again while it is asked.
	asking.Lock()
	p.spin.hush()
	hushed := len(screen.String())
	if !strings.HasSuffix(screen.String(), "\r\x1b[K") {
		t.Fatalf("not taken back for the question: %q", screen.String()[at:])
	}
	screen.Write([]byte("Allow? "))
	send(agent.Event{Type: "approval:decided", Data: map[string]any{}}) // shows it again, but the question still holds the terminal
	p.spin.draw()                                                       // long past its delay: only the question holds it back
	if got := screen.String()[hushed:]; got != "Allow? " {
		t.Fatalf("drawn while a question was asked: %q", got)
	}
	asking.Unlock()
	at = screen.await(t, hushed, " waiting for qwen3:4b")

	send(agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: "Hello"}})
	screen.await(t, at, "\r\x1b[KHello")
	p.finish()
	if s := screen.String(); !strings.HasSuffix(s, "Hello\n") {
		t.Fatalf("the run ended with %q", s[max(0, len(s)-40):])
	}
}
