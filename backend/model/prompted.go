package model

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
)

// Many chat models Ollama serves have no tool calling in their template
// (gemma3 and gemma2, phi3, the first deepseek-r1 tags, older mistral and
// llama2 builds): sent tools, Ollama answers 400 "… does not support
// tools". Such a model can still call tools the way harnesses did before
// templates could (goose's tool shim, many agents' ReAct prompts): the
// tools are described in the system prompt with the form a call takes, the
// model writes its calls as text, and the text-call reader (textCalls)
// turns them into calls. The form is Hermes' <tool_call> JSON, which most
// open models saw in training (Qwen, Hermes, many fine-tunes) and which
// the reader knows. Calls and results already in the history are written
// the same way, results as the user's turn (templates without tools know
// no "tool" role).

// promptedNote is how the system prompt tells such a model to call tools.
const promptedNote = `You can call tools. To call one, write a block like this, and nothing after it:
<tool_call>
{"name": "TOOL NAME", "arguments": {"ARGUMENT": "VALUE"}}
</tool_call>
Write one block for each call. Each result comes back to you in the next message, inside <tool_response> tags. Call a tool only when you need what it does; when the task is done, answer in plain text without a block. The tools, one JSON object each:
<tools>
%s</tools>`

// prompted returns a copy of req for a model whose template has no tool
// calling: no tools field, the tools described in the system prompt, the
// history's calls and results as text.
func prompted(req *api.ChatRequest) *api.ChatRequest {
	out := *req
	out.Tools = nil
	var defs strings.Builder
	for _, t := range req.Tools {
		b, err := jsonplain.Marshal(map[string]any{"name": t.Function.Name, "description": t.Function.Description, "parameters": t.Function.Parameters}, "")
		if err != nil {
			continue
		}
		defs.Write(b)
		defs.WriteByte('\n')
	}
	note := fmt.Sprintf(promptedNote, defs.String())
	msgs := make([]api.Message, 0, len(req.Messages)+1)
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		msgs = append(msgs, api.Message{Role: "system", Content: note})
	}
	for i, m := range req.Messages {
		switch {
		case i == 0 && m.Role == "system":
			m.Content = strings.TrimRight(m.Content, "\n") + "\n\n" + note
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			var b strings.Builder
			b.WriteString(strings.TrimRight(m.Content, "\n"))
			for _, c := range m.ToolCalls {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				args := json.RawMessage(jsonplain.Plain([]byte(c.Function.Arguments.String())))
				call, _ := jsonplain.Marshal(struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}{c.Function.Name, args}, "")
				fmt.Fprintf(&b, "<tool_call>\n%s\n</tool_call>", call)
			}
			m.Content, m.ToolCalls = b.String(), nil
		case m.Role == "tool":
			result := fmt.Sprintf("<tool_response name=%q>\n%s\n</tool_response>", m.ToolName, m.Content)
			if last := len(msgs) - 1; last >= 0 && msgs[last].Role == "user" && strings.HasPrefix(msgs[last].Content, "<tool_response") {
				// The results of one turn's calls are one turn: such
				// templates expect the user and the model by turns.
				msgs[last].Content += "\n" + result
				msgs[last].Images = slices.Concat(msgs[last].Images, m.Images)
				continue
			}
			m = api.Message{Role: "user", Content: result, Images: m.Images} // a picture fs.read showed
		}
		msgs = append(msgs, m)
	}
	out.Messages = msgs
	return &out
}

// noticeKey carries a function that is told when a request is sent in a
// way the caller should hear about (WithNotice).
type noticeKey struct{}

// WithNotice returns ctx with a function Chat calls, with a sentence for
// the user, when it sends a request otherwise than asked (tools described
// in the prompt to a model without tool calling) or later (Ollama busy).
func WithNotice(ctx context.Context, notice func(msg string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, notice)
}

// notify tells ctx's notice function, if any.
func notify(ctx context.Context, msg string) {
	if f, ok := ctx.Value(noticeKey{}).(func(string)); ok && f != nil {
		f(msg)
	}
}
