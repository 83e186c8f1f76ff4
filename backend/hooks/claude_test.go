package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
)

func TestClaudeToolName(t *testing.T) {
	for tool, want := range map[string]string{
		"shell.run":               "Bash",
		"fs.write":                "Write",
		"fs.edit":                 "Edit",
		"fs.read":                 "Read",
		"web.fetch":               "WebFetch",
		"mcp.github.create_issue": "mcp__github__create_issue",
		"mcp.files.read.text":     "mcp__files__read.text",
		"memory.facts.set":        "memory.facts.set",
	} {
		if got := ClaudeToolName(tool); got != want {
			t.Errorf("%s: %q, want %q", tool, got, want)
		}
	}
}

func TestClaudeMatches(t *testing.T) {
	for _, c := range []struct {
		matcher, name string
		want          bool
	}{
		{"", "Bash", true},
		{"*", "mcp__x__y", true},
		{"Bash", "Bash", true},
		{"Bash", "BashOutput", false}, // names are compared whole
		{"bash", "Bash", false},       // and by case
		{"Edit|Write", "Write", true},
		{"Edit|Write", "Read", false},
		{"mcp__github__.*", "mcp__github__create_issue", true},
		{"mcp__github__.*", "mcp__gitlab__create_issue", false},
		{"mcp__.*", "Bash", false},
		{"Write.*", "Write", true},
		{"^(Edit|Write)$", "Edit", true},
	} {
		if got := claudeMatches(c.matcher, c.name); got != c.want {
			t.Errorf("%q on %q: %v", c.matcher, c.name, got)
		}
	}
}

func TestClaudeInput(t *testing.T) {
	ws := "/home/u/project"
	for _, c := range []struct {
		tool, args string
		want       map[string]any
		table      claudeTable // claude() unless set
	}{
		// Numbers in the agent's units: Bash's timeout in milliseconds,
		// read_file's offset a line counted from 0 (a negative one, from
		// the end, is Shrimp's own and passes).
		{tool: "shell.run", args: `{"command":"make","timeout":120}`, want: map[string]any{"command": "make", "timeout": 120000}},
		{tool: "fs.read", args: `{"path":"a.txt","offset":11,"limit":5}`, table: gemini(),
			want: map[string]any{"file_path": "/home/u/project/a.txt", "limit": 5, "offset": 10, "path": "/home/u/project/a.txt"}},
		{tool: "fs.read", args: `{"path":"a.txt","offset":-50}`, table: gemini(),
			want: map[string]any{"file_path": "/home/u/project/a.txt", "offset": -50, "path": "/home/u/project/a.txt"}},
		{"fs.edit", `{"path":"src/a.go","old":"x","new":"y","all":true}`,
			map[string]any{"file_path": "/home/u/project/src/a.go", "old_string": "x", "new_string": "y", "replace_all": true}, claudeTable{}},
		{"fs.write", `{"path":"notes.md","content":"hi"}`, map[string]any{"file_path": "/home/u/project/notes.md", "content": "hi"}, claudeTable{}},
		// The argument the tool reads wins over one a model added under
		// Claude Code's name; what the table does not name passes as it is.
		{"fs.write", `{"path":"a.txt","file_path":"/etc/passwd","content":"x","mode":"0644"}`,
			map[string]any{"file_path": "/home/u/project/a.txt", "content": "x", "mode": "0644"}, claudeTable{}},
		{"fs.list", `{}`, map[string]any{"path": "/home/u/project"}, claudeTable{}},
		{"shell.run", `{"command":"ls && rm x"}`, map[string]any{"command": "ls && rm x"}, claudeTable{}},
		{"mcp.github.create_issue", `{"title":"t"}`, map[string]any{"title": "t"}, claudeTable{}},
		{"fs.read", `not json`, map[string]any{"file_path": "/home/u/project"}, claudeTable{}},
	} {
		tb := c.table
		if tb.Tools == nil {
			tb = claude()
		}
		got := map[string]any{}
		for k, v := range tb.input(c.tool, json.RawMessage(c.args), ws) {
			var x any
			if err := json.Unmarshal(v, &x); err != nil {
				t.Fatal(err)
			}
			got[k] = x
		}
		b, _ := json.Marshal(got)
		w, _ := json.Marshal(c.want)
		if string(b) != string(w) {
			t.Errorf("%s %s:\n got %s\nwant %s", c.tool, c.args, b, w)
		}
	}
}

// claudeHook is a Claude Code hook as imported: its command run by sh -c.
func claudeHook(event, claudeEvent, matcher, script string) Hook {
	return Hook{Event: event, Claude: claudeEvent, Tool: matcher, Command: "/bin/sh", Args: []string{"-c", script}}
}

func saveHooks(t *testing.T, file string, list ...Hook) {
	t.Helper()
	c := Config{}
	for _, h := range list {
		if _, err := c.Add(h); err != nil {
			t.Fatalf("%+v: %v", h, err)
		}
	}
	if err := c.Save(file); err != nil {
		t.Fatal(err)
	}
}

// TestClaudeHooksRun: hooks written for Claude Code read its input and
// decide as they would there.
func TestClaudeHooksRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	ctx := context.Background()
	seen := filepath.Join(dir, "seen.json")
	rm := ToolCall{Session: "s1", Workspace: dir, ID: "c1", Tool: "shell.run", Arguments: json.RawMessage(`{"command":"rm -rf build \u0026\u0026 ls"}`)}
	ls := ToolCall{Session: "s1", Workspace: dir, ID: "c2", Tool: "shell.run", Arguments: json.RawMessage(`{"command":"ls"}`)}
	write := ToolCall{Session: "s1", Workspace: dir, ID: "c3", Tool: "fs.write", Arguments: json.RawMessage(`{"path":"a.go","content":"package a"}`)}
	// The usual guard: its last command's status is 1 when nothing
	// matched, which Claude Code takes for an error that does not block.
	guard := `grep -q 'rm -rf' && { echo 'Blocked: destructive command' >&2; exit 2; }`
	cases := []struct {
		name    string
		hooks   []Hook
		call    ToolCall
		verdict approval.HookVerdict
		reason  string
		note    string
	}{
		{"exit 2 denies", []Hook{claudeHook(PreToolCall, "PreToolUse", "Bash", guard)}, rm, approval.HookDeny, "Blocked: destructive command", ""},
		{"exit 1 goes on", []Hook{claudeHook(PreToolCall, "PreToolUse", "Bash", guard)}, ls, approval.HookPass, "", "an error that does not block"},
		{"matcher by Claude Code's name", []Hook{claudeHook(PreToolCall, "PreToolUse", "Edit|Write", `exit 2`)}, write, approval.HookDeny, "no reason given", ""},
		{"matcher selects other tools", []Hook{claudeHook(PreToolCall, "PreToolUse", "Edit|Write", `exit 2`)}, ls, approval.HookPass, "", ""},
		{"Shrimp's names are not Claude Code's", []Hook{claudeHook(PreToolCall, "PreToolUse", "shell", `exit 2`)}, ls, approval.HookPass, "", ""},
		{"permissionDecision deny", []Hook{claudeHook(PreToolCall, "PreToolUse", "", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}'`)}, ls, approval.HookDeny, "not here", ""},
		{"allow leaves it to the mode", []Hook{claudeHook(PreToolCall, "PreToolUse", "", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)}, ls, approval.HookPass, "", ""},
		{"a rewritten call is denied", []Hook{claudeHook(PreToolCall, "PreToolUse", "Bash", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}'`)}, ls, approval.HookDeny, "updatedInput", ""},
		{"systemMessage is a note", []Hook{claudeHook(PreToolCall, "PreToolUse", "", `echo '{"systemMessage":"checked by the guard"}'`)}, ls, approval.HookPass, "", "checked by the guard"},
		{"a timeout still denies", []Hook{func() Hook { h := claudeHook(PreToolCall, "PreToolUse", "", `sleep 30`); h.Timeout = 0.3; return h }()}, ls, approval.HookDeny, "no answer within", ""},
		{"a crash still denies", []Hook{claudeHook(PreToolCall, "PreToolUse", "", `kill -9 $$`)}, ls, approval.HookDeny, "killed", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			saveHooks(t, file, c.hooks...)
			reason, v, notes := hs.PreToolCall(ctx, c.call)
			if v != c.verdict || !strings.Contains(reason, c.reason) {
				t.Fatalf("verdict %v %q; want %v with %q", v, reason, c.verdict, c.reason)
			}
			if c.note != "" && !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, c.note) }) {
				t.Fatalf("notes %q, want one with %q", notes, c.note)
			}
		})
	}

	// What it reads: Claude Code's input, and CLAUDE_PROJECT_DIR.
	saveHooks(t, file, claudeHook(PreToolCall, "PreToolUse", "", `cat > `+seen+`; echo "$CLAUDE_PROJECT_DIR" > `+seen+`.dir`))
	if _, v, _ := hs.PreToolCall(ctx, write); v != approval.HookPass {
		t.Fatal("denied")
	}
	var in struct {
		Session string         `json:"session_id"`
		CWD     string         `json:"cwd"`
		Event   string         `json:"hook_event_name"`
		Tool    string         `json:"tool_name"`
		ID      string         `json:"tool_use_id"`
		Input   map[string]any `json:"tool_input"`
	}
	readJSON(t, seen, &in)
	if in.Session != "s1" || in.CWD != dir || in.Event != "PreToolUse" || in.Tool != "Write" || in.ID != "c3" ||
		in.Input["file_path"] != filepath.Join(dir, "a.go") || in.Input["content"] != "package a" {
		t.Fatalf("input: %+v", in)
	}
	if b, err := os.ReadFile(seen + ".dir"); err != nil || strings.TrimSpace(string(b)) != dir {
		t.Fatalf("CLAUDE_PROJECT_DIR: %q %v", b, err)
	}
	// & stays &, for a guard grepping for "&&".
	saveHooks(t, file, claudeHook(PreToolCall, "PreToolUse", "Bash", `grep -q 'build && ls' && exit 2; exit 0`))
	if _, v, _ := hs.PreToolCall(ctx, rm); v != approval.HookDeny {
		t.Fatal("the command was not as written")
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// TestClaudePostToolUse: PostToolUse follows success, PostToolUseFailure
// failure; what they say reaches the model as Claude Code's would.
func TestClaudePostToolUse(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	ok := filepath.Join(dir, "ok.json")
	failed := filepath.Join(dir, "failed.json")
	saveHooks(t, file,
		claudeHook(PostToolCall, "PostToolUse", "Write|Edit", `cat > `+ok+`; echo 'gofmt: a.go is not formatted' >&2; exit 2`),
		claudeHook(PostToolCall, "PostToolUseFailure", "", `cat > `+failed+`; echo '{"hookSpecificOutput":{"additionalContext":"check the path"}}'`),
	)
	call := ToolCall{Session: "s1", Workspace: dir, ID: "c1", Tool: "fs.write", Arguments: json.RawMessage(`{"path":"a.go","content":"x"}`)}
	r := hs.PostToolCall(context.Background(), ToolDone{ToolCall: call, Output: "wrote a.go"})
	said, failures := r.Feedback, r.Failures
	if !strings.Contains(said, "gofmt: a.go is not formatted") || strings.Contains(said, "check the path") || len(failures) != 0 {
		t.Fatalf("after success: %q %q", said, failures)
	}
	var in struct {
		Event    string         `json:"hook_event_name"`
		Tool     string         `json:"tool_name"`
		Response map[string]any `json:"tool_response"`
	}
	readJSON(t, ok, &in)
	if in.Event != "PostToolUse" || in.Tool != "Write" || in.Response["filePath"] != filepath.Join(dir, "a.go") || in.Response["output"] != "wrote a.go" {
		t.Fatalf("PostToolUse input: %+v", in)
	}
	if _, err := os.Stat(failed); err == nil {
		t.Fatal("PostToolUseFailure ran after a success")
	}
	_ = os.Remove(ok)
	said = hs.PostToolCall(context.Background(), ToolDone{ToolCall: call, Error: "no such folder"}).Feedback
	if said == "" || !strings.Contains(said, "check the path") || strings.Contains(said, "gofmt") {
		t.Fatalf("after failure: %q", said)
	}
	var f struct {
		Event string `json:"hook_event_name"`
		Error string `json:"error"`
	}
	readJSON(t, failed, &f)
	if f.Event != "PostToolUseFailure" || f.Error != "no such folder" {
		t.Fatalf("PostToolUseFailure input: %+v", f)
	}
	if _, err := os.Stat(ok); err == nil {
		t.Fatal("PostToolUse ran after a failure")
	}
}

func TestClaudeUserPromptSubmit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	seen := filepath.Join(dir, "prompt.json")
	saveHooks(t, file,
		claudeHook(PreRequest, "UserPromptSubmit", "", `cat > `+seen+`; echo "Current branch: main"`),
		claudeHook(PreRequest, "UserPromptSubmit", "", `grep -q password && { echo 'no passwords' >&2; exit 2; }`),
	)
	req := Request{Session: "s1", Workspace: dir, Text: "tidy the readme"}
	added, stopped, notes := hs.PreRequest(context.Background(), req)
	if stopped != "" || !strings.Contains(added, "Current branch: main") || len(notes) != 1 || !strings.Contains(notes[0], "does not block") {
		t.Fatalf("added %q stopped %q notes %q", added, stopped, notes)
	}
	var in struct {
		Event  string `json:"hook_event_name"`
		Prompt string `json:"prompt"`
		CWD    string `json:"cwd"`
	}
	readJSON(t, seen, &in)
	if in.Event != "UserPromptSubmit" || in.Prompt != "tidy the readme" || in.CWD != dir {
		t.Fatalf("input: %+v", in)
	}
	req.Text = "my password is hunter2"
	if _, stopped, _ := hs.PreRequest(context.Background(), req); !strings.Contains(stopped, "no passwords") {
		t.Fatalf("not stopped: %q", stopped)
	}
}

// TestClaudeObserved: StopFailure after a run that failed, in the
// session's workspace; Notification when Shrimp asks.
func TestClaudeObserved(t *testing.T) {
	dir := t.TempDir()
	ws := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	out := func(name string) string { return filepath.Join(dir, name) }
	saveHooks(t, file,
		claudeHook("agent:run-ended", "StopFailure", "", `cat > `+out("failure")+`; pwd > `+out("failure.pwd")),
		claudeHook("approval:requested", "Notification", "", `cat > `+out("notice")),
	)
	if _, err := hs.Current(); err != nil {
		t.Fatal(err)
	}
	o := &Observer{Hooks: hs, Dir: dir, Workspace: func(_ context.Context, id string) string {
		if id == "s1" {
			return ws
		}
		return ""
	}}
	ctx := context.Background()
	ended := func(status string) agent.Event {
		return agent.Event{Session: "s1", Type: "agent:run-ended", Time: time.Now(), Data: agent.RunEnded{Status: status, Error: map[string]string{"error": "Ollama stopped"}[status]}}
	}
	for _, status := range []string{"cancelled", "responded"} {
		if err := o.Handle(ctx, ended(status)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(out("failure")); err == nil {
		t.Fatal("StopFailure ran after a run that did not fail")
	}
	if err := o.Handle(ctx, ended("error")); err != nil {
		t.Fatal(err)
	}
	var f struct {
		Event   string `json:"hook_event_name"`
		Session string `json:"session_id"`
		CWD     string `json:"cwd"`
		Error   string `json:"error"`
	}
	readJSON(t, out("failure"), &f)
	if f.Event != "StopFailure" || f.Error != "Ollama stopped" || f.Session != "s1" || f.CWD != ws {
		t.Fatalf("StopFailure input: %+v", f)
	}
	if b, err := os.ReadFile(out("failure.pwd")); err != nil || strings.TrimSpace(string(b)) != ws {
		t.Fatalf("ran in %q %v, want the workspace %s", b, err, ws)
	}
	// A call the mode or a rule decides is announced unasked: no notice.
	e := agent.Event{Session: "s1", Type: "approval:requested", Time: time.Now(), Data: approval.Request{ID: "c0", Tool: "fs.read"}}
	if err := o.Handle(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out("notice")); err == nil {
		t.Fatal("Notification ran for a call nobody was asked about")
	}
	e = agent.Event{Session: "s1", Type: "approval:requested", Time: time.Now(), Data: approval.Request{ID: "c1", Tool: "shell.run", Asked: true, Shown: "ls"}}
	if err := o.Handle(ctx, e); err != nil {
		t.Fatal(err)
	}
	var n struct {
		Event   string `json:"hook_event_name"`
		Message string `json:"message"`
		Type    string `json:"notification_type"`
	}
	readJSON(t, out("notice"), &n)
	if n.Event != "Notification" || n.Message != "Shrimp needs your permission to use Bash" || n.Type != "permission_prompt" {
		t.Fatalf("Notification input: %+v", n)
	}
}

func TestClaudeProgram(t *testing.T) {
	lookPath := func(p string) (string, error) {
		if p == "jq" || p == "/usr/bin/python3" {
			return p, nil
		}
		return "", os.ErrNotExist
	}
	for _, c := range []struct {
		line, program string
		findable      bool
	}{
		{"jq -r '.tool_input.command' | grep -q rm", "jq", true},
		{"/usr/bin/python3 ~/.claude/hooks/guard.py", "/usr/bin/python3", true},
		{"prettier --write .", "prettier", false},
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`, "", true},
		{"f=$(jq -r .tool_input.file_path); gofmt -l $f", "", true},
		{"if grep -q x; then exit 2; fi", "", true},
		{"[ -f .lock ] && exit 2", "", true},
		{"./scripts/check.sh", "", true},
		{"   ", "", true},
	} {
		h := claudeHook(PreToolCall, "PreToolUse", "", c.line)
		if got := h.Program(); got != c.program {
			t.Errorf("%q: program %q, want %q", c.line, got, c.program)
		}
		if got := h.Findable(lookPath); got != c.findable {
			t.Errorf("%q: findable %v", c.line, got)
		}
	}
	if h := claudeHook(PreToolCall, "PreToolUse", "", "x"); h.FailsClosed() || !strings.Contains(h.Unstartable(), "does not block") {
		t.Error("a Claude Code hook that cannot run does not block")
	}
	if h := (Hook{Event: PreToolCall, Command: "guard"}); !h.FailsClosed() || h.Program() != "guard" {
		t.Error("Shrimp's own pre-tool-call hook fails closed")
	}
}

func TestImportClaude(t *testing.T) {
	b, err := os.ReadFile("testdata/claude-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ImportClaude(b, "/bin/bash")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ event, claude, tool string }
	var rows []row
	for _, h := range got.Hooks {
		rows = append(rows, row{h.Event, h.Claude, h.Tool})
		if h.Prompt != "" {
			if h.Command != "" || h.Args != nil || h.Timeout != ClaudePromptTimeout || h.Check() != nil ||
				!strings.HasPrefix(h.Prompt, "Check that every task in $ARGUMENTS") && h.Prompt != "Is this GitHub call safe? $ARGUMENTS" {
				t.Errorf("prompt hook %+v", h)
			}
			continue
		}
		if h.Command != "/bin/bash" || len(h.Args) != 2 || h.Args[0] != "-c" || h.Check() != nil {
			t.Errorf("hook %+v", h)
		}
	}
	want := []row{
		{"approval:requested", "Notification", ""},
		{"approval:requested", "Notification", ""},
		{"tool:question", "Notification", ""},
		{PostToolCall, "PostToolUse", "Write|Edit"},
		{PreToolCall, "PreToolUse", "Bash"},
		{PreToolCall, "PreToolUse", "Edit|MultiEdit|Write"},
		{PreToolCall, "PreToolUse", "mcp__github__.*"},
		{SessionStart, "SessionStart", "startup"},
		{PreRunEnd, "Stop", ""},
		{PreRunEnd, "Stop", ""},
		{PreRequest, "UserPromptSubmit", ""},
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("hooks:\n got %v\nwant %v", rows, want)
	}
	if got.Hooks[4].Timeout != 10 || got.Hooks[5].Timeout != ClaudeTimeout || got.Hooks[3].Timeout != 600 {
		t.Errorf("timeouts: %v %v %v", got.Hooks[4].Timeout, got.Hooks[5].Timeout, got.Hooks[3].Timeout)
	}
	skipped := map[string]string{}
	for _, s := range got.Skipped {
		skipped[s.Event+" "+s.Matcher] = s.Why
	}
	for key, why := range map[string]string{
		"PreToolUse Glob":            "names no tool Shrimp has",
		"Notification idle_prompt":   `a "prompt" hook on Notification: Shrimp asks the model only for PostToolUse, PostToolUseFailure, PreToolUse, Stop, UserPromptSubmit hooks`,
		"PreToolUse (unclosed":       "not a regular expression",
		"SessionStart clear|compact": "selects no start Shrimp has",
	} {
		if !strings.Contains(skipped[key], why) {
			t.Errorf("%s: skipped for %q, want %q", key, skipped[key], why)
		}
	}
	if len(got.Skipped) != 4 {
		t.Errorf("skipped %+v", got.Skipped)
	}
	notes := strings.Join(got.Notes, "\n")
	if !strings.Contains(notes, "cut to 600s") || !strings.Contains(notes, "async") || !strings.Contains(notes, "names the model \"claude-haiku-4-5\": here the request's own model answers it") {
		t.Errorf("notes: %s", notes)
	}
	// Saved, a command line reads as written: && and >&2, not \u0026.
	file := filepath.Join(t.TempDir(), FileName)
	if err := (Config{Hooks: got.Hooks}).Save(file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), `&& { echo 'Blocked: destructive command' >&2; exit 2; }`) {
		t.Errorf("hooks.json:\n%s", b)
	}
	if back, err := Load(file); err != nil || !slices.EqualFunc(back.Hooks, got.Hooks, func(a, b Hook) bool {
		return slices.Equal(a.Args, b.Args) && a.Prompt == b.Prompt && a.Claude == b.Claude
	}) {
		t.Errorf("read back: %v", err)
	}
	// Imported twice, nothing is added the second time.
	c := Config{}
	for range 2 {
		added := 0
		for _, h := range got.Hooks {
			if _, ok, err := c.AddNew(h); err != nil {
				t.Fatal(err)
			} else if ok {
				added++
			}
		}
		if len(c.Hooks) != len(got.Hooks) {
			t.Fatalf("%d hooks after adding %d", len(c.Hooks), added)
		}
	}
	for _, bad := range []string{`{`, `{"permissions": {}}`, `[]`} {
		if _, err := ImportClaude([]byte(bad), "/bin/sh"); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// BenchmarkClaudePreToolUse measures what an imported Claude Code guard
// adds to every call it matches: its input made in Claude Code's form,
// and its command line run by bash -c (jq | grep, as such guards are
// written, when jq is installed; else grep alone).
func BenchmarkClaudePreToolUse(b *testing.B) {
	line := `grep -q 'rm -rf' && exit 2; exit 0`
	if _, err := exec.LookPath("jq"); err == nil {
		line = `jq -r .tool_input.command | grep -q 'rm -rf' && exit 2; exit 0`
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		shell = "/bin/sh"
	}
	file := filepath.Join(b.TempDir(), FileName)
	c := Config{}
	if _, err := c.Add(Hook{Event: PreToolCall, Claude: "PreToolUse", Tool: "Bash", Command: shell, Args: []string{"-c", line}}); err != nil {
		b.Fatal(err)
	}
	if err := c.Save(file); err != nil {
		b.Fatal(err)
	}
	hs := &Hooks{File: file}
	call := ToolCall{Workspace: b.TempDir(), ID: "c", Tool: "shell.run", Arguments: json.RawMessage(`{"command":"ls -la"}`)}
	for b.Loop() {
		if _, v, _ := hs.PreToolCall(context.Background(), call); v != approval.HookPass {
			b.Fatal("denied")
		}
	}
}

// TestPromptHooks: a prompt hook is asked of the request's model (the
// Judge in the context), with the event where it says $ARGUMENTS (else
// after it); {"ok": false} sends the model back, or stops the request,
// with the reason; an answer that is not {"ok": …}, a model that fails
// or none at all, is a note and lets things go on (the run ends).
func TestPromptHooks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	end := RunEnd{Session: "s1", Workspace: dir, Request: "add a test for the parser", Answer: "Done, the parser is fixed."}
	var asked string
	judging := func(answer string, err error) context.Context {
		return WithJudge(context.Background(), func(_ context.Context, hook, q string) (string, error) {
			if !strings.HasPrefix(hook, "Claude Code ") || !strings.Contains(hook, " prompt hook ") {
				t.Errorf("the judge is told the hook as %q", hook)
			}
			asked = q
			return answer, err
		})
	}
	stop := Hook{Event: PreRunEnd, Claude: "Stop", Prompt: "Was a test written? $ARGUMENTS Answer ok false if not."}
	saveHooks(t, file, stop)
	for _, c := range []struct {
		name, answer string
		err          error
		more, note   string
	}{
		{"not ok", `{"ok": false, "reason": "no test was written"}`, nil, "no test was written", ""},
		{"fenced", "```json\n{\"ok\": false, \"reason\": \"write the test\"}\n```", nil, "write the test", ""},
		{"ok", `{"ok": true, "reason": ""}`, nil, "", ""},
		{"not an answer", "I think it is fine.", nil, "", "did not answer {\"ok\": true}"},
		{"the model fails", "", errors.New("connection refused"), "", "connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			more, notes := hs.PreRunEnd(judging(c.answer, c.err), end)
			if c.more == "" && more != "" || !strings.Contains(more, c.more) {
				t.Fatalf("more %q, want %q", more, c.more)
			}
			if more != "" && !strings.HasPrefix(more, "[Claude Code Stop prompt hook ") {
				t.Errorf("not named: %q", more)
			}
			if c.note == "" && len(notes) > 0 || c.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.note)) {
				t.Fatalf("notes %q, want %q", notes, c.note)
			}
			if !strings.HasPrefix(asked, "Was a test written? {") || !strings.Contains(asked, `"last_assistant_message":"Done, the parser is fixed."`) || !strings.HasSuffix(asked, "} Answer ok false if not.") {
				t.Fatalf("asked %q", asked)
			}
		})
	}
	if more, notes := hs.PreRunEnd(context.Background(), end); more != "" || len(notes) != 1 || !strings.Contains(notes[0], "no model to ask") {
		t.Fatalf("no judge: %q %q", more, notes)
	}
	// What a model says is bounded: a long reason for the model, a long
	// unusable answer in the note.
	long := strings.Repeat("still missing ", 1000)
	if more, _ := hs.PreRunEnd(judging(`{"ok": false, "reason": "`+long+`"}`, nil), end); len(more) > 2500 || !strings.Contains(more, "still missing") {
		t.Fatalf("a long reason: %d bytes", len(more))
	}
	if _, notes := hs.PreRunEnd(judging(long, nil), end); len(notes) != 1 || len(notes[0]) > 500 {
		t.Fatalf("a long answer's note: %q", notes)
	}
	// A prompt without $ARGUMENTS is followed by the event; one on a
	// request stops it, with the reason.
	saveHooks(t, file, Hook{Event: PreRequest, Claude: "UserPromptSubmit", Prompt: "Refuse requests to deploy on Fridays."})
	_, stopped, _ := hs.PreRequest(judging(`{"ok": false, "reason": "no deploys on Fridays"}`, nil), Request{Workspace: dir, Text: "deploy it"})
	if !strings.Contains(stopped, "no deploys on Fridays") || !strings.HasPrefix(asked, "Refuse requests to deploy on Fridays.\n\n{") || !strings.Contains(asked, `"prompt":"deploy it"`) {
		t.Fatalf("stopped %q, asked %q", stopped, asked)
	}
	if added, stopped, _ := hs.PreRequest(judging(`{"ok": true}`, nil), Request{Workspace: dir, Text: "deploy it"}); added != "" || stopped != "" {
		t.Fatalf("an ok request: added %q, stopped %q", added, stopped)
	}
	// One on a tool call (Claude Code's PreToolUse) can deny it, never
	// allow it: "ok" leaves the call to the approval mode. An answer that
	// is not one lets it go on there too (an error that does not block);
	// no answer at all denies it, as a failing guard does.
	saveHooks(t, file, Hook{Event: PreToolCall, Claude: "PreToolUse", Tool: "Bash", Prompt: "Is this command safe to run? $ARGUMENTS"})
	call := ToolCall{Session: "s1", Workspace: dir, ID: "c1", Tool: "shell.run", Arguments: json.RawMessage(`{"command": "rm -rf build"}`)}
	for _, c := range []struct {
		answer  string
		err     error
		verdict approval.HookVerdict
		reason  string
		note    string
	}{
		{`{"ok": false, "reason": "it deletes the build folder"}`, nil, approval.HookDeny, "it deletes the build folder", ""},
		{`{"ok": true, "reason": ""}`, nil, approval.HookPass, "", ""},
		{"Sure, looks fine.", nil, approval.HookPass, "", "did not answer {"},
		{"", errors.New("connection refused"), approval.HookDeny, "connection refused", ""},
	} {
		reason, verdict, notes := hs.PreToolCall(judging(c.answer, c.err), call)
		if verdict != c.verdict || !strings.Contains(reason, c.reason) || (c.note == "") != (len(notes) == 0) || c.note != "" && !strings.Contains(notes[0], c.note) {
			t.Fatalf("%q: %v %q %q", c.answer, verdict, reason, notes)
		}
	}
	if !strings.HasPrefix(asked, "Is this command safe to run? {") || !strings.Contains(asked, `"tool_name":"Bash"`) || !strings.Contains(asked, `"command":"rm -rf build"`) {
		t.Fatalf("asked %q", asked)
	}
	asked = ""
	if _, verdict, _ := hs.PreToolCall(judging(`{"ok": false, "reason": "no"}`, nil), ToolCall{Workspace: dir, Tool: "fs.read", Arguments: json.RawMessage(`{"path": "a"}`)}); verdict != approval.HookPass || asked != "" {
		t.Fatalf("a call its matcher does not name: %v, asked %q", verdict, asked)
	}
	// One after a call (PostToolUse): not ok adds its reason to the
	// result the model reads, as exit status 2 does.
	saveHooks(t, file, Hook{Event: PostToolCall, Claude: "PostToolUse", Tool: "Write|Edit", Prompt: "Did this edit keep the tests passing? $ARGUMENTS"})
	done := ToolDone{ToolCall: ToolCall{Session: "s1", Workspace: dir, ID: "c2", Tool: "fs.write", Arguments: json.RawMessage(`{"path": "a.go", "content": "package a"}`)}, Output: "wrote a.go"}
	for _, c := range []struct {
		answer   string
		err      error
		feedback string
		failure  string
	}{
		{`{"ok": false, "reason": "a.go lost its test"}`, nil, "a.go lost its test", ""},
		{`{"ok": true, "reason": ""}`, nil, "", ""},
		{"Looks fine.", nil, "", "got an answer that is not"},
		{"", errors.New("connection refused"), "", "connection refused"},
	} {
		r := hs.PostToolCall(judging(c.answer, c.err), done)
		feedback, failures := r.Feedback, r.Failures
		if !strings.Contains(feedback, c.feedback) || (c.feedback == "") != (feedback == "") || (c.failure == "") != (len(failures) == 0) || c.failure != "" && !strings.Contains(failures[0], c.failure) {
			t.Fatalf("%q: feedback %q, failures %q", c.answer, feedback, failures)
		}
	}
	if !strings.Contains(asked, `"tool_name":"Write"`) || !strings.Contains(asked, `"tool_response"`) {
		t.Fatalf("asked %q", asked)
	}
	for _, bad := range []Hook{
		{Event: "agent:run-ended", Prompt: "x"},
		{Event: PreRunEnd, Prompt: "x", Command: "/bin/true"},
	} {
		if bad.Check() == nil {
			t.Errorf("%+v passed Check", bad)
		}
	}
}

// TestClaudeStop: a Claude Code Stop hook reads stop_hook_active and
// last_assistant_message; exit 2 and {"decision": "block"} send the model
// back with their reason, "continue": false ends the run, another exit
// status lets it end with a note; one imported by an older Shrimp (on
// agent:run-ended) runs here the same.
func TestClaudeStop(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	seen := filepath.Join(dir, "stop.json")
	end := RunEnd{Session: "s1", Workspace: dir, Request: "fix the tests", Answer: "All tests pass now."}
	for _, c := range []struct {
		name, script string
		sentBack     int
		more, note   string
	}{
		{"lets it end", `cat > ` + seen, 0, "", ""},
		{"exit 2", `cat > ` + seen + `; echo "go test ./... fails: TestParse" >&2; exit 2`, 0, "go test ./... fails: TestParse", ""},
		{"block", `cat > ` + seen + `; echo '{"decision": "block", "reason": "run the linter first"}'`, 1, "run the linter first", ""},
		{"loop guard", `cat > ` + seen + `; jq -e '.stop_hook_active' >/dev/null < ` + seen + ` && exit 0; echo again >&2; exit 2`, 1, "", ""},
		{"exit 1", `cat > ` + seen + `; echo "jq: not found" >&2; exit 1`, 0, "", "error that does not block, so the run may end: jq: not found"},
		{"continue false", `cat > ` + seen + `; echo '{"continue": false, "stopReason": "budget spent", "decision": "block", "reason": "more"}'`, 0, "", "ends the run: budget spent"},
		{"block without a reason", `cat > ` + seen + `; exit 2`, 0, "", "without saying why"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "loop guard" {
				if _, err := exec.LookPath("jq"); err != nil {
					t.Skip("jq is not installed (make deps-test installs it): the guard is written with jq, as Claude Code's are")
				}
			}
			saveHooks(t, file, claudeHook(PreRunEnd, "Stop", "", c.script))
			e := end
			e.SentBack = c.sentBack
			more, notes := hs.PreRunEnd(context.Background(), e)
			if c.more == "" && more != "" || !strings.Contains(more, c.more) {
				t.Fatalf("more %q, want %q", more, c.more)
			}
			if more != "" && !strings.HasPrefix(more, "[Claude Code Stop hook ") {
				t.Errorf("not named: %q", more)
			}
			if c.note == "" && len(notes) > 0 || c.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.note)) {
				t.Fatalf("notes %q, want %q", notes, c.note)
			}
			var in struct {
				Event   string `json:"hook_event_name"`
				Session string `json:"session_id"`
				CWD     string `json:"cwd"`
				Active  *bool  `json:"stop_hook_active"`
				Answer  string `json:"last_assistant_message"`
			}
			readJSON(t, seen, &in)
			if in.Event != "Stop" || in.Session != "s1" || in.CWD != dir || in.Active == nil || *in.Active != (c.sentBack > 0) || in.Answer != end.Answer {
				t.Fatalf("Stop input: %+v", in)
			}
		})
	}
	// hooks.json as an older Shrimp wrote it: the Stop hook observed
	// agent:run-ended. It loads, and checks the answer.
	old := `{"hooks": [{"id": "a1", "event": "agent:run-ended", "claude": "Stop", "command": "/bin/sh", "args": ["-c", "echo unfinished >&2; exit 2"]}]}`
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(file)
	if err != nil || cfg.Hooks[0].Event != PreRunEnd {
		t.Fatalf("an older Stop hook: %+v %v", cfg, err)
	}
	if more, _ := hs.PreRunEnd(context.Background(), end); !strings.Contains(more, "unfinished") {
		t.Fatalf("an older Stop hook did not check the answer: %q", more)
	}
	if hs.Watched("agent:run-ended") {
		t.Fatal("an older Stop hook still observes agent:run-ended")
	}
}

// TestClaudePlugin: a Claude Code plugin's hooks/hooks.json imports with
// its folder written into the command lines and CLAUDE_PLUGIN_ROOT set,
// so its scripts are found and can find their own files.
func TestClaudePlugin(t *testing.T) {
	root := filepath.Join(t.TempDir(), "security-guidance")
	write := func(rel, text string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude-plugin/plugin.json", `{"name": "security-guidance", "version": "1.0.0"}`, 0o600)
	write("hooks/patterns.txt", "eval(\n", 0o600)
	// The script finds its patterns through the variable, as plugin
	// scripts do.
	write("hooks/guard.sh", "#!/bin/sh\ngrep -qFf \"$CLAUDE_PLUGIN_ROOT/hooks/patterns.txt\" && { echo 'eval is unsafe here' >&2; exit 2; }\nexit 0\n", 0o700)
	settings := `{"description": "Warns about unsafe code", "hooks": {"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh\""}]}]}}`
	write("hooks/hooks.json", settings, 0o600)
	file := filepath.Join(root, "hooks", "hooks.json")
	if got := PluginRoot(file); got != root {
		t.Fatalf("plugin root %q, want %q", got, root)
	}
	if got := PluginRoot(filepath.Join(t.TempDir(), "hooks", "hooks.json")); got != "" {
		t.Fatalf("a hooks folder without a plugin manifest: %q", got)
	}
	in, err := ImportClaude([]byte(settings), "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	if name := PluginName(root); name != "security-guidance" {
		t.Fatalf("plugin name %q", name)
	}
	state := filepath.Join(t.TempDir(), "plugin-data", "security-guidance")
	in.InPlugin(root, state)
	h := in.Hooks[0]
	if h.Args[1] != `"`+root+`/hooks/guard.sh"` || h.Env["CLAUDE_PLUGIN_ROOT"] != root || h.Env["CLAUDE_PLUGIN_DATA"] != state || h.Check() != nil ||
		!strings.Contains(strings.Join(in.Notes, " "), root) || !strings.Contains(strings.Join(in.Notes, " "), state) {
		t.Fatalf("imported %+v, notes %q", h, in.Notes)
	}
	// A name that is not a folder's name is made one, as Claude Code does.
	write(".claude-plugin/plugin.json", `{"name": "../team tools"}`, 0o600)
	if name := PluginName(root); name != "---team-tools" {
		t.Fatalf("plugin name %q", name)
	}
	write(".claude-plugin/plugin.json", `{}`, 0o600)
	if name := PluginName(root); name != filepath.Base(root) {
		t.Fatalf("a plugin without a name: %q", name)
	}
	hooksFile := filepath.Join(t.TempDir(), FileName)
	saveHooks(t, hooksFile, h)
	hs := &Hooks{File: hooksFile}
	ws := t.TempDir()
	reason, v, _ := hs.PreToolCall(context.Background(), ToolCall{Workspace: ws, Tool: "fs.write", Arguments: json.RawMessage(`{"path": "a.py", "content": "eval(input())"}`)})
	if v != approval.HookDeny || !strings.Contains(reason, "eval is unsafe here") {
		t.Fatalf("the plugin's guard: %v %q", v, reason)
	}
	if _, v, notes := hs.PreToolCall(context.Background(), ToolCall{Workspace: ws, Tool: "fs.write", Arguments: json.RawMessage(`{"path": "a.py", "content": "print(1)"}`)}); v != approval.HookPass || len(notes) > 0 {
		t.Fatalf("a safe write: %v %q", v, notes)
	}
	// The same hook imported again is the same hook; another plugin's is not.
	c := Config{}
	if _, added, _ := c.AddNew(h); !added {
		t.Fatal("not added")
	}
	if _, added, _ := c.AddNew(h); added {
		t.Fatal("added twice")
	}
	other := h
	other.Env = map[string]string{"CLAUDE_PLUGIN_ROOT": "/elsewhere"}
	if _, added, _ := c.AddNew(other); !added {
		t.Fatal("another plugin's hook was taken for this one")
	}
	bad := h
	bad.Env = map[string]string{"1X": "y"}
	if err := bad.Check(); err == nil {
		t.Fatal("a variable named 1X passed")
	}
}

// TestFromCodexTOML: a Codex config.toml's [hooks] tables (Claude Code's
// form in TOML) import as its hooks.json would.
func TestFromCodexTOML(t *testing.T) {
	config := `model = "gpt-5"

[features]
hooks = true

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "jq -r .tool_input.command | grep -q 'git push' && exit 2"
timeout = 20

[[hooks.Stop]]

[[hooks.Stop.hooks]]
type = "command"
command = "make -s lint >&2 || exit 2"
`
	b, err := FromCodexTOML([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	in, err := ImportClaude(b, "/bin/bash")
	if err != nil || len(in.Hooks) != 2 {
		t.Fatalf("imported %+v %v", in, err)
	}
	guard, stop := in.Hooks[0], in.Hooks[1]
	if guard.Event != PreToolCall || guard.Tool != "Bash" || guard.Timeout != 20 || guard.Args[1] != "jq -r .tool_input.command | grep -q 'git push' && exit 2" || guard.Disabled {
		t.Fatalf("the guard: %+v", guard)
	}
	if stop.Event != PreRunEnd || stop.Claude != "Stop" || stop.Args[1] != "make -s lint >&2 || exit 2" {
		t.Fatalf("the Stop hook: %+v", stop)
	}
	off, err := FromCodexTOML([]byte("[features]\ncodex_hooks = false\n" + config[strings.Index(config, "[[hooks.PreToolUse]]"):]))
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := ImportClaude(off, "/bin/bash"); len(in.Hooks) != 2 || !in.Hooks[0].Disabled || !strings.Contains(strings.Join(in.Notes, " "), "switched off there") {
		t.Fatalf("hooks switched off in Codex: %+v", in)
	}
	for in, want := range map[string]string{`model = "x"`: "no [hooks] in it", `hooks = [`: "not a Codex config.toml"} {
		if _, err := FromCodexTOML([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// TestObserves: an observing hook runs on each event of its type; a
// Claude Code one only where Claude Code's would.
func TestObserves(t *testing.T) {
	asked := func(a bool) agent.Event {
		return agent.Event{Type: "approval:requested", Data: approval.Request{ID: "c", Tool: "shell.run", Asked: a}}
	}
	ended := func(status string) agent.Event {
		return agent.Event{Type: "agent:run-ended", Data: agent.RunEnded{Status: status}}
	}
	for _, c := range []struct {
		name string
		h    Hook
		e    agent.Event
		want bool
	}{
		{"its own type", Hook{Event: "agent:run-ended"}, ended("cancelled"), true},
		{"another type", Hook{Event: "agent:run-ended"}, asked(true), false},
		{"Notification, asked", claudeHook("approval:requested", "Notification", "", "true"), asked(true), true},
		{"Notification, decided by the mode", claudeHook("approval:requested", "Notification", "", "true"), asked(false), false},
		{"StopFailure after a failure", claudeHook("agent:run-ended", "StopFailure", "", "true"), ended("error"), true},
		{"StopFailure after an answer", claudeHook("agent:run-ended", "StopFailure", "", "true"), ended("responded"), false},
		{"a point in the loop", Hook{Event: PreRunEnd}, agent.Event{Type: PreRunEnd}, false},
	} {
		if got := c.h.Observes(c.e); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCodexNamed: a hook imported from Codex's files (Claude Code's form)
// is named as Codex's in every message, one from Claude Code's as its.
func TestCodexNamed(t *testing.T) {
	for _, c := range []struct {
		h          Hook
		describe   string
		on         string
		notBlocked string
	}{
		{Hook{ID: "a1", Event: PreRunEnd, Claude: "Stop", Codex: true, Command: "/bin/bash", Args: []string{"-c", "make test"}}, "Codex Stop hook a1 (make test)", "pre-run-end (Codex Stop)", "for a Codex hook"},
		{Hook{ID: "a2", Event: PreRunEnd, Claude: "Stop", Command: "/bin/bash", Args: []string{"-c", "make test"}}, "Claude Code Stop hook a2 (make test)", "pre-run-end (Claude Code Stop)", "for a Claude Code hook"},
		{Hook{ID: "a3", Event: PreToolCall, Claude: "PreToolUse", Codex: true, Tool: "Bash", Prompt: "Safe?"}, "Codex PreToolUse prompt hook a3 (Safe?)", "pre-tool-call Bash (Codex PreToolUse)", ""},
	} {
		if got := describe(c.h); got != c.describe {
			t.Errorf("describe: %q, want %q", got, c.describe)
		}
		if got := c.h.On(); got != c.on {
			t.Errorf("On: %q, want %q", got, c.on)
		}
		if got := notBlocking(c.h, Result{Exit: 1}, "the run may end"); c.notBlocked != "" && !strings.Contains(got, c.notBlocked) {
			t.Errorf("notBlocking: %q, want %q", got, c.notBlocked)
		}
	}
}

// FuzzImportHooks: another agent's settings (a cloned folder's, read at
// the first request there to name its hooks) never panic the readers,
// and every hook they yield passes Check; notes are one line each.
func FuzzImportHooks(f *testing.F) {
	for _, seed := range []string{
		`{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "exit 2", "timeout": 1e9}]}]}}`,
		`{"hooks": {"BeforeTool": [{"matcher": "run_.*", "hooks": [{"name": "n", "type": "command", "command": "x", "timeout": -5}]}]}, "hooksConfig": {"enabled": false}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "ok?\n$ARGUMENTS", "model": "m\nx"}]}], "Notification": [{"matcher": "(", "hooks": []}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash.*\n\u001b[2J", "hooks": [{"type": "command", "command": "x"}]}]}}`,
		"[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"x\"\n",
		`{"version": 2, "hooks": {"beforeShellExecution": [{"command": "x", "timeout": 5000, "failClosed": true}], "preToolUse": [{"matcher": "MCP:.*\n", "command": "y"}], "stop\n": [{"command": "z", "timeout": 1e300, "loop_limit": 3}], "x": 1}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var runs []func() (Imported, error)
		runs = append(runs, func() (Imported, error) { return ImportClaude([]byte(text), "/bin/sh") })
		runs = append(runs, func() (Imported, error) { return ImportGemini([]byte(text), "/bin/sh") })
		runs = append(runs, func() (Imported, error) { return ImportCursor([]byte(text), "/bin/sh") })
		if b, err := FromCodexTOML([]byte(text)); err == nil {
			runs = append(runs, func() (Imported, error) { return ImportClaude(b, "/bin/sh") })
		}
		for _, run := range runs {
			got, err := run()
			if err != nil {
				continue
			}
			for _, h := range got.Hooks {
				if err := h.Check(); err != nil {
					t.Fatalf("imported a hook that fails Check: %+v: %v", h, err)
				}
			}
			for _, n := range got.Notes {
				if strings.ContainsAny(n, "\r\n") {
					t.Fatalf("a note of more than one line: %q", n)
				}
			}
			for _, h := range got.Hooks { // what a project's note names
				if label := h.Claude + " " + h.Tool; strings.IndexFunc(label, unicode.IsControl) >= 0 {
					t.Fatalf("a hook's event or matcher holds control characters: %q", label)
				}
			}
		}
	})
}

// TestOtherNames: other agents' names for Shrimp's tools come from the
// three tables, each to the tool it names.
func TestOtherNames(t *testing.T) {
	names := OtherNames()
	for other, own := range map[string]string{"Bash": "shell.run", "Read": "fs.read", "run_shell_command": "shell.run", "read_file": "fs.read", "StrReplace": "fs.edit", "Shell": "shell.run", "grep_search": "fs.search", "search_file_content": "fs.search"} {
		if names[other] != own {
			t.Errorf("%s names %q, want %s", other, names[other], own)
		}
	}
	// With their arguments: Claude Code's Edit and Read, Cursor's Read
	// (path, where Claude Code's is file_path), a command's description
	// (Claude Code, Gemini CLI) for nothing.
	tools := OtherTools()
	for other, want := range map[string]map[string]string{
		"Bash":              {"command": "command", "description": ""},
		"run_shell_command": {"command": "command", "description": ""},
		"Edit":              {"file_path": "path", "old_string": "old", "new_string": "new", "replace_all": "all"},
		"Read":              {"file_path": "path", "path": "path", "offset": "offset", "limit": "limit"},
		// Gemini CLI's, of its 2025 and its 2026 versions.
		"read_file":           {"file_path": "path", "path": "path", "offset": "offset", "limit": "limit"},
		"replace":             {"file_path": "path", "old_string": "old", "new_string": "new", "allow_multiple": "all", "instruction": ""},
		"grep_search":         {"pattern": "query", "dir_path": "path", "path": "path"},
		"search_file_content": {"pattern": "query", "dir_path": "path", "path": "path"},
		"list_directory":      {"dir_path": "path", "path": "path"},
	} {
		if got := tools[other].Args; !maps.Equal(got, want) {
			t.Errorf("%s's arguments %v, want %v", other, got, want)
		}
	}
	if f := tools["Bash"].Scale["timeout"]; f != 0.001 {
		t.Errorf("Bash's timeout scaled by %v, want 0.001 (milliseconds)", f)
	}
	if d := tools["read_file"].Shift["offset"]; d != 1 {
		t.Errorf("read_file's offset shifted by %v, want 1 (Gemini CLI counts lines from 0)", d)
	}
	// No table gives one name to two tools.
	for _, tbl := range []claudeTable{claude(), gemini(), cursor()} {
		for own, named := range tbl.Tools {
			if named.Name != "" && named.Name != own && tools[named.Name].Tool != own {
				t.Errorf("%s is %s in one table, %s in another", named.Name, own, tools[named.Name].Tool)
			}
		}
	}
}
