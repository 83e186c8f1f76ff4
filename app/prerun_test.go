package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestStoppedWhileAHookRuns: a request stopped while a hook it waits for
// before its run (session-start, pre-request) still runs ends at once:
// the hook is ended, the request is refused as stopped (so the window and
// the terminal give it back), the model is never asked, and a new
// session is not stored.
func TestStoppedWhileAHookRuns(t *testing.T) {
	for _, event := range []string{hooks.SessionStart, hooks.PreRequest} {
		t.Run(event, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("Hello.")}})
			data, ws := t.TempDir(), t.TempDir()
			a := openApp(t, data, srv.URL)
			began := filepath.Join(t.TempDir(), "began")
			cfg := hooks.Config{}
			if _, err := cfg.Add(hooks.Hook{Event: event, Timeout: 600, Command: "/bin/sh", Args: []string{"-c", "touch " + began + "; sleep 600"}}); err != nil {
				t.Fatal(err)
			}
			if err := cfg.Save(a.Hooks.File); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started := make(chan struct{})
			go func() {
				<-started
				deadline := time.Now().Add(time.Minute)
				for time.Now().Before(deadline) {
					if _, err := os.Stat(began); err == nil {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}()
			close(started)
			t0 := time.Now()
			id, events, done, err := a.Chat(ctx, ChatOptions{Workspace: ws, Text: "hello"})
			if err == nil {
				for range events {
				}
				done()
			}
			if !errors.Is(err, context.Canceled) || id != "" || !strings.Contains(err.Error(), "stopped while its "+event+" hooks ran") || strings.Contains(err.Error(), "context canceled") {
				t.Fatalf("stopped while its %s hook ran: session %q, err %v", event, id, err)
			}
			if d := time.Since(t0); d > 2*time.Minute {
				t.Fatalf("took %v", d)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("the model was asked %d times", n)
			}
			if list, err := a.Store.Sessions(context.Background()); err != nil || len(list) != 0 {
				t.Fatalf("sessions %+v %v", list, err)
			}
		})
	}
}

// TestSlowCallCheckIsNamed: a hook on a call (pre- or post-tool-call)
// still running after slowCheck is named in the run (hook:running),
// so a prompt hook asking the model about a call does not look like a
// stalled tool; one that answers at once says nothing.
func TestSlowCallCheckIsNamed(t *testing.T) {
	call := ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{call, ollamatest.Text("Listed."), call, ollamatest.Text("Listed."), call, ollamatest.Text("Listed.")}})
	a := openApp(t, t.TempDir(), srv.URL)
	// The bound is set for each case far from the hook's own time, so a
	// loaded machine starting the hook late changes nothing.
	defer func(was time.Duration) { slowCheck = was }(slowCheck)
	for _, c := range []struct {
		event  string
		script string
		bound  time.Duration
		named  bool
	}{
		{hooks.PreToolCall, "cat > /dev/null", time.Hour, false},
		{hooks.PreToolCall, "cat > /dev/null; sleep 2", 10 * time.Millisecond, true},
		{hooks.PostToolCall, "cat > /dev/null; sleep 2", 10 * time.Millisecond, true},
	} {
		slowCheck = c.bound
		cfg := hooks.Config{}
		if _, err := cfg.Add(hooks.Hook{Event: c.event, Command: "/bin/sh", Args: []string{"-c", c.script}}); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Save(a.Hooks.File); err != nil {
			t.Fatal(err)
		}
		id, _, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Text: "list the files", Approve: approval.ModeAll})
		if err != nil {
			t.Fatal(err)
		}
		var running []HookRunning
		for _, e := range storedEvents(t, a, id) {
			if e.Type == TypeHookRunning {
				var h HookRunning
				_ = json.Unmarshal(e.Data.(json.RawMessage), &h)
				running = append(running, h)
			}
		}
		if named := len(running) > 0; named != c.named || named && (running[0].Event != c.event || !strings.Contains(running[0].Hook, c.script)) {
			t.Fatalf("%q: hook:running %+v, want named %v", c.script, running, c.named)
		}
	}
}

// TestSessionStartHookAddedMidSession: a session-start hook added while
// a session is open (in Extensions) applies from the session's next
// request in the same process, told "resume", and runs once: it used to
// wait for the next process to take the session up.
func TestSessionStartHookAddedMidSession(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("One."), ollamatest.Text("Two."), ollamatest.Text("Three.")}})
	data, ws := t.TempDir(), t.TempDir()
	a := openApp(t, data, srv.URL)
	ran := filepath.Join(t.TempDir(), "ran")
	ask := func(session, text string) string {
		t.Helper()
		id, events, done, err := a.Chat(context.Background(), ChatOptions{Workspace: ws, Text: text, SessionID: session, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		for range events {
		}
		done()
		return id
	}
	id := ask("", "first")
	cfg, err := hooks.Load(a.Hooks.File)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Add(hooks.Hook{Event: hooks.SessionStart, Command: "/bin/sh", Args: []string{"-c", "cat >> " + ran + "; echo; echo 'CONTEXT-MARK-7'"}}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(a.Hooks.File); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Hooks.Current(); err != nil {
		t.Fatal(err)
	}
	ask(id, "second")
	ask(id, "third")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	for i, want := range []bool{false, true, true} {
		if got := strings.Contains(reqs[i].Chat.Messages[0].Content, "CONTEXT-MARK-7"); got != want {
			t.Errorf("request %d: the hook's context in the system prompt: %v, want %v", i+1, got, want)
		}
	}
	b, err := os.ReadFile(ran)
	if err != nil || strings.Count(string(b), `"source":"resume"`) != 1 || strings.Count(string(b), "{") != 1 {
		t.Fatalf("the hook ran: %q %v (once, told resume)", b, err)
	}
}

// TestModelDetailsPerApp: what /api/show said of a model is kept by the
// App that asked, not by the process: a second App whose Ollama answers
// at the address another one's did (a port used again) reads its own
// model's trained context. Shared, it read the first server's: the cause
// of TestMCPExcludedTools failing now and then, a 40960-token model
// fitted to 4096 and no MCP tool offered.
func TestModelDetailsPerApp(t *testing.T) {
	small := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 2048})
	large := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960})
	var target atomic.Pointer[url.URL]
	at := func(s *ollamatest.Server) {
		u, err := url.Parse(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		target.Store(u)
	}
	at(small)
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target.Load()) }})
	t.Cleanup(proxy.Close)
	ctx := context.Background()
	first := openApp(t, t.TempDir(), proxy.URL)
	if d, err := first.details(ctx, "m"); err != nil || d.ContextLength != 2048 {
		t.Fatalf("first: %+v %v", d, err)
	}
	at(large) // another Ollama at the same address
	second := openApp(t, t.TempDir(), proxy.URL)
	if d, err := second.details(ctx, "m"); err != nil || d.ContextLength != 40960 {
		t.Fatalf("second: %d %v, want 40960", d.ContextLength, err)
	}
}

// TestModelDetailsFollowAPull: a model pulled again under its name while
// the App is open (another build: here a longer trained context and no
// tools) is asked about again, and one removed is said to be missing
// before the run, not found by the chat request. Kept for the App's life,
// the first build's details were used until the next start; so were its
// prompt estimates' shortfall (another build may tokenize otherwise).
func TestModelDetailsFollowAPull(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 2048})
	ctx := context.Background()
	a := openApp(t, t.TempDir(), srv.URL)
	d, err := a.details(ctx, "m")
	if err != nil || d.ContextLength != 2048 || !d.Tools() {
		t.Fatalf("first build: %+v %v", d, err)
	}
	if d, err = a.details(ctx, "m"); err != nil || d.ContextLength != 2048 {
		t.Fatalf("asked again: %+v %v", d, err)
	}
	first := a.shortfall("m")
	if a.shortfall("m") != first {
		t.Fatal("the same build's prompt estimates were not kept together")
	}
	srv.Add(ollamatest.Model{Name: "m", TrainedCtx: 40960, NoTools: true})
	d, err = a.details(ctx, "m")
	if err != nil || d.ContextLength != 40960 || d.Tools() {
		t.Fatalf("pulled again: %+v %v, want 40960 tokens and no tools", d, err)
	}
	if a.shortfall("m") == first {
		t.Error("what the first build's tokenizer taught was kept for the new build")
	}
	if err := a.Model.Delete(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.details(ctx, "m"); !errors.Is(err, model.ErrModelMissing) {
		t.Fatalf("removed: %v, want %v", err, model.ErrModelMissing)
	}
}
