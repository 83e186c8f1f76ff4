package model

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// TestUnreadableReplies: replies the official client cannot decode get
// errors a user understands, not the decoder's words alone.
func TestUnreadableReplies(t *testing.T) {
	done := `{"model":"m","message":{"role":"assistant","content":""},"done":true}` + "\n"
	tests := []struct {
		name, line, want string
	}{
		{"arguments a string", `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"fs.read","arguments":"{\"path\": "}}]},"done":false}`, "arguments are not a JSON object"},
		{"arguments a list", `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"fs.read","arguments":[1,2]}}]},"done":false}`, "arguments are not a JSON object"},
		{"line over the limit", `{"model":"m","message":{"role":"assistant","content":"` + strings.Repeat("a", 9<<20) + `"},"done":false}`, "over the client's 8 MB limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				_, _ = w.Write([]byte(tt.line + "\n" + done))
			}))
			defer srv.Close()
			c, err := New(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Chat(context.Background(), &api.ChatRequest{Model: "m"}, func(api.ChatResponse) error { return nil })
			if !errors.Is(err, ErrBadReply) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}
