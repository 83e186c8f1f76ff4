//lint:file-ignore SA1019 sampling is deprecated (SEP-2577) but served while servers ask for it, as roots are

package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shrimp-harness/shrimp/backend/injection"
	shrimptool "github.com/shrimp-harness/shrimp/backend/tool"
)

// A server may ask, during a call of one of its tools, for the user's
// model to reply to a conversation it gives (MCP's sampling; deprecated
// in protocol 2026-07-28 but served while servers ask for it, as roots
// are). The request goes to the Sampler of the call under way on that
// session (tool.WithSampler), which asks the user or follows the approval
// mode and runs the model; asked outside a call, or from a call without a
// Sampler (a listing, a check), it is refused. Only text is answered, at
// most maxSamples times a call, the server's texts freed of hidden
// characters and bounded; nothing of the chat (its history, its files) is
// included, whatever includeContext asks, and the model gets no tools.
// The call's clock stops meanwhile: a model on a CPU is not the server's
// time.

// Bounds of a sampling request.
const (
	maxSamples      = 10       // requests one call may make
	maxSampleText   = 64 << 10 // bytes of text, system prompt and messages
	maxSampleTokens = 4096     // the longest reply, whatever maxTokens asks
	maxStops        = 4        // stop sequences kept
	maxStopBytes    = 64       // bytes of one stop sequence
)

// sample answers a server's sampling/createMessage.
func (s *Session) sample(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	p := req.Params
	if p == nil || len(p.Messages) == 0 {
		return nil, errors.New("a sampling request without messages")
	}
	call := s.askers.of(ctx)
	var lend shrimptool.Sampler
	if call != nil {
		lend = shrimptool.SamplerOf(call.ctx)
	}
	if lend == nil {
		return nil, errors.New("the user's model answers a server only during a call of one of its tools in a chat")
	}
	if n := call.samples.Add(1); n > maxSamples {
		return nil, fmt.Errorf("this call already asked for the model %d times; no more are answered", maxSamples)
	}
	r, err := sampleRequest(s.name, p)
	if err != nil {
		return nil, err
	}
	// Ends with the call, or when the server stops waiting.
	actx, cancel := context.WithCancel(call.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	defer holdClock(actx)()
	res, err := lend(actx, r)
	if err != nil {
		return nil, err
	}
	return &sdk.CreateMessageResult{Model: res.Model, Role: "assistant", Content: &sdk.TextContent{Text: res.Text}, StopReason: res.StopReason}, nil
}

// sampleRequest reads a server's sampling request: text only, roles user
// and assistant, hidden characters out, bounded.
func sampleRequest(server string, p *sdk.CreateMessageParams) (shrimptool.SampleRequest, error) {
	r := shrimptool.SampleRequest{Server: server, MaxTokens: int(min(max(p.MaxTokens, 1), maxSampleTokens))}
	r.System, _ = injection.Unhide(p.SystemPrompt)
	size := len(r.System)
	for i, m := range p.Messages {
		if m == nil {
			return r, fmt.Errorf("message %d is empty", i+1)
		}
		text, ok := m.Content.(*sdk.TextContent)
		if !ok {
			return r, fmt.Errorf("message %d is not text but %s: only text is answered here", i+1, contentKind(m.Content))
		}
		if m.Role != "user" && m.Role != "assistant" {
			return r, fmt.Errorf("message %d has the role %q: only user and assistant messages are answered", i+1, m.Role)
		}
		t, _ := injection.Unhide(text.Text)
		size += len(t)
		r.Messages = append(r.Messages, shrimptool.SampleMessage{Role: string(m.Role), Text: t})
	}
	if size > maxSampleText {
		return r, fmt.Errorf("the request holds %d KiB of text, more than the %d KiB answered", size>>10, maxSampleText>>10)
	}
	if p.Temperature > 0 { // 0 is "not said" on the wire (omitempty)
		t := min(p.Temperature, 2)
		r.Temperature = &t
	}
	for _, stop := range p.StopSequences {
		if len(r.Stop) < maxStops && stop != "" && len(stop) <= maxStopBytes {
			r.Stop = append(r.Stop, stop)
		}
	}
	return r, nil
}

// contentKind names a message's content for an error.
func contentKind(c sdk.Content) string {
	switch c.(type) {
	case *sdk.ImageContent:
		return "an image"
	case *sdk.AudioContent:
		return "audio"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", c)
}
