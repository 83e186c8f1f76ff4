package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := func(r ollamatest.Reply) ollamatest.Reply { return r }
	for file, want := range map[string]string{
		write("bad.json", `[{"name": "m", "steps": [`): "script",
		write("anon.json", `[{"steps": []}]`):          "a model without a name",
		filepath.Join(dir, "none.json"):                "read the script",
	} {
		if _, err := loadScript(file, same); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", filepath.Base(file), err, want)
		}
	}
	models, err := loadScript(write("ok.json", `[
		{"name": "tools", "trained_ctx": 8192, "steps": [{"calls": [{"name": "fs.read", "args": {"path": "a"}}]}, {"text": "read it"}]},
		{"name": "text", "no_tools": true, "steps": [{"text": "one"}, {"text": "two"}], "judge": [{"text": "{\"ok\": false, \"reason\": \"not yet\"}"}]}]`), same)
	if err != nil || len(models) != 2 || models[0].TrainedCtx != 8192 || !models[1].NoTools {
		t.Fatalf("%+v %v", models, err)
	}
	msgs := func(roles ...string) api.ChatRequest {
		var r api.ChatRequest
		for _, role := range roles {
			r.Messages = append(r.Messages, api.Message{Role: role})
		}
		return r
	}
	for _, tc := range []struct {
		model int
		req   api.ChatRequest
		call  string
		text  string
	}{
		{0, msgs("system", "user"), "fs.read", ""},
		{0, msgs("user", "assistant", "tool"), "", "read it"},
		{0, msgs("user", "assistant", "tool", "assistant", "user"), "fs.read", ""}, // the next request starts over
		{0, msgs("user", "assistant", "tool", "assistant"), "", "done"},            // past the last step
		{1, msgs("user", "assistant", "user"), "", "two"},                          // its results are user messages
	} {
		r := models[tc.model].Respond(tc.req)
		got := strings.Join(r.Text, "")
		if tc.call != "" && (len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != tc.call) || got != tc.text {
			t.Errorf("model %d, %d messages: %+v", tc.model, len(tc.req.Messages), r)
		}
	}
	// A prompt hook's question (a request with a format) gets the judge's
	// steps in order, whatever the conversation, then ok.
	q := msgs("system", "user")
	q.Format = []byte(`{"type":"object"}`)
	for _, want := range []string{`{"ok": false, "reason": "not yet"}`, `{"ok": true, "reason": ""}`} {
		if got := strings.Join(models[1].Respond(q).Text, ""); got != want {
			t.Errorf("judged %q, want %q", got, want)
		}
	}
	if got := strings.Join(models[1].Respond(msgs("user")).Text, ""); got != "one" {
		t.Errorf("the steps after a question: %q", got)
	}
}
