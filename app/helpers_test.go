package app

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// openApp opens an App on data against the Ollama at host (model "m"),
// logging nowhere; it is closed when the test ends unless closed before.
func openApp(t *testing.T, data, host string) *App {
	t.Helper()
	a, err := Open(Config{DataDir: data, OllamaHost: host, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	return a
}

// ask runs one request to its end and returns its session, the events it
// yielded and the error it ended with (nil when it ended well).
func ask(t *testing.T, a *App, o ChatOptions) (string, []agent.Event, error) {
	t.Helper()
	id, events, done, err := a.Chat(context.Background(), o)
	if err != nil {
		return id, nil, err
	}
	defer done()
	var got []agent.Event
	for e, err := range events {
		if err != nil {
			return id, got, err
		}
		got = append(got, e)
	}
	return id, got, nil
}

// toolResults are the results of the calls a run made, in order.
func toolResults(events []agent.Event) []agent.ToolResult {
	var out []agent.ToolResult
	for _, e := range events {
		if r, ok := e.Data.(agent.ToolResult); ok {
			out = append(out, r)
		}
	}
	return out
}

// TestCloseTwice: closing the app again (a window's shutdown hook and a
// deferred close) is harmless; the procedure index used to panic.
func TestCloseTwice(t *testing.T) {
	a := openApp(t, t.TempDir(), "http://127.0.0.1:9")
	if _, err := a.Memory(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

// storedEvents are session id's events as stored, once everything
// published before is written.
func storedEvents(t *testing.T, a *App, id string) []agent.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := a.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	stored, err := a.Store.Events(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}
