package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/hooks"
)

// maxClaudeSettings bounds a Claude Code settings file read for its hooks.
const maxClaudeSettings = 4 << 20

// HooksImport is what importing Claude Code's hooks did (or, checked
// first, would do).
type HooksImport struct {
	File    string          `json:"file"`
	Added   []hooks.Hook    `json:"added"`   // new hooks (with their ids once added)
	Held    []hooks.Hook    `json:"held"`    // already in hooks.json
	Skipped []hooks.Skipped `json:"skipped"` // Claude Code's hooks that cannot run here, with why
	Notes   []string        `json:"notes"`
	// Project is set when the file is a project's (not the user's own
	// ~/.claude): its commands were written by whoever wrote the project.
	Project bool `json:"project"`
	// Plugin is the Claude Code plugin's folder when the file is its
	// hooks/hooks.json: its commands were written by its authors.
	Plugin string `json:"plugin,omitempty"`
}

// ClaudeSettingsFile is the user's own Claude Code settings:
// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func ClaudeSettingsFile() string { return filepath.Join(claudeDir(), "settings.json") }

// claudeDir is where Claude Code keeps the user's own settings and
// commands: $CLAUDE_CONFIG_DIR, else ~/.claude.
func claudeDir() string {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); filepath.IsAbs(dir) {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".claude")
}

// ImportClaudeHooks adds the hooks of a Claude Code settings file (""
// is ClaudeSettingsFile, ~/ is the home folder) to hooks.json, each run
// as written for Claude Code (hooks.ImportClaude), leaving out those
// already there; dry only says what it would do. Its commands run by
// bash, as Claude Code's do (sh where there is no bash).
func (a *App) ImportClaudeHooks(file string, dry bool) (HooksImport, error) {
	out := HooksImport{File: settingsFile(file), Added: []hooks.Hook{}, Held: []hooks.Hook{}}
	f, err := os.Open(out.File)
	if errors.Is(err, os.ErrNotExist) && file == "" {
		return out, fmt.Errorf("%s does not exist: Claude Code keeps your hooks there; give the settings file that holds them (a project's .claude/settings.json)", out.File)
	}
	if err != nil {
		return out, fmt.Errorf("read Claude Code settings: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxClaudeSettings+1))
	if err != nil {
		return out, fmt.Errorf("read %s: %w", out.File, err)
	}
	if len(b) > maxClaudeSettings {
		return out, fmt.Errorf("%s is larger than %d MiB: not a settings file", out.File, maxClaudeSettings>>20)
	}
	got, err := readHooksFile(out.File, b)
	if err != nil {
		return out, fmt.Errorf("%s: %w", out.File, err)
	}
	if abs, err := filepath.Abs(out.File); err == nil {
		out.File = abs
		out.Plugin = hooks.PluginRoot(abs)
		dir := filepath.Dir(abs)
		out.Project = dir != claudeDir() && dir != codexDir() && dir != geminiDir() && dir != cursorDir() && out.Plugin == ""
		if dir == cursorDir() {
			got.RunFrom(dir)
		}
	}
	// Codex's hooks are in Claude Code's form: named as Codex's.
	if dir := filepath.Dir(out.File); dir == codexDir() || filepath.Base(dir) == ".codex" || strings.HasSuffix(out.File, ".toml") {
		for i := range got.Hooks {
			got.Hooks[i].Codex = true
		}
	}
	var pluginData string // the plugin's state folder: made when its hooks are added
	if out.Plugin != "" {
		pluginData = filepath.Join(a.Config.DataDir, "plugin-data", hooks.PluginName(out.Plugin))
		got.InPlugin(out.Plugin, pluginData)
	}
	out.Skipped, out.Notes = got.Skipped, got.Notes
	add := func(cfg *hooks.Config) error {
		out.Added, out.Held = out.Added[:0], out.Held[:0]
		for _, h := range got.Hooks {
			k, added, err := cfg.AddNew(h)
			if err != nil {
				return err
			}
			if added {
				out.Added = append(out.Added, k)
			} else {
				out.Held = append(out.Held, k)
			}
		}
		return nil
	}
	// A guard whose program is missing lets everything through, as in
	// Claude Code: said now, not found out later.
	missing := map[string]bool{}
	for _, h := range got.Hooks {
		if !h.Findable(exec.LookPath) && !missing[h.Program()] {
			missing[h.Program()] = true
			out.Notes = append(out.Notes, fmt.Sprintf("%s is not installed here: the %s hook that runs it %s", h.Program(), h.On(), h.Unstartable()))
		}
	}
	path := filepath.Join(a.Config.DataDir, hooks.FileName)
	if dry {
		cfg, err := hooks.Load(path)
		if err != nil {
			return out, err
		}
		cfg.Hooks = slices.Clone(cfg.Hooks)
		err = add(&cfg)
		for i := range out.Added {
			out.Added[i].ID = "" // not added: no id yet
		}
		return out, err
	}
	if len(got.Hooks) == 0 {
		return out, nil
	}
	if pluginData != "" {
		if err := os.MkdirAll(pluginData, 0o700); err != nil {
			return out, fmt.Errorf("make the plugin's state folder: %w", err)
		}
	}
	if err := hooks.Edit(path, add); err != nil {
		return out, err
	}
	if a.Hooks != nil {
		_, _ = a.Hooks.Current()
	}
	return out, nil
}

// readHooksFile reads the hooks of a Claude Code settings file, a
// plugin's hooks.json, Codex's hooks.json or config.toml (Claude Code's
// hooks in its TOML), Gemini CLI's settings.json (one in a .gemini
// folder, or one with hooks on events only Gemini CLI has), or Cursor's
// hooks.json (one in a .cursor folder, or one with Cursor's events).
func readHooksFile(file string, b []byte) (hooks.Imported, error) {
	if filepath.Base(filepath.Dir(file)) == ".cursor" || filepath.Dir(file) == cursorDir() || hooks.CursorEvents(b) {
		return hooks.ImportCursor(b, claudeShell())
	}
	if filepath.Base(filepath.Dir(file)) == ".gemini" || filepath.Dir(file) == geminiDir() || hooks.GeminiEvents(b) {
		return hooks.ImportGemini(b, claudeShell())
	}
	if strings.HasSuffix(file, ".toml") {
		var err error
		if b, err = hooks.FromCodexTOML(b); err != nil {
			return hooks.Imported{}, err
		}
	}
	return hooks.ImportClaude(b, claudeShell())
}

// codexDir is where Codex keeps the user's own configuration:
// $CODEX_HOME, else ~/.codex.
func codexDir() string {
	if dir := os.Getenv("CODEX_HOME"); filepath.IsAbs(dir) {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".codex")
}

// geminiDir is where Gemini CLI keeps the user's own settings:
// $GEMINI_CLI_HOME/.gemini, else ~/.gemini.
func geminiDir() string {
	home := os.Getenv("GEMINI_CLI_HOME")
	if !filepath.IsAbs(home) {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".gemini")
}

// cursorDir is where Cursor keeps the user's own hooks.json: ~/.cursor.
func cursorDir() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cursor")
}

// settingsFile is file, or the user's Claude Code settings when it is "".
func settingsFile(file string) string {
	if strings.TrimSpace(file) == "" {
		return ClaudeSettingsFile()
	}
	return HomePath(file)
}

// claudeShell runs Claude Code's hook commands: bash, as Claude Code
// does, or sh where there is none.
func claudeShell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// projectClaudeFiles are where Claude Code keeps a project's own
// settings, Codex its hooks (in Claude Code's form), Gemini CLI its
// settings (in nearly that form), and Cursor its hooks.
var projectClaudeFiles = []string{
	filepath.Join(".claude", "settings.json"), filepath.Join(".claude", "settings.local.json"),
	filepath.Join(".codex", "hooks.json"), filepath.Join(".codex", "config.toml"),
	filepath.Join(".gemini", "settings.json"), filepath.Join(".cursor", "hooks.json"),
}

// ProjectHooks says what Claude Code hooks a folder's own settings hold
// that hooks.json does not ("" for none): they are never run by
// themselves (a project's hooks are commands kept with it, run on every
// call they match), so the first request there says how to import them,
// as ProjectServers does for its MCP servers.
func (a *App) ProjectHooks(dir string) string {
	mine, _ := hooks.Load(filepath.Join(a.Config.DataDir, hooks.FileName))
	for _, f := range projectClaudeFiles {
		path := filepath.Join(dir, f)
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxClaudeSettings {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		got, err := readHooksFile(path, b)
		if err != nil {
			continue
		}
		var missing []string
		for _, h := range got.Hooks {
			if label := strings.TrimSpace(h.Claude + " " + h.Tool); !mine.Has(h) && !slices.Contains(missing, label) {
				missing = append(missing, label)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("this folder's %s has hooks Shrimp does not run by itself (%s): a folder's hooks are commands kept with the project (its authors', unless you wrote them), run on every request or call they match, so review them and import the ones you trust with `shrimp hooks import %s` or Extensions → Hooks", f, strings.Join(missing, ", "), path)
		}
	}
	return ""
}
