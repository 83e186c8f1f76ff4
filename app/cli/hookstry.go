package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/hooks"
)

// trySample is what `hooks try` hands a hook: a call, a request, an
// answer, in a workspace.
type trySample struct {
	workspace string
	tool      string // "" for the event's usual one
	args      string // JSON
	text      string // the request
	answer    string
	output    string // the call's, for post-tool-call
}

// tryHook runs one hook once on a sample of its event and says what
// Shrimp makes of its answer, so a hook that exits 1 where its author
// meant 2, or prints an answer Shrimp does not read, is found before a
// real run depends on it. The hook runs as it would in a run (its
// command, in the workspace, with its timeout), disabled or not.
func tryHook(ctx context.Context, e *env, cfg hooks.Config, id string, s trySample) error {
	var h hooks.Hook
	found := false
	for _, k := range cfg.Hooks {
		if k.ID == id {
			h, found = k, true
		}
	}
	if !found {
		return fmt.Errorf("no hook %q (see `shrimp hooks list`)", id)
	}
	if h.Disabled {
		fmt.Fprintf(e.stderr, "note: hook %s is switched off; it is tried all the same\n", id)
		h.Disabled = false
	}
	args := json.RawMessage(s.args)
	if !json.Valid(args) {
		return fmt.Errorf("%w: --args %q is not JSON (give the call's arguments: '{\"command\": \"ls\"}')", errUsage, s.args)
	}
	dir, err := os.MkdirTemp("", "shrimp-hook-try-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, hooks.FileName)
	if err := (hooks.Config{Hooks: []hooks.Hook{h}}).Save(file); err != nil {
		return err
	}
	hs := &hooks.Hooks{File: file}
	call := hooks.ToolCall{Workspace: s.workspace, ID: "try_1", Tool: s.tool, Arguments: args}
	say := func(format string, a ...any) {
		fmt.Fprintf(e.stdout, "hook %s (%s) %s\n", id, h.On(), fmt.Sprintf(format, a...))
	}
	var notes []string
	switch {
	case hooks.ToolEvent(h.Event) && !hs.Apply(h.Event, s.tool):
		say("does not run on a call of %s: its tool pattern %q does not select it (try another with --tool)", s.tool, h.Tool)
	case h.Event == hooks.PreToolCall:
		reason, verdict, said := hs.PreToolCall(ctx, call)
		notes = said
		switch verdict {
		case approval.HookDeny:
			say("denies the call of %s: %s", s.tool, reason)
		case approval.HookAsk:
			say("puts the call of %s to you: %s", s.tool, reason)
		default:
			say("lets the call of %s go on to the approval mode", s.tool)
		}
	case h.Event == hooks.PostToolCall:
		feedback, failures := hs.PostToolCall(ctx, hooks.ToolDone{ToolCall: call, Output: s.output})
		notes = failures
		if feedback != "" {
			say("adds for the model, after the call's result:\n%s", feedback)
		} else {
			say("adds nothing for the model after the call of %s", s.tool)
		}
	case h.Event == hooks.PreRequest:
		added, stopped, said := hs.PreRequest(ctx, hooks.Request{Workspace: s.workspace, Text: s.text})
		notes = said
		switch {
		case stopped != "":
			say("stops the request: %s", stopped)
		case added != "":
			say("lets the request go on, with this context for the model:\n%s", added)
		default:
			say("lets the request go on, adding nothing")
		}
	case h.Event == hooks.PreRunEnd:
		more, said := hs.PreRunEnd(ctx, hooks.RunEnd{Workspace: s.workspace, Request: s.text, Answer: s.answer, ToolCalls: 1}, nil)
		notes = said
		if more != "" {
			say("sends the model back to work, telling it:\n%s", more)
		} else {
			say("lets the run end with the answer")
		}
	default:
		// An observing hook: its event with no data, as a run would
		// publish it bare.
		o := &hooks.Observer{Hooks: hs, Dir: s.workspace, Workspace: func(context.Context, string) string { return s.workspace }}
		if _, err := hs.Current(); err != nil {
			return err
		}
		if err := o.Handle(ctx, agent.Event{Session: "try", Type: agent.Type(h.Event), Time: time.Now().UTC(), Data: map[string]any{}}); err != nil {
			say("fails: %v", err)
		} else {
			say("ran on a bare %s event, and succeeded", h.Event)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "note: %s\n", strings.TrimPrefix(n, "hook: "))
	}
	return nil
}
