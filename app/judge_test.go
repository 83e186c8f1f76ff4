package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestJudgedTokensCount: what prompt hooks' questions cost the model is
// the run's: a hook:judged event for each, in the session (the
// pre-request one's too, asked before the run started), counted with the
// session's tokens and the run's measures beside the loop's own.
func TestJudgedTokensCount(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Text(`{"ok": true, "reason": ""}`), // the pre-request hook
		ollamatest.Text("Fixed the parser."),
		ollamatest.Text(`{"ok": true, "reason": ""}`), // the pre-run-end hook
	}})
	data, ws := t.TempDir(), t.TempDir()
	a := openApp(t, data, srv.URL)
	ctx := context.Background()
	cfg := hooks.Config{}
	for _, h := range []hooks.Hook{
		{Event: hooks.PreRequest, Prompt: "Is this request about the parser? $ARGUMENTS"},
		{Event: hooks.PreRunEnd, Prompt: "Was the parser fixed? $ARGUMENTS"},
	} {
		if _, err := cfg.Add(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Save(a.Hooks.File); err != nil {
		t.Fatal(err)
	}
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "fix the parser", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d model requests, want 3 (two questions and the run)", n)
	}
	stored := storedEvents(t, a, id)
	var judged []HookJudged
	var ended agent.RunEnded
	started := -1
	for i, e := range stored {
		switch e.Type {
		case agent.TypeRunStarted:
			started = i
		case TypeHookJudged:
			var j HookJudged
			if err := json.Unmarshal(e.Data.(json.RawMessage), &j); err != nil || started < 0 {
				t.Fatalf("hook:judged %s (%v) at %d, the run started at %d", e.Data, err, i, started)
			}
			judged = append(judged, j)
		case agent.TypeRunEnded:
			_ = json.Unmarshal(e.Data.(json.RawMessage), &ended)
		}
	}
	if len(judged) != 2 || !strings.Contains(judged[0].Hook, "Is this request about the parser?") || !strings.Contains(judged[1].Hook, "Was the parser fixed?") {
		t.Fatalf("judged: %+v", judged)
	}
	in, out := ended.Usage.PromptTokens, ended.Usage.CompletionTokens
	for _, j := range judged {
		if j.Model != "m" || j.PromptTokens == 0 || j.CompletionTokens == 0 {
			t.Fatalf("judged: %+v", j)
		}
		in, out = in+j.PromptTokens, out+j.CompletionTokens
	}
	deadline := time.Now().Add(time.Minute)
	for {
		sess, err := a.Store.Session(ctx, id)
		rows, merr := a.Store.Metrics().Session(ctx, id)
		if err == nil && merr == nil && sess.PromptTokens == in && sess.CompletionTokens == out && len(rows) == 1 && rows[0].TokensIn == in && rows[0].TokensOut == out {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session tokens %d in, %d out, measures %+v; want %d in, %d out (the run's %d and %d, and the questions')", sess.PromptTokens, sess.CompletionTokens, rows, in, out, ended.Usage.PromptTokens, ended.Usage.CompletionTokens)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestJudgeQuestionFitsTheContext: a prompt hook's question longer than
// the model's context keeps its start (the hook's condition) and its end,
// saying what was left out, instead of Ollama cutting the condition.
func TestJudgeQuestionFitsTheContext(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text(`{"ok": true, "reason": ""}`)}})
	a := openApp(t, t.TempDir(), srv.URL)
	question := "Is the file safe to write? " + strings.Repeat("é", 20_000) + " END"
	var judged []HookJudged
	answer, err := a.judge(context.Background(), "m", 1000, nil, func(j HookJudged) { judged = append(judged, j) })(context.Background(), "prompt hook p1 (Is the file safe…)", question)
	if err != nil || !strings.Contains(answer, `"ok": true`) {
		t.Fatalf("answer %q, %v", answer, err)
	}
	sent := srv.Requests()[0].Chat.Messages[1].Content
	if len(sent) > 3100 || !strings.HasPrefix(sent, "Is the file safe to write? ") || !strings.HasSuffix(sent, " END") || !strings.Contains(sent, "bytes left out: the event is longer than the model's context") || !utf8.ValidString(sent) {
		t.Fatalf("sent %d bytes: %.200q … %.200q", len(sent), sent, sent[max(0, len(sent)-200):])
	}
	if len(judged) != 1 || judged[0].Hook != "prompt hook p1 (Is the file safe…)" {
		t.Fatalf("judged %+v", judged)
	}
}

// TestJudgeEndsWithTheRequest: a question still being answered when the
// request is stopped ends then, though the hook's own context goes on (a
// hook after a call runs past the call's deadline).
func TestJudgeEndsWithTheRequest(t *testing.T) {
	slow := ollamatest.Reply{Delay: 200 * time.Millisecond}
	for range 600 { // two minutes
		slow.Text = append(slow.Text, "word ")
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{slow}})
	a := openApp(t, t.TempDir(), srv.URL)
	request, stop := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, stop)
	t0 := time.Now()
	_, err := a.judge(request, "m", 2048, nil, nil)(context.WithoutCancel(request), "prompt hook p1 (Done?)", "Done?")
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("a stopped request's question: %v", err)
	}
	if d := time.Since(t0); d > time.Minute {
		t.Fatalf("the question went on for %v after the request was stopped (the reply takes two minutes)", d)
	}
}

// TestJudgeWaitsForTheLoad: a prompt hook whose model Ollama must load
// first counts its timeout from the load's end: a pre-request hook of one
// second on a model that takes two to load still answers.
func TestJudgeWaitsForTheLoad(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", LoadTime: 2 * time.Second, Replies: []ollamatest.Reply{
		ollamatest.Text(`{"ok": false, "reason": "no deploys on Fridays"}`),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	cfg := hooks.Config{}
	if _, err := cfg.Add(hooks.Hook{Event: hooks.PreRequest, Prompt: "Refuse deploys on Fridays. $ARGUMENTS", Timeout: 1}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(a.Hooks.File); err != nil {
		t.Fatal(err)
	}
	_, _, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Text: "deploy it"})
	if err == nil || !strings.Contains(err.Error(), "no deploys on Fridays") {
		t.Fatalf("the hook's answer after the load: %v", err)
	}
}
