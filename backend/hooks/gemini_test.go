package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
)

// TestImportGemini: Gemini CLI's settings.json becomes hooks that keep
// their meaning: its events, matchers and names, timeouts read as
// milliseconds, hooksConfig.disabled honoured, and what cannot run here
// skipped with why.
func TestImportGemini(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "gemini-settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !GeminiEvents(b) {
		t.Fatal("not told from Claude Code's settings")
	}
	if GeminiEvents([]byte(`{"hooks": {"PreToolUse": [], "SessionStart": []}}`)) {
		t.Fatal("Claude Code's settings taken for Gemini CLI's")
	}
	got, err := ImportGemini(b, "/bin/bash")
	if err != nil {
		t.Fatal(err)
	}
	var on []string
	for _, h := range got.Hooks {
		if !h.Gemini || h.Command != "/bin/bash" || h.Check() != nil {
			t.Errorf("%+v: not a Gemini CLI hook run by bash (%v)", h, h.Check())
		}
		on = append(on, h.Event+" "+h.Claude+" "+h.Tool)
	}
	want := []string{
		"pre-run-end AfterAgent ", "post-tool-call AfterTool ", "pre-request BeforeAgent ",
		"pre-tool-call BeforeTool run_shell_command", "pre-tool-call BeforeTool write_file|replace",
		"approval:requested Notification ", "session-start SessionStart startup",
	}
	if !slices.Equal(on, want) {
		t.Fatalf("hooks\n %q\nwant\n %q", on, want)
	}
	byName := func(claude, tool string) Hook {
		i := slices.IndexFunc(got.Hooks, func(h Hook) bool { return h.Claude == claude && h.Tool == tool })
		return got.Hooks[i]
	}
	if h := byName("BeforeTool", "run_shell_command"); h.Timeout != 5 || h.Disabled {
		t.Errorf("5000 ms: %+v", h)
	}
	if h := byName("AfterTool", ""); !h.Disabled {
		t.Error("log-tools is in hooksConfig.disabled: imported switched on")
	}
	if h := byName("AfterAgent", ""); h.Timeout != 600 || !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "1200s is cut to 600s") }) {
		t.Errorf("1,200,000 ms: %+v, notes %q", h, got.Notes)
	}
	if h := byName("SessionStart", "startup"); h.Timeout != ClaudeTimeout {
		t.Errorf("no timeout: %+v, want Gemini CLI's 60 s", h)
	}
	var skipped []string
	for _, s := range got.Skipped {
		skipped = append(skipped, s.Event)
	}
	if !slices.Equal(skipped, []string{"BeforeModel", "BeforeToolSelection", "SessionEnd"}) {
		t.Fatalf("skipped %+v", got.Skipped)
	}
	if h := byName("BeforeTool", "run_shell_command"); !strings.Contains(describe(h), "Gemini CLI BeforeTool hook") {
		t.Errorf("named %q", describe(h))
	}
	// Switched off whole, and a matcher naming no tool Shrimp has.
	off, err := ImportGemini([]byte(`{"hooksConfig": {"enabled": false}, "hooks": {"BeforeTool": [{"matcher": "google_web_search", "hooks": [{"type": "command", "command": "true"}]}, {"hooks": [{"type": "command", "command": "true"}]}]}}`), "/bin/sh")
	if err != nil || len(off.Hooks) != 1 || !off.Hooks[0].Disabled || len(off.Skipped) != 1 || !strings.Contains(off.Skipped[0].Why, "run_shell_command") {
		t.Fatalf("switched off: %+v %v", off, err)
	}
	if _, err := ImportGemini([]byte(`{"model": {}}`), "/bin/sh"); err == nil || !strings.Contains(err.Error(), ".gemini/settings.json") {
		t.Fatalf("no hooks: %v", err)
	}
}

// secretGuard is a guard script that denies a call whose tool_input
// names .env under key (as Gemini CLI's examples read it, without jq).
func secretGuard(key string) string {
	return `grep -q '"` + key + `": *"[^"]*/\.env"' && { echo 'no secrets' >&2; exit 2; }; exit 0`
}

func geminiHook(event, geminiEvent, matcher, script string) Hook {
	return Hook{Event: event, Claude: geminiEvent, Gemini: true, Tool: matcher, Command: "/bin/sh", Args: []string{"-c", script}}
}

// TestGeminiHooksRun: a Gemini CLI hook reads Gemini CLI's input (its
// event and tool names, tool_input under its argument names, a
// timestamp, GEMINI_PROJECT_DIR) and its answers mean what they mean
// there, within what a hook may do here (deny, never allow or rewrite).
func TestGeminiHooksRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	ctx := context.Background()
	seen := filepath.Join(dir, "seen.json")
	rm := ToolCall{Session: "s1", Workspace: dir, ID: "c1", Tool: "shell.run", Arguments: json.RawMessage(`{"command":"rm -rf build"}`)}
	write := ToolCall{Session: "s1", Workspace: dir, ID: "c2", Tool: "fs.write", Arguments: json.RawMessage(`{"path":"a.go","content":"package a"}`)}
	readEnv := ToolCall{Session: "s1", Workspace: dir, ID: "c3", Tool: "fs.read", Arguments: json.RawMessage(`{"path":".env"}`)}
	searchEnv := ToolCall{Session: "s1", Workspace: dir, ID: "c4", Tool: "fs.search", Arguments: json.RawMessage(`{"query":"KEY","path":".env"}`)}
	for _, c := range []struct {
		name    string
		hook    Hook
		call    ToolCall
		verdict approval.HookVerdict
		reason  string
	}{
		{"decision deny", geminiHook(PreToolCall, "BeforeTool", "run_shell_command", `echo '{"decision": "deny", "reason": "no rm here"}'`), rm, approval.HookDeny, "no rm here"},
		{"matcher by Gemini CLI's name", geminiHook(PreToolCall, "BeforeTool", "write_file", `exit 2`), write, approval.HookDeny, "Gemini CLI BeforeTool hook"},
		{"Claude Code's names are not Gemini CLI's", geminiHook(PreToolCall, "BeforeTool", "Bash", `exit 2`), rm, approval.HookPass, ""},
		{"a regular expression", geminiHook(PreToolCall, "BeforeTool", "write_.*", `exit 2`), write, approval.HookDeny, ""},
		{"allow leaves it to the mode", geminiHook(PreToolCall, "BeforeTool", "", `echo '{"decision": "allow"}'`), rm, approval.HookPass, ""},
		{"a rewritten call is denied", geminiHook(PreToolCall, "BeforeTool", "", `echo '{"hookSpecificOutput": {"tool_input": {"command": "ls"}}}'`), rm, approval.HookDeny, "tool_input"},
		{"continue false denies", geminiHook(PreToolCall, "BeforeTool", "", `echo '{"continue": false, "stopReason": "budget"}'`), rm, approval.HookDeny, "budget"},
		// A guard of either Gemini CLI version: read_file's path under
		// file_path (2026) or path (2025); the search under its name then
		// (search_file_content) or now (grep_search).
		{"a guard reading file_path", geminiHook(PreToolCall, "BeforeTool", "read_file", secretGuard("file_path")), readEnv, approval.HookDeny, "no secrets"},
		{"a guard reading path", geminiHook(PreToolCall, "BeforeTool", "read_file", secretGuard("path")), readEnv, approval.HookDeny, "no secrets"},
		{"a guard of the search's former name", geminiHook(PreToolCall, "BeforeTool", "search_file_content", secretGuard("path")), searchEnv, approval.HookDeny, "no secrets"},
		{"a guard of the search's name now", geminiHook(PreToolCall, "BeforeTool", "grep_search", secretGuard("dir_path")), searchEnv, approval.HookDeny, "no secrets"},
		{"a guard of another tool", geminiHook(PreToolCall, "BeforeTool", "write_file", secretGuard("file_path")), readEnv, approval.HookPass, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			saveHooks(t, file, c.hook)
			reason, v, _ := hs.PreToolCall(ctx, c.call)
			if v != c.verdict || !strings.Contains(reason, c.reason) {
				t.Fatalf("verdict %v %q; want %v with %q", v, reason, c.verdict, c.reason)
			}
		})
	}

	// What BeforeTool reads.
	saveHooks(t, file, geminiHook(PreToolCall, "BeforeTool", "", `cat > `+seen+`; echo "$GEMINI_PROJECT_DIR $CLAUDE_PROJECT_DIR" > `+seen+`.dir`))
	if _, v, _ := hs.PreToolCall(ctx, write); v != approval.HookPass {
		t.Fatal("denied")
	}
	var in struct {
		Session string         `json:"session_id"`
		CWD     string         `json:"cwd"`
		Event   string         `json:"hook_event_name"`
		Time    string         `json:"timestamp"`
		Tool    string         `json:"tool_name"`
		Input   map[string]any `json:"tool_input"`
	}
	readJSON(t, seen, &in)
	if _, err := time.Parse(time.RFC3339Nano, in.Time); err != nil || in.Session != "s1" || in.CWD != dir || in.Event != "BeforeTool" || in.Tool != "write_file" ||
		in.Input["file_path"] != filepath.Join(dir, "a.go") || in.Input["content"] != "package a" {
		t.Fatalf("BeforeTool input: %+v (%v)", in, err)
	}
	if b, err := os.ReadFile(seen + ".dir"); err != nil || strings.TrimSpace(string(b)) != dir+" "+dir {
		t.Fatalf("GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR: %q %v", b, err)
	}

	// AfterTool runs after a success and after a failure, reading the
	// result as Gemini CLI gives it; a deny's reason stands for the
	// result, as there.
	saveHooks(t, file, geminiHook(PostToolCall, "AfterTool", "run_shell_command", `cat > `+seen+`; echo '{"decision": "deny", "reason": "[output hidden: it held a key]", "hookSpecificOutput": {"additionalContext": "ask the user for the key instead"}}'`))
	for _, done := range []ToolDone{{ToolCall: rm, Output: "removed"}, {ToolCall: rm, Error: "exit status 1"}} {
		r := hs.PostToolCall(ctx, done)
		if !strings.Contains(r.Replaced, "[output hidden: it held a key]") || !strings.Contains(r.Replaced, "replaced by Gemini CLI AfterTool hook") ||
			!strings.Contains(r.Feedback, "ask the user for the key") || strings.Contains(r.Feedback, "output hidden") || len(r.Failures) != 0 {
			t.Fatalf("after %+v: %+v", done, r)
		}
		var after struct {
			Event    string `json:"hook_event_name"`
			Response struct {
				Content string `json:"llmContent"`
				Error   *struct {
					Message string `json:"message"`
				} `json:"error"`
			} `json:"tool_response"`
		}
		readJSON(t, seen, &after)
		if after.Event != "AfterTool" || after.Response.Content != done.Output+done.Error || (done.Error != "") != (after.Response.Error != nil) {
			t.Fatalf("AfterTool input after %+v: %+v", done, after)
		}
	}

	// Exit status 2 and tool_output replace the result too; a Claude Code
	// PostToolUse hook's exit 2 only adds to it, and its own replacements
	// (updatedToolOutput, updatedMCPToolOutput) replace it as there.
	for _, c := range []struct {
		hook               Hook
		replaced, feedback string
	}{
		{geminiHook(PostToolCall, "AfterTool", "", `echo 'secret removed' >&2; exit 2`), "secret removed", ""},
		{geminiHook(PostToolCall, "AfterTool", "", `echo '{"hookSpecificOutput": {"tool_output": "3 files removed"}}'`), "3 files removed", ""},
		{geminiHook(PostToolCall, "AfterTool", "", `echo '{"hookSpecificOutput": {"additionalContext": "run the tests next"}}'`), "", "run the tests next"},
		{claudeHook(PostToolCall, "PostToolUse", "", `echo 'gofmt it' >&2; exit 2`), "", "gofmt it"},
		// Claude Code's own: updatedToolOutput for any tool,
		// updatedMCPToolOutput for an MCP tool's only.
		{claudeHook(PostToolCall, "PostToolUse", "", `echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "[redacted]", "additionalContext": "a key was removed"}}'`), "[redacted]", "a key was removed"},
		{claudeHook(PostToolCall, "PostToolUse", "", `echo '{"hookSpecificOutput": {"updatedMCPToolOutput": {"content": "x"}}}'`), "", ""},
	} {
		saveHooks(t, file, c.hook)
		r := hs.PostToolCall(ctx, ToolDone{ToolCall: rm, Output: "removed build/"})
		if !strings.Contains(r.Replaced, c.replaced) || (c.replaced == "") != (r.Replaced == "") || !strings.Contains(r.Feedback, c.feedback) || (c.feedback == "") != (r.Feedback == "") {
			t.Errorf("%s: %+v", describe(c.hook), r)
		}
	}

	// continue false, after a call, ends the run (Gemini CLI's "stop the
	// agent loop", Claude Code's "stop processing"), whatever else it says.
	for _, k := range []Hook{
		geminiHook(PostToolCall, "AfterTool", "", `echo '{"continue": false, "stopReason": "the budget is spent", "decision": "deny", "reason": "x"}'`),
		claudeHook(PostToolCall, "PostToolUse", "", `echo '{"continue": false, "stopReason": "the budget is spent"}'`),
		{Event: PostToolCall, Command: "/bin/sh", Args: []string{"-c", `echo '{"continue": false, "stopReason": "the budget is spent"}'`}},
	} {
		saveHooks(t, file, k)
		if r := hs.PostToolCall(ctx, ToolDone{ToolCall: rm, Output: "removed"}); !strings.Contains(r.Stop, "ended the run after shell.run: the budget is spent") || r.Replaced != "" || r.Feedback != "" {
			t.Errorf("%s: %+v", describe(k), r)
		}
	}

	saveHooks(t, file, claudeHook(PostToolCall, "PostToolUse", "", `echo '{"hookSpecificOutput": {"updatedMCPToolOutput": {"content": [{"type": "text", "text": "[withheld]"}]}}}'`))
	mcp := ToolCall{Session: "s1", Workspace: dir, ID: "c3", Tool: "mcp.github.get_issue", Arguments: json.RawMessage(`{"n":1}`)}
	if r := hs.PostToolCall(ctx, ToolDone{ToolCall: mcp, Output: "issue body"}); !strings.Contains(r.Replaced, `{"content": [{"type": "text", "text": "[withheld]"}]}`) || !strings.Contains(r.Replaced, "Claude Code PostToolUse hook") {
		t.Fatalf("updatedMCPToolOutput: %+v", r)
	}

	// AfterAgent reads the request and the answer; deny sends the model
	// back with the reason.
	saveHooks(t, file, geminiHook(PreRunEnd, "AfterAgent", "", `cat > `+seen+`; echo '{"decision": "deny", "reason": "the tests were not run"}'`))
	more, _ := hs.PreRunEnd(ctx, RunEnd{Session: "s1", Workspace: dir, Request: "fix the tests", Answer: "Done."})
	if !strings.Contains(more, "the tests were not run") || !strings.Contains(more, "Gemini CLI AfterAgent hook") {
		t.Fatalf("AfterAgent: %q", more)
	}
	var end struct {
		Event    string `json:"hook_event_name"`
		Prompt   string `json:"prompt"`
		Response string `json:"prompt_response"`
		Active   *bool  `json:"stop_hook_active"`
	}
	readJSON(t, seen, &end)
	if end.Event != "AfterAgent" || end.Prompt != "fix the tests" || end.Response != "Done." || end.Active == nil {
		t.Fatalf("AfterAgent input: %+v", end)
	}

	// BeforeAgent: deny stops the request; additionalContext is context.
	saveHooks(t, file, geminiHook(PreRequest, "BeforeAgent", "", `cat > `+seen+`; echo '{"hookSpecificOutput": {"additionalContext": "branch: main"}}'`))
	added, stopped, _ := hs.PreRequest(ctx, Request{Session: "s1", Workspace: dir, Text: "ship it"})
	if stopped != "" || !strings.Contains(added, "branch: main") {
		t.Fatalf("BeforeAgent context: %q %q", added, stopped)
	}
	var req struct {
		Event  string `json:"hook_event_name"`
		Prompt string `json:"prompt"`
	}
	readJSON(t, seen, &req)
	if req.Event != "BeforeAgent" || req.Prompt != "ship it" {
		t.Fatalf("BeforeAgent input: %+v", req)
	}
	saveHooks(t, file, geminiHook(PreRequest, "BeforeAgent", "", `echo '{"decision": "deny", "reason": "not on a Friday"}'`))
	if _, stopped, _ := hs.PreRequest(ctx, Request{Session: "s1", Workspace: dir, Text: "ship it"}); !strings.Contains(stopped, "not on a Friday") {
		t.Fatalf("BeforeAgent deny: %q", stopped)
	}

	// Notification: a permission question, with its details.
	saveHooks(t, file, geminiHook("approval:requested", "Notification", "", `cat > `+seen))
	if _, err := hs.Current(); err != nil {
		t.Fatal(err)
	}
	o := &Observer{Hooks: hs, Dir: dir}
	e := agent.Event{Session: "s1", Type: "approval:requested", Time: time.Now(), Data: approval.Request{ID: "c1", Tool: "shell.run", Asked: true}}
	if err := o.Handle(ctx, e); err != nil {
		t.Fatal(err)
	}
	var n struct {
		Event   string            `json:"hook_event_name"`
		Type    string            `json:"notification_type"`
		Message string            `json:"message"`
		Details map[string]string `json:"details"`
	}
	readJSON(t, seen, &n)
	if n.Event != "Notification" || n.Type != "ToolPermission" || !strings.Contains(n.Message, "run_shell_command") || n.Details["tool_name"] != "run_shell_command" {
		t.Fatalf("Notification input: %+v", n)
	}
}
