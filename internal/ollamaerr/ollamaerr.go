// Package ollamaerr says what Ollama's error answers mean, across its
// versions and the backends behind them, for the packages that act on
// them (the model client words the error; the agent loop fits a prompt
// again).
package ollamaerr

import (
	"errors"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// tooLong are how Ollama says a prompt is longer than the context window
// when a request asks it not to cut the prompt (truncate false): v0.24.0's
// runners ("the input length exceeds the context length"), and the
// llama-server behind later versions ("request (4476 tokens) exceeds the
// available context size (4096 tokens)").
var tooLong = []string{"input length exceeds the context length", "exceeds the available context size"}

// PromptTooLong reports whether msg, an error message of Ollama's, says
// the prompt did not fit the context window.
func PromptTooLong(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range tooLong {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// TooLong reports whether err is Ollama refusing a prompt longer than the
// context window, as it does for a request sent with truncate false;
// without it, Ollama drops the prompt's oldest messages, and then its
// tokens, with no word to the caller.
func TooLong(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && PromptTooLong(se.ErrorMessage)
}

// Refused reports whether err is Ollama refusing the request itself (HTTP
// 400), in whatever words: a later Ollama may word a prompt too long
// otherwise, so a caller sends such a request once more letting Ollama
// cut the prompt, as it did before Shrimp asked it not to.
func Refused(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == http.StatusBadRequest
}
