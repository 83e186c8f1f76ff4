package app

import (
	"os"
	"path/filepath"

	"github.com/shrimp-harness/shrimp/backend/commands"
)

// Commands finds the saved prompts a request may start from (package
// commands): the workspace's folders (commands.WorkspaceFolders), then
// the user's own, in the data directory's commands folder, Claude Code's
// (~/.claude/commands, or $CLAUDE_CONFIG_DIR's), Codex's
// ($CODEX_HOME/prompts, else ~/.codex/prompts), Cursor's
// (~/.cursor/commands), Gemini CLI's (~/.gemini/commands) and OpenCode's
// ($XDG_CONFIG_HOME/opencode/commands, else ~/.config/opencode/commands;
// and its older folder, command).
func (a *App) Commands(workspace string) commands.Found {
	dirs := []string{filepath.Join(a.Config.DataDir, "commands"), filepath.Join(claudeDir(), "commands")}
	home, _ := os.UserHomeDir()
	if dir := os.Getenv("CODEX_HOME"); filepath.IsAbs(dir) || home != "" {
		dirs = append(dirs, filepath.Join(codexDir(), "prompts"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".cursor", "commands"))
		dirs = append(dirs, filepath.Join(home, ".gemini", "commands"))
	}
	if oc := opencodeConfig(home); oc != "" {
		dirs = append(dirs, filepath.Join(oc, "commands"), filepath.Join(oc, "command"))
	}
	return commands.Find(workspace, dirs)
}

// opencodeConfig is OpenCode's configuration folder: under
// $XDG_CONFIG_HOME, else ~/.config, on every system ("" with neither).
func opencodeConfig(home string) string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "opencode")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "opencode")
}
