package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestRenameSession: a session takes the name the user gives it (on one
// line, secrets out); a name without words is refused; an edit of its
// first request leaves a name the user gave.
func TestRenameSession(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("ok"), ollamatest.Text("edited")}})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	id, _, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Text: "first", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	secret := "ghp_" + strings.Repeat("a1B2c3", 6) // made here: the repository's files hold no secret (redact.TestFalsePositives)
	got, err := a.RenameSession(ctx, id, "  Release\n notes  "+secret)
	if err != nil {
		t.Fatal(err)
	}
	if got != "Release notes [REDACTED:github-token]" {
		t.Errorf("the name kept: %q", got)
	}
	if _, err := a.RenameSession(ctx, id, " \n\t"); err == nil || !strings.Contains(err.Error(), "needs words") {
		t.Errorf("a name without words: %v", err)
	}
	if _, err := a.RenameSession(ctx, "no-such-session", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("renaming a session that does not exist: %v", err)
	}
	o, err := a.Retry(ctx, id, 0, ChatOptions{Text: "first, edited", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ask(t, a, o); err != nil {
		t.Fatal(err)
	}
	if sess, _ := a.Store.Session(ctx, id); sess.Title != got {
		t.Errorf("an edit of the first request renamed a session the user had named: %q", sess.Title)
	}
}
