package ollamaerr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ollama/ollama/api"
)

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

func TestTooLongAndRefused(t *testing.T) {
	tooLong := api.StatusError{StatusCode: 400, ErrorMessage: "the input length exceeds the context length"}
	other := api.StatusError{StatusCode: 400, ErrorMessage: "invalid image index: 3"}
	crashed := api.StatusError{StatusCode: 500, ErrorMessage: "the input length exceeds the context length"}
	for _, tt := range []struct {
		err              error
		tooLong, refused bool
	}{
		{tooLong, true, true},
		{fmt.Errorf("the model could not answer: %w", tooLong), true, true},
		{other, false, true},
		{crashed, true, false}, // the words count, whatever the status
		{errors.New("the input length exceeds the context length"), false, false},
		{nil, false, false},
	} {
		if got, ref := TooLong(tt.err), Refused(tt.err); got != tt.tooLong || ref != tt.refused {
			t.Errorf("%v: TooLong %v, Refused %v; want %v, %v", tt.err, got, ref, tt.tooLong, tt.refused)
		}
	}
}
