package app

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSessionContinuedByAnotherProcess: the window has a session open
// while `shrimp chat --session` (another process on the same data folder)
// adds a request to it; the window's next request in that session is
// stored after the other's, not refused for taking seqs already used.
func TestSessionContinuedByAnotherProcess(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("one"), ollamatest.Text("two"), ollamatest.Text("three")}})
	data, ws := t.TempDir(), t.TempDir()
	open := func() *App {
		a, err := Open(Config{DataDir: data, OllamaHost: srv.URL, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a.Close(context.Background()) })
		return a
	}
	ask := func(a *App, session, text string) string {
		id, events, done, err := a.Chat(context.Background(), ChatOptions{SessionID: session, Workspace: ws, Text: text, Approve: approval.ModeAll, NoMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		for _, err := range events {
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
		}
		// What the run's subscribers record after it (usage, measures)
		// is written before the next request, as it is by the time a
		// person types one.
		if err := a.Settle(context.Background()); err != nil {
			t.Fatal(err)
		}
		return id
	}
	window, cli := open(), open()
	id := ask(window, "", "first")
	ask(cli, id, "second")
	ask(window, id, "third")
	events, err := window.Store.Events(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var requests []string
	for i, e := range events {
		if i > 0 && e.Seq != events[i-1].Seq+1 {
			t.Errorf("seq %d after %d", e.Seq, events[i-1].Seq)
		}
		if e.Type == "agent:run-started" {
			requests = append(requests, string(e.Type))
		}
	}
	if len(requests) != 3 {
		t.Errorf("%d runs stored, want 3", len(requests))
	}
}
