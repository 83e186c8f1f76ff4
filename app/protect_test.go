package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/tool"
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
