package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSavedCommands: the commands people keep for Claude Code and Codex
// are listed from the workspace and the user's folders, shown filled in,
// and a request naming one is sent as its text; a request that only
// starts with a slash is sent as it is.
func TestSavedCommands(t *testing.T) {
	data, ws, claude, codex, home := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	t.Setenv("CODEX_HOME", codex)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "") // OpenCode's folder: ~/.config/opencode
	files := map[string]string{
		filepath.Join(ws, ".claude", "commands", "review.md"):             "---\ndescription: Review the staged changes\nargument-hint: [focus]\n---\nReview the staged changes, looking hardest at $ARGUMENTS.\nThe diff: !`git diff --staged`\n",
		filepath.Join(claude, "commands", "commit.md"):                    "Write a commit message for the staged changes.\n",
		filepath.Join(codex, "prompts", "explain.md"):                     "---\ndescription: Explain a file\n---\nExplain $1 to a newcomer.\n",
		filepath.Join(data, "commands", "ops", "disk.md"):                 "# Disk report\nSay which folders under $1 take the most space.\n",
		filepath.Join(home, ".cursor", "commands", "a11y.md"):             "Audit the pages for accessibility.\n",
		filepath.Join(home, ".gemini", "commands", "plan.toml"):           "description = \"Plan before coding\"\nprompt = \"Plan how to {{args}}; write no code yet.\"\n",
		filepath.Join(home, ".config", "opencode", "commands", "tidy.md"): "Tidy the imports of $1.\n",
	}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run("--data-dir", data, "commands", "list", "--workspace", ws)
	for _, want := range []string{"/review [focus]  (workspace, " + filepath.Join(ws, ".claude", "commands", "review.md") + ")", "Review the staged changes", "/ops:disk  (user", "Disk report", "/commit  (user", "/explain  (user", "/a11y  (user", "/plan  (user", "Plan before coding", "/tidy  (user"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("list lacks %q: %d %s %s", want, code, out, errOut)
		}
	}
	code, out, errOut = run("--data-dir", data, "commands", "show", "review", "error", "handling", "--workspace", ws)
	if code != 0 || out != "Review the staged changes, looking hardest at error handling.\nThe diff: the output of `git diff --staged` (run it)\n" || !strings.Contains(errOut, "runs 1 shell command before it is sent in Claude Code") {
		t.Fatalf("show: %d %q %s", code, out, errOut)
	}
	if code, out, errOut := run("--data-dir", data, "commands", "show", "plan", "add", "a cache", "--workspace", ws); code != 0 || out != "Plan how to add a cache; write no code yet.\n" {
		t.Fatalf("show a Gemini CLI command: %d %q %s", code, out, errOut)
	}
	if code, _, errOut := run("--data-dir", data, "commands", "show", "nope", "--workspace", ws); code != 1 || !strings.Contains(errOut, "no command nope here") {
		t.Fatalf("show a missing one: %d %s", code, errOut)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("Explained."), ollamatest.Text("Full, yes.")}})
	r := chat(t, data, srv.URL, ws, "--model", "m", "/explain main.go")
	if r.code != 0 || !strings.Contains(r.stderr, "/explain is your command "+filepath.Join(codex, "prompts", "explain.md")) {
		t.Fatalf("chat /explain: %d %s", r.code, r.stderr)
	}
	if msgs := srv.Requests()[0].Chat.Messages; msgs[len(msgs)-1].Content != "Explain main.go to a newcomer." {
		t.Fatalf("the model was asked %q", msgs[len(msgs)-1].Content)
	}
	r = chat(t, data, srv.URL, ws, "--model", "m", "/etc is full, is it?")
	if msgs := srv.Requests()[1].Chat.Messages; r.code != 0 || msgs[len(msgs)-1].Content != "/etc is full, is it?" {
		t.Fatalf("a request starting with a path was changed: %q", msgs[len(msgs)-1].Content)
	}
	// A folder's command is text its authors wrote, sent unseen: as after
	// a web page, the session counts as having read text from outside
	// (your "always" answers do not cover its calls that write or run),
	// in this request and its later ones; your own command does not.
	tools := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "git diff --staged"}}),
		ollamatest.Text("Reviewed."),
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "ls"}}),
		ollamatest.Text("Listed."),
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "ls"}}),
		ollamatest.Text("Explained."),
		ollamatest.Text("Nothing to review."),
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "ls"}}),
		ollamatest.Text("Listed."),
	}})
	r = chat(t, data, tools.URL, ws, "--model", "m", "--approve", "all", "/review tests")
	asked := r.data(t, "approval:requested")
	if r.code != 0 || !strings.Contains(r.stderr, "text its authors wrote") || len(asked) != 1 || !strings.Contains(fmt.Sprint(asked[0]["outside"]), "this folder's saved command") {
		t.Fatalf("a folder's command: %d %v %s", r.code, asked, r.stderr)
	}
	session := r.lines[0].Session
	r = chat(t, data, tools.URL, ws, "--model", "m", "--approve", "all", "--session", session, "list the files")
	if asked := r.data(t, "approval:requested"); len(asked) != 1 || !strings.Contains(fmt.Sprint(asked[0]["outside"]), "saved command") {
		t.Fatalf("the session's next request: %v", asked)
	}
	r = chat(t, data, tools.URL, ws, "--model", "m", "--approve", "all", "/explain main.go")
	if asked := r.data(t, "approval:requested"); len(asked) != 1 || asked[0]["outside"] != nil {
		t.Fatalf("your own command: %v", asked)
	}
	// Marked even when its own run calls no tool: the session's next does.
	r = chat(t, data, tools.URL, ws, "--model", "m", "--approve", "all", "/review nothing")
	if r.code != 0 || len(r.data(t, "approval:requested")) != 0 {
		t.Fatalf("a folder's command answered at once: %d %s", r.code, r.stderr)
	}
	r = chat(t, data, tools.URL, ws, "--model", "m", "--approve", "all", "--session", r.lines[0].Session, "list the files")
	if asked := r.data(t, "approval:requested"); len(asked) != 1 || !strings.Contains(fmt.Sprint(asked[0]["outside"]), "saved command") {
		t.Fatalf("the next request after a folder's command that called no tool: %v", asked)
	}
}
