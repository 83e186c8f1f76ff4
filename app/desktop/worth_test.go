package desktop

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestProcedureWorth: a procedure's page has the run that taught it and
// the run it was handed to, with their measures; the summary compares runs
// with and without recall.
func TestProcedureWorth(t *testing.T) {
	chain := []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "summary.txt", "content": "1 note\n"}}),
		ollamatest.Text("Done."),
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: append(append([]ollamatest.Reply{}, chain...), chain...)})
	a, _ := openWindowApp(t, srv.URL, "m")
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, req := range []string{"summarize the notes in this folder into summary.txt", "into summary.txt, summarise the notes of this folder please"} {
		_, events, done, err := a.Chat(ctx, app.ChatOptions{Workspace: ws, Text: req, Approve: approval.ModeAll})
		if err != nil {
			t.Fatal(err)
		}
		for range events {
		}
		done()
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		if err := a.Settle(sctx); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	p := NewProcedures(a)
	list, err := p.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("procedures: %+v %v", list, err)
	}
	id := list[0].ID
	runs, err := p.Runs(id)
	if err != nil || runs.Learned == nil || runs.Learned.Request != "summarize the notes in this folder into summary.txt" || len(runs.Uses) != 1 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	if u := runs.Uses[0]; u.Followed == nil || *u.Followed != id || u.Turns != 4 || u.ToolCalls != 3 {
		t.Fatalf("the use: %+v", u)
	}
	w, err := p.Worth(30)
	if err != nil || w.With.Runs != 1 || w.Without.Runs != 1 || w.With.Turns != 4 || w.Saved[id] != 0 {
		t.Fatalf("worth: %+v %v", w, err)
	}
}

// TestDeclineFromTheBadge: the user's "not for this request" lists the
// request on the procedure's page, publishes the event, refuses a request
// with no words and an unknown procedure, and Restore undoes it.
func TestDeclineFromTheBadge(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "summary.txt", "content": "1 note\n"}}),
		ollamatest.Text("Done."),
	}})
	a, _ := openWindowApp(t, srv.URL, "m")
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	session, events, done, err := a.Chat(ctx, app.ChatOptions{Workspace: ws, Text: "summarize the notes in this folder into summary.txt", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	for range events {
	}
	done()
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := a.Settle(sctx); err != nil {
		t.Fatal(err)
	}
	p := NewProcedures(a)
	list, err := p.List()
	if err != nil || len(list) != 1 || len(list[0].Declined) != 0 {
		t.Fatalf("procedures: %+v %v", list, err)
	}
	id := list[0].ID
	declined := make(chan agentmem.Declined, 4)
	if _, err := a.Bus.Subscribe("test-declined", func(_ context.Context, e agent.Event) error {
		if d, ok := e.Data.(agentmem.Declined); ok && e.Session == session {
			declined <- d
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	v, err := p.Decline(id, "Summarise my notes, again!", session)
	if err != nil || len(v.Declined) != 1 || v.Declined[0] != "Summarise my notes, again!" {
		t.Fatalf("decline: %+v %v", v, err)
	}
	select {
	case d := <-declined:
		if !d.ByUser || d.Procedure.ID != id {
			t.Errorf("event %+v", d)
		}
	case <-time.After(time.Minute):
		t.Fatal("no memory:procedure-declined event")
	}
	if _, err := p.Decline(id, "?!", session); err == nil {
		t.Error("a request with no words was declined")
	}
	if _, err := p.Decline("nope", "summarise my notes", session); err == nil {
		t.Error("an unknown procedure was declined")
	}
	if v, err := p.Restore(id); err != nil || len(v.Declined) != 0 {
		t.Fatalf("restore: %+v %v", v, err)
	}
}
