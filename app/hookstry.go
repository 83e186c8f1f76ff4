package app

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/model"
)

// HookSample is what TryHook hands a hook: a call, a request, an answer,
// in a workspace. Empty fields take TryHook's defaults.
type HookSample struct {
	Workspace string `json:"workspace"`
	Tool      string `json:"tool"`   // default: the first of hooksamples.json's calls the hook applies to
	Args      string `json:"args"`   // the call's arguments, JSON; default {"command": "ls"}
	Text      string `json:"text"`   // the request
	Answer    string `json:"answer"` // the model's answer, for pre-run-end
	Output    string `json:"output"` // the call's output, for post-tool-call
}

// sampleArgs are a sample call's arguments when neither the user nor
// hooksamples.json gives any.
const sampleArgs = `{"command": "ls"}`

// HookTrial is what a hook did with a sample: what Shrimp makes of its
// answer ("denies the call of shell.run: …"), and notes (an exit status
// that blocks nothing, an answer that cannot be read).
type HookTrial struct {
	Says  string   `json:"says"`
	Notes []string `json:"notes"`
}

//go:embed hooksamples.json
var hookSamplesJSON []byte

// hookSamples are the calls TryHook hands a tool-call hook given no tool.
var hookSamples = sync.OnceValue(func() (v struct {
	Calls []struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	} `json:"calls"`
}) {
	if err := json.Unmarshal(hookSamplesJSON, &v); err != nil {
		panic("app: hooksamples.json: " + err.Error())
	}
	return v
})

// sampleEvent is the data of a sample of an observing hook's event: a
// call you are asked about, a run's end (failed, for a Claude Code
// StopFailure hook), else none.
func sampleEvent(h hooks.Hook, s HookSample) any {
	switch agent.Type(h.Event) {
	case approval.TypeRequested:
		return approval.Request{ID: "try_1", Tool: s.Tool, Arguments: json.RawMessage(cmp.Or(s.Args, sampleArgs)), Workspace: s.Workspace, Asked: true, Shown: cmp.Or(s.Args, sampleArgs)}
	case agent.TypeRunEnded:
		if h.Claude == "StopFailure" {
			return agent.RunEnded{Status: agent.StatusError, Error: "Ollama is not running (a sample)"}
		}
		return agent.RunEnded{Status: agent.StatusResponded, Turns: 1}
	}
	return map[string]any{}
}

// TryHook runs one hook of hooks.json once on a sample of its event and
// says what Shrimp makes of its answer, so a hook that exits 1 where its
// author meant 2, or prints an answer Shrimp does not read, is found
// before a real run depends on it. The hook runs as it would in a run
// (its command, in the workspace, with its timeout), switched off or not.
func (a *App) TryHook(ctx context.Context, id string, s HookSample) (HookTrial, error) {
	out := HookTrial{Notes: []string{}}
	cfg, err := a.Hooks.Current()
	if err != nil {
		return out, err
	}
	i := slices.IndexFunc(cfg.Hooks, func(k hooks.Hook) bool { return k.ID == id })
	if i < 0 {
		return out, fmt.Errorf("no hook %q (see `shrimp hooks list`)", id)
	}
	h := cfg.Hooks[i]
	if h.Disabled {
		out.Notes = append(out.Notes, fmt.Sprintf("hook %s is switched off; it was tried all the same", id))
		h.Disabled = false
	}
	if s.Tool == "" && hooks.ToolEvent(h.Event) { // the first sample call the hook applies to
		s.Tool = "shell.run"
		for _, c := range hookSamples().Calls {
			if h.Applies(c.Tool) {
				s.Tool, s.Args = c.Tool, cmp.Or(s.Args, string(c.Args))
				break
			}
		}
	}
	s.Tool = cmp.Or(s.Tool, "shell.run") // an approval:requested hook's sample asks about it too
	args := json.RawMessage(cmp.Or(strings.TrimSpace(s.Args), sampleArgs))
	if !json.Valid(args) {
		return out, fmt.Errorf("the call's arguments %q are not JSON: give them as the model would, such as {\"command\": \"ls\"}", s.Args)
	}
	if s.Workspace == "" {
		if s.Workspace, err = os.UserHomeDir(); err != nil {
			return out, err
		}
	}
	s.Text, s.Answer = cmp.Or(s.Text, "try this hook"), cmp.Or(s.Answer, "Done.")
	if h.Prompt != "" { // asked of the model a request would use
		m, err := a.ResolveModel(ctx)
		if err != nil {
			return out, fmt.Errorf("a prompt hook asks the model, and none can be chosen: %w", err)
		}
		n, _ := a.Store.NumCtx(ctx, m)
		asked := len(out.Notes)
		out.Notes = append(out.Notes, fmt.Sprintf("asked of %s", m))
		ctx = hooks.WithJudge(ctx, a.judge(ctx, m, cmp.Or(n, agent.DefaultNumCtx), a.thinking(model.ThinkDefault).Value(), func(j HookJudged) {
			out.Notes[asked] = fmt.Sprintf("asked of %s: %d tokens in, %d out, %.1f s (a request pays this each time the hook runs)", m, j.PromptTokens, j.CompletionTokens, float64(j.DurationMS)/1000)
		}))
	}
	dir, err := os.MkdirTemp("", "shrimp-hook-try-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, hooks.FileName)
	if err := (hooks.Config{Hooks: []hooks.Hook{h}}).Save(file); err != nil {
		return out, err
	}
	hs := &hooks.Hooks{File: file}
	call := hooks.ToolCall{Workspace: s.Workspace, ID: "try_1", Tool: s.Tool, Arguments: args}
	says := func(format string, v ...any) string {
		return fmt.Sprintf("hook %s (%s) %s", id, h.On(), fmt.Sprintf(format, v...))
	}
	var notes []string
	switch {
	case hooks.ToolEvent(h.Event) && !hs.Apply(h.Event, s.Tool):
		out.Says = says("does not run on a call of %s: its tool pattern %q does not select it (try another tool)", s.Tool, h.Tool)
	case h.Event == hooks.PreToolCall:
		reason, verdict, said := hs.PreToolCall(ctx, call)
		notes = said
		switch verdict {
		case approval.HookDeny:
			out.Says = says("denies the call of %s: %s", s.Tool, reason)
		case approval.HookAsk:
			out.Says = says("puts the call of %s to you: %s", s.Tool, reason)
		default:
			out.Says = says("lets the call of %s go on to the approval mode", s.Tool)
		}
	case h.Event == hooks.PostToolCall:
		r := hs.PostToolCall(ctx, hooks.ToolDone{ToolCall: call, Output: s.Output})
		notes = r.Failures
		switch {
		case r.Stop != "":
			out.Says = says("ends the run once the call of %s is recorded: %s", s.Tool, r.Stop)
		case r.Replaced != "":
			out.Says = says("hides the call's result from the model, which reads instead:\n%s", strings.TrimSpace(r.Replaced+"\n\n"+r.Feedback))
		case r.Feedback != "":
			out.Says = says("adds for the model, after the call's result:\n%s", r.Feedback)
		default:
			out.Says = says("adds nothing for the model after the call of %s", s.Tool)
		}
	case h.Event == hooks.SessionStart:
		b, when := hooks.Begin{Workspace: s.Workspace, Source: "startup"}, "a new session"
		if !h.Applies(b.Source) {
			b.Source, when = "resume", "a session taken up again"
		}
		// A file of its own for what it exports, read back, then gone.
		if dir, err := os.MkdirTemp("", "shrimp-hook-try-"); err == nil {
			defer os.RemoveAll(dir)
			b.EnvFile = filepath.Join(dir, "env.sh")
			_ = os.WriteFile(b.EnvFile, nil, 0o600)
		}
		added, said := hs.SessionStart(ctx, b)
		notes = said
		if added != "" {
			out.Says = says("adds this context for the model, for each request of %s:\n%s", when, added)
		} else {
			out.Says = says("adds nothing for the model at the start of %s", when)
		}
		if env, _ := os.ReadFile(b.EnvFile); b.EnvFile != "" && len(bytes.TrimSpace(env)) > 0 {
			out.Says += fmt.Sprintf("\nand gives the session's shell commands this environment (CLAUDE_ENV_FILE):\n%s", a.Recorder.RedactText(strings.TrimSpace(string(env))))
		}
	case h.Event == hooks.PreRequest:
		added, stopped, said := hs.PreRequest(ctx, hooks.Request{Workspace: s.Workspace, Text: s.Text})
		notes = said
		switch {
		case stopped != "":
			out.Says = says("stops the request: %s", stopped)
		case added != "":
			out.Says = says("lets the request go on, with this context for the model:\n%s", added)
		default:
			out.Says = says("lets the request go on, adding nothing")
		}
	case h.Event == hooks.PreRunEnd:
		more, said := hs.PreRunEnd(ctx, hooks.RunEnd{Workspace: s.Workspace, Request: s.Text, Answer: s.Answer, ToolCalls: 1})
		notes = said
		if more != "" {
			out.Says = says("sends the model back to work, telling it:\n%s", more)
		} else {
			out.Says = says("lets the run end with the answer")
		}
	default:
		// An observing hook: a sample of its event (a question put to you,
		// a run's end), else the event with no data.
		e := agent.Event{Session: "try", Type: agent.Type(h.Event), Time: time.Now().UTC(), Data: sampleEvent(h, s)}
		o := &hooks.Observer{Hooks: hs, Dir: s.Workspace, Workspace: func(context.Context, string) string { return s.Workspace }}
		switch err := o.Handle(ctx, e); {
		case !h.Observes(e):
			out.Says = says("does not run on this sample of %s", h.Event)
		case err != nil:
			out.Says = says("fails: %v", err)
		default:
			out.Says = says("ran on a sample %s event, and succeeded", h.Event)
		}
	}
	out.Notes = append(out.Notes, notes...)
	return out, nil
}
