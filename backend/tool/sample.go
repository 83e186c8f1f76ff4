package tool

import "context"

// A tool from another program (an MCP server's) may ask, during its
// call, for the user's model to write a reply to a conversation it gives
// (MCP's sampling): a summary, a classification, a draft. The call's
// context carries the Sampler that answers it, which decides whether the
// user allows it and runs the model; none: no model is lent.

// SampleMessage is one message of a conversation a tool asks the model
// to reply to: "user" or "assistant", and its text.
type SampleMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// SampleRequest is what a tool asks the model for. Its texts are the
// tool's (freed of hidden characters and bounded by the caller), not the
// user's.
type SampleRequest struct {
	Server      string          `json:"server"` // the MCP server asking
	System      string          `json:"system,omitempty"`
	Messages    []SampleMessage `json:"messages"`
	MaxTokens   int             `json:"max_tokens"`            // the most the reply may run to
	Temperature *float64        `json:"temperature,omitempty"` // the tool's wish; nil: the model's
	Stop        []string        `json:"stop,omitempty"`
}

// SampleResult is the model's reply.
type SampleResult struct {
	Model string `json:"model"`
	Text  string `json:"text"`
	// StopReason is why it ended: "endTurn", or "maxTokens" when it ran
	// to MaxTokens.
	StopReason string `json:"stop_reason"`
}

// Sampler lends the user's model to a tool: it asks the user (or the
// approval mode answers), runs the model and returns its reply, or says
// why not.
type Sampler func(ctx context.Context, r SampleRequest) (SampleResult, error)

type samplerKey struct{}

// WithSampler returns ctx carrying s, which a tool that asks for the
// model during its call uses.
func WithSampler(ctx context.Context, s Sampler) context.Context {
	return context.WithValue(ctx, samplerKey{}, s)
}

// SamplerOf returns ctx's Sampler, nil when no model is lent.
func SamplerOf(ctx context.Context) Sampler {
	s, _ := ctx.Value(samplerKey{}).(Sampler)
	return s
}
