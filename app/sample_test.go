package app

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/mcptest"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestServerUsesTheModel: an MCP tool that asks for the user's model
// (sampling) during its call gets the run's model's reply: asked first in
// ask mode (the question says which model, for how long a reply, where it
// goes, and shows the server's text), lent unasked in all mode, refused
// when the user declines or nobody can be asked. The model is sent the
// server's conversation alone, without tools, at the run's context size
// and with the user's sampling settings; tool:sampled says what it cost.
func TestServerUsesTheModel(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	call := ollamatest.Tools(ollamatest.Call{Name: "mcp.t.summarize", Args: map[string]any{"text": "Minutes: we agreed to ship on Friday."}})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
		call, ollamatest.Text("Ship Friday."), ollamatest.Text("done"), // all: lent
		call, ollamatest.Text("Ship on Friday."), ollamatest.Text("done"), // ask, accepted
		call, ollamatest.Text("done"), // ask, declined
		call, ollamatest.Text("done"), // ask, nobody to ask
	}})
	data, ws := t.TempDir(), t.TempDir()
	if err := (mcp.Config{Servers: map[string]mcp.Server{"t": {Command: exe, Env: map[string]string{mcptest.Env: "1"}}}}).Save(data + "/" + mcp.FileName); err != nil {
		t.Fatal(err)
	}
	a := openApp(t, data, srv.URL)
	ctx := context.Background()
	if err := a.Store.SetNumCtx(ctx, "m", 16384); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetModelParams(ctx, "m", map[string]float64{"seed": 7}, nil); err != nil {
		t.Fatal(err)
	}
	allow := func(_ context.Context, _ approval.Request, ready func()) (approval.Answer, error) {
		ready()
		return approval.Answer{Allow: true}, nil
	}
	result := func(events []agent.Event) agent.ToolResult {
		t.Helper()
		for _, e := range events {
			if r, ok := e.Data.(agent.ToolResult); ok {
				return r
			}
		}
		t.Fatal("no tool result")
		return agent.ToolResult{}
	}

	// All: lent without a question.
	id, events, err := ask(t, a, ChatOptions{Workspace: ws, Text: "summarise the minutes", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if r := result(events); r.Error != "" || r.Output != "m summarised it: Ship Friday." {
		t.Fatalf("all: %+v", r)
	}
	sampling := srv.Requests()[1].Chat
	if len(sampling.Tools) != 0 || len(sampling.Messages) != 2 || sampling.Messages[0].Content != "Summarise in one line." || sampling.Messages[1].Content != "Minutes: we agreed to ship on Friday." ||
		sampling.Options["num_ctx"] != float64(16384) || sampling.Options["num_predict"] != float64(64) || sampling.Options["seed"] != float64(7) {
		t.Errorf("the model was sent: %+v", sampling)
	}
	stored := storedEvents(t, a, id)
	i := slices.IndexFunc(stored, func(e agent.Event) bool { return e.Type == TypeToolSampled })
	var sampled ToolSampled
	if i >= 0 {
		_ = json.Unmarshal(stored[i].Data.(json.RawMessage), &sampled)
	}
	if sampled.Server != "t" || sampled.Model != "m" || sampled.StopReason != "endTurn" || sampled.ID == "" || sampled.PromptTokens == 0 || sampled.CompletionTokens == 0 {
		t.Errorf("tool:sampled: %+v", sampled)
	}
	// What the server's use of the model cost counts with the session's
	// tokens, beside the run's own.
	j := slices.IndexFunc(stored, func(e agent.Event) bool { return e.Type == agent.TypeRunEnded })
	var ended agent.RunEnded
	if j < 0 || json.Unmarshal(stored[j].Data.(json.RawMessage), &ended) != nil {
		t.Fatal("no run end stored")
	}
	want := ended.Usage.PromptTokens + sampled.PromptTokens
	deadline := time.Now().Add(time.Minute)
	for {
		sess, err := a.Store.Session(ctx, id)
		if err == nil && sess.PromptTokens == want && sess.CompletionTokens == ended.Usage.CompletionTokens+sampled.CompletionTokens {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session tokens %d in, %d out; want %d in (the run's %d and the sampling's %d)", sess.PromptTokens, sess.CompletionTokens, want, ended.Usage.PromptTokens, sampled.PromptTokens)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The run's own measures count them too (the export's table, the
	// procedure bench).
	for {
		rows, err := a.Store.Metrics().Session(ctx, id)
		if err == nil && len(rows) == 1 && rows[0].TokensIn == want && rows[0].TokensOut == ended.Usage.CompletionTokens+sampled.CompletionTokens {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run's measures %+v %v; want %d tokens in", rows, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Ask: the question, then the reply.
	var asked []ToolQuestion
	answer := func(action string) Asker {
		return func(_ context.Context, q ToolQuestion, ready func()) (tool.Answer, error) {
			ready()
			asked = append(asked, q)
			return tool.Answer{Action: action}, nil
		}
	}
	_, events, err = ask(t, a, ChatOptions{Workspace: ws, Text: "summarise the minutes", Approve: approval.ModeAsk, Prompt: allow, Ask: answer(tool.Accept)})
	if err != nil {
		t.Fatal(err)
	}
	if r := result(events); r.Error != "" || r.Output != "m summarised it: Ship on Friday." {
		t.Fatalf("ask, accepted: %+v", r)
	}
	if len(asked) != 1 || !asked[0].Sample || asked[0].Tool != "mcp.t.summarize" || len(asked[0].Fields) != 0 ||
		!strings.Contains(asked[0].Message, `The MCP server "t" asks to use m to write a reply of at most 64 tokens`) ||
		!strings.Contains(asked[0].Message, "Minutes: we agreed to ship on Friday.") || !strings.Contains(asked[0].Message, "Summarise in one line.") {
		t.Fatalf("the question: %+v", asked)
	}

	// Declined, or nobody to ask: the call fails saying so, and the model
	// is not asked for the server.
	before := len(srv.Requests())
	_, events, err = ask(t, a, ChatOptions{Workspace: ws, Text: "summarise the minutes", Approve: approval.ModeAsk, Prompt: allow, Ask: answer(tool.Decline)})
	if err != nil {
		t.Fatal(err)
	}
	if r := result(events); !strings.Contains(r.Error, "did not let the server use the model") {
		t.Errorf("declined: %+v", r)
	}
	_, events, err = ask(t, a, ChatOptions{Workspace: ws, Text: "summarise the minutes", Approve: approval.ModeAsk, Prompt: allow})
	if err != nil {
		t.Fatal(err)
	}
	if r := result(events); !strings.Contains(r.Error, "nobody can be asked whether the server may use the model (no terminal); with --approve all it may") {
		t.Errorf("nobody to ask: %+v", r)
	}
	if n := len(srv.Requests()) - before; n != 4 { // each run's call and answer, no sampling
		t.Errorf("%d model requests for the two refused runs, want 4", n)
	}
}
