package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// scripted is one model of a -script file: its answers to a request, one
// step per model call since the request's last user message.
type scripted struct {
	Name       string `json:"name"`
	TrainedCtx int    `json:"trained_ctx"`
	NoTools    bool   `json:"no_tools"` // its template has no tool calling (gemma3): calls come as text
	Vision     bool   `json:"vision"`   // it can see images (/api/show lists "vision")
	Thinks     bool   `json:"thinks"`   // it thinks (/api/show lists "thinking"); "think": false gets no thinking
	// Parameters are its Modelfile's, as /api/show gives them ("temperature    0.6" a line).
	Parameters string `json:"parameters"`
	Steps      []step `json:"steps"`
	// Judge answers the requests that carry a format (a prompt hook's
	// question), one step each in order, outside the steps' count; past
	// the last, {"ok": true, "reason": ""}.
	Judge []step `json:"judge"`
}

// step is one answer: text, thinking, tool calls, or an HTTP error. In
// its text, {images} is how many images the request carried (what a
// test of attachments checks reached the server).
type step struct {
	Text     string            `json:"text"`
	Thinking string            `json:"thinking"`
	Calls    []ollamatest.Call `json:"calls"`
	Status   int               `json:"status"`
	Error    string            `json:"error"`
}

// loadScript reads a -script file: a JSON list of models, each with the
// steps it answers a request with. Past the last step a model says "done".
func loadScript(path string, delay func(ollamatest.Reply) ollamatest.Reply) ([]ollamatest.Model, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the script: %w", err)
	}
	var models []scripted
	if err := json.Unmarshal(raw, &models); err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	out := make([]ollamatest.Model, 0, len(models))
	for _, m := range models {
		if m.Name == "" {
			return nil, fmt.Errorf("script %s: a model without a name", path)
		}
		var mu sync.Mutex
		judged := 0
		out = append(out, ollamatest.Model{Name: m.Name, TrainedCtx: m.TrainedCtx, NoTools: m.NoTools, Vision: m.Vision, Thinks: m.Thinks, Parameters: m.Parameters, Respond: func(req api.ChatRequest) ollamatest.Reply {
			if len(req.Format) > 0 {
				mu.Lock()
				defer mu.Unlock()
				judged++
				if judged > len(m.Judge) {
					return delay(ollamatest.Text(`{"ok": true, "reason": ""}`))
				}
				return delay(m.Judge[judged-1].reply(req))
			}
			return delay(m.answer(req))
		}})
	}
	return out, nil
}

// answer picks the step for how many times the model answered since the
// request's last user message (for a model without tool calling, whose
// tool results come back as user messages: in the whole conversation).
func (m scripted) answer(req api.ChatRequest) ollamatest.Reply {
	n := 0
	for i := len(req.Messages) - 1; i >= 0 && (m.NoTools || req.Messages[i].Role != "user"); i-- {
		if req.Messages[i].Role == "assistant" {
			n++
		}
	}
	if n >= len(m.Steps) {
		return ollamatest.Text("done")
	}
	return m.Steps[n].reply(req)
}

// reply is the step as an answer to req.
func (s step) reply(req api.ChatRequest) ollamatest.Reply {
	r := ollamatest.Reply{ToolCalls: s.Calls, Status: s.Status, Error: s.Error}
	if s.Text != "" {
		images := 0
		for _, msg := range req.Messages {
			images += len(msg.Images)
		}
		r.Text = []string{strings.ReplaceAll(s.Text, "{images}", strconv.Itoa(images))}
	}
	if s.Thinking != "" {
		r.Thinking = []string{s.Thinking}
	}
	return r
}
