package desktop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/internal/mcptest"
)

// The test binary is also the MCP server these tests start.
func init() { mcptest.ServeIfAsked() }

// serversUntil polls Servers until ok holds.
func serversUntil(t *testing.T, x *Extensions, what string, ok func([]ServerView) bool) []ServerView {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s, err := x.Servers()
		if err == nil && ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("servers never %s: %+v %v", what, s, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestExtensionsServers: the window adds, edits, disables, imports and
// removes servers; the supervisor follows; secrets never come back.
func TestExtensionsServers(t *testing.T) {
	a, rec := openWindowApp(t, "http://127.0.0.1:1", "m")
	x := NewExtensions(a)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in := ServerInput{Name: "t", Command: exe, Env: map[string]string{mcptest.Env: "1", "API_KEY": "s3cret"}}
	if err := x.SaveServer("", in); err != nil {
		t.Fatal(err)
	}
	s := serversUntil(t, x, "ran", func(s []ServerView) bool { return len(s) == 1 && s[0].Status.State == mcp.StateRunning })
	if s[0].Env["API_KEY"] != "***" || len(s[0].Status.Tools) < 3 {
		t.Fatalf("server view: %+v", s[0])
	}
	// Its prompts, for the chat box: filled in, or the argument missing
	// named before the server is asked.
	choices, err := x.Prompts()
	if err != nil || len(choices) != 2 || choices[1].Server != "t" || choices[1].Name != "plan-day" || len(choices[1].Arguments) != 2 {
		t.Fatalf("prompts: %+v %v", choices, err)
	}
	if text, err := x.UsePrompt("t", "plan-day", map[string]string{"date": "2026-12-24"}); err != nil || text != "Plan my day on 2026-12-24" {
		t.Errorf("use a prompt: %q %v", text, err)
	}
	if _, err := x.UsePrompt("t", "plan-day", map[string]string{"date": ""}); err == nil || err.Error() != "prompt plan-day needs date" {
		t.Errorf("a required argument left empty: %v", err)
	}
	if _, err := x.UsePrompt("t", "nope", nil); err == nil || !strings.Contains(err.Error(), `offers no prompt "nope"`) {
		t.Errorf("an unknown prompt: %v", err)
	}
	if got, err := x.CompletePrompt("t", "plan-day", "mood", "cu", map[string]string{"date": "2026-12-24"}); err != nil || strings.Join(got, ",") != "curious,festive second line" {
		t.Errorf("completions: %q %v", got, err)
	}
	// Its resources, for the chat box ("@"): listed without the hidden
	// text of a description, read into a fence with the uri named.
	res, err := x.Resources()
	if err != nil || len(res) != 2 || res[1].Server != "t" || res[1].URI != mcptest.NotesURI || res[1].Name != "Shopping list" || !strings.HasPrefix(res[1].Description, "what to buy") || strings.Contains(res[1].Description, "ssh") {
		t.Fatalf("resources: %+v %v", res, err)
	}
	if text, err := x.UseResource("t", mcptest.NotesURI); err != nil || !strings.HasPrefix(text, "From notes://shopping of MCP server t:\n```\n") || !strings.Contains(text, mcptest.NotesText+"\n```\n") {
		t.Errorf("use a resource: %q %v", text, err)
	}
	if _, err := x.UseResource("t", "notes://nope"); err == nil || !strings.Contains(err.Error(), "notes://nope") {
		t.Errorf("an unknown resource: %v", err)
	}
	// The status change reached the window as an event.
	if e := waitFor(t, rec, "mcp:server-changed"); strings.Contains(string(mustJSON(t, e)), "s3cret") {
		t.Fatal("a secret reached the window")
	}
	// Editing with *** keeps the stored secret; a rename moves the server.
	in.Name, in.Env["API_KEY"], in.ReadOnly, in.Local = "t2", "***", true, true
	if err := x.SaveServer("t", in); err != nil {
		t.Fatal(err)
	}
	cfg, err := mcp.Load(a.MCPPath())
	if err != nil || len(cfg.Servers) != 1 || cfg.Servers["t2"].Env["API_KEY"] != "s3cret" || !cfg.Servers["t2"].ReadOnly || !cfg.Servers["t2"].Local {
		t.Fatalf("after the edit: %+v %v", cfg, err)
	}
	serversUntil(t, x, "ran under the new name", func(s []ServerView) bool {
		return len(s) == 1 && s[0].Name == "t2" && s[0].Status.State == mcp.StateRunning && s[0].Status.ReadOnly && s[0].Status.Local && s[0].Local
	})
	// The roots box: unticked for a server started here is kept as
	// "roots": false; ticked, the default, leaves the key out.
	if r := cfg.Servers["t2"].Roots; r == nil || *r {
		t.Fatalf("roots unticked, stored %v", r)
	}
	if v, err := x.Servers(); err != nil || v[0].Roots {
		t.Fatalf("the form's box: %+v %v", v, err)
	}
	in.Roots = true
	if err := x.SaveServer("t2", in); err != nil {
		t.Fatal(err)
	}
	if cfg, err = mcp.Load(a.MCPPath()); err != nil || cfg.Servers["t2"].Roots != nil {
		t.Fatalf("roots ticked, stored %v %v", cfg.Servers["t2"].Roots, err)
	}
	if v, err := x.Servers(); err != nil || !v[0].Roots {
		t.Fatalf("the form's box: %+v %v", v, err)
	}
	// Which tools are offered is not in the form: an edit keeps it.
	cfg.Servers["t2"] = func(s mcp.Server) mcp.Server { s.ExcludeTools = []string{"echo"}; return s }(cfg.Servers["t2"])
	if err := cfg.Save(a.MCPPath()); err != nil {
		t.Fatal(err)
	}
	in.Timeout = 30
	if err := x.SaveServer("t2", in); err != nil {
		t.Fatal(err)
	}
	if cfg, err = mcp.Load(a.MCPPath()); err != nil || !slices.Equal(cfg.Servers["t2"].ExcludeTools, []string{"echo"}) || cfg.Servers["t2"].Timeout != 30 {
		t.Fatalf("an edit dropped excludeTools: %+v %v", cfg.Servers["t2"], err)
	}
	// A tool's box offers it again, at once.
	if err := x.SetToolOffered("t2", "echo", true); err != nil {
		t.Fatal(err)
	}
	if cfg, err = mcp.Load(a.MCPPath()); err != nil || cfg.Servers["t2"].ExcludeTools != nil {
		t.Fatalf("offered again: %+v %v", cfg.Servers["t2"], err)
	}
	serversUntil(t, x, "offered echo again", func(s []ServerView) bool {
		return len(s) == 1 && slices.ContainsFunc(s[0].Status.Tools, func(tl mcp.Tool) bool { return tl.Name == "echo" && !tl.Excluded && tl.Offered != "" })
	})
	if err := x.SetToolOffered("nope", "echo", false); err == nil || !strings.Contains(err.Error(), `no MCP server "nope"`) {
		t.Fatalf("an unknown server: %v", err)
	}
	if err := x.SetToolOffered("t2", "", false); err == nil || !strings.Contains(err.Error(), "name the tool") {
		t.Fatalf("an empty tool name: %v", err)
	}
	// *** for a key never stored is an error, not an empty secret.
	in.Env["NEW_KEY"] = "***"
	if err := x.SaveServer("t2", in); err == nil || !strings.Contains(err.Error(), "NEW_KEY") {
		t.Fatalf("*** for a new key: %v", err)
	}
	delete(in.Env, "NEW_KEY")
	if err := x.SaveServer("", ServerInput{Name: "t2", URL: "http://x/mcp"}); err == nil || !strings.Contains(err.Error(), "already called t2") {
		t.Fatalf("duplicate name: %v", err)
	}
	// A url server's headers are secrets like env; the SSE box is its type.
	web := ServerInput{Name: "web", URL: "http://127.0.0.1:1/sse", Headers: map[string]string{"Authorization": "Bearer t0ken"}, SSE: true, Disabled: true}
	if err := x.SaveServer("", web); err != nil {
		t.Fatal(err)
	}
	web.Headers["Authorization"], web.SSE = "***", false
	web.URL = "http://127.0.0.1:1/events"
	if err := x.SaveServer("web", web); err != nil {
		t.Fatal(err)
	}
	cfg, err = mcp.Load(a.MCPPath())
	if err != nil || cfg.Servers["web"].Headers["Authorization"] != "Bearer t0ken" || cfg.Servers["web"].Type != "" {
		t.Fatalf("web after the edit: %+v %v", cfg.Servers["web"], err)
	}
	views, err := x.Servers()
	if i := slices.IndexFunc(views, func(v ServerView) bool { return v.Name == "web" }); err != nil || i < 0 || views[i].Headers["Authorization"] != "***" || strings.Contains(string(mustJSON(t, views)), "t0ken") {
		t.Fatalf("the window saw the header: %+v %v", views, err)
	}
	if err := x.RemoveServer("web"); err != nil {
		t.Fatal(err)
	}
	if err := x.SetServerEnabled("t2", false); err != nil {
		t.Fatal(err)
	}
	serversUntil(t, x, "was disabled", func(s []ServerView) bool { return s[0].Disabled && s[0].Status.State == mcp.StateDisabled })
	if a.HasTool("mcp.t2.echo") {
		t.Error("a disabled server's tool counts as present")
	}
	// A VS Code file: a name with spaces is given one Shrimp can use, an
	// entry Shrimp cannot start is left out, both said.
	got, err := x.ImportServers(`{"servers": {"My Web": {"url": "http://127.0.0.1:1/mcp"}, "ws": {"type": "websocket", "url": "ws://x"}}}`)
	if err != nil || len(got.Names) != 1 || got.Names[0] != "my-web" || len(got.Notes) != 2 ||
		!strings.Contains(got.Notes[0], `"My Web" is named my-web here`) || !strings.Contains(got.Notes[1], `"ws" was not imported`) {
		t.Fatalf("import: %+v %v", got, err)
	}
	if _, err := x.ImportServers(`{"servers": {}}`); err == nil {
		t.Fatal("imported a file without mcpServers")
	}
	serversUntil(t, x, "tried the unreachable one", func(s []ServerView) bool {
		return len(s) == 2 && s[0].Name == "my-web" && s[0].Status.LastError != ""
	})
	if err := x.RemoveServer("my-web"); err != nil {
		t.Fatal(err)
	}
	if err := x.RemoveServer("my-web"); err == nil {
		t.Fatal("removed twice")
	}
	// Codex's config.toml, pasted: its tables import, switched off as
	// they were there.
	got, err = x.ImportServers("# ~/.codex/config.toml\n[mcp_servers.docs]\nurl = \"http://127.0.0.1:1/mcp\"\nenabled = false\n")
	if err != nil || !slices.Equal(got.Names, []string{"docs"}) {
		t.Fatalf("Codex import: %+v %v", got, err)
	}
	serversUntil(t, x, "imported Codex's server switched off", func(s []ServerView) bool {
		return slices.ContainsFunc(s, func(v ServerView) bool { return v.Name == "docs" && v.Disabled })
	})
	if err := x.RemoveServer("docs"); err != nil {
		t.Fatal(err)
	}
	serversUntil(t, x, "forgot web", func(s []ServerView) bool { return len(s) == 1 })
}

// TestExtensionsHooks: hooks are added, switched off and removed from the
// window, in hooks.json with mode 0600.
func TestExtensionsHooks(t *testing.T) {
	a, _ := openWindowApp(t, "http://127.0.0.1:1", "m")
	x := NewExtensions(a)
	h, err := x.AddHook(hooks.Hook{Event: " pre-tool-call ", Tool: "shell.run", Command: "/usr/local/bin/deny"})
	if err != nil || h.ID == "" || h.Event != "pre-tool-call" {
		t.Fatalf("add: %+v %v", h, err)
	}
	if _, err := x.AddHook(hooks.Hook{Event: "nope", Command: "x"}); err == nil {
		t.Fatal("accepted a bad event")
	}
	// Its command is not on this machine: the window marks it (while on).
	if ids, err := x.HooksNotFound(); err != nil || len(ids) != 1 || ids[0] != h.ID {
		t.Fatalf("not found: %v %v, want [%s]", ids, err, h.ID)
	}
	if err := x.SetHookEnabled(h.ID, false); err != nil {
		t.Fatal(err)
	}
	if ids, err := x.HooksNotFound(); err != nil || len(ids) != 0 {
		t.Fatalf("not found, switched off: %v %v", ids, err)
	}
	list, err := x.Hooks()
	if err != nil || len(list) != 1 || !list[0].Disabled {
		t.Fatalf("list: %+v %v", list, err)
	}
	if info, err := os.Stat(filepath.Join(a.Config.DataDir, hooks.FileName)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("hooks.json: %v %v", info, err)
	}
	if ev := x.HookEvents(); ev[0] != "session-start" || ev[1] != "pre-request" || ev[2] != "pre-tool-call" || !strings.Contains(strings.Join(ev, " "), "agent:run-ended") {
		t.Fatalf("events: %v", ev)
	}
	if err := x.RemoveHook(h.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := x.Hooks(); len(list) != 0 {
		t.Fatalf("after remove: %+v", list)
	}
	// A script copied from Windows is found and cannot start: said, with why.
	crlf := filepath.Join(t.TempDir(), "notify.sh")
	if err := os.WriteFile(crlf, []byte("#!/bin/sh\r\nexit 0\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := x.AddHook(hooks.Hook{Event: "agent:run-ended", Command: crlf})
	if err != nil {
		t.Fatal(err)
	}
	if why, err := x.HookProblems(); err != nil || !strings.Contains(why[w.ID], "Windows line endings") || len(why) != 1 {
		t.Fatalf("problems: %v %v", why, err)
	}
	if ids, _ := x.HooksNotFound(); len(ids) != 0 {
		t.Fatalf("a script that is there is not found: %v", ids)
	}
}

// TestImportClaudeHooksInTheWindow: Claude Code's hooks are checked, then
// imported, from a path typed with ~/; the window's own pre-tool-call
// check then runs one as Claude Code would.
func TestImportClaudeHooksInTheWindow(t *testing.T) {
	a, _ := openWindowApp(t, "http://127.0.0.1:1", "m")
	x := NewExtensions(a)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if got := x.ClaudeSettingsFile(); got != filepath.Join(home, ".claude", "settings.json") {
		t.Fatalf("default file %s", got)
	}
	if _, err := x.ImportClaudeHooks("", true); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("no settings: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "grep -q '\"file_path\":\"/' && echo 'no writes here' >&2 && exit 2"}]}],
	  "SessionEnd": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	check, err := x.ImportClaudeHooks("~/.claude/settings.json", true)
	if err != nil || len(check.Added) != 1 || check.Added[0].ID != "" || len(check.Skipped) != 1 || check.Project {
		t.Fatalf("check: %+v %v", check, err)
	}
	if list, _ := x.Hooks(); len(list) != 0 {
		t.Fatalf("the check added %+v", list)
	}
	done, err := x.ImportClaudeHooks("", false)
	if err != nil || len(done.Added) != 1 || done.Added[0].ID == "" || done.Added[0].Claude != "PreToolUse" {
		t.Fatalf("import: %+v %v", done, err)
	}
	if again, err := x.ImportClaudeHooks("", true); err != nil || len(again.Added) != 0 || len(again.Held) != 1 {
		t.Fatalf("again: %+v %v", again, err)
	}
	if _, err := x.ImportClaudeHooks("relative/settings.json", true); err == nil || !strings.Contains(err.Error(), "not a whole path") {
		t.Fatalf("a relative path: %v", err)
	}
	ws := t.TempDir()
	reason, verdict, _ := a.Hooks.PreToolCall(context.Background(), hooks.ToolCall{Workspace: ws, ID: "c", Tool: "fs.write", Arguments: json.RawMessage(`{"path":"a.txt","content":"x"}`)})
	if verdict != approval.HookDeny || !strings.Contains(reason, "no writes here") {
		t.Fatalf("the imported hook: %v %q", verdict, reason)
	}
	// Tried from its row: given no tool, a write (the call its matcher
	// selects), in the chat's folder.
	trial, err := x.TryHook(done.Added[0].ID, app.HookSample{Workspace: ws})
	if err != nil || !strings.Contains(trial.Says, "denies the call of fs.write") || !strings.Contains(trial.Says, "no writes here") {
		t.Fatalf("tried: %+v %v", trial, err)
	}
	if _, err := x.TryHook("nope", app.HookSample{}); err == nil || !strings.Contains(err.Error(), `no hook "nope"`) {
		t.Fatalf("a hook that is not there: %v", err)
	}
}

// TestSavedCommandsInTheWindow: the message box's "/" list has the
// workspace's saved commands and the user's, and one is filled in for it.
func TestSavedCommandsInTheWindow(t *testing.T) {
	a, _ := openWindowApp(t, "http://127.0.0.1:1", "m")
	x := NewExtensions(a)
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	for path, text := range map[string]string{
		filepath.Join(ws, ".claude", "commands", "review.md"):  "---\nargument-hint: [focus]\n---\nReview, looking at $ARGUMENTS.\n",
		filepath.Join(a.Config.DataDir, "commands", "tidy.md"): "Tidy the downloads folder.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := x.Commands(ws)
	if len(got) != 2 || got[0].Name != "review" || got[0].From != "this folder" || got[0].Server != "" || len(got[0].Arguments) != 1 || got[0].Arguments[0].Description != "[focus]" ||
		got[1].Name != "tidy" || got[1].From != "yours" || len(got[1].Arguments) != 0 {
		t.Fatalf("commands: %+v", got)
	}
	if text, err := x.UseCommand(ws, "review", "the tests"); err != nil || text != "Review, looking at the tests." {
		t.Fatalf("filled: %q %v", text, err)
	}
	if _, err := x.UseCommand(t.TempDir(), "review", ""); err == nil {
		t.Fatal("another folder's command was filled")
	}
	if len(x.Commands("")) != 0 {
		t.Fatal("commands with no workspace")
	}
	// Extensions lists them with why any was left out; with no workspace, yours alone.
	if err := os.WriteFile(filepath.Join(a.Config.DataDir, "commands", "bad name!.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if f := x.SavedCommands(ws); len(f.Commands) != 2 || len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "left out") {
		t.Fatalf("saved commands: %+v", f)
	}
	if f := x.SavedCommands(""); len(f.Commands) != 1 || f.Commands[0].Name != "tidy" {
		t.Fatalf("yours alone: %+v", f)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBrokenMCPFileNeedsNoRestart: a damaged mcp.json is an error the view
// shows; once the file is fixed the servers follow without a restart.
func TestBrokenMCPFileNeedsNoRestart(t *testing.T) {
	a, _ := openWindowApp(t, "http://127.0.0.1:1", "m")
	x := NewExtensions(a)
	if err := os.WriteFile(a.MCPPath(), []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Servers(); err == nil || !strings.Contains(err.Error(), "not valid mcp.json") {
		t.Fatalf("a damaged file: %v", err)
	}
	if err := os.WriteFile(a.MCPPath(), []byte(`{"mcpServers": {"web": {"url": "http://127.0.0.1:1/mcp", "disabled": true}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := x.Servers()
	if err != nil || len(s) != 1 || s[0].Status.State != mcp.StateDisabled {
		t.Fatalf("after the fix: %+v %v", s, err)
	}
}

// TestExtensionsSignIn: a hosted server that asks for an OAuth sign-in
// shows as waiting for one; Sign in opens its page (the address comes
// back for the window to show), the browser's return finishes it and the
// server runs signed in; a sign-in can be cancelled; Sign out forgets it.
func TestExtensionsSignIn(t *testing.T) {
	o := mcptest.NewOAuth()
	defer o.Close()
	a, _ := openWindowApp(t, "http://127.0.0.1:1", "m")
	x := NewExtensions(a)
	if err := x.SaveServer("", ServerInput{Name: "hosted", URL: o.URL}); err != nil {
		t.Fatal(err)
	}
	serversUntil(t, x, "waited for a sign-in", func(s []ServerView) bool { return len(s) == 1 && s[0].Status.State == mcp.StateSignIn })

	// Cancelled while the browser is away.
	x.openURL = func(string) {}
	if _, err := x.BeginSignIn("hosted"); err != nil {
		t.Fatal(err)
	}
	x.CancelSignIn("hosted")
	if err := x.FinishSignIn("hosted"); err == nil || !strings.Contains(err.Error(), "sign in again") {
		t.Fatalf("cancelled: %v", err)
	}

	opened := make(chan string, 1)
	x.openURL = func(u string) {
		opened <- u
		go func() { _ = mcptest.Browse(u) }()
	}
	address, err := x.BeginSignIn("hosted")
	if err != nil || address != <-opened || !strings.Contains(address, "/authorize?") {
		t.Fatalf("begin: %q %v", address, err)
	}
	if err := x.FinishSignIn("hosted"); err != nil {
		t.Fatal(err)
	}
	serversUntil(t, x, "ran signed in", func(s []ServerView) bool {
		return s[0].Status.State == mcp.StateRunning && s[0].Status.SignedIn
	})
	if err := x.FinishSignIn("hosted"); err == nil {
		t.Error("a finished sign-in was waited for again")
	}
	// An app registered in advance is set in the form; its secret is
	// shown as ***, which keeps it; an empty client id removes the app.
	app := ServerInput{Name: "hosted", URL: o.URL, ReadOnly: true, OAuthClientID: "app", OAuthClientSecret: "s3cret-app", OAuthCallbackPort: 8765}
	if err := x.SaveServer("hosted", app); err != nil {
		t.Fatal(err)
	}
	views, err := x.Servers()
	if err != nil || views[0].OAuthClientID != "app" || views[0].OAuthClientSecret != "***" || views[0].OAuthCallbackPort != 8765 || strings.Contains(string(mustJSON(t, views)), "s3cret-app") {
		t.Fatalf("the window's view of the app: %+v %v", views, err)
	}
	app = views[0].ServerInput
	app.ReadOnly = false
	if err := x.SaveServer("hosted", app); err != nil {
		t.Fatal(err)
	}
	if cfg, err := mcp.Load(a.MCPPath()); err != nil || cfg.Servers["hosted"].OAuth == nil || *cfg.Servers["hosted"].OAuth != (mcp.OAuthClient{ClientID: "app", ClientSecret: "s3cret-app", CallbackPort: 8765}) || cfg.Servers["hosted"].ReadOnly {
		t.Fatalf("edited with ***: %+v %v", cfg.Servers["hosted"], err)
	}
	if err := x.SaveServer("hosted", ServerInput{Name: "hosted", URL: o.URL, OAuthClientID: "app", OAuthCallbackPort: 70000}); err == nil || !strings.Contains(err.Error(), "not a port") {
		t.Errorf("port 70000: %v", err)
	}
	app.OAuthClientID = " "
	if err := x.SaveServer("hosted", app); err != nil {
		t.Fatal(err)
	}
	if err := x.SaveServer("hosted", ServerInput{Name: "hosted", URL: o.URL, OAuthClientID: "app", OAuthClientSecret: "***"}); err == nil || !strings.Contains(err.Error(), "client secret") {
		t.Errorf("*** with no secret stored: %v", err)
	}
	if cfg, err := mcp.Load(a.MCPPath()); err != nil || cfg.Servers["hosted"].OAuth != nil {
		t.Fatalf("the app removed: %+v %v", cfg.Servers["hosted"], err)
	}
	if err := x.SignOut("hosted"); err != nil {
		t.Fatal(err)
	}
	serversUntil(t, x, "waited again", func(s []ServerView) bool { return s[0].Status.State == mcp.StateSignIn && !s[0].Status.SignedIn })
}

// TestExtensionsSkills: the window lists the user's skills, with why one
// was left out.
func TestExtensionsSkills(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	a, _ := openWindowApp(t, "http://127.0.0.1:1", "m")
	for name, text := range map[string]string{
		"tidy":   "---\nname: tidy\ndescription: Tidy the downloads.\n---\nSort by type.",
		"broken": "no front matter",
	} {
		dir := filepath.Join(a.Config.DataDir, "skills", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := NewExtensions(a).Skills("")
	if len(f.Skills) != 1 || f.Skills[0].Name != "tidy" || f.Skills[0].Scope != "user" || len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "broken left out") {
		t.Fatalf("skills %+v", f)
	}
	// With the chat's workspace, its own skills come first, and one of its
	// names hides the user's.
	ws := t.TempDir()
	for name, text := range map[string]string{
		"release-notes": "---\nname: release-notes\ndescription: Notes from the git log.\n---\n",
		"tidy":          "---\nname: tidy\ndescription: Tidy this project.\n---\n",
	} {
		dir := filepath.Join(ws, ".agents", "skills", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f = NewExtensions(a).Skills(ws)
	scopes := map[string]string{}
	for _, s := range f.Skills {
		scopes[s.Name] = s.Scope + ": " + s.Description
	}
	if len(f.Skills) != 2 || scopes["release-notes"] != "workspace: Notes from the git log." || scopes["tidy"] != "workspace: Tidy this project." {
		t.Fatalf("a workspace's skills: %+v", f)
	}
}
