package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/ollamaerr"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// TypeToolSampled is published when a tool's server had the run's model
// write a reply for it (MCP sampling); its data is a ToolSampled.
const TypeToolSampled agent.Type = "tool:sampled"

// ToolSampled is the data of TypeToolSampled: what the model was lent for
// (never the texts, which went to the server).
type ToolSampled struct {
	ID     string `json:"id"` // the tool call's
	Server string `json:"server"`
	ModelUse
	StopReason string `json:"stop_reason"`
}

// ModelUse is what a use of the run's model beside the loop's own cost
// (a server's sampling, a prompt hook's question): the session's and the
// model's token totals and the run's measures count it.
type ModelUse struct {
	Model            string `json:"model"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	DurationMS       int64  `json:"duration_ms"`
	EvalMS           int64  `json:"eval_ms"` // of DurationMS, the time spent generating
}

// modelUse is what model's answer last (its done chunk) cost, asked at
// start.
func modelUse(model string, last api.ChatResponse, start time.Time) ModelUse {
	return ModelUse{Model: model, PromptTokens: last.PromptEvalCount, CompletionTokens: last.EvalCount,
		DurationMS: time.Since(start).Milliseconds(), EvalMS: last.EvalDuration.Milliseconds()}
}

// usage is u as the usage tracker adds it.
func (u ModelUse) usage() agent.Usage {
	return agent.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, EvalMS: u.EvalMS, Calls: 1}
}

// extraUsage is what a use of the run's model beside the loop's own cost
// (a server's sampling, tool:sampled; a prompt hook's question,
// hook:judged): the session's and the model's token totals count it
// (usage.Tracker.Extra).
func extraUsage(e agent.Event) (string, agent.Usage, bool) {
	var u ModelUse
	var ok bool
	switch d := e.Data.(type) {
	case ToolSampled:
		u, ok = d.ModelUse, e.Type == TypeToolSampled
	case HookJudged:
		u, ok = d.ModelUse, e.Type == TypeHookJudged
	}
	if !ok {
		return "", agent.Usage{}, false
	}
	return u.Model, u.usage(), true
}

// sampleShown is how much of each text a sampling question shows.
const sampleShown = 2000

// sampler lends a run's model to its MCP tools' requests for it (a
// server's sampling, backend/mcp/sample.go). The approval mode decides as
// for a call that is not read-only: none refuses, all lends, ask and read
// ask the user through the call's Asker (canAsk false, nobody there:
// refused, saying how to allow it). The model gets the server's conversation alone, no
// tools, the run's context size (another would make Ollama load the model
// again) and thinking, the run's sampling settings (params) with the
// server's temperature and stop words over them; it writes at most the
// tokens asked. A tool:sampled event says what it cost.
func (a *App) sampler(mode approval.Mode, canAsk bool, modelName string, params model.Params, numCtx int, think *api.ThinkValue, emit func(context.Context, agent.Type, any) error) tool.Sampler {
	return func(ctx context.Context, r tool.SampleRequest) (tool.SampleResult, error) {
		switch mode {
		case approval.ModeNone:
			return tool.SampleResult{}, errors.New("the approval mode is none: no server may use the model")
		case approval.ModeAll:
		default:
			ask := tool.AskerOf(ctx)
			if ask == nil || !canAsk {
				return tool.SampleResult{}, errors.New("nobody can be asked whether the server may use the model (no terminal); with --approve all it may")
			}
			ans, err := ask(ctx, tool.Question{Message: sampleQuestion(modelName, r), Fields: []tool.Field{}, Sample: true})
			if err != nil || ans.Action != tool.Accept {
				return tool.SampleResult{}, errors.New("the user did not let the server use the model")
			}
		}
		msgs := make([]api.Message, 0, len(r.Messages)+1)
		if r.System != "" {
			msgs = append(msgs, api.Message{Role: "system", Content: r.System})
		}
		for _, m := range r.Messages {
			msgs = append(msgs, api.Message{Role: m.Role, Content: m.Text})
		}
		opts := params.Options()
		opts["num_ctx"], opts["num_predict"] = numCtx, r.MaxTokens
		if r.Temperature != nil {
			opts["temperature"] = *r.Temperature
		}
		if len(r.Stop) > 0 {
			opts["stop"] = r.Stop
		}
		stream, refuse := false, false
		start := time.Now()
		var text strings.Builder
		var last api.ChatResponse
		// Ollama is asked to refuse a conversation longer than the
		// context window rather than answer it without its start unseen;
		// refused in words that do not say so, it is asked again letting
		// Ollama cut, as before.
		req := &api.ChatRequest{Model: modelName, Messages: msgs, Stream: &stream, Options: opts, Think: think, Truncate: &refuse}
		chat := func() error {
			text.Reset()
			return a.Model.Chat(ctx, req, func(resp api.ChatResponse) error {
				text.WriteString(resp.Message.Content)
				last = resp
				return nil
			})
		}
		err := chat()
		if err != nil && !ollamaerr.TooLong(err) && ollamaerr.Refused(err) {
			req.Truncate = nil
			err = chat()
		}
		if ollamaerr.TooLong(err) {
			return tool.SampleResult{}, fmt.Errorf("the conversation is longer than %s's context window (num_ctx %d) by Ollama's count, so the model would not see its start; send a shorter one, or ask the user to raise the context size for this model (Settings)", modelName, numCtx)
		}
		if err != nil {
			return tool.SampleResult{}, fmt.Errorf("the model could not answer the server: %w", err)
		}
		stop := "endTurn"
		if last.DoneReason == "length" {
			stop = "maxTokens"
		}
		_ = emit(context.WithoutCancel(ctx), TypeToolSampled, ToolSampled{ID: agent.CallID(ctx), Server: r.Server, ModelUse: modelUse(modelName, last, start), StopReason: stop})
		return tool.SampleResult{Model: modelName, Text: strings.TrimSpace(text.String()), StopReason: stop}, nil
	}
}

// sampleQuestion is what the user is asked before a server uses the
// model: which model, for how long a reply, where the reply goes, and
// the conversation (each text cut at sampleShown characters).
func sampleQuestion(modelName string, r tool.SampleRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The MCP server %q asks to use %s to write a reply of at most %d tokens to the conversation below. The reply goes back to the server, not into this chat; nothing of this chat is sent with it.\n", r.Server, modelName, r.MaxTokens)
	shown := func(s string) string {
		if len(s) <= sampleShown {
			return s
		}
		cut := s[:textcut.Before(s, sampleShown)]
		return fmt.Sprintf("%s… (%d more bytes)", cut, len(s)-len(cut))
	}
	if r.System != "" {
		fmt.Fprintf(&b, "\nInstructions (the server's):\n%s\n", shown(r.System))
	}
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "\n%s:\n%s\n", m.Role, shown(m.Text))
	}
	return strings.TrimRight(b.String(), "\n")
}
