package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/approval"
)

// TestImportCursor: Cursor's hooks.json (a list of commands per event,
// its own event names) becomes hooks that keep their meaning: each event
// on Shrimp's, preToolUse's matcher on Cursor's tool names, failClosed
// kept, a timeout of 1,000 or more read as milliseconds, and what
// cannot run here skipped with why.
func TestImportCursor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "cursor-hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !CursorEvents(b) || CursorEvents([]byte(`{"hooks": {"PreToolUse": [], "Stop": []}}`)) || CursorEvents([]byte(`{"hooks": {"BeforeTool": []}}`)) {
		t.Fatal("Cursor's hooks.json not told from Claude Code's or Gemini CLI's settings")
	}
	got, err := ImportCursor(b, "/bin/bash")
	if err != nil {
		t.Fatal(err)
	}
	var on []string
	for _, h := range got.Hooks {
		if !h.Cursor || h.Gemini || h.Command != "/bin/bash" || h.Check() != nil {
			t.Errorf("%+v: not a Cursor hook run by bash (%v)", h, h.Check())
		}
		on = append(on, h.Event+" "+h.Claude+" "+h.Tool)
	}
	want := []string{
		"post-tool-call afterFileEdit ", "pre-tool-call beforeMCPExecution ", "pre-tool-call beforeReadFile ",
		"pre-tool-call beforeShellExecution ", "pre-request beforeSubmitPrompt ", "post-tool-call postToolUse MCP:.*",
		"pre-tool-call preToolUse Write|StrReplace", "session-start sessionStart ", "pre-run-end stop ",
	}
	if !slices.Equal(on, want) {
		t.Fatalf("hooks\n %q\nwant\n %q", on, want)
	}
	byEvent := func(event string) Hook {
		return got.Hooks[slices.IndexFunc(got.Hooks, func(h Hook) bool { return h.Claude == event })]
	}
	if h := byEvent("beforeShellExecution"); !h.FailClosed || h.Timeout != 10 || !h.FailsClosed() {
		t.Errorf("failClosed, 10 s: %+v", h)
	}
	if h := byEvent("beforeReadFile"); h.Timeout != 5 || !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "5000 is read as milliseconds") }) {
		t.Errorf("5000: %+v, notes %q", h, got.Notes)
	}
	if h := byEvent("stop"); h.Timeout != ClaudeTimeout || !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "loop_limit") }) {
		t.Errorf("stop: %+v, notes %q", h, got.Notes)
	}
	if !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, `"beforeSubmitPromptX" is not a list`) }) {
		t.Errorf("notes %q", got.Notes)
	}
	var skipped []string
	for _, s := range got.Skipped {
		skipped = append(skipped, s.Event)
	}
	if !slices.Equal(skipped, []string{"afterAgentThought", "preToolUse", "sessionEnd"}) || !strings.Contains(got.Skipped[1].Why, "names no tool") {
		t.Fatalf("skipped %+v", got.Skipped)
	}
	if h := byEvent("beforeShellExecution"); !strings.Contains(describe(h), "Cursor beforeShellExecution hook") {
		t.Errorf("named %q", describe(h))
	}
	if _, err := ImportCursor([]byte(`{"version": 1}`), "/bin/sh"); err == nil || !strings.Contains(err.Error(), ".cursor/hooks.json") {
		t.Fatalf("no hooks: %v", err)
	}

	// The user's own hooks name their scripts from ~/.cursor, where
	// Cursor runs them.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "hooks", "guard-shell.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got.RunFrom(home)
	if h := byEvent("beforeShellExecution"); h.Args[1] != "cd '"+home+"' && ./hooks/guard-shell.sh" {
		t.Errorf("not started from %s: %q", home, h.Args)
	}
	if h := byEvent("afterFileEdit"); h.Args[1] != "npx prettier --write" {
		t.Errorf("a command naming no file there was changed: %q", h.Args)
	}
}

func cursorHook(event, cursorEvent, matcher, script string) Hook {
	return Hook{Event: event, Claude: cursorEvent, Cursor: true, Tool: matcher, Command: "/bin/sh", Args: []string{"-c", script}}
}

// TestCursorHooksRun: a Cursor hook runs on the calls its event is about
// (beforeShellExecution on commands only), reads Cursor's input for its
// event, and its answers mean what they mean there (permission,
// agent_message, continue, followup_message), within what a hook may do
// here: deny or ask, never allow or rewrite.
func TestCursorHooksRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	ctx := context.Background()
	seen := filepath.Join(dir, "seen.json")
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("API_KEY=abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rm := ToolCall{Session: "s1", Workspace: dir, ID: "c1", Tool: "shell.run", Arguments: json.RawMessage(`{"command":"rm -rf build"}`)}
	write := ToolCall{Session: "s1", Workspace: dir, ID: "c2", Tool: "fs.write", Arguments: json.RawMessage(`{"path":"a.go","content":"package a"}`)}
	read := ToolCall{Session: "s1", Workspace: dir, ID: "c3", Tool: "fs.read", Arguments: json.RawMessage(`{"path":".env"}`)}
	mcp := ToolCall{Session: "s1", Workspace: dir, ID: "c4", Tool: "mcp.db.query", Arguments: json.RawMessage(`{"sql":"drop table users"}`)}
	for _, c := range []struct {
		name    string
		hook    Hook
		call    ToolCall
		verdict approval.HookVerdict
		reason  string
	}{
		{"permission deny", cursorHook(PreToolCall, "beforeShellExecution", "", `echo '{"permission": "deny", "user_message": "blocked", "agent_message": "no rm here"}'`), rm, approval.HookDeny, "no rm here"},
		{"beforeShellExecution is about commands only", cursorHook(PreToolCall, "beforeShellExecution", "", `exit 2`), write, approval.HookPass, ""},
		{"beforeMCPExecution is about MCP tools", cursorHook(PreToolCall, "beforeMCPExecution", "", `echo no >&2; exit 2`), mcp, approval.HookDeny, "Cursor beforeMCPExecution hook"},
		{"beforeMCPExecution is about MCP tools only", cursorHook(PreToolCall, "beforeMCPExecution", "", `exit 2`), rm, approval.HookPass, ""},
		{"beforeReadFile", cursorHook(PreToolCall, "beforeReadFile", "", `grep -q API_KEY && echo '{"permission": "deny"}'`), read, approval.HookDeny, ""},
		{"ask puts it to the user", cursorHook(PreToolCall, "beforeShellExecution", "", `echo '{"permission": "ask", "user_message": "rm needs a look"}'`), rm, approval.HookAsk, "rm needs a look"},
		{"allow leaves it to the mode", cursorHook(PreToolCall, "preToolUse", "Shell", `echo '{"permission": "allow"}'`), rm, approval.HookPass, ""},
		{"preToolUse matcher by Cursor's name", cursorHook(PreToolCall, "preToolUse", "Write|StrReplace", `exit 2`), write, approval.HookDeny, ""},
		{"Claude Code's names are not Cursor's", cursorHook(PreToolCall, "preToolUse", "Bash", `exit 2`), rm, approval.HookPass, ""},
		{"an MCP tool as MCP:tool", cursorHook(PreToolCall, "preToolUse", "MCP:query", `exit 2`), mcp, approval.HookDeny, ""},
		{"a rewritten call is denied", cursorHook(PreToolCall, "preToolUse", "", `echo '{"permission": "allow", "updated_input": {"command": "ls"}}'`), rm, approval.HookDeny, "updated_input"},
		{"an error does not block", cursorHook(PreToolCall, "beforeShellExecution", "", `exit 1`), rm, approval.HookPass, ""},
		{"failClosed: an error blocks", func() Hook {
			h := cursorHook(PreToolCall, "beforeShellExecution", "", `echo crashed >&2; exit 1`)
			h.FailClosed = true
			return h
		}(), rm, approval.HookDeny, "crashed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			saveHooks(t, file, c.hook)
			reason, v, _ := hs.PreToolCall(ctx, c.call)
			if v != c.verdict || !strings.Contains(reason, c.reason) {
				t.Fatalf("verdict %v %q; want %v with %q", v, reason, c.verdict, c.reason)
			}
		})
	}

	// What each event reads.
	inputs := []struct {
		hook Hook
		run  func()
		want map[string]any
	}{
		{cursorHook(PreToolCall, "beforeShellExecution", "", ""), func() { hs.PreToolCall(ctx, rm) },
			map[string]any{"hook_event_name": "beforeShellExecution", "conversation_id": "s1", "command": "rm -rf build", "cwd": dir}},
		{cursorHook(PreToolCall, "beforeReadFile", "", ""), func() { hs.PreToolCall(ctx, read) },
			map[string]any{"file_path": filepath.Join(dir, ".env"), "content": "API_KEY=abc\n"}},
		{cursorHook(PreToolCall, "beforeMCPExecution", "", ""), func() { hs.PreToolCall(ctx, mcp) },
			map[string]any{"tool_name": "query", "tool_input": `{"sql":"drop table users"}`}},
		{cursorHook(PreToolCall, "preToolUse", "", ""), func() { hs.PreToolCall(ctx, write) },
			map[string]any{"tool_name": "Write", "tool_use_id": "c2", "tool_input": map[string]any{"path": filepath.Join(dir, "a.go"), "contents": "package a"}}},
		{cursorHook(PostToolCall, "afterFileEdit", "", ""), func() { hs.PostToolCall(ctx, ToolDone{ToolCall: write, Output: "wrote 9 bytes"}) },
			map[string]any{"file_path": filepath.Join(dir, "a.go"), "edits": []any{map[string]any{"old_string": "", "new_string": "package a"}}}},
		{cursorHook(PostToolCall, "afterShellExecution", "", ""), func() { hs.PostToolCall(ctx, ToolDone{ToolCall: rm, Output: "removed"}) },
			map[string]any{"command": "rm -rf build", "output": "removed"}},
		{cursorHook(PostToolCall, "postToolUse", "", ""), func() { hs.PostToolCall(ctx, ToolDone{ToolCall: rm, Output: "removed"}) },
			map[string]any{"tool_name": "Shell", "tool_output": "removed"}},
		{cursorHook(PostToolCall, "postToolUseFailure", "", ""), func() { hs.PostToolCall(ctx, ToolDone{ToolCall: rm, Error: "exit status 1"}) },
			map[string]any{"tool_name": "Shell", "error_message": "exit status 1"}},
		{cursorHook(PreRequest, "beforeSubmitPrompt", "", ""), func() { hs.PreRequest(ctx, Request{Session: "s1", Workspace: dir, Text: "ship it"}) },
			map[string]any{"prompt": "ship it", "workspace_roots": []any{dir}}},
		{cursorHook(PreRunEnd, "stop", "", ""), func() { hs.PreRunEnd(ctx, RunEnd{Session: "s1", Workspace: dir, Answer: "Done.", SentBack: 2}) },
			map[string]any{"status": "completed", "loop_count": 2.0}},
		{cursorHook(PreRunEnd, "afterAgentResponse", "", ""), func() { hs.PreRunEnd(ctx, RunEnd{Session: "s1", Workspace: dir, Answer: "Done."}) },
			map[string]any{"text": "Done."}},
		{cursorHook(SessionStart, "sessionStart", "", ""), func() { hs.SessionStart(ctx, Begin{Session: "s1", Workspace: dir, Source: "startup"}) },
			map[string]any{"session_id": "s1", "composer_mode": "agent"}},
	}
	for _, c := range inputs {
		_ = os.Remove(seen)
		c.hook.Args[1] = `cat > ` + seen + `; echo "$CURSOR_PROJECT_DIR" > ` + seen + `.dir`
		saveHooks(t, file, c.hook)
		c.run()
		var in map[string]any
		readJSON(t, seen, &in)
		for k, v := range c.want {
			if g, _ := json.Marshal(in[k]); string(g) != string(must(json.Marshal(v))) {
				t.Errorf("%s: %s = %s, want %v (input %v)", c.hook.Claude, k, g, v, in)
			}
		}
		if b, err := os.ReadFile(seen + ".dir"); err != nil || strings.TrimSpace(string(b)) != dir {
			t.Errorf("%s: CURSOR_PROJECT_DIR %q %v", c.hook.Claude, b, err)
		}
	}

	// A file outside the workspace is not read for beforeReadFile.
	outside := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(outside, []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "key")); err != nil {
		t.Fatal(err)
	}
	saveHooks(t, file, cursorHook(PreToolCall, "beforeReadFile", "", `cat > `+seen))
	hs.PreToolCall(ctx, ToolCall{Session: "s1", Workspace: dir, ID: "c5", Tool: "fs.read", Arguments: json.RawMessage(`{"path":"key"}`)})
	var in map[string]any
	readJSON(t, seen, &in)
	if in["content"] != "" {
		t.Fatalf("a link out of the workspace was read for the hook: %v", in)
	}

	// After a call: afterFileEdit's answer and exit status are not read
	// (a failure is reported); postToolUse's additional_context is for
	// the model.
	saveHooks(t, file, cursorHook(PostToolCall, "afterFileEdit", "", `echo '{"additional_context": "x"}'; echo formatter broke >&2; exit 2`))
	if r := hs.PostToolCall(ctx, ToolDone{ToolCall: write, Output: "ok"}); r.Feedback != "" || r.Replaced != "" || len(r.Failures) != 1 || !strings.Contains(r.Failures[0], "formatter broke") {
		t.Fatalf("afterFileEdit: %+v", r)
	}
	saveHooks(t, file, cursorHook(PostToolCall, "postToolUse", "Shell", `echo '{"additional_context": "run the tests next"}'`))
	if r := hs.PostToolCall(ctx, ToolDone{ToolCall: rm, Output: "ok"}); !strings.Contains(r.Feedback, "run the tests next") || r.Replaced != "" {
		t.Fatalf("postToolUse: %+v", r)
	}

	// beforeSubmitPrompt: continue false stops the request with its
	// user_message.
	saveHooks(t, file, cursorHook(PreRequest, "beforeSubmitPrompt", "", `echo '{"continue": false, "user_message": "no secrets in prompts"}'`))
	if _, stopped, _ := hs.PreRequest(ctx, Request{Session: "s1", Workspace: dir, Text: "token x"}); !strings.Contains(stopped, "no secrets in prompts") {
		t.Fatalf("beforeSubmitPrompt: %q", stopped)
	}
	// stop: followup_message sends the model back with it; {} lets the run end.
	saveHooks(t, file, cursorHook(PreRunEnd, "stop", "", `echo '{"followup_message": "now run the tests"}'`))
	if more, _ := hs.PreRunEnd(ctx, RunEnd{Session: "s1", Workspace: dir, Answer: "Done."}); !strings.Contains(more, "now run the tests") || !strings.Contains(more, "Cursor stop hook") {
		t.Fatalf("stop: %q", more)
	}
	saveHooks(t, file, cursorHook(PreRunEnd, "stop", "", `echo '{}'`))
	if more, notes := hs.PreRunEnd(ctx, RunEnd{Session: "s1", Workspace: dir, Answer: "Done."}); more != "" || len(notes) != 0 {
		t.Fatalf("stop {}: %q %q", more, notes)
	}
	// afterAgentResponse only looks: its exit status 2 sends nothing back.
	saveHooks(t, file, cursorHook(PreRunEnd, "afterAgentResponse", "", `echo not done >&2; exit 2`))
	if more, notes := hs.PreRunEnd(ctx, RunEnd{Session: "s1", Workspace: dir, Answer: "Done."}); more != "" || len(notes) != 1 {
		t.Fatalf("afterAgentResponse: %q %q", more, notes)
	}
	// Plain output is Cursor's hook logging, not context.
	saveHooks(t, file, cursorHook(PreRequest, "beforeSubmitPrompt", "", `echo checking the prompt`))
	if added, stopped, _ := hs.PreRequest(ctx, Request{Session: "s1", Workspace: dir, Text: "hi"}); added != "" || stopped != "" {
		t.Fatalf("plain output: %q %q", added, stopped)
	}
	// sessionStart: additional_context is context.
	saveHooks(t, file, cursorHook(SessionStart, "sessionStart", "", `echo '{"additional_context": "branch: main"}'`))
	if added, _ := hs.SessionStart(ctx, Begin{Session: "s1", Workspace: dir, Source: "startup"}); !strings.Contains(added, "branch: main") {
		t.Fatalf("sessionStart: %q", added)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
