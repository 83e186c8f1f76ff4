package app

import (
	"os"
	"path/filepath"

	"github.com/shrimp-harness/shrimp/backend/commands"
)

// Commands finds the saved prompts a request may start from (package
// commands): the workspace's .claude/commands and .cursor/commands, then
// the user's own, in the data directory's commands folder, Claude Code's
// (~/.claude/commands, or $CLAUDE_CONFIG_DIR's), Codex's
// ($CODEX_HOME/prompts, else ~/.codex/prompts) and Cursor's
// (~/.cursor/commands).
func (a *App) Commands(workspace string) commands.Found {
	dirs := []string{filepath.Join(a.Config.DataDir, "commands"), filepath.Join(claudeDir(), "commands")}
	home, _ := os.UserHomeDir()
	if dir := os.Getenv("CODEX_HOME"); filepath.IsAbs(dir) {
		dirs = append(dirs, filepath.Join(dir, "prompts"))
	} else if home != "" {
		dirs = append(dirs, filepath.Join(home, ".codex", "prompts"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".cursor", "commands"))
	}
	return commands.Find(workspace, dirs)
}
