package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// userTexts are the user messages of a chat request the server got.
func userTexts(r ollamatest.Request) []string {
	var out []string
	for _, m := range r.Chat.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestRetry: a careless model overwrites a file and answers wrongly; the
// user retries the request with its files put back. The retry's model is
// sent the history without the replaced exchange, the files are as the
// request found them, the record keeps both attempts with the
// replacement between them, and the next request's history holds the
// retry's exchange only.
func TestRetry(t *testing.T) {
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "memory.working.set", Args: map[string]any{"key": "greeting", "value": "said hello"}}),
		ollamatest.Text("hello"),
		// The request retried: a careless write, a misleading note and a
		// wrong answer.
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "oops\n"}}),
		ollamatest.Tools(ollamatest.Call{Name: "memory.working.set", Args: map[string]any{"key": "summary", "value": "written already"}}),
		ollamatest.Text("I wrote the summary (not really)"),
		// Its retry.
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}}),
		ollamatest.Text("notes.txt says: keep me"),
		// The next request.
		ollamatest.Text("ok"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "say hello", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Text: "summarise notes.txt", Approve: approval.ModeAll}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "oops\n" {
		t.Fatalf("the careless request did not run as scripted: %q", b)
	}

	req, err := a.LastRequest(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if req.Text != "summarise notes.txt" || req.Later != 0 || req.Secret {
		t.Fatalf("the last request: %+v", req)
	}
	o, err := a.Retry(ctx, id, 0, ChatOptions{Approve: approval.ModeAll, UndoReplaced: true})
	if err != nil {
		t.Fatal(err)
	}
	if o.Text != req.Text || o.Replace != req.Run || o.SessionID != id {
		t.Fatalf("the retry's options: %+v", o)
	}
	before := len(srv.Requests())
	if _, _, err := ask(t, a, o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "keep me\n" {
		t.Errorf("the retry did not start from the files the request found: %q", b)
	}
	if sess, _ := a.Store.Session(ctx, id); sess.Title != "say hello" {
		t.Errorf("a retry of the second request renamed the session: %q", sess.Title)
	}
	// The attempt's working note went with it; the first request's stays.
	kept, err := a.Store.Working().Entries(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].Key != "greeting" {
		t.Errorf("working memory after the retry: %+v", kept)
	}
	// The retry's first model call: the first exchange and the request
	// again, not the replaced attempt.
	first := srv.Requests()[before]
	if got := userTexts(first); !slices.Equal(got, []string{"say hello", "summarise notes.txt"}) {
		t.Errorf("the retry's model was sent the user messages %q", got)
	}
	for _, m := range first.Chat.Messages {
		if strings.Contains(m.Content, "not really") || strings.Contains(m.Content, "put back") {
			t.Errorf("the retry's model was sent the replaced attempt: %q", m.Content)
		}
	}

	// The record keeps both attempts, the undo and the replacement.
	var types []agent.Type
	for _, e := range storedEvents(t, a, id) {
		switch e.Type {
		case agent.TypeRunStarted, TypeFilesRestored, session.TypeReplaced:
			types = append(types, e.Type)
		}
	}
	want := []agent.Type{agent.TypeRunStarted, agent.TypeRunStarted, TypeFilesRestored, session.TypeReplaced, agent.TypeRunStarted}
	if !slices.Equal(types, want) {
		t.Errorf("the session's record: %v, want %v", types, want)
	}

	// The export: every request measured, the replaced one marked; the
	// conversation as the model has it now.
	if err := a.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	x, err := session.Load(ctx, a.Store, id)
	if err != nil {
		t.Fatal(err)
	}
	marks := lo.Map(x.Runs, func(r session.ExportRun, _ int) bool { return r.Replaced })
	if !slices.Equal(marks, []bool{false, true, false}) {
		t.Errorf("the export's runs, replaced: %v", marks)
	}
	if md := x.Markdown(); strings.Count(md, "_(replaced by a retry or an edit)_") != 1 || strings.Contains(md, "not really") {
		t.Errorf("the Markdown export:\n%s", md)
	}

	// The next request goes on from the retry.
	before = len(srv.Requests())
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Text: "thanks", Approve: approval.ModeAll}); err != nil {
		t.Fatal(err)
	}
	next := srv.Requests()[before]
	if got := userTexts(next); !slices.Equal(got, []string{"say hello", "summarise notes.txt", "thanks"}) {
		t.Errorf("the next request's user messages: %q", got)
	}
	if !slices.ContainsFunc(next.Chat.Messages, func(m api.Message) bool { return m.Content == "notes.txt says: keep me" }) {
		t.Error("the next request's history lacks the retry's answer")
	}

	// The same request cannot be replaced twice (the retry is the one to
	// retry now).
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Text: "again", Replace: req.Run}); !errors.Is(err, store.ErrNotReplaceable) {
		t.Errorf("replacing a replaced request: %v", err)
	}
}

// TestEditAnEarlierRequest: editing the first of three requests replaces
// it and the two after it, with new text; files stay as they are unless
// asked.
func TestEditAnEarlierRequest(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Text("one"), ollamatest.Text("two"), ollamatest.Text("three"), ollamatest.Text("edited"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	ws := t.TempDir()
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "first", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"second", "third"} {
		if _, _, err := ask(t, a, ChatOptions{SessionID: id, Text: text, Approve: approval.ModeAll}); err != nil {
			t.Fatal(err)
		}
	}
	var firstRun int64
	for _, e := range storedEvents(t, a, id) {
		if e.Type == agent.TypeRunStarted {
			firstRun = e.Seq
			break
		}
	}
	req, err := a.LastRequest(ctx, id, firstRun)
	if err != nil {
		t.Fatal(err)
	}
	if req.Text != "first" || req.Later != 2 {
		t.Fatalf("the first request: %+v", req)
	}
	o, err := a.Retry(ctx, id, firstRun, ChatOptions{Text: "first, but better", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	before := len(srv.Requests())
	if _, _, err := ask(t, a, o); err != nil {
		t.Fatal(err)
	}
	if got := userTexts(srv.Requests()[before]); !slices.Equal(got, []string{"first, but better"}) {
		t.Errorf("the edit's model was sent %q", got)
	}
	msgs, err := a.Store.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[1].Content != "edited" {
		t.Errorf("the history after the edit: %+v", msgs)
	}
	// The session is named after its first request, as edited.
	if sess, err := a.Store.Session(ctx, id); err != nil || sess.Title != "first, but better" {
		t.Errorf("the session's title after its first request was edited: %q %v", sess.Title, err)
	}

	// A run number that is not a request's start is refused.
	if _, err := a.LastRequest(ctx, id, firstRun+1); !errors.Is(err, ErrNothingToRetry) {
		t.Errorf("a seq that is no request: %v", err)
	}
}

// TestRetryASecret: a request that held a secret is kept without it, so
// retrying it as it was would send the marker: refused, saying to edit
// it; an edit with the secret typed again goes through.
func TestRetryASecret(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("ok"), ollamatest.Text("ok again")}})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("a1B2c3", 6) // made here: the repository's files hold no secret (redact.TestFalsePositives)
	id, _, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Text: "clone with token " + secret, Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	req, err := a.LastRequest(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !req.Secret || strings.Contains(req.Text, secret) {
		t.Fatalf("the stored request: %+v", req)
	}
	if _, err := a.Retry(ctx, id, 0, ChatOptions{}); !errors.Is(err, store.ErrNotReplaceable) || !strings.Contains(err.Error(), "type the secret again") {
		t.Errorf("retrying a request that held a secret: %v", err)
	}
	o, err := a.Retry(ctx, id, 0, ChatOptions{Text: "clone with token " + secret, Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ask(t, a, o); err != nil {
		t.Fatal(err)
	}
}

// TestRetryNothing: a session that does not exist has nothing to retry,
// and says how to find one.
func TestRetryNothing(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("ok")}})
	a := openApp(t, t.TempDir(), srv.URL)
	if _, err := a.LastRequest(context.Background(), "no-such-session", 0); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "sessions list") {
		t.Errorf("a session that does not exist: %v", err)
	}
}

// recalledIDs are the procedures a run's events say were recalled.
func recalledIDs(t *testing.T, events []agent.Event) []string {
	t.Helper()
	var out []string
	for _, e := range events {
		if e.Type == agentmem.TypeRecalled {
			for _, p := range e.Data.(agentmem.Recalled).Procedures {
				out = append(out, p.ID)
			}
		}
	}
	return out
}

// TestRetryDeclinesTheAttemptsProcedure: a request answered after three
// calls teaches a procedure; asked again word for word, recall hands it
// back. Retried as it was, the attempt's procedure is not recalled (it
// would steer the retry into the attempt), and says so; an attempt that
// failed declines nothing.
func TestRetryDeclinesTheAttemptsProcedure(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chain := []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "a.txt"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "b.txt"}}),
		ollamatest.Text("a.txt and b.txt say their names"),
	}
	var replies []ollamatest.Reply
	for range 3 {
		replies = append(replies, chain...)
	}
	replies = append(replies, ollamatest.Reply{Status: 500, Error: "model runner has unexpectedly stopped"}, ollamatest.Text("fine"))
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: replies})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	const request = "summarise every text file in this folder"
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: request, Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	mem, err := a.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	list := mem.List()
	if len(list) != 1 {
		t.Fatalf("procedures learned: %d, want 1", len(list))
	}
	learned := list[0].ID
	// The control: the same words in another session recall it.
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Text: request, Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if got := recalledIDs(t, events); !slices.Contains(got, learned) {
		t.Fatalf("asked again word for word, recall gave %v, want %s", got, learned)
	}

	req, err := a.LastRequest(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Steered) != 1 || req.Steered[0].ID != learned || req.Steered[0].Chain != "fs.list → fs.read ×2" {
		t.Errorf("what a retry would decline: %+v", req.Steered)
	}
	o, err := a.Retry(ctx, id, 0, ChatOptions{Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	_, events, err = ask(t, a, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := recalledIDs(t, events); slices.Contains(got, learned) {
		t.Errorf("the retry was handed the procedure of the attempt it replaced: %v", got)
	}
	if reqs := a.DeclinedRequests(ctx, learned); !slices.Contains(reqs, request) {
		t.Errorf("declined for %q, want the retried request", reqs)
	}
	var said bool
	for _, e := range storedEvents(t, a, id) {
		if e.Type == agentmem.TypeDeclined && strings.Contains(string(must(e.RawData())), `"by_user":true`) {
			said = true
		}
	}
	if !said {
		t.Error("the session does not say the procedure was declined")
	}

	// An attempt Ollama failed: its retry declines nothing more.
	id2, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "list the folder", Approve: approval.ModeAll})
	if err == nil {
		t.Fatal("the scripted failure did not fail the run")
	}
	o, err = a.Retry(ctx, id2, 0, ChatOptions{Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ask(t, a, o); err != nil {
		t.Fatal(err)
	}
	// (The retry's own run may decline a recall it did not use: the
	// learner's, not the user's.)
	for _, e := range storedEvents(t, a, id2) {
		if e.Type == agentmem.TypeDeclined && strings.Contains(string(must(e.RawData())), `"by_user":true`) {
			t.Errorf("a failed attempt's retry declined a procedure: %s", must(e.RawData()))
		}
	}
}

// must is v; an err panics (fails the test).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
