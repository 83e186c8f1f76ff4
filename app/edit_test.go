package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestEditIsPreviewed: the question about an fs.edit shows the diff the
// edit would make, and the file changes only once it is allowed.
func TestEditIsPreviewed(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "main.go")
	if err := os.WriteFile(path, []byte("package main\n\nconst n = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.edit", Args: map[string]any{"path": "main.go", "old": "const n = 1", "new": "const n = 2"}}),
		ollamatest.Text("done"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	var preview, during string
	prompt := func(_ context.Context, r approval.Request, ready func()) (approval.Answer, error) {
		ready()
		preview = r.Preview
		b, _ := os.ReadFile(path)
		during = string(b)
		return approval.Answer{Allow: true}, nil
	}
	if _, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "set n to 2", Approve: approval.ModeAsk, Prompt: prompt}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(preview, "-const n = 1\n+const n = 2") {
		t.Fatalf("the question's preview: %q", preview)
	}
	if during != "package main\n\nconst n = 1\n" {
		t.Fatalf("the file changed before it was allowed: %q", during)
	}
	if b, _ := os.ReadFile(path); string(b) != "package main\n\nconst n = 2\n" {
		t.Fatalf("after the allowed edit: %q", b)
	}
}
