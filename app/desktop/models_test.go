package desktop

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/vectors"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

func progressEvents(rec *emitRecorder) []PullProgress {
	var out []PullProgress
	for _, e := range rec.events() {
		if p, ok := e.Data.(PullProgress); ok {
			out = append(out, p)
		}
	}
	return out
}

// TestModelsListContext: every model's trained context is listed, from
// /api/show when /api/tags does not say it (Ollama v0.24.0 does not).
func TestModelsListContext(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "long", TrainedCtx: 40960}, ollamatest.Model{Name: "short", TrainedCtx: 2048})
	a, _ := openWindowApp(t, srv.URL, "")
	got, err := NewModels(a, NewSystem(a, time.Hour)).List()
	if err != nil || len(got) != 2 || got[0].ContextLength != 40960 || got[1].ContextLength != 2048 {
		t.Fatalf("list: %+v %v", got, err)
	}
}

func TestModelsPullDeleteAndFailures(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	a, rec := openWindowApp(t, srv.URL, "")
	system := NewSystem(a, time.Hour)
	models := NewModels(a, system)

	if err := models.Pull(" "); err == nil {
		t.Fatal("empty name accepted")
	}
	if err := models.Pull("tiny-pulled"); err != nil {
		t.Fatal(err)
	}
	done := func(name string) *PullProgress {
		for _, p := range progressEvents(rec) {
			if p.Model == name && p.Done {
				return &p
			}
		}
		return nil
	}
	deadline := time.Now().Add(2 * time.Minute)
	for done("tiny-pulled") == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	last := done("tiny-pulled")
	if last == nil || last.Error != "" || last.Percent != 100 {
		t.Fatalf("pull ended %+v", last)
	}
	var sawHalf bool
	for _, p := range progressEvents(rec) {
		sawHalf = sawHalf || (p.Total > 0 && p.Percent > 0 && p.Percent < 100)
	}
	if !sawHalf {
		t.Fatalf("no intermediate progress: %+v", progressEvents(rec))
	}
	list, _ := models.List()
	if len(list) != 2 {
		t.Fatalf("after pull: %+v", list)
	}
	if st := system.OllamaStatus(); len(st.Models) != 2 {
		t.Fatalf("status not refreshed: %+v", st)
	}

	// Offline: the error says so.
	_ = models.Pull("not-there")
	deadline = time.Now().Add(10 * time.Second)
	for done("not-there") == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if p := done("not-there"); p == nil || !strings.Contains(p.Error, "no such host") {
		t.Fatalf("offline pull %+v", p)
	}

	// Cancel.
	if err := models.CancelPull("nothing"); err == nil {
		t.Fatal("cancel of no pull succeeded")
	}
	_ = models.Pull("tiny-pulled")
	time.Sleep(30 * time.Millisecond)
	_ = models.CancelPull("tiny-pulled")

	if err := models.Delete("m"); err != nil {
		t.Fatal(err)
	}
	if err := models.Delete("m"); err == nil || !strings.Contains(err.Error(), "not") {
		t.Fatalf("second delete: %v", err)
	}
}

// TestSetEmbedModel: Settings accepts an installed model, saves it and
// hands it to the open memory; a model that is not installed is refused
// with what to run; "" goes back to the built-in encoder.
func TestSetEmbedModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"}, ollamatest.Model{Name: "nomic-embed-text", Embedding: true})
	a, _ := openWindowApp(t, srv.URL, "")
	s := NewSettings(a, nil)
	if _, err := s.SetEmbedModel("all-minilm"); err == nil || !strings.Contains(err.Error(), "ollama pull all-minilm") {
		t.Fatalf("a missing model: %v", err)
	}
	// The chat model typed where the embedding model goes.
	if _, err := s.SetEmbedModel("m"); err == nil || !strings.Contains(err.Error(), "not an embedding model") || s.EmbedModel() != "" {
		t.Fatalf("a chat model: %v (set: %q)", err, s.EmbedModel())
	}
	got, err := s.SetEmbedModel(" nomic-embed-text ")
	if err != nil || got != "nomic-embed-text" || s.EmbedModel() != "nomic-embed-text" {
		t.Fatalf("set: %q %v", got, err)
	}
	if saved, _ := a.Store.Setting(context.Background(), app.SettingEmbedModel); saved != "nomic-embed-text" {
		t.Fatalf("saved %q", saved)
	}
	if got, err := s.SetEmbedModel(""); err != nil || got != "" || s.EmbedModel() != "" {
		t.Fatalf("back to built-in: %q %v", got, err)
	}
}

// TestEmbedStatus: Settings shows how far the embedding model has come:
// nothing to do without one; with one, the stored procedures' wordings
// embedded in the background until recall uses it.
func TestEmbedStatus(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"}, ollamatest.Model{Name: "nomic-embed-text", Embedding: true})
	a, _ := openWindowApp(t, srv.URL, "")
	s := NewSettings(a, nil)
	if v, err := s.EmbedStatus(); err != nil || v.Model != "" || v.Wordings != 0 || v.Needed != vectors.MinCalibration {
		t.Fatalf("without a model: %+v %v", v, err)
	}
	ctx := context.Background()
	mem, err := a.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	learn(t, mem, vectors.MinCalibration+2)
	if _, err := s.SetEmbedModel("nomic-embed-text"); err != nil {
		t.Fatal(err)
	}
	if err := mem.SettleEmbedder(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := s.EmbedStatus()
	want := EmbedStatusView{Model: "nomic-embed-text", Wordings: vectors.MinCalibration + 2, Embedded: vectors.MinCalibration + 2, InUse: true, Needed: vectors.MinCalibration}
	if err != nil || v != want {
		t.Fatalf("after the background work: %+v %v, want %+v", v, err, want)
	}
}

// TestEmbedModelPulledWhileOpen: the embedding model is set before it is
// installed (every wording fails to embed); once it is pulled, the next
// status poll has the wordings embedded at once, not at their retry (set
// an hour away here).
func TestEmbedModelPulledWhileOpen(t *testing.T) {
	old := vectors.RetryFirst
	vectors.RetryFirst = time.Hour
	defer func() { vectors.RetryFirst = old }()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	a, err := app.Open(app.Config{DataDir: t.TempDir(), OllamaHost: srv.URL, EmbedModel: "nomic-embed-text"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	ctx := context.Background()
	mem, err := a.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	learn(t, mem, 3)
	if err := mem.SettleEmbedder(ctx); err != nil {
		t.Fatal(err)
	}
	s := NewSettings(a, nil)
	v, err := s.EmbedStatus()
	if err != nil || v.Embedded != 0 || v.Failed == 0 || !strings.Contains(v.Error, "ollama pull nomic-embed-text") || v.Retry == "" {
		t.Fatalf("before the pull: %+v %v", v, err)
	}
	sys := NewSystem(a, time.Hour)
	sys.Refresh()
	srv.Add(ollamatest.Model{Name: "nomic-embed-text", Embedding: true})
	sys.Refresh() // the model list changed
	deadline := time.Now().Add(time.Minute)
	for v.Embedded != v.Wordings || v.Wordings == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the wordings were not embedded after the pull: %+v", v)
		}
		time.Sleep(5 * time.Millisecond)
		v, _ = s.EmbedStatus()
	}
	if v.Failed != 0 || v.Error != "" || v.Retry != "" {
		t.Errorf("after the pull: %+v", v)
	}
}

// learn stores n procedures of one chore's kind (IDs p00, p01, …) and
// waits until they are indexed.
func learn(t *testing.T, mem *procedures.Memory, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		tr := fmt.Sprintf("archive the %s reports of project %d", []string{"weekly", "monthly", "yearly"}[i%3], i)
		if err := mem.Add(ctx, procedures.Procedure{ID: fmt.Sprintf("p%02d", i), Trigger: tr, Tools: []string{"fs.list", "fs.read", "fs.write"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := mem.Settle(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestChatDefaults: the defaults for new chats are kept in the data
// directory's settings, so the CLI's model is the one chosen in the
// window; an approval mode that is none of the four is refused, and one
// written by hand is read as ask.
func TestChatDefaults(t *testing.T) {
	ctx := context.Background()
	srv := ollamatest.New(t, ollamatest.Model{Name: "gemma2"}, ollamatest.Model{Name: "qwen3:4b"})
	a, _ := openWindowApp(t, srv.URL, "")
	s := NewSettings(a, nil)
	if d, err := s.ChatDefaults(); err != nil || d != (ChatDefaults{Approve: "ask"}) {
		t.Fatalf("a new data directory's defaults: %+v %v", d, err)
	}
	want := ChatDefaults{Model: "qwen3:4b", Approve: "read", Workspace: "/home/u/project"}
	if err := s.SetChatDefaults(want); err != nil {
		t.Fatal(err)
	}
	if d, err := s.ChatDefaults(); err != nil || d != want {
		t.Fatalf("read back %+v %v, want %+v", d, err, want)
	}
	if m, err := a.ResolveModel(ctx); err != nil || m != "qwen3:4b" {
		t.Fatalf("the model a chat without --model takes: %q %v", m, err)
	}
	if err := s.SetChatDefaults(ChatDefaults{Approve: "yolo"}); err == nil || !strings.Contains(err.Error(), "use ask, read, all or none") {
		t.Fatalf("an unknown mode: %v", err)
	}
	if d, _ := s.ChatDefaults(); d != want {
		t.Fatalf("a refused change changed the defaults: %+v", d)
	}
	if err := a.Store.SetSetting(ctx, app.SettingDefaultApprove, "everything"); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.ChatDefaults(); d.Approve != "ask" {
		t.Fatalf("a mode written by hand read as %q, want ask", d.Approve)
	}
}

// TestKeepAlive: the keep-alive chosen in Settings goes with the next chat
// request, is kept for the next start (and the terminal's runs), and a
// value that would unload the model between the calls of one request is
// refused; SHRIMP_KEEP_ALIVE wins at start-up, and a bad one stops it.
func TestKeepAlive(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("ok") }})
	data := t.TempDir()
	open := func() *app.App {
		a, err := app.Open(app.Config{DataDir: data, OllamaHost: srv.URL, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := open()
	s := NewSettings(a, nil)
	if got := s.KeepAlive(); got != "" {
		t.Fatalf("keep-alive at first %q, want Ollama's own", got)
	}
	if _, err := s.SetKeepAlive("10s"); err == nil || !strings.Contains(err.Error(), "at least 1m") {
		t.Fatalf("10s: %v", err)
	}
	if got, err := s.SetKeepAlive("1h"); err != nil || got != "1h0m0s" {
		t.Fatalf("SetKeepAlive(1h) = %q, %v", got, err)
	}
	if err := a.Model.Chat(context.Background(), &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if raw := string(srv.Requests()[0].Raw); !strings.Contains(raw, `"keep_alive":"1h0m0s"`) {
		t.Fatalf("the chat request after Settings: %s", raw)
	}
	a.Close(context.Background())
	a = open()
	if got := a.Model.KeepAlive(); got != time.Hour {
		t.Fatalf("after a restart: %v, want the saved 1h", got)
	}
	a.Close(context.Background())
	t.Setenv("SHRIMP_KEEP_ALIVE", "forever")
	a = open()
	if got := a.Model.KeepAlive(); got >= 0 {
		t.Fatalf("with SHRIMP_KEEP_ALIVE=forever: %v", got)
	}
	a.Close(context.Background())
	t.Setenv("SHRIMP_KEEP_ALIVE", "0")
	if _, err := app.Open(app.Config{DataDir: data, OllamaHost: srv.URL}, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil || !strings.Contains(err.Error(), "SHRIMP_KEEP_ALIVE") {
		t.Fatalf("SHRIMP_KEEP_ALIVE=0: %v", err)
	}
}

// TestSettingsMaxTurns: Settings shows the turn limit in force, saves a
// new one, refuses one out of range, and says when SHRIMP_MAX_TURNS sets
// it over what is saved.
func TestSettingsMaxTurns(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	a, _ := openWindowApp(t, srv.URL, "")
	s := NewSettings(a, nil)
	if v, err := s.MaxTurns(); err != nil || v.Turns != app.DefaultMaxTurns || v.FromEnv {
		t.Fatalf("at first: %+v, %v", v, err)
	}
	if v, err := s.SetMaxTurns(60); err != nil || v.Turns != 60 {
		t.Fatalf("set 60: %+v, %v", v, err)
	}
	if _, err := s.SetMaxTurns(900); err == nil {
		t.Fatal("900 turns taken")
	}
	t.Setenv(app.MaxTurnsEnv, "8")
	if v, err := s.MaxTurns(); err != nil || v.Turns != 8 || !v.FromEnv {
		t.Fatalf("with SHRIMP_MAX_TURNS=8: %+v, %v", v, err)
	}
	t.Setenv(app.MaxTurnsEnv, "")
	if v, err := s.SetMaxTurns(0); err != nil || v.Turns != app.DefaultMaxTurns {
		t.Fatalf("back to the default: %+v, %v", v, err)
	}
}
