package agent

import (
	"encoding/json"

	"github.com/shrimp-harness/shrimp/backend/attach"
)

// RunStarted is the data of [TypeRunStarted].
type RunStarted struct {
	Model string `json:"model"`
	Text  string `json:"text"` // the user's request
	// Images attached to the request (their data is in the history).
	Images []attach.Image `json:"images,omitempty"`
	// Options are the Ollama options the request set beside num_ctx (the
	// user's sampling settings for the model); none: the model's own.
	Options map[string]any `json:"options,omitempty"`
}

// Delta is the data of [TypeThinking] and [TypeToken]: streamed text,
// batched so that one event carries a readable piece rather than a token.
type Delta struct {
	Text string `json:"text"`
}

// ToolCall is the data of [TypeToolCall].
type ToolCall struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	TurnTokens int             `json:"turn_tokens,omitempty"` // completion tokens of the model turn (Ollama's count), on its first call
}

// ToolResult is the data of [TypeToolResult]. Error is empty on success.
type ToolResult struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Output     string `json:"output"`
	Error      string `json:"error"`
	DurationMS int64  `json:"duration_ms"`
	Denied     bool   `json:"denied,omitempty"`    // the approval gate refused it
	Truncated  int    `json:"truncated,omitempty"` // bytes cut from Output
	Handle     string `json:"handle,omitempty"`    // where the whole output is kept (tool.output.read)
	// Malformed: the call named no tool that exists, or arguments its
	// schema refuses, so nothing ran (a step of no method).
	Malformed bool `json:"malformed,omitempty"`
	// Repeated: the call gave what the same call gave earlier in the run,
	// while that result was in the model's view (circles.go), or it was
	// the same call as one before it in the same reply and was not run:
	// it told the model nothing new.
	Repeated bool `json:"repeated,omitempty"`
	// Refetched: the call gave what the same call gave earlier in the
	// run, after that result was left out of the model's view to fit its
	// context: the model had lost it, and called again to see it.
	Refetched bool `json:"refetched,omitempty"`
	// Images the call showed the model (fs.read of a picture, for a model
	// that can see); their data goes with the result's message, not the
	// event.
	Images []attach.Image `json:"images,omitempty"`
}

// Step reports whether the call is a step of the run's method, as the
// learner and the run's measures count it: it ran (not malformed) and
// told the model something it had not been given in the run (not
// repeated, nor refetched: a model with a larger context would not have
// called again).
func (r ToolResult) Step() bool { return !r.Malformed && !r.Repeated && !r.Refetched }

// Response is the data of [TypeResponse]: the model's final answer.
type Response struct {
	Text   string `json:"text"`
	Tokens int    `json:"tokens"` // completion tokens of the answer (Ollama's count)
}

// SentBack is the data of [TypeSentBack]: what the model is told, as a
// message of the conversation, after its answer; Time is how many times
// this run was sent back, this one included.
type SentBack struct {
	Text string `json:"text"`
	Time int    `json:"time"`
}

// Error kinds.
const (
	KindError   = "error"   // the run stops
	KindWarning = "warning" // the run goes on
)

// Error is the data of [TypeError].
type Error struct {
	Message string `json:"message"` // a sentence saying what happened and what to do
	Kind    string `json:"kind"`    // KindError or KindWarning
}

// Run outcomes, in [RunEnded].Status.
const (
	StatusResponded = "responded" // the model answered
	StatusError     = "error"     // a guard or a failure stopped the run
	StatusCancelled = "cancelled" // the caller cancelled
	// StatusInterrupted: the process ended (closed, killed, crashed) before
	// the run did. Nothing in the loop says it; the session runner records
	// it for a run it finds unended the next time the session is opened.
	StatusInterrupted = "interrupted"
)

// Usage is token accounting summed over a run's model calls.
type Usage struct {
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	EvalMS           int64 `json:"eval_ms"`            // time spent generating
	PromptMS         int64 `json:"prompt_ms"`          // time spent reading the prompt
	Calls            int   `json:"calls"`              // model calls made
	LastPrompt       int   `json:"last_prompt_tokens"` // prompt tokens of the last call: the context fill
	NumCtx           int   `json:"num_ctx"`            // the context size the calls were made with
}

// ModelLoading is the data of [TypeModelLoading], yielded before the
// model call that will wait for the load.
type ModelLoading struct {
	Model string `json:"model"`
	// Loaded is the context size the model is in memory with, when it is
	// loaded again for NumCtx; 0 when it is not in memory.
	Loaded int `json:"loaded,omitempty"`
	NumCtx int `json:"num_ctx"`
}

// ModelLoaded is the data of [TypeModelLoaded]: after a model call that
// loaded the model (announced, or taking a second or more unannounced:
// the turn's wait is explained), Ollama's own load time for the call (0
// when the model was ready before it: loaded by a summary the context's
// fitting asked for, or kept by Ollama at the size it gives).
type ModelLoaded struct {
	Model   string  `json:"model"`
	Seconds float64 `json:"seconds"`
}

// RunEnded is the data of [TypeRunEnded], always the last event of a run.
type RunEnded struct {
	Status    string `json:"status"`
	Error     string `json:"error,omitempty"`
	Model     string `json:"model"`
	Turns     int    `json:"turns"`
	ToolCalls int    `json:"tool_calls"`
	Malformed int    `json:"malformed"` // calls of unknown tools or with invalid arguments
	Denied    int    `json:"denied"`
	// Repeated counts calls that gave what the same call had given
	// earlier in the run (digits aside), or were not run as a copy of a
	// call of the same reply: calls that told the model nothing new.
	Repeated int `json:"repeated,omitempty"`
	// Refetched counts calls that gave what the same call had given
	// before it was left out of the model's view to fit its context:
	// calls a larger context would have spared.
	Refetched int   `json:"refetched,omitempty"`
	Usage     Usage `json:"usage"`
}

// EndRun is the error a tool's Run returns to end the run once the
// call's result is recorded and shown: a hook run after the call said to
// stop (Claude Code's and Gemini CLI's "continue": false). Err is the
// call's own error, nil when it succeeded; the run ends with an error
// saying Reason.
type EndRun struct {
	Reason string
	Err    error
}

func (e *EndRun) Error() string { return e.Reason }

// Unwrap is the call's own error.
func (e *EndRun) Unwrap() error { return e.Err }
