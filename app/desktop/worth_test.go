package desktop

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/approval"
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
