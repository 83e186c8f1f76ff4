package model

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestPrompted: a request for a model without tool calling carries its
// tools in the system prompt and its history's calls and results as text,
// one user turn for one turn's results; the request asked for is not
// changed.
func TestPrompted(t *testing.T) {
	args := api.NewToolCallFunctionArguments()
	args.Set("path", "a & b.txt")
	tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "fs.read", Description: "Read a file."}}}
	req := &api.ChatRequest{Model: "gemma3", Tools: tools, Messages: []api.Message{
		{Role: "system", Content: "You are Shrimp.\n"},
		{Role: "user", Content: "read two files"},
		{Role: "assistant", Content: "Reading.", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}, {Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}}},
		{Role: "tool", ToolName: "fs.read", Content: "one"},
		{Role: "tool", ToolName: "fs.read", Content: "two"},
		{Role: "assistant", Content: "Both read."},
	}}
	out := prompted(req)
	if len(out.Tools) != 0 || len(req.Tools) != 1 || req.Messages[3].Role != "tool" {
		t.Fatalf("tools %v; the request asked for was changed: %+v", out.Tools, req)
	}
	roles := ""
	for _, m := range out.Messages {
		roles += m.Role[:1]
		if len(m.ToolCalls) > 0 || m.Role == "tool" {
			t.Fatalf("a native call or result: %+v", m)
		}
	}
	if roles != "suaua" {
		t.Fatalf("roles %q", roles)
	}
	sys, call, results := out.Messages[0].Content, out.Messages[2].Content, out.Messages[3].Content
	if !strings.HasPrefix(sys, "You are Shrimp.\n\nYou can call tools.") || !strings.Contains(sys, `{"description":"Read a file.","name":"fs.read","parameters":`) {
		t.Fatalf("system %q", sys)
	}
	if want := "Reading.\n<tool_call>\n{\"name\":\"fs.read\",\"arguments\":{\"path\":\"a & b.txt\"}}\n</tool_call>\n<tool_call>"; !strings.HasPrefix(call, want) {
		t.Fatalf("calls as text %q", call)
	}
	if results != "<tool_response name=\"fs.read\">\none\n</tool_response>\n<tool_response name=\"fs.read\">\ntwo\n</tool_response>" {
		t.Fatalf("results %q", results)
	}
	// Without a system message, one is made.
	if out := prompted(&api.ChatRequest{Tools: tools, Messages: []api.Message{{Role: "user", Content: "hi"}}}); len(out.Messages) != 2 || out.Messages[0].Role != "system" {
		t.Fatalf("%+v", out.Messages)
	}
	// The calls the model writes back in that form are read as calls.
	s := newTextCalls(tools, nil)
	shown := s.feed("Let me look.\n<tool_call>\n{\"name\": \"fs.read\", \"arguments\": {\"path\": \"x\"}}\n</tool_call>")
	text, calls := s.finish()
	if len(calls) != 1 || calls[0].Function.Name != "fs.read" || strings.Contains(shown+text, "tool_call") {
		t.Fatalf("shown %q, calls %+v", shown+text, calls)
	}
	var noted string
	notify(WithNotice(context.Background(), func(m string) { noted = m }), "x")
	if noted != "x" {
		t.Fatal("notice not called")
	}
	notify(context.Background(), "nobody listens") // no panic
}

// TestPromptedOverTheWire: against the scripted server's 400s, a model
// that supports neither thinking nor tools is asked without both, in
// either order, and later requests go prompted from the first.
func TestPromptedOverTheWire(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "plain", NoTools: true, NoThink: true, Replies: []ollamatest.Reply{ollamatest.Text("one"), ollamatest.Text("two")}})
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "fs.read", Description: "Read a file."}}}
	var notes []string
	ctx := WithNotice(context.Background(), func(m string) { notes = append(notes, m) })
	for _, want := range []string{"one", "two"} {
		var got strings.Builder
		req := &api.ChatRequest{Model: "plain", Tools: tools, Think: &api.ThinkValue{Value: true}, Messages: []api.Message{{Role: "user", Content: "hi"}}}
		if err := c.Chat(ctx, req, func(r api.ChatResponse) error { got.WriteString(r.Message.Content); return nil }); err != nil || got.String() != want {
			t.Fatalf("%q %v", got.String(), err)
		}
	}
	if len(notes) != 2 {
		t.Fatalf("notes %q", notes)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1].Chat; len(last.Tools) != 0 || !strings.Contains(last.Messages[0].Content, "<tools>") {
		t.Fatalf("the last request: %+v", last)
	}
}
