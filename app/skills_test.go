package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSkillsInAChat: a workspace's skill is in the model's instructions
// as a catalog line, skill.read is offered and gives its instructions (in
// read mode: it only reads); a workspace without skills offers no
// skill.read.
func TestSkillsInAChat(t *testing.T) {
	ws, plain := t.TempDir(), t.TempDir()
	t.Setenv("HOME", t.TempDir()) // the user's own skills stay out of it
	folder := filepath.Join(ws, ".agents", "skills", "release-notes")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte("---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nList the commits since the last tag, newest first.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "skill.read", Args: map[string]any{"name": "release-notes"}}),
		ollamatest.Text("Following the skill."),
		ollamatest.Text("No skills here."),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	_, events, err := ask(t, a, ChatOptions{Workspace: ws, Approve: approval.ModeRead, Text: "write the release notes"})
	if err != nil {
		t.Fatal(err)
	}
	res := toolResults(events)
	if len(res) != 1 || res[0].Error != "" || !strings.Contains(res[0].Output, "List the commits since the last tag") {
		t.Fatalf("skill.read: %+v", res)
	}
	first := srv.Requests()[0].Chat
	offered := func(tools api.Tools) bool {
		return slices.ContainsFunc(tools, func(t api.Tool) bool { return t.Function.Name == "skill.read" })
	}
	if !offered(first.Tools) || !strings.Contains(first.Messages[0].Content, "- release-notes: Write release notes from the git log.") {
		t.Errorf("catalog or tool missing: offered %v, system %.300q", offered(first.Tools), first.Messages[0].Content)
	}
	if _, _, err := ask(t, a, ChatOptions{Workspace: plain, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if last := srv.Requests()[len(srv.Requests())-1].Chat; offered(last.Tools) || strings.Contains(last.Messages[0].Content, "Skills:") {
		t.Error("skills offered in a workspace without any")
	}
}
