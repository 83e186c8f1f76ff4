package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/hooks"
)

// judgeSystem is what the model is told when it answers a prompt hook.
const judgeSystem = `You check a condition for a hook of a coding agent. You are given the user's condition and the event it is about, as JSON (the user's request, the agent's answer, a tool call). Decide whether the condition holds. Answer with one JSON object and nothing else: {"ok": true, "reason": ""} when it holds, {"ok": false, "reason": "…"} when it does not, the reason saying to the agent what is missing or wrong.`

// judgeFormat is the answer's JSON schema (Ollama's structured output).
var judgeFormat = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"},"reason":{"type":"string"}},"required":["ok","reason"]}`)

// judge answers prompt hooks (hooks.Judge) with modelName, at the context
// size the request's run uses (another num_ctx would make Ollama load the
// model again) and thinking as the request does (think), its output held
// to the answer's schema. What it writes is bounded by the hook's timeout
// and the model's own num_predict, not by one sent here: the schema ends
// an answer at its closing brace, and a cap would cut a thinking model's
// thinking (it counts) before the answer. (The real tier's scripted
// model, which ignores the schema, wrote 1,024 tokens in 30 s with such
// a cap, and stopped at its own 48 without.)
func (a *App) judge(modelName string, numCtx int, think *api.ThinkValue) hooks.Judge {
	return func(ctx context.Context, question string) (string, error) {
		stream := false
		req := &api.ChatRequest{Model: modelName, Stream: &stream, Format: judgeFormat, Think: think,
			Messages: []api.Message{{Role: "system", Content: judgeSystem}, {Role: "user", Content: question}},
			Options:  map[string]any{"num_ctx": numCtx, "temperature": 0}}
		var out strings.Builder
		if err := a.Model.Chat(ctx, req, func(r api.ChatResponse) error {
			out.WriteString(r.Message.Content)
			return nil
		}); err != nil {
			return "", fmt.Errorf("%s could not answer: %w", modelName, err)
		}
		return out.String(), nil
	}
}
