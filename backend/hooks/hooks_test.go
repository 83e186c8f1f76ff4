package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
)

func sh(script string) (string, []string) { return "/bin/sh", []string{"-c", script} }

// saveScripts writes hooks.json with a hook on event for each of scripts
// (run by /bin/sh -c), in order.
func saveScripts(t *testing.T, file, event string, scripts ...string) {
	t.Helper()
	c := Config{}
	for _, s := range scripts {
		cmd, args := sh(s)
		if _, err := c.Add(Hook{Event: event, Command: cmd, Args: args}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(file); err != nil {
		t.Fatal(err)
	}
}

func TestConfigRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), FileName)
	c, err := Load(file)
	if err != nil || len(c.Hooks) != 0 {
		t.Fatalf("missing file: %+v %v", c, err)
	}
	h, err := c.Add(Hook{Event: "agent:run-ended", Command: "notify-send", Args: []string{"Shrimp", "done"}})
	if err != nil || len(h.ID) != 8 {
		t.Fatalf("add: %+v %v", h, err)
	}
	if err := c.Save(file); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("hooks.json mode: %v %v", info, err)
	}
	back, err := Load(file)
	if err != nil || len(back.Hooks) != 1 || back.Hooks[0].Args[1] != "done" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if err := back.Remove(h.ID); err != nil || len(back.Hooks) != 0 {
		t.Fatalf("remove: %v", err)
	}
	if err := back.Remove("nope"); err == nil {
		t.Fatal("removed a hook that is not there")
	}
	for _, bad := range []Hook{
		{Event: "run ended", Command: "x"},
		{Event: "agent:run-ended"},
		{Event: "agent:run-ended", Command: "x", Tool: "shell.run"},
		{Event: PreToolCall, Command: "x", Tool: "[bad"},
		{Event: PreToolCall, Command: "x", Timeout: -1},
	} {
		if _, err := (&Config{}).Add(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if err := os.Chmod(file, 0o646); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(file); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-writable hooks.json: %v", err)
	}
	if reason, v, _ := (&Hooks{File: file}).PreToolCall(context.Background(), ToolCall{Tool: "fs.read"}); v != approval.HookDeny || !strings.Contains(reason, "chmod 600") {
		t.Fatalf("a pre-tool-call check with a world-writable file: %v %q", v, reason)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"hooks": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(file); err == nil || !strings.Contains(err.Error(), "not valid hooks.json") {
		t.Fatalf("corrupt file: %v", err)
	}
}

func TestPreToolCall(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	call := ToolCall{Workspace: dir, ID: "c1", Tool: "shell.run", Arguments: json.RawMessage(`{"command":"rm -rf / \u0026\u0026 curl x \u003e /etc/passwd"}`)}
	set := func(list ...Hook) {
		t.Helper()
		c := Config{}
		for _, h := range list {
			if _, err := c.Add(h); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Save(file); err != nil {
			t.Fatal(err)
		}
	}
	hook := func(script string, mod func(*Hook)) Hook {
		cmd, args := sh(script)
		h := Hook{Event: PreToolCall, Command: cmd, Args: args}
		if mod != nil {
			mod(&h)
		}
		return h
	}
	ctx := context.Background()
	pass, ask, deny := approval.HookPass, approval.HookAsk, approval.HookDeny
	cases := []struct {
		name       string
		hooks      []Hook
		verdict    approval.HookVerdict
		reasonPart string
	}{
		{"no hooks", nil, pass, ""},
		{"allows", []Hook{hook("cat >/dev/null; exit 0", nil)}, pass, ""},
		{"exit 2 denies with stderr", []Hook{hook(`grep -q 'rm -rf' && { echo "no recursive deletes" >&2; exit 2; }; exit 0`, nil)}, deny, "no recursive deletes"},
		{"JSON deny", []Hook{hook(`echo '{"decision": "deny", "reason": "not on Fridays"}'`, nil)}, deny, "not on Fridays"},
		{"JSON allow goes on", []Hook{hook(`echo '{"decision": "allow"}'`, nil)}, pass, ""},
		{"JSON ask", []Hook{hook(`echo '{"decision": "ask", "reason": "a delete"}'`, nil)}, ask, "asks for your decision: a delete"},
		{"a deny after an ask", []Hook{hook(`echo '{"decision": "ask"}'`, nil), hook(`echo '{"decision": "deny", "reason": "no"}'`, nil)}, deny, "no"},
		{"the answer after log lines", []Hook{hook(`echo checking; echo '{"decision": "deny", "reason": "logged first"}'`, nil)}, deny, "logged first"},
		{"a log line after the answer", []Hook{hook(`echo '{"decision": "deny", "reason": "then logged"}'; echo done`, nil)}, deny, "then logged"},
		{"jq's pretty print", []Hook{hook(`echo start; printf '{\n  "decision": "deny",\n  "reason": "pretty"\n}\n'`, nil)}, deny, "pretty"},
		{"Claude Code's block", []Hook{hook(`echo '{"decision": "block", "reason": "legacy"}'`, nil)}, deny, "legacy"},
		{"Claude Code's permissionDecision", []Hook{hook(`echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "specific"}}'`, nil)}, deny, "specific"},
		{"Claude Code's ask", []Hook{hook(`echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'`, nil)}, ask, "no reason given"},
		{"Claude Code's continue false", []Hook{hook(`echo '{"continue": false, "stopReason": "stop here"}'`, nil)}, deny, "stop here"},
		{"an unknown decision fails closed", []Hook{hook(`echo '{"decision": "nope"}'`, nil)}, deny, `it answered "nope"`},
		{"a broken answer fails closed", []Hook{hook(`echo '{"decision": "deny"'`, nil)}, deny, "not a JSON answer"},
		{"plain text is no answer", []Hook{hook(`echo all good`, nil)}, pass, ""},
		{"other status fails closed", []Hook{hook(`echo boom >&2; exit 1`, nil)}, deny, "exited with status 1"},
		{"timeout fails closed", []Hook{hook(`sleep 30`, func(h *Hook) { h.Timeout = 0.3 })}, deny, "no answer within 300ms"},
		{"crash fails closed", []Hook{hook(`kill -9 $$`, nil)}, deny, "killed"},
		{"missing program fails closed", []Hook{{Event: PreToolCall, Command: "/nonexistent/hook"}}, deny, "failed"},
		{"other tools only", []Hook{hook(`exit 2`, func(h *Hook) { h.Tool = "mcp.*" })}, pass, ""},
		{"matching pattern", []Hook{hook(`exit 2`, func(h *Hook) { h.Tool = "shell.*" })}, deny, "no reason given"},
		{"disabled", []Hook{hook(`exit 2`, func(h *Hook) { h.Disabled = true })}, pass, ""},
		{"second hook denies", []Hook{hook(`exit 0`, nil), hook(`echo second >&2; exit 2`, nil)}, deny, "second"},
		// Go (and Ollama) write & < > as \u0026 \u003c \u003e: a hook
		// grepping the command must see them as they are.
		{"operators as written", []Hook{hook(`grep -q '&& curl x > /etc/passwd' && exit 2; exit 0`, nil)}, deny, "no reason given"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set(c.hooks...)
			start := time.Now()
			reason, v, _ := hs.PreToolCall(ctx, call)
			if v != c.verdict || !strings.Contains(reason, c.reasonPart) {
				t.Fatalf("verdict %v reason %q; want %v with %q", v, reason, c.verdict, c.reasonPart)
			}
			t.Logf("%s in %s", c.name, time.Since(start).Round(time.Millisecond))
		})
	}
	// The hook reads the call on stdin.
	out := filepath.Join(dir, "seen.json")
	set(hook(`cat > `+out, nil))
	if _, v, _ := hs.PreToolCall(ctx, call); v != pass {
		t.Fatal("denied")
	}
	var seen ToolCall
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &seen) != nil || seen.Tool != "shell.run" || seen.Event != PreToolCall || !strings.Contains(string(seen.Arguments), "rm -rf") {
		t.Fatalf("stdin: %s %v", b, err)
	}
	// A hooks file that does not parse denies.
	if err := os.WriteFile(file, []byte(`{`), 0o600); err != nil {
		t.Fatal(err)
	}
	if reason, v, _ := hs.PreToolCall(ctx, call); v != deny || !strings.Contains(reason, "cannot be read") {
		t.Fatalf("corrupt file: %v %q", v, reason)
	}
}

func TestObserver(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	out := filepath.Join(dir, "ended.json")
	c := Config{}
	for _, h := range []Hook{
		{Event: "agent:run-ended", Command: "/bin/sh", Args: []string{"-c", "cat > " + out}},
		{Event: "agent:run-ended", Command: "/bin/sh", Args: []string{"-c", "echo broken >&2; exit 3"}},
		{Event: "agent:run-ended", Command: "/bin/sh", Args: []string{"-c", "sleep 30"}, Timeout: 0.3},
	} {
		if _, err := c.Add(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(file); err != nil {
		t.Fatal(err)
	}
	hs := &Hooks{File: file}
	o := &Observer{Hooks: hs, Dir: dir}
	if o.Wants("agent:run-ended") {
		t.Fatal("Wants before the file was read")
	}
	if _, err := hs.Current(); err != nil {
		t.Fatal(err)
	}
	if !o.Wants("agent:run-ended") || o.Wants("agent:text") || o.Wants(PreToolCall) {
		t.Fatal("Wants")
	}
	e := agent.Event{Seq: 7, Session: "s1", Type: "agent:run-ended", Time: time.Now(), Data: map[string]any{"reason": "responded", "arguments": json.RawMessage(`{"command":"make \u0026\u0026 ls \u003e out"}`)}}
	err := o.Handle(context.Background(), e)
	if err == nil || !strings.Contains(err.Error(), "exited with status 3: broken") || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("failures: %v", err)
	}
	var seen agent.Event
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &seen) != nil || seen.Session != "s1" || seen.Seq != 7 || !strings.Contains(string(b), `"make && ls > out"`) {
		t.Fatalf("stdin: %s %v", b, err)
	}
}

// BenchmarkPreToolCall measures what one pre-tool-call hook adds to every
// tool call: starting /bin/true with the call on stdin.
func BenchmarkPreToolCall(b *testing.B) {
	file := filepath.Join(b.TempDir(), FileName)
	c := Config{}
	if _, err := c.Add(Hook{Event: PreToolCall, Command: "/bin/true"}); err != nil {
		b.Fatal(err)
	}
	if err := c.Save(file); err != nil {
		b.Fatal(err)
	}
	hs := &Hooks{File: file}
	call := ToolCall{Workspace: b.TempDir(), ID: "c", Tool: "shell.run", Arguments: json.RawMessage(`{"command":"ls"}`)}
	for b.Loop() {
		if _, v, _ := hs.PreToolCall(context.Background(), call); v != approval.HookPass {
			b.Fatal("denied")
		}
	}
}

// TestFollow: Follow rereads the file, so Watched (the bus filter, which
// does no I/O) follows an edit made by another process.
func TestFollow(t *testing.T) {
	file := filepath.Join(t.TempDir(), FileName)
	hs := &Hooks{File: file}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go hs.Follow(ctx, 10*time.Millisecond)
	c := Config{}
	if _, err := c.Add(Hook{Event: "agent:run-ended", Command: "true"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(file); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !hs.Watched("agent:run-ended") {
		if time.Now().After(deadline) {
			t.Fatal("an added hook was never watched")
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.Hooks[0].Disabled = true
	if err := c.Save(file); err != nil {
		t.Fatal(err)
	}
	for hs.Watched("agent:run-ended") {
		if time.Now().After(deadline) {
			t.Fatal("a disabled hook is still watched")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPostToolCall: what post-tool-call hooks say joins the result, in
// each way a hook can say it (Shrimp's and Claude Code's); a hook that
// fails is reported and gives the model nothing; the hook reads the call
// and its result.
func TestPostToolCall(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	done := ToolDone{ToolCall: ToolCall{Workspace: dir, Tool: "fs.write", Arguments: json.RawMessage(`{"path":"a.go","content":"x \u0026\u0026 y"}`)}, Output: "wrote a.go"}
	hook := func(script string, tool string, timeout float64) Hook {
		cmd, args := sh(script)
		return Hook{Event: PostToolCall, Command: cmd, Args: args, Tool: tool, Timeout: timeout}
	}
	for _, tc := range []struct {
		name     string
		hooks    []Hook
		said     []string
		failures []string
	}{
		{"nothing", nil, nil, nil},
		{"plain stdout is not for the model", []Hook{hook(`echo formatted`, "", 0)}, nil, nil},
		{"exit 2", []Hook{hook(`echo 'a.go:3: missing return' >&2; exit 2`, "", 0)}, []string{"after this call]\na.go:3: missing return"}, nil},
		{"feedback", []Hook{hook(`echo '{"feedback": "2 lint problems"}'`, "", 0)}, []string{"2 lint problems"}, nil},
		{"Claude Code's block", []Hook{hook(`echo '{"decision": "block", "reason": "tests fail"}'`, "", 0)}, []string{"tests fail"}, nil},
		{"Claude Code's context", []Hook{hook(`echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "see CONTRIBUTING"}}'`, "", 0)}, []string{"see CONTRIBUTING"}, nil},
		{"two hooks", []Hook{hook(`echo one >&2; exit 2`, "", 0), hook(`echo two >&2; exit 2`, "", 0)}, []string{"one", "two"}, nil},
		{"other tools", []Hook{hook(`echo no >&2; exit 2`, "shell.*", 0)}, nil, nil},
		{"a failing hook", []Hook{hook(`echo broken >&2; exit 1`, "", 0)}, nil, []string{"exited with status 1: broken"}},
		{"a hanging hook", []Hook{hook(`sleep 30`, "", 0.3)}, nil, []string{"no answer within 300ms"}},
		{"it reads the call and the result", []Hook{hook(`p=$(cat); printf '%s' "$p" | grep -q '"tool":"fs.write"' && printf '%s' "$p" | grep -q '"output":"wrote a.go"' && printf '%s' "$p" | grep -q 'x && y' && { echo seen >&2; exit 2; }; exit 0`, "", 0)}, []string{"seen"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{}
			for _, h := range tc.hooks {
				if _, err := c.Add(h); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Save(file); err != nil {
				t.Fatal(err)
			}
			r := hs.PostToolCall(context.Background(), done)
			said, failures := r.Feedback, r.Failures
			if (said == "") != (len(tc.said) == 0) || len(failures) != len(tc.failures) {
				t.Fatalf("said %q, failures %q", said, failures)
			}
			at := 0
			for _, s := range tc.said {
				i := strings.Index(said[at:], s)
				if i < 0 {
					t.Fatalf("said %q, want %q in order", said, tc.said)
				}
				at += i + len(s)
			}
			for i, f := range tc.failures {
				if !strings.Contains(failures[i], f) {
					t.Fatalf("failure %q, want %q", failures[i], f)
				}
			}
		})
	}
}

// TestPreRequest: a pre-request hook stops a request (exit 2, a block or
// deny answer, any failure) or adds context for the model (plain text, or
// additionalContext), each named; it reads the request on stdin.
func TestPreRequest(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	set := func(scripts ...string) {
		t.Helper()
		saveScripts(t, file, PreRequest, scripts...)
	}
	req := Request{Workspace: dir, Text: "deploy with token ghp_x"}
	for _, c := range []struct {
		name               string
		scripts            []string
		added, stoppedPart string
	}{
		{"no hooks", nil, "", ""},
		{"silent", []string{"cat >/dev/null"}, "", ""},
		{"plain text is context", []string{"echo branch: main"}, "branch: main", ""},
		{"additionalContext", []string{`echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "today is a holiday"}}'`}, "today is a holiday", ""},
		{"exit 2 stops", []string{`grep -q ghp_ && { echo "a token in the request" >&2; exit 2; }`}, "", "a token in the request"},
		{"block stops", []string{`echo '{"decision": "block", "reason": "not now"}'`}, "", "not now"},
		{"a failure stops", []string{`exit 1`}, "", "exited with status 1"},
		{"a later hook stops", []string{"echo fine", "exit 2"}, "", "no reason given"},
		{"two add context", []string{"echo one", "echo two"}, "one", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			set(c.scripts...)
			added, stopped, _ := hs.PreRequest(context.Background(), req)
			if c.stoppedPart == "" && stopped != "" || !strings.Contains(stopped, c.stoppedPart) {
				t.Fatalf("stopped %q, want %q", stopped, c.stoppedPart)
			}
			if !strings.Contains(added, c.added) || (c.added == "") != (added == "") {
				t.Fatalf("added %q, want %q", added, c.added)
			}
			if added != "" && !strings.HasPrefix(added, "[context from hook ") {
				t.Errorf("context not named: %q", added)
			}
		})
	}
	out := filepath.Join(dir, "seen.json")
	set("cat > " + out)
	withImage := req
	withImage.Images = []attach.Image{{Name: "shot.png", Type: "image/png", Width: 8, Height: 6, Bytes: 90, SHA256: "ab12", Data: []byte("not on stdin")}}
	hs.PreRequest(context.Background(), withImage)
	var seen Request
	b, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(b, &seen) != nil || seen.Event != PreRequest || seen.Text != req.Text || seen.Workspace != dir {
		t.Fatalf("stdin: %s %v", b, err)
	}
	// A guard sees the images attached, not their data.
	if len(seen.Images) != 1 || seen.Images[0].Name != "shot.png" || seen.Images[0].SHA256 != "ab12" || strings.Contains(string(b), "not on stdin") {
		t.Fatalf("images on stdin: %s", b)
	}
	set(`grep -q '"images"' && { echo "no pictures to models here" >&2; exit 2; }; exit 0`)
	if _, stopped, _ := hs.PreRequest(context.Background(), withImage); !strings.Contains(stopped, "no pictures to models here") {
		t.Fatalf("a guard against images: %q", stopped)
	}
	if _, stopped, _ := hs.PreRequest(context.Background(), req); stopped != "" {
		t.Fatalf("the guard stopped a request without images: %q", stopped)
	}
	if err := os.WriteFile(file, []byte(`{`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stopped, _ := hs.PreRequest(context.Background(), req); !strings.Contains(stopped, "cannot be read") {
		t.Errorf("a broken hooks file: %q", stopped)
	}
}

// TestSessionStart: what session-start hooks print (or give as
// additionalContext) is context, each hook's named; one that fails, or
// exits with another status, is a note, and the session goes on without
// it; a hook limited to a start runs only at it.
func TestSessionStart(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	begin := Begin{Session: "s1", Workspace: dir, Source: "startup", Model: "qwen3"}
	for _, c := range []struct {
		name      string
		scripts   []string
		added     string
		noteParts []string
	}{
		{"no hooks", nil, "", nil},
		{"plain text is context", []string{"echo on-call: Ana"}, "on-call: Ana", nil},
		{"additionalContext", []string{`echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "the API is frozen"}}'`}, "the API is frozen", nil},
		{"exit 2 stops nothing", []string{"echo kept; echo 'no VPN' >&2; exit 2", "echo second"}, "second", []string{"status 2", "no VPN"}},
		{"a failure is a note", []string{"exit 1"}, "", []string{"goes on without its context"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			saveScripts(t, file, SessionStart, c.scripts...)
			added, notes := hs.SessionStart(context.Background(), begin)
			if !strings.Contains(added, c.added) || (c.added == "") != (added == "") || strings.Contains(added, "kept") {
				t.Fatalf("added %q, want %q", added, c.added)
			}
			if added != "" && !strings.HasPrefix(added, "[context from hook ") {
				t.Errorf("context not named: %q", added)
			}
			if len(c.noteParts) == 0 && len(notes) > 0 {
				t.Fatalf("notes %q", notes)
			}
			for _, part := range c.noteParts {
				if len(notes) != 1 || !strings.Contains(notes[0], part) {
					t.Fatalf("notes %q, want %q", notes, part)
				}
			}
		})
	}
	// Shrimp's form on stdin; a hook limited to new sessions.
	seen := filepath.Join(dir, "seen.json")
	saveHooks(t, file, Hook{Event: SessionStart, Tool: "startup", Command: "/bin/sh", Args: []string{"-c", "cat > " + seen + "; echo fresh"}})
	if added, _ := hs.SessionStart(context.Background(), begin); !strings.Contains(added, "fresh") {
		t.Fatalf("a startup hook at startup: %q", added)
	}
	var in Begin
	if b, err := os.ReadFile(seen); err != nil || json.Unmarshal(b, &in) != nil || in != (Begin{Event: SessionStart, Session: "s1", Workspace: dir, Source: "startup", Model: "qwen3"}) {
		t.Fatalf("stdin %+v (%v)", in, err)
	}
	resume := begin
	resume.Source = "resume"
	if added, _ := hs.SessionStart(context.Background(), resume); added != "" {
		t.Fatalf("a startup hook ran at a resume: %q", added)
	}
	// Claude Code's form, its matcher on the source.
	saveHooks(t, file, claudeHook(SessionStart, "SessionStart", "resume", "cat > "+seen+"; echo 'welcome back'"))
	if added, _ := hs.SessionStart(context.Background(), begin); added != "" {
		t.Fatalf("a Claude Code resume hook ran at startup: %q", added)
	}
	added, _ := hs.SessionStart(context.Background(), resume)
	var claudeIn struct {
		Event   string `json:"hook_event_name"`
		Session string `json:"session_id"`
		CWD     string `json:"cwd"`
		Source  string `json:"source"`
		Model   string `json:"model"`
	}
	if b, err := os.ReadFile(seen); err != nil || json.Unmarshal(b, &claudeIn) != nil || claudeIn.Event != "SessionStart" || claudeIn.Session != "s1" || claudeIn.CWD != dir || claudeIn.Source != "resume" || claudeIn.Model != "qwen3" {
		t.Fatalf("Claude Code's stdin %+v (%v)", claudeIn, err)
	}
	if !strings.Contains(added, "welcome back") || !strings.HasPrefix(added, "[context from Claude Code SessionStart hook ") {
		t.Fatalf("a Claude Code resume hook at a resume: %q", added)
	}
	if err := os.WriteFile(file, []byte(`{`), 0o600); err != nil {
		t.Fatal(err)
	}
	if added, notes := hs.SessionStart(context.Background(), begin); added != "" || len(notes) != 1 || !strings.Contains(notes[0], "cannot be read") {
		t.Errorf("a broken hooks file: %q %q", added, notes)
	}
}

// TestPreRunEnd: Shrimp's own pre-run-end hooks read the request and the
// answer; exit 2 or a "block" answer sends the model back with the
// reason, each hook's named; a hook that fails lets the run end, with a
// note.
func TestPreRunEnd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	set := func(scripts ...string) {
		t.Helper()
		saveScripts(t, file, PreRunEnd, scripts...)
	}
	end := RunEnd{Workspace: dir, Request: "make the build pass", Answer: "Done: the build passes.", SentBack: 2, ToolCalls: 3}
	for _, c := range []struct {
		name       string
		scripts    []string
		more, note string
	}{
		{"no hooks", nil, "", ""},
		{"silent", []string{"cat >/dev/null"}, "", ""},
		{"plain text is not a verdict", []string{"echo all good"}, "", ""},
		{"exit 2", []string{`echo "make: *** [build] Error 1" >&2; exit 2`}, "make: *** [build] Error 1", ""},
		{"block", []string{`echo '{"decision": "block", "reason": "docs/CHANGELOG.md is not updated"}'`}, "CHANGELOG", ""},
		{"two say so", []string{`echo one >&2; exit 2`, `echo two >&2; exit 2`}, "two", ""},
		{"a failure lets it end", []string{"exit 1"}, "", "exited with status 1"},
		{"a timeout lets it end", []string{"sleep 30"}, "", "no answer within"},
		{"an answer that is not one", []string{`echo '{"decision": '`}, "", "not a JSON answer"},
		{"an unknown decision", []string{`echo '{"decision": "maybe"}'`}, "", `"maybe"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			set(c.scripts...)
			if c.name == "a timeout lets it end" {
				err := Edit(file, func(cfg *Config) error { cfg.Hooks[0].Timeout = 0.3; return nil })
				if err != nil {
					t.Fatal(err)
				}
			}
			more, notes := hs.PreRunEnd(context.Background(), end)
			if c.more == "" && more != "" || !strings.Contains(more, c.more) {
				t.Fatalf("more %q, want %q", more, c.more)
			}
			if c.note == "" && len(notes) > 0 || c.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.note)) {
				t.Fatalf("notes %q, want %q", notes, c.note)
			}
			if c.name == "two say so" && (strings.Count(more, "run when you answered, says the request is not done]") != 2 || !strings.Contains(more, "one")) {
				t.Fatalf("two hooks' reasons: %q", more)
			}
		})
	}
	out := filepath.Join(dir, "seen.json")
	set("cat > " + out)
	hs.PreRunEnd(context.Background(), end)
	var seen RunEnd
	b, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(b, &seen) != nil || seen != (RunEnd{Event: PreRunEnd, Workspace: dir, Request: end.Request, Answer: end.Answer, SentBack: 2, ToolCalls: 3}) {
		t.Fatalf("stdin: %s %v", b, err)
	}
	if err := os.WriteFile(file, []byte(`{`), 0o600); err != nil {
		t.Fatal(err)
	}
	if more, notes := hs.PreRunEnd(context.Background(), end); more != "" || len(notes) != 1 || !strings.Contains(notes[0], "cannot be read") {
		t.Errorf("a broken hooks file: %q %q", more, notes)
	}
}

// TestAnchored: a hook's command and arguments are anchored as one
// command line (internal/anchor), the given hook left as it was.
func TestAnchored(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "check.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := Hook{Event: PreToolCall, Command: "./check.sh", Args: []string{"./check.sh", "Shrimp"}}
	got, changed := h.Anchored(dir)
	abs := filepath.Join(dir, "check.sh")
	if got.Command != abs || !slices.Equal(got.Args, []string{abs, "Shrimp"}) || len(changed) != 2 || h.Args[0] != "./check.sh" {
		t.Errorf("%+v, changed %v; given %+v", got, changed, h)
	}
	if got, _ := (Hook{Command: "true"}).Anchored(dir); got.Args != nil {
		t.Errorf("no arguments became %#v", got.Args)
	}
}

// TestRunSaysWhyAScriptCannotStart: a hook script copied from Windows is
// there, yet the system says "not found"; the result says why instead.
func TestRunSaysWhyAScriptCannotStart(t *testing.T) {
	script := filepath.Join(t.TempDir(), "guard.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\r\necho allowed\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := Hook{ID: "h1", Event: PreToolCall, Command: script}
	r := Run(context.Background(), h, t.TempDir(), []byte("{}"))
	if r.Exit != 127 || !strings.Contains(r.Stderr, "Windows line endings") || !strings.Contains(r.Stderr, "sed -i") {
		t.Errorf("exit %d, err %v, stderr %q: want 127 and why", r.Exit, r.Err, r.Stderr)
	}
	if why := h.ScriptProblem(exec.LookPath); !strings.Contains(why, script) {
		t.Errorf("ScriptProblem = %q", why)
	}
}

// TestLoadEditedByHand: hooks.json saved with a byte order mark and a
// comment reads.
func TestLoadEditedByHand(t *testing.T) {
	file := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(file, []byte("\ufeff{\"hooks\": [ // mine\n{\"id\": \"a1\", \"event\": \"agent:run-ended\", \"command\": \"true\"},\n]}"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file)
	if err != nil || len(c.Hooks) != 1 || c.Hooks[0].ID != "a1" {
		t.Fatalf("%+v %v", c, err)
	}
}

// TestStartingIsTold: each hook a request waits for (session-start,
// pre-request, pre-run-end) is told to WithStarting's func as it starts,
// named, and its done func is called once the hook has run, before the
// next one starts.
func TestStartingIsTold(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	hs := &Hooks{File: file}
	for _, c := range []struct {
		event string
		run   func(ctx context.Context)
	}{
		{SessionStart, func(ctx context.Context) {
			hs.SessionStart(ctx, Begin{Session: "s1", Workspace: dir, Source: "startup"})
		}},
		{PreRequest, func(ctx context.Context) { hs.PreRequest(ctx, Request{Session: "s1", Workspace: dir, Text: "hi"}) }},
		{PreRunEnd, func(ctx context.Context) { hs.PreRunEnd(ctx, RunEnd{Workspace: dir, Answer: "done"}) }},
	} {
		t.Run(c.event, func(t *testing.T) {
			mark := filepath.Join(dir, c.event+".ran")
			saveScripts(t, file, c.event, "echo one >> "+mark, "echo two >> "+mark)
			var told []string
			c.run(WithStarting(context.Background(), func(event, hook string) func() {
				b, _ := os.ReadFile(mark)
				if !strings.HasPrefix(hook, "hook ") || !strings.Contains(hook, "(/bin/sh -c echo ") {
					t.Errorf("the hook is named %q", hook)
				}
				what, _, _ := strings.Cut(hook[strings.Index(hook, "echo "):], " >>")
				told = append(told, fmt.Sprintf("start %s %s after %d", event, what, strings.Count(string(b), "\n")))
				return func() {
					b, _ := os.ReadFile(mark)
					told = append(told, fmt.Sprintf("done after %d", strings.Count(string(b), "\n")))
				}
			}))
			want := []string{"start " + c.event + " echo one after 0", "done after 1", "start " + c.event + " echo two after 1", "done after 2"}
			if !slices.Equal(told, want) {
				t.Fatalf("told:\n%s\nwant:\n%s", strings.Join(told, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestSetTimeout: a hook's timeout is changed in place within Check's
// bounds, and a hook that runs out of time says how to give it more.
func TestSetTimeout(t *testing.T) {
	cfg := Config{}
	h, err := cfg.Add(Hook{Event: SessionStart, Command: "/bin/sh", Args: []string{"-c", "sleep 5"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id      string
		seconds float64
		want    float64
		err     string
	}{
		{h.ID, 120, 120, ""},
		{h.ID, 0, 0, ""},
		{h.ID, 0.2, 0.2, ""},
		{h.ID, 601, 0.2, "up to 600 seconds"},
		{h.ID, -1, 0.2, "up to 600 seconds"},
		{"nope", 10, 0.2, `no hook "nope"`},
	} {
		got, err := cfg.SetTimeout(c.id, c.seconds)
		if err == nil && !reflect.DeepEqual(got, cfg.Hooks[0]) {
			t.Fatalf("SetTimeout(%s, %g) returned %+v, the hook is %+v", c.id, c.seconds, got, cfg.Hooks[0])
		}
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Fatalf("SetTimeout(%s, %g): %v, want %q", c.id, c.seconds, err, c.err)
		}
		if got := cfg.Hooks[0].Timeout; got != c.want {
			t.Fatalf("SetTimeout(%s, %g): timeout %g, want %g", c.id, c.seconds, got, c.want)
		}
	}
	r := Run(context.Background(), cfg.Hooks[0], t.TempDir(), nil)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "no answer within 200ms") || !strings.Contains(r.Err.Error(), "shrimp hooks timeout "+h.ID+" SECONDS") {
		t.Fatalf("a hook out of time: %v", r.Err)
	}
	// A prompt hook whose model does not answer in time says the same.
	p := Hook{ID: "p1", Event: PreRunEnd, Prompt: "Done?", Timeout: 0.2}
	ctx := WithJudge(context.Background(), func(ctx context.Context, _, _ string) (string, error) {
		<-ctx.Done()
		return "", fmt.Errorf("qwen3 could not answer: %w", ctx.Err())
	})
	if r := ask(ctx, p, nil); r.Err == nil || !strings.Contains(r.Err.Error(), "no answer within 200ms") || !strings.Contains(r.Err.Error(), "shrimp hooks timeout p1 SECONDS") {
		t.Fatalf("a prompt hook out of time: %v", r.Err)
	}
}

// TestRuns: what lists show a hook running.
func TestRuns(t *testing.T) {
	for _, c := range []struct {
		h    Hook
		want string
	}{
		{Hook{Command: "notify-send", Args: []string{"Shrimp", "done"}}, "notify-send Shrimp done"},
		{Hook{Claude: "Stop", Command: "/bin/bash", Args: []string{"-c", "make test"}}, "make test"},
		{Hook{Claude: "Stop", Prompt: "Done? $ARGUMENTS"}, "asks the model: Done? $ARGUMENTS"},
		{Hook{Prompt: "Safe?"}, "asks the model: Safe?"},
	} {
		if got := c.h.Runs(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.h, got, c.want)
		}
	}
}
