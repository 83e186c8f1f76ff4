package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// fakeTool is a tool whose Run is a function.
type fakeTool struct {
	name string
	run  func(ctx context.Context, args json.RawMessage) (string, error)
}

func (f fakeTool) Name() string                { return f.name }
func (f fakeTool) Description() string         { return "a test tool" }
func (f fakeTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f fakeTool) ReadOnly() bool              { return false }
func (f fakeTool) Run(ctx context.Context, args json.RawMessage) (string, error) {
	return f.run(ctx, args)
}

// TestProtectLeavesOtherRunsWrites: while a shell command allowed by a
// stored rule runs, another run's file tool writes AGENTS.md (a write
// the user was asked about): the command's own change to a protected
// file (an editor task) is put back, the other run's write is not.
func TestProtectLeavesOtherRunsWrites(t *testing.T) {
	ws := t.TempDir()
	agents := filepath.Join(ws, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var writes sync.Map
	var other *liveTools
	write := fakeTool{"fs.write", func(_ context.Context, args json.RawMessage) (string, error) {
		var in struct{ Path, Content string }
		if err := json.Unmarshal(args, &in); err != nil {
			return "", err
		}
		return "written", os.WriteFile(filepath.Join(ws, in.Path), []byte(in.Content), 0o644)
	}}
	shell := fakeTool{"shell.run", func(ctx context.Context, _ json.RawMessage) (string, error) {
		if _, err := other.Run(context.Background(), "fs.write", json.RawMessage(`{"path":"AGENTS.md","content":"asked for\n"}`)); err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Join(ws, ".vscode"), 0o755); err != nil {
			return "", err
		}
		return "ran", os.WriteFile(filepath.Join(ws, ".vscode", "tasks.json"), []byte("{}"), 0o644)
	}}
	reg, err := tool.NewRegistry(shell, write)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	l := &liveTools{base: reg, dir: ws, fileWrites: &writes, warn: func(msg string) { warned = append(warned, msg) }}
	other = &liveTools{base: reg, dir: ws, fileWrites: &writes}
	out, err := l.Run(agent.WithStanding(context.Background(), true), "shell.run", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(agents); string(b) != "asked for\n" {
		t.Errorf("the other run's write was put back: AGENTS.md holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, ".vscode")); err == nil {
		t.Error("the command's editor task was left")
	}
	if !strings.Contains(out, ".vscode/tasks.json (created)") || strings.Contains(out, "AGENTS.md") || len(warned) != 1 {
		t.Errorf("output %q, warnings %q", out, warned)
	}
}

// gitIn returns a function that runs git in ws as a test user, skipping
// the test when git cannot.
func gitIn(t *testing.T, ws string) func(args ...string) {
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", ws, "-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s (git is needed)", args, err, out)
		}
	}
}

// TestCheckoutOfferedBack: a `git checkout` under a stored "always" for
// shell.run brings another branch's AGENTS.md and editor settings, which
// the standing answer does not cover: each is put back and then put to
// the user as the fs.write that writes it, and a workflow the branch
// removed as the rm that removes it (the same question, diff and checks,
// saying what changed it); the ones allowed are as the branch has them,
// the one denied stays put back, and the model is told which.
func TestCheckoutOfferedBack(t *testing.T) {
	ws := t.TempDir()
	git := gitIn(t, ws)
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("AGENTS.md", "Run make test.\n")
	write(".github/workflows/old.yml", "on: push\n")
	git("add", ".")
	git("commit", "-q", "-m", "main")
	git("checkout", "-q", "-b", "feature")
	write("AGENTS.md", "Run make test, then make lint.\n")
	write(".vscode/settings.json", "{\"editor.formatOnSave\": true}\n")
	git("rm", "-q", ".github/workflows/old.yml")
	git("add", ".")
	git("commit", "-q", "-m", "feature")
	git("checkout", "-q", "main")

	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "git checkout -q feature"}}),
		ollamatest.Text("on feature"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	if err := a.Store.SetRule(context.Background(), WorkspaceKey(ws), "shell.run", approval.RuleAlways); err != nil {
		t.Fatal(err)
	}
	var asked []approval.Request
	prompt := func(_ context.Context, r approval.Request, ready func()) (approval.Answer, error) {
		ready()
		asked = append(asked, r)
		var in struct{ Path, Command string }
		_ = json.Unmarshal(r.Arguments, &in)
		return approval.Answer{Allow: in.Path == "AGENTS.md" || strings.Contains(in.Command, "old.yml")}, nil
	}
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Text: "switch to the feature branch", Approve: approval.ModeAsk, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want three times (the workflow removed, AGENTS.md, .vscode/settings.json): %+v", len(asked), asked)
	}
	for i, r := range asked { // in path order
		want := "fs.write"
		if i == 0 {
			want = "shell.run"
		}
		if r.Tool != want || !r.MustAsk || !strings.Contains(strings.Join(r.Warnings, " "), "the model did not ask for this: shell.run") || want == "fs.write" && !strings.Contains(r.Preview, "+") {
			t.Errorf("question %d: %+v", i, r)
		}
	}
	if !strings.Contains(asked[0].Shown, "rm -- '.github/workflows/old.yml'") {
		t.Errorf("the removal's question: %q", asked[0].Shown)
	}
	if _, err := os.Stat(filepath.Join(ws, ".github", "workflows", "old.yml")); err == nil {
		t.Error("the workflow the branch removed, allowed, was left")
	}
	if !strings.Contains(asked[2].Preview, "-Run make test.\n+Run make test, then make lint.") {
		t.Errorf("AGENTS.md's diff: %q", asked[2].Preview)
	}
	if _, err := os.Stat(filepath.Join(ws, ".github")); err == nil {
		t.Error("the folders the removal left empty were kept (git's checkout removes them)")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "AGENTS.md")); string(b) != "Run make test, then make lint.\n" {
		t.Errorf("AGENTS.md, allowed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, ".vscode", "settings.json")); err == nil {
		t.Error("the editor settings, denied, were left")
	}
	res := toolResults(events)
	if len(res) != 1 || !strings.Contains(res[0].Output, "put back") || !strings.Contains(res[0].Output, "let .github/workflows/old.yml, AGENTS.md be as this call left it") {
		t.Errorf("the model was told %+v", res)
	}
}

// TestOfferedBackHookStaysExecutable: a checkout under a standing answer
// brings a branch's executable hook (.husky/pre-commit); put back and
// offered, the question says it can run, and allowed, it is as the
// branch has it: its text and executable (fs.write alone wrote it 0644,
// and git's hook runner ignored it).
func TestOfferedBackHookStaysExecutable(t *testing.T) {
	ws := t.TempDir()
	git := gitIn(t, ws)
	git("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "main")
	git("checkout", "-q", "-b", "feature")
	hook := filepath.Join(ws, ".husky", "pre-commit")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, []byte("npm test\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "feature")
	git("checkout", "-q", "main")

	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "git checkout -q feature"}}),
		ollamatest.Text("on feature"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	if err := a.Store.SetRule(context.Background(), WorkspaceKey(ws), "shell.run", approval.RuleAlways); err != nil {
		t.Fatal(err)
	}
	var asked []approval.Request
	prompt := func(_ context.Context, r approval.Request, ready func()) (approval.Answer, error) {
		ready()
		asked = append(asked, r)
		return approval.Answer{Allow: true}, nil
	}
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "switch to the feature branch", Approve: approval.ModeAsk, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0].Tool != "fs.write" || !strings.Contains(strings.Join(asked[0].Warnings, " "), "(executable, mode 0755: it can run)") {
		t.Fatalf("asked %+v", asked)
	}
	info, err := os.Stat(hook)
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Fatalf("the hook, allowed: %v %v", info, err)
	}
	if b, _ := os.ReadFile(hook); string(b) != "npm test\n" {
		t.Errorf("the hook holds %q", b)
	}
	if out, _ := exec.Command("git", "-C", ws, "status", "--porcelain").Output(); len(out) != 0 {
		t.Errorf("the tree is not the branch's: %s", out)
	}
	warned := false
	for _, e := range storedEvents(t, a, id) {
		if raw, ok := e.Data.(json.RawMessage); ok && e.Type == agent.TypeError && strings.Contains(string(raw), "executable as the call left it") {
			warned = true
		}
	}
	if !warned {
		t.Error("the timeline does not say the hook is executable")
	}
}
