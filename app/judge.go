package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/internal/ollamaerr"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// TypeHookJudged is published when a prompt hook had the request's model
// answer its question; its data is a HookJudged.
const TypeHookJudged agent.Type = "hook:judged"

// HookJudged is the data of TypeHookJudged: what asking the model cost
// (not the question or the answer: the hook's message says what came of
// it), counted as a tool's sampling is.
type HookJudged struct {
	Hook string `json:"hook"` // as messages name it
	ModelUse
}

// judgeSystem is what the model is told when it answers a prompt hook.
const judgeSystem = `You check a condition for a hook of a coding agent. You are given the user's condition and the event it is about, as JSON (the user's request, the agent's answer, a tool call). Decide whether the condition holds. Answer with one JSON object and nothing else: {"ok": true, "reason": ""} when it holds, {"ok": false, "reason": "…"} when it does not, the reason saying to the agent what is missing or wrong.`

// judgeFormat is the answer's JSON schema (Ollama's structured output).
var judgeFormat = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"},"reason":{"type":"string"}},"required":["ok","reason"]}`)

// judgeLoad is how much longer than its hook's timeout a question may
// take when Ollama must first load the model.
const judgeLoad = 5 * time.Minute

// judge answers prompt hooks (hooks.Judge) with modelName, at the context
// size the request's run uses (another num_ctx would make Ollama load the
// model again) and thinking as the request does (think), its output held
// to the answer's schema. What it writes is bounded by the hook's timeout
// and the model's own num_predict, not by one sent here: the schema ends
// an answer at its closing brace, and a cap would cut a thinking model's
// thinking (it counts) before the answer. (The real tier's scripted
// model, which ignores the schema, wrote 1,024 tokens in 30 s with such
// a cap, and stopped at its own 48 without.) report, when not nil, is
// told what each answer cost. A question ends when the request ends (is
// stopped), even where the hook's own context outlives it (hooks after a
// call run past the call's deadline).
func (a *App) judge(request context.Context, modelName string, numCtx int, think *api.ThinkValue, report func(HookJudged)) hooks.Judge {
	return func(ctx context.Context, hook, question string) (string, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(request, cancel)()
		// A model Ollama must load first (a pre-request hook on the first
		// request of the day) takes its load out of the hook's time: a
		// large model can take longer to load than a hook's 30 s. The
		// question then runs on the request's context, with the hook's
		// time plus judgeLoad; Stop still ends it.
		if d, ok := ctx.Deadline(); ok {
			if _, loading := a.Model.Loading(ctx, modelName, numCtx); loading {
				var cancelLoad context.CancelFunc
				ctx, cancelLoad = context.WithTimeout(request, time.Until(d)+judgeLoad)
				defer cancelLoad()
			}
		}
		// Ollama cuts a prompt longer than num_ctx from its start, where
		// the hook's condition is: the middle of the event (a long file
		// written, a long answer) goes instead, said so. About four bytes
		// a token; a quarter is left for the instructions and the answer.
		// Ollama is asked to refuse a prompt it counts longer still
		// rather than cut it (a tokenizer that counts more than the
		// estimate): the middle is cut harder, twice at most, and then
		// Ollama may cut, as it may when it refuses in other words.
		limit, cutOK := numCtx*3, false
		for round := 0; ; round++ {
			stream := false
			req := &api.ChatRequest{Model: modelName, Stream: &stream, Format: judgeFormat, Think: think,
				Messages: []api.Message{{Role: "system", Content: judgeSystem}, {Role: "user", Content: middleCut(question, limit)}},
				Options:  map[string]any{"num_ctx": numCtx, "temperature": 0}}
			if !cutOK {
				refuse := false
				req.Truncate = &refuse
			}
			start := time.Now()
			var out strings.Builder
			var last api.ChatResponse
			err := a.Model.Chat(ctx, req, func(r api.ChatResponse) error {
				out.WriteString(r.Message.Content)
				last = r
				return nil
			})
			// What the model wrote counts even when the answer came too late.
			if report != nil && (last.PromptEvalCount > 0 || last.EvalCount > 0) {
				report(HookJudged{Hook: hook, ModelUse: modelUse(modelName, last, start)})
			}
			switch {
			case err == nil:
				return out.String(), nil
			case !cutOK && ollamaerr.TooLong(err) && round < 2:
				limit = min(limit, len(question)) / 2
			case !cutOK && (ollamaerr.TooLong(err) || ollamaerr.Refused(err)):
				cutOK = true
			default:
				return "", fmt.Errorf("%s could not answer: %w", modelName, err)
			}
		}
	}
}

// middleCut leaves out the middle of a question longer than limit bytes,
// saying so.
func middleCut(question string, limit int) string {
	if len(question) <= limit {
		return question
	}
	head := question[:textcut.Before(question, limit/2)]
	tail := question[textcut.After(question, len(question)-limit/2):]
	return fmt.Sprintf("%s\n[… %d bytes left out: the event is longer than the model's context …]\n%s", head, len(question)-len(head)-len(tail), tail)
}
