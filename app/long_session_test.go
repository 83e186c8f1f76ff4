package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/prompt"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestLongSessionStaysUnderNumCtx: 100 requests in one session, each a
// tool call with a big output and an answer (200 model turns), with
// num_ctx 4096. Every request the server gets must fit num_ctx minus the
// room for the answer, measured as the characters of all message contents,
// tool-call JSON and tool definitions divided by 4.
func TestLongSessionStaysUnderNumCtx(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: 200 model turns")
	}
	const numCtx = 4096
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if len(req.Tools) == 0 {
			return ollamatest.Text("Earlier the user asked several times to read big.txt; each time it was read.")
		}
		if req.Messages[len(req.Messages)-1].Role == "user" {
			return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "big.txt"}})
		}
		return ollamatest.Text("I read big.txt; it is long.")
	}})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("line of a big file\n", 3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(Config{DataDir: t.TempDir(), OllamaHost: srv.URL, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if err := a.Store.SetNumCtx(context.Background(), "m", numCtx); err != nil {
		t.Fatal(err)
	}
	session := ""
	for i := range 100 {
		id, events, done, err := a.Chat(context.Background(), ChatOptions{SessionID: session, Workspace: ws, Text: "read big.txt again please, turn " + strings.Repeat("x", i%7), Approve: approval.ModeAll})
		if err != nil {
			t.Fatal(err)
		}
		session = id
		for _, err := range events {
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		}
		done()
	}
	budget := (&prompt.Fitter{}).Budget(numCtx)
	var sizes []int
	summaries := 0
	for _, r := range srv.Requests() {
		// Every request, summaries included, sets the same num_ctx and
		// fits it.
		if got := r.Chat.Options["num_ctx"]; got != float64(numCtx) {
			t.Fatalf("request (tools: %d) without num_ctx %d: %v", len(r.Chat.Tools), numCtx, got)
		}
		n := prompt.Estimate(r.Chat.Messages, r.Chat.Tools)
		if n > budget {
			t.Fatalf("a request sent %d tokens, over the budget %d", n, budget)
		}
		if len(r.Chat.Tools) == 0 {
			summaries++
			continue
		}
		sizes = append(sizes, n)
	}
	if summaries == 0 {
		t.Fatal("no summary request was made: the test no longer covers them")
	}
	// Each request's own output fills the context, so its earlier
	// exchange is summarised onto the kept summary: one call per request
	// at most (209 when every request summarised the history afresh).
	if summaries > 100 {
		t.Errorf("%d summary requests for 100 requests", summaries)
	}
	if len(sizes) != 200 {
		t.Fatalf("%d model turns, want 200", len(sizes))
	}
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	t.Logf("%d summary requests", summaries)
	t.Logf("prompt tokens per turn (budget %d of num_ctx %d): min %d, median %d, p95 %d, max %d", budget, numCtx, sorted[0], sorted[len(sorted)/2], sorted[len(sorted)*95/100], sorted[len(sorted)-1])
	var every []string
	for i := 0; i < len(sizes); i += 20 {
		every = append(every, fmt.Sprintf("%d:%d:%d", i+1, sizes[i], sizes[i+1]))
	}
	t.Logf("turn:size(call):size(answer) every 20 turns: %s", strings.Join(every, " "))
}

// TestSessionSummaryOutlivesTheApp: the summary a long session needed is
// kept in the store with it, so the session's next request, even after
// Shrimp was closed and opened again, sends it with the newest exchanges,
// and a summary that must go further goes on from it (the conversation is
// not summarised afresh); deleting the session deletes it. A secret the model put in its summary is
// not kept.
func TestSessionSummaryOutlivesTheApp(t *testing.T) {
	const numCtx = 4096
	token := "ghp_" + strings.Repeat("Q7w", 12) // a secret the model put in its summary
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if len(req.Tools) == 0 {
			return ollamatest.Text("SUMMARY-TEXT: the user asked for long answers; their token is " + token + ".")
		}
		return ollamatest.Text("a long answer " + strings.Repeat("word ", 200))
	}})
	data, ws := t.TempDir(), t.TempDir()
	open := func() *App {
		a := openApp(t, data, srv.URL)
		if err := a.Store.SetNumCtx(context.Background(), "m", numCtx); err != nil {
			t.Fatal(err)
		}
		return a
	}
	summaries := func() (n int) {
		for _, r := range srv.Requests() {
			if len(r.Chat.Tools) == 0 {
				n++
			}
		}
		return n
	}
	request := func(a *App, session, text string) string {
		id, _, err := ask(t, a, ChatOptions{SessionID: session, Workspace: ws, Text: text, Approve: approval.ModeAll})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return id
	}
	a := open()
	session := ""
	for i := 0; summaries() == 0; i++ {
		if i == 30 {
			t.Fatal("30 requests and no summary: the test no longer outgrows the context")
		}
		session = request(a, session, fmt.Sprintf("request %d: answer at length %s", i, strings.Repeat("please ", 100)))
	}
	made := summaries()
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	a = open()
	before := len(srv.Requests())
	request(a, session, "one more request")
	// The fitter summarises no more than it must, so the exchange the
	// last request added may need the summary carried further: then it is
	// carried on from the kept one, never made afresh from the start.
	var next *ollamatest.Request
	for _, r := range srv.Requests()[before:] {
		if len(r.Chat.Tools) > 0 {
			if next == nil {
				next = &r
			}
			continue
		}
		if !strings.Contains(fmt.Sprint(r.Chat.Messages), "SUMMARY-TEXT") {
			t.Errorf("after reopening the conversation was summarised afresh, not from the kept summary: %.1000s", fmt.Sprint(r.Chat.Messages))
		}
	}
	if got := summaries() - made; got > 1 {
		t.Errorf("the request after reopening asked for %d new summaries", got)
	}
	t.Logf("%d summary calls before closing, %d after reopening", made, summaries()-made)
	if next == nil {
		t.Fatal("no chat request after reopening")
	}
	text := fmt.Sprint(next.Chat.Messages)
	if !strings.Contains(text, "SUMMARY-TEXT") || !strings.Contains(text, "a long answer") {
		t.Errorf("the request after reopening lacks the kept summary or the newest answer: %.2000s", text)
	}
	if n := prompt.Estimate(next.Chat.Messages, next.Chat.Tools); n > (&prompt.Fitter{}).Budget(numCtx) {
		t.Errorf("%d tokens, over the budget", n)
	}
	kept, err := a.Store.Summaries().Get(context.Background(), session)
	if err != nil {
		t.Fatalf("the summary is not stored: %v", err)
	}
	if strings.Contains(kept.Text, token) || !strings.Contains(kept.Text, "[REDACTED:github-token]") {
		t.Errorf("the stored summary keeps the secret: %q", kept.Text)
	}
	if err := a.Store.DeleteSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.Summaries().Get(context.Background(), session); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the deleted session's summary is still there: %v", err)
	}
}
