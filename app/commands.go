package app

import (
	"os"
	"path/filepath"

	"github.com/shrimp-harness/shrimp/backend/commands"
)

// Commands finds the saved prompts a request may start from (package
// commands): the workspace's .claude/commands, then the user's own, in
// the data directory's commands folder, Claude Code's (~/.claude/commands,
// or $CLAUDE_CONFIG_DIR's) and Codex's ($CODEX_HOME/prompts, else
// ~/.codex/prompts).
func (a *App) Commands(workspace string) commands.Found {
	dirs := []string{filepath.Join(a.Config.DataDir, "commands"), filepath.Join(claudeDir(), "commands")}
	if dir := os.Getenv("CODEX_HOME"); filepath.IsAbs(dir) {
		dirs = append(dirs, filepath.Join(dir, "prompts"))
	} else if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".codex", "prompts"))
	}
	return commands.Find(workspace, dirs)
}
