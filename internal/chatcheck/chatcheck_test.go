package chatcheck

import (
	"testing"

	"github.com/ollama/ollama/api"
)

func TestWellFormed(t *testing.T) {
	call := func(ids ...string) api.Message {
		m := api.Message{Role: "assistant"}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, api.ToolCall{ID: id})
		}
		return m
	}
	result := func(id string) api.Message { return api.Message{Role: "tool", ToolCallID: id} }
	user := api.Message{Role: "user"}
	answer := api.Message{Role: "assistant", Content: "done"}
	tests := []struct {
		name string
		msgs []api.Message
		ok   bool
	}{
		{"empty", nil, true},
		{"a call answered", []api.Message{user, call("a"), result("a"), answer}, true},
		{"two calls answered out of order", []api.Message{user, call("a", "b"), result("b"), result("a"), answer}, true},
		{"ids reused by a later turn", []api.Message{user, call("a"), result("a"), call("a"), result("a"), answer}, true},
		{"a result alone", []api.Message{user, result("a"), answer}, false},
		{"a call unanswered", []api.Message{user, call("a", "b"), result("a"), answer}, false},
		{"a call answered twice", []api.Message{user, call("a"), result("a"), result("a")}, false},
		{"a result after the answer", []api.Message{user, call("a"), answer, result("a")}, false},
		{"a call at the end", []api.Message{user, call("a")}, false},
	}
	for _, tt := range tests {
		if err := WellFormed(tt.msgs); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
