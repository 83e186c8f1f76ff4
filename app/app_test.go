package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// openWithBrokenSubscriber opens an app on host with a subscriber named
// "broken" that panics on every event but failure reports; it closes when
// the test ends.
func openWithBrokenSubscriber(t *testing.T, host string) *App {
	t.Helper()
	a, err := Open(Config{DataDir: t.TempDir(), OllamaHost: host, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	if _, err := a.Bus.Subscribe("broken", func(_ context.Context, e agent.Event) error {
		if e.Type != TypeSubscriberFailed {
			panic("broken subscriber")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPanickingSubscriberDoesNotStopTheRun: a subscriber that panics on
// every event is reported as bus:subscriber-failed (stored too) while the
// run goes on to its answer.
func TestPanickingSubscriberDoesNotStopTheRun(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{}}),
		ollamatest.Text("All fine."),
	}})
	a := openWithBrokenSubscriber(t, srv.URL)
	id, events, done, err := a.Chat(context.Background(), ChatOptions{Workspace: t.TempDir(), Text: "list", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	var status string
	for e, err := range events {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := e.Data.(agent.RunEnded); ok {
			status = d.Status
		}
	}
	if status != agent.StatusResponded {
		t.Fatalf("run ended %q", status)
	}
	stored := storedEvents(t, a, id)
	failures := 0
	for i, e := range stored {
		if i > 0 && e.Seq <= stored[i-1].Seq {
			t.Fatalf("stored seq not increasing at %d", i)
		}
		if e.Type == TypeSubscriberFailed {
			var f SubscriberFailure
			if err := json.Unmarshal(e.Data.(json.RawMessage), &f); err != nil || f.Subscriber != "broken" || !f.Panic {
				t.Fatalf("failure event %s: %v", e.Data, err)
			}
			failures++
		}
	}
	if failures == 0 {
		t.Fatal("no bus:subscriber-failed stored")
	}
}

func TestKnownTool(t *testing.T) {
	for name, want := range map[string]bool{
		"fs.read": true, "shell.run": true, "web.fetch": true, "tool.output.read": true,
		"memory.procedures.forget": true, "memory.facts.set": true, "memory.working.list": true,
		"fs.readfile": false, "ocr.image": false, "": false,
	} {
		if got := KnownTool(name); got != want {
			t.Errorf("KnownTool(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestEmbedModelOverTheWire: with an embedding model configured (here the
// scripted server's, which speaks /api/embed as Ollama v0.24.0 does),
// the memory embeds its triggers and the request through it, stores the
// vectors under "ollama:NAME", and keeps recalling when the server is gone.
func TestEmbedModelOverTheWire(t *testing.T) {
	const request = "remove folders with nothing in them from my documents"
	srv := ollamatest.Start(ollamatest.Model{Name: "embedder", Embed: func(s string) []float32 {
		if s == request {
			s = "delete the empty folders in my documents"
		}
		return ollamatest.HashEmbed(s)
	}})
	defer srv.Close()
	ctx := context.Background()
	a, mem := openMemory(t, Config{DataDir: t.TempDir(), OllamaHost: srv.URL, EmbedModel: "embedder"})
	triggers := append([]string{"delete the empty folders in my documents"}, archiveTriggers(24)...)
	learn(t, mem, triggers)
	if n, _ := a.Store.Vectors().Count(ctx, procedures.VectorsName(model.Embedder{Model: "embedder"})); n != int64(len(triggers))+1 {
		t.Fatalf("%d vectors stored under ollama:embedder, want the %d triggers' and the probe's", n, len(triggers))
	}
	_, ranked, err := mem.Rank(ctx, request, func(string) bool { return true })
	if err != nil || len(ranked) == 0 || ranked[0].ID != "p00" || ranked[0].Features.Cosine < 0.99 {
		t.Fatalf("recall did not compare the embedding model's vectors: %v %+v", err, ranked)
	}
	var asked bool
	for _, r := range srv.EmbedRequests() {
		if r.Model != "embedder" {
			t.Errorf("/api/embed asked for model %q", r.Model)
		}
		if in, ok := r.Input.([]any); ok && len(in) == 1 && in[0] == request {
			asked = true
		}
	}
	if !asked {
		t.Fatal("the request was never sent to /api/embed")
	}
	// The server goes away: recall answers within its budget, by the
	// built-in encoder.
	srv.Close()
	if _, ranked, err = mem.Rank(ctx, request, func(string) bool { return true }); err != nil || len(ranked) == 0 || ranked[0].Features.Cosine >= 0.99 {
		t.Fatalf("with Ollama gone: %v %+v", err, ranked)
	}
}

// TestResolveModel: with no model chosen, a chat takes the first installed
// model that can call tools, never an embedding model that sorts first;
// with none that can call tools, the first that can chat (whose error
// then says what to pull); a chosen model is taken as given.
func TestResolveModel(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		models []ollamatest.Model
		chosen string // --model or SHRIMP_MODEL
		saved  string // the default chosen in Settings
		want   string
	}{
		{"tools first", []ollamatest.Model{{Name: "all-minilm", Embedding: true}, {Name: "gemma2", NoTools: true}, {Name: "qwen3:4b"}}, "", "", "qwen3:4b"},
		{"no tools", []ollamatest.Model{{Name: "all-minilm", Embedding: true}, {Name: "gemma2", NoTools: true}}, "", "", "gemma2:latest"},
		{"embedding only", []ollamatest.Model{{Name: "all-minilm", Embedding: true}}, "", "", "all-minilm:latest"},
		{"chosen", []ollamatest.Model{{Name: "all-minilm", Embedding: true}, {Name: "qwen3:4b"}}, "all-minilm", "", "all-minilm"},
		{"chosen over saved", []ollamatest.Model{{Name: "gemma2"}, {Name: "qwen3:4b"}}, "qwen3:4b", "gemma2", "qwen3:4b"},
		{"saved", []ollamatest.Model{{Name: "gemma2"}, {Name: "qwen3:4b"}}, "", "qwen3:4b", "qwen3:4b"},
		{"saved without its tag", []ollamatest.Model{{Name: "gemma2"}, {Name: "qwen3"}}, "", "qwen3", "qwen3:latest"},
		{"saved, since removed", []ollamatest.Model{{Name: "gemma2"}, {Name: "qwen3:4b"}}, "", "llama3.2:3b", "gemma2:latest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := ollamatest.Start(c.models...)
			defer srv.Close()
			a, err := Open(Config{DataDir: t.TempDir(), OllamaHost: srv.URL, Model: c.chosen}, quiet)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(ctx)
			if err := a.Store.SetSetting(ctx, SettingDefaultModel, c.saved); err != nil {
				t.Fatal(err)
			}
			if got, err := a.ResolveModel(ctx); err != nil || got != c.want {
				t.Fatalf("ResolveModel = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestWorkspaceSaidFirst: a workspace that is not a folder is said before
// Ollama is asked anything, even when it is down too: the folder is the
// user's slip, and its error says what to do.
func TestWorkspaceSaidFirst(t *testing.T) {
	ctx := context.Background()
	a, err := Open(Config{DataDir: t.TempDir(), OllamaHost: "http://127.0.0.1:1"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(t.TempDir(), "no such folder"), file} {
		_, _, _, err := a.Chat(ctx, ChatOptions{Workspace: dir, Text: "hello"})
		if err == nil || !strings.Contains(err.Error(), "choose an existing folder") || errors.Is(err, model.ErrUnreachable) {
			t.Errorf("a workspace %s with Ollama down: %v", dir, err)
		}
	}
}

// TestEmbedPromptOnTheWire: a model whose documentation asks for a prompt
// (nomic-embed-text: "clustering: ") gets it before every text, the
// request's and the triggers', and its vectors are stored under a name
// that says so, apart from any made without it.
func TestEmbedPromptOnTheWire(t *testing.T) {
	srv := ollamatest.Start(ollamatest.Model{Name: "nomic-embed-text", Embedding: true})
	defer srv.Close()
	ctx := context.Background()
	a, mem := openMemory(t, Config{DataDir: t.TempDir(), OllamaHost: srv.URL, EmbedModel: "nomic-embed-text"})
	learn(t, mem, archiveTriggers(21))
	if _, _, err := mem.Rank(ctx, "put project 7's reports in the archive", func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	name := procedures.VectorsName(model.Embedder{Model: "nomic-embed-text"})
	if !strings.HasPrefix(name, "ollama:nomic-embed-text#p") {
		t.Fatalf("vectors' name %q does not say a prompt was used", name)
	}
	if n, _ := a.Store.Vectors().Count(ctx, name); n < 21 {
		t.Fatalf("%d vectors stored under %s, want the 21 triggers'", n, name)
	}
	var texts []string
	for _, r := range srv.EmbedRequests() {
		for _, in := range r.Input.([]any) {
			texts = append(texts, in.(string))
		}
	}
	if !slices.Contains(texts, "clustering: put project 7's reports in the archive") { // as written
		t.Errorf("the request was not embedded after the prompt: %q", texts)
	}
	for _, s := range texts {
		if !strings.HasPrefix(s, "clustering: ") {
			t.Errorf("embedded without the prompt: %q", s)
		}
	}
}

// archiveTriggers returns n distinct requests of one chore's kind.
func archiveTriggers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("archive the %s reports of project %d", []string{"weekly", "monthly", "yearly"}[i%3], i)
	}
	return out
}

// learn stores a procedure for each trigger (IDs p00, p01, …) and waits
// until they are indexed and have their vectors, the embedding model's
// included.
func learn(t *testing.T, mem *procedures.Memory, triggers []string) {
	t.Helper()
	ctx := context.Background()
	for i, tr := range triggers {
		if err := mem.Add(ctx, procedures.Procedure{ID: fmt.Sprintf("p%02d", i), Trigger: tr, Tools: []string{"fs.list", "fs.read", "fs.write"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := mem.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := mem.SettleEmbedder(ctx); err != nil {
		t.Fatal(err)
	}
}

// openMemory opens an app with cfg (closed when the test ends) and its
// procedural memory.
func openMemory(t *testing.T, cfg Config) (*App, *procedures.Memory) {
	t.Helper()
	a, err := Open(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	mem, err := a.Memory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a, mem
}

// TestFailureReportsKeepSeqOrder: a subscriber that panics on every event
// makes a failure report per event; each is stamped with the session's
// next seq, and every subscriber must see the session's events, reports
// included, in strictly increasing seq (the CLI's JSON stream and the
// timeline rely on it). A report stored and published on its own path,
// beside the writer's queue, overtook or trailed the queued events.
func TestFailureReportsKeepSeqOrder(t *testing.T) {
	var replies []ollamatest.Reply
	for i := range 6 {
		replies = append(replies, ollamatest.Tools(
			ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": fmt.Sprintf("a%d", i)}},
			ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": fmt.Sprintf("b%d", i)}}))
	}
	replies = append(replies, ollamatest.Text("All fine."))
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: replies})
	a := openWithBrokenSubscriber(t, srv.URL)
	var mu sync.Mutex
	seen := map[string][]agent.Event{}
	if _, err := a.Bus.Subscribe("watcher", func(_ context.Context, e agent.Event) error {
		mu.Lock()
		seen[e.Session] = append(seen[e.Session], e)
		mu.Unlock()
		return nil
	}, bus.Buffer[agent.Event](1<<16)); err != nil {
		t.Fatal(err)
	}
	id, events, done, err := a.Chat(context.Background(), ChatOptions{Workspace: t.TempDir(), Text: "list", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	for _, err := range events {
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := a.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	got := seen[id]
	failures := 0
	for i, e := range got {
		if e.Type == TypeSubscriberFailed {
			failures++
		}
		if i > 0 && e.Seq <= got[i-1].Seq {
			t.Fatalf("watcher saw seq %d (%s) after %d (%s)", e.Seq, e.Type, got[i-1].Seq, got[i-1].Type)
		}
	}
	if failures < 10 {
		t.Fatalf("%d failure reports seen, want one per event the broken subscriber got", failures)
	}
	stored, err := a.Store.Events(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(got) {
		t.Fatalf("watcher saw %d events, the store holds %d", len(got), len(stored))
	}
}

// TestSessionGoesOnWithItsModel: a session continued without naming a
// model goes on with the one it used (its history was written with it),
// not the first installed; a new session takes the first; a model the
// user configured wins.
func TestSessionGoesOnWithItsModel(t *testing.T) {
	srv := ollamatest.New(t,
		ollamatest.Model{Name: "alpha", Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("a") }},
		ollamatest.Model{Name: "beta", Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("b") }})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	a, err := Open(Config{DataDir: dir, OllamaHost: srv.URL}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	lastModel := func() string {
		rs := srv.Requests()
		return rs[len(rs)-1].Chat.Model
	}
	ws := t.TempDir()
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "hi", Model: "beta", Approve: approval.ModeAll})
	if err != nil || lastModel() != "beta" {
		t.Fatalf("first request: %v, model %s", err, lastModel())
	}
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Text: "again", Approve: approval.ModeAll}); err != nil || lastModel() != "beta" {
		t.Fatalf("went on with %s (%v); want the session's beta", lastModel(), err)
	}
	if _, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "new", Approve: approval.ModeAll}); err != nil || !model.SameModel(lastModel(), "alpha") {
		t.Fatalf("a new session took %s (%v); want the first installed, alpha", lastModel(), err)
	}
	b, err := Open(Config{DataDir: t.TempDir(), OllamaHost: srv.URL, Model: "alpha"}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	if m, err := a.SessionModel(context.Background(), id); err != nil || m != "beta" {
		t.Fatalf("SessionModel = %s, %v", m, err)
	}
	if m, err := b.SessionModel(context.Background(), id); err != nil || m != "alpha" {
		t.Fatalf("with a configured model SessionModel = %s, %v; want alpha", m, err)
	}
}

// TestContextFor: what a request sends as num_ctx, from the size set for
// the model and what it was trained for (Ollama gives it no more).
func TestContextFor(t *testing.T) {
	for _, c := range []struct {
		set, trained, want int
		capped             bool
	}{
		{0, 0, 0, false},       // the default
		{0, 40960, 0, false},   // the default fits
		{0, 4096, 4096, false}, // the model's own limit
		{16384, 40960, 16384, false},
		{16384, 0, 16384, false},  // not said: as set
		{32768, 4096, 4096, true}, // set above what it was trained for
		{4096, 4096, 4096, false},
	} {
		if n, capped := contextFor(c.set, c.trained); n != c.want || capped != c.capped {
			t.Errorf("contextFor(%d, %d) = %d, %v; want %d, %v", c.set, c.trained, n, capped, c.want, c.capped)
		}
	}
}
