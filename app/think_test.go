package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestThinkOnTheWire: a model that thinks is left to think when nothing
// says otherwise (no "think" sent: Ollama turns it on); Settings' "off" is
// sent as "think": false, and the answer comes without thinking; a
// request's own choice wins over Settings; the choice is kept for the
// next start, and SHRIMP_THINK wins over it (a bad value refused, saying
// what it takes).
func TestThinkOnTheWire(t *testing.T) {
	thinking := ollamatest.Reply{Thinking: []string{"Let me see."}, Text: []string{"Done."}}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Thinks: true, Replies: []ollamatest.Reply{thinking, thinking, thinking, thinking}},
		ollamatest.Model{Name: "plain", NoThink: true, Replies: []ollamatest.Reply{ollamatest.Text("fine"), ollamatest.Text("fine")}})
	data := t.TempDir()
	a := openApp(t, data, srv.URL)
	ctx := context.Background()
	run := func(o ChatOptions) (sent string, thought bool) {
		t.Helper()
		o.Workspace, o.Text, o.Approve = t.TempDir(), "tidy up", approval.ModeAll
		_, events, err := ask(t, a, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			thought = thought || e.Type == agent.TypeThinking
		}
		reqs := srv.Requests()
		raw := string(reqs[len(reqs)-1].Raw)
		if i := strings.Index(raw, `"think":`); i >= 0 {
			sent = strings.SplitN(strings.SplitN(raw[i+len(`"think":`):], ",", 2)[0], "}", 2)[0]
		}
		return sent, thought
	}
	if sent, thought := run(ChatOptions{}); sent != "" || !thought {
		t.Errorf("the model's own: sent %q, thought %v; want nothing sent and its thinking shown", sent, thought)
	}
	if err := a.SetThink(ctx, model.ThinkOff); err != nil {
		t.Fatal(err)
	}
	if sent, thought := run(ChatOptions{}); sent != "false" || thought {
		t.Errorf("Settings off: sent %q, thought %v; want false and no thinking", sent, thought)
	}
	if sent, _ := run(ChatOptions{Think: model.ThinkHigh}); sent != `"high"` {
		t.Errorf("the request's own effort: sent %q", sent)
	}
	// A model that does not think takes "off" (Ollama refuses only a
	// request to think), and is asked again without an effort it refuses.
	if sent, _ := run(ChatOptions{Model: "plain"}); sent != "false" {
		t.Errorf("off to a model that does not think: sent %q", sent)
	}
	if sent, _ := run(ChatOptions{Model: "plain", Think: model.ThinkLow}); sent != "" {
		t.Errorf("an effort to a model that does not think: the request that answered sent %q, want it asked again without", sent)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := Open(Config{DataDir: data, OllamaHost: srv.URL, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Think(); got != model.ThinkOff {
		t.Errorf("after a restart: %q, want off as saved", got)
	}
	b.Close(ctx)
	t.Setenv(ThinkEnv, "low")
	c, err := Open(Config{DataDir: data, OllamaHost: srv.URL, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Think(); got != model.ThinkLow {
		t.Errorf("with SHRIMP_THINK=low: %q", got)
	}
	c.Close(ctx)
	t.Setenv(ThinkEnv, "sometimes")
	if _, err := Open(Config{DataDir: data, OllamaHost: srv.URL, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil || !strings.Contains(err.Error(), "SHRIMP_THINK") {
		t.Errorf("a bad SHRIMP_THINK: %v", err)
	}
}
