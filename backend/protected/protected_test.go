package protected

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	ws := "/home/u/proj"
	data := Folder{Dir: "/home/u/data/shrimp", Why: "Shrimp's data"}
	tests := []struct {
		path string
		want string // part of the reason; "" for none
	}{
		{"notes.txt", ""},
		{"src/main.go", ""},
		{"docs/agents.md.bak", ""},
		{".gitignore", ""},                // not git's own files
		{".github/ISSUE_TEMPLATE.md", ""}, // only workflows run
		{".git/hooks/pre-commit", "git's own files"},
		{".git/config", "git's own files"},
		{".GIT/config", "git's own files"}, // case-insensitive file systems
		{"vendor/lib/.git/config", "git's own files"},
		{"./.git/../.git/HEAD", "git's own files"},
		{".github/workflows/ci.yml", "CI workflows"},
		{".github/actions/setup/action.yml", "CI workflows run"}, // uses: ./.github/actions/setup
		{".circleci/config.yml", "CI pipeline"},
		{"Jenkinsfile", "CI pipeline"},
		{"jenkinsfile.md", ""},
		{".forgejo/workflows/ci.yaml", "CI workflows"},
		{".vscode/tasks.json", "editor settings"},
		{"AGENTS.md", "instructions"},
		{"sub/CLAUDE.md", "instructions"},
		{"GEMINI.md", "instructions"},
		{".claude/settings.json", "hooks"},
		{".claude/settings.local.json", "hooks"},
		{".claude/commands/review.md", "commands"},
		{".agents/skills/deploy/SKILL.md", "skills"},
		{".agents/notes.md", ""},
		{".mcp.json", "MCP servers"},
		{".codex/config.toml", "Codex"},
		{".gemini/settings.json", "Gemini CLI"},
		{".cursor/mcp.json", "Cursor"},
		{".vscode/mcp.json", "editor settings"},
		{"opencode.json", "OpenCode"},
		{"docs/claude.md.txt", ""},
		{".envrc", "direnv"},
		{"/home/u/proj/.bashrc", "shell startup"},
		{".config/systemd/user/x.service", "systemd"},
		{"/home/u/data/shrimp/shrimp.db", "Shrimp's data"},
		{"../outside.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := Check(ws, tt.path, data)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Check(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
	// The workspace may be Shrimp's data folder's parent, or inside it.
	if got := Check("/home/u/data", "shrimp/hooks.json", data); got == "" {
		t.Error("a file in Shrimp's data folder reached through its parent is not protected")
	}
}

// TestListIsClean keeps the data file usable: relative, clean, no
// duplicates, a reason for each.
func TestListIsClean(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range list {
		p := strings.ToLower(e.Path)
		if p == "" || strings.HasPrefix(p, "/") || filepath.ToSlash(filepath.Clean(p)) != p || seen[p] || strings.TrimSpace(e.Why) == "" {
			t.Errorf("bad entry %+v", e)
		}
		seen[p] = true
	}
}

// TestLinks: a link inside the workspace that leads to .git, or a
// workspace reached through a link, does not hide what a write reaches.
func TestLinks(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "proj")
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "tools")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ ws, path string }{
		{ws, "tools/pre-commit"},
		{filepath.Join(root, "link"), "tools/new-dir/pre-commit"},
		{filepath.Join(root, "link"), ".git/config"},
	} {
		if got := Check(tt.ws, tt.path); !strings.Contains(got, "git's own files") {
			t.Errorf("Check(%s, %s) = %q", tt.ws, tt.path, got)
		}
	}
	if got := Check(ws, "notes/todo.txt"); got != "" {
		t.Errorf("an ordinary file: %q", got)
	}
}

// TestHolds: a workspace holds a folder that is itself or inside it, or
// lies in it, as written or through a link; not one beside it.
func TestHolds(t *testing.T) {
	home := t.TempDir()
	data := Folder{Dir: filepath.Join(home, ".local", "share", "shrimp"), Why: "Shrimp's data"}
	if err := os.MkdirAll(data.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		workspace string
		want      bool
	}{
		{home, true},
		{filepath.Join(home, ".local"), true},
		{data.Dir, true},
		{link, true},
		{filepath.Join(home, "project"), false},
		{filepath.Join(data.Dir, "sessions"), true},
		{filepath.Dir(t.TempDir()) + "/elsewhere", false},
	} {
		if _, got := Holds(tt.workspace, Folder{}, data); got != tt.want {
			t.Errorf("Holds(%s) = %v, want %v", tt.workspace, got, tt.want)
		}
	}
}
