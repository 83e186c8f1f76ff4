package ollamaerr

import "testing"

func TestPromptTooLong(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{"the input length exceeds the context length", true},                                     // v0.24.0's runners
		{"request (4476 tokens) exceeds the available context size (4096 tokens)", true},          // llama-server
		{"the request exceeds the available context size, try increasing it", true},               // llama-server, older
		{"registry.ollama.ai/library/m does not support tools", false},                            // another 400
		{"invalid image index: 3", false},                                                         // another 400
		{"model runner has unexpectedly stopped, this may be due to resource limitations", false}, // a 500
		{"", false},
	} {
		if got := PromptTooLong(tt.msg); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.msg, got, tt.want)
		}
	}
}
