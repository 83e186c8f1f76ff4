package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/tool/files"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSavedBetweenRequests: a file the model read in one request of a
// chat, and the user saved in an editor before the next, is not written
// over unseen by the next request's whole-file write: the write is refused
// once, saying the file changed, and the user's line is kept. In another
// chat the file tools know nothing of that read.
func TestSavedBetweenRequests(t *testing.T) {
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "milk\neggs\n"}})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}}),
		ollamatest.Text("it says milk"),
		write,
		ollamatest.Text("added eggs"),
		write,
		ollamatest.Text("added eggs"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "what is on my list?", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	// The user saves the file in an editor (a minute on, as a clock may show).
	later := time.Now().Add(time.Minute)
	if err := os.WriteFile(notes, []byte("milk\nbread (mine)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(notes, later, later); err != nil {
		t.Fatal(err)
	}
	_, events, err := ask(t, a, ChatOptions{SessionID: id, Workspace: ws, Text: "add eggs", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	results := toolResults(events)
	if len(results) != 1 || !strings.Contains(results[0].Error, "it changed after it was last read") {
		t.Fatalf("the write over the user's save: %+v", results)
	}
	if b, _ := os.ReadFile(notes); string(b) != "milk\nbread (mine)\n" {
		t.Errorf("the user's line was lost: %q", b)
	}
	// Another chat never read it: nothing to compare.
	if _, events, err = ask(t, a, ChatOptions{Workspace: ws, Text: "add eggs", Approve: approval.ModeAll}); err != nil {
		t.Fatal(err)
	}
	if results := toolResults(events); len(results) != 1 || results[0].Error != "" {
		t.Errorf("a write in another chat: %+v", results)
	}
	// A chat deleted takes its record with it.
	held := func() (n int) {
		a.sessionKnown(id, func(*files.Known) { n++ })
		return n
	}
	if held() != 1 {
		t.Fatalf("the chat holds %d records, want 1", held())
	}
	if err := a.DeleteSession(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if n := held(); n != 0 {
		t.Errorf("a deleted chat's record is kept (%d)", n)
	}
}

// TestRetryWritesAgain: a retried request whose attempt wrote a file,
// put back before the retry, writes it again at once: Shrimp's own undo
// is not a change by someone else (the window's e2e retry test caught it
// refused as "changed after it was last read").
func TestRetryWritesAgain(t *testing.T) {
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("my own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "overwritten by the model\n"}})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		write, ollamatest.Text("Ran it."), write, ollamatest.Text("Ran it."),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "write it", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	o, err := a.Retry(ctx, id, 0, ChatOptions{Approve: approval.ModeAll, UndoReplaced: true})
	if err != nil {
		t.Fatal(err)
	}
	_, events, err := ask(t, a, o)
	if err != nil {
		t.Fatal(err)
	}
	if results := toolResults(events); len(results) != 1 || results[0].Error != "" {
		t.Errorf("the retry's write: %+v", results)
	}
	if b, _ := os.ReadFile(notes); string(b) != "overwritten by the model\n" {
		t.Errorf("notes.txt after the retry: %q", b)
	}
}
