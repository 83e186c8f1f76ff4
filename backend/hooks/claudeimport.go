package hooks

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/shrimp-harness/shrimp/internal/jsonc"
)

// ClaudeTimeout is an imported hook's timeout when Claude Code's settings
// give none (seconds; Claude Code's own default for a command is longer,
// but a pre-tool-call hook holds the call while it runs).
const ClaudeTimeout = 60

// ClaudePromptTimeout is an imported prompt hook's timeout when Claude
// Code's settings give none (Claude Code's default for them).
const ClaudePromptTimeout = 30

// Imported is what Claude Code's settings give: the hooks to add, the
// ones that cannot run here and why, and notes on the rest.
type Imported struct {
	Hooks   []Hook    `json:"hooks"`
	Skipped []Skipped `json:"skipped"`
	Notes   []string  `json:"notes"`
}

// Skipped is one of Claude Code's hooks that Shrimp cannot run.
type Skipped struct {
	Event   string `json:"event"` // Claude Code's: SessionStart, …
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command,omitempty"`
	Why     string `json:"why"`
}

// claudeSettings is the part of Claude Code's settings.json (or a
// plugin's hooks.json) that holds hooks.
type claudeSettings struct {
	Hooks    map[string][]hookGroup `json:"hooks"`
	Disabled bool                   `json:"disableAllHooks"`
}

// hookGroup is one matcher's hooks, in Claude Code's and Gemini CLI's
// settings alike.
type hookGroup struct {
	Matcher string      `json:"matcher"`
	Hooks   []groupHook `json:"hooks"`
}

// groupHook is one hook of a matcher group.
type groupHook struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Prompt  string   `json:"prompt"`
	Model   string   `json:"model"`
	Name    string   `json:"name"`    // Gemini CLI's, which hooksConfig.disabled names
	Timeout *float64 `json:"timeout"` // seconds (Gemini CLI: milliseconds)
	Async   bool     `json:"async"`
	// Cursor's: its errors block (not only its exit status 2).
	FailClosed bool `json:"failClosed"`
}

// ImportClaude reads the hooks of Claude Code's settings (~/.claude/
// settings.json, a project's .claude/settings.json or settings.local.json,
// a plugin's hooks/hooks.json) as Shrimp hooks that keep their meaning
// (Hook.Claude): each command run by shell ("/bin/bash"), as Claude Code
// runs it, with its timeout (ClaudeTimeout when it gives none, 600
// seconds at most). A "prompt" hook on Stop, UserPromptSubmit,
// PreToolUse or PostToolUse becomes a hook that asks the request's model
// (Hook.Prompt; ClaudePromptTimeout when it gives none). A Notification
// hook becomes one hook for each of Shrimp's notices its matcher
// selects. What cannot run here is Skipped, with why; nothing is added by
// it (see Config.AddNew).
func ImportClaude(b []byte, shell string) (Imported, error) {
	b, err := jsonc.Standard(b)
	var s claudeSettings
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		return emptyImport(), fmt.Errorf("not Claude Code settings (%v): give its settings.json, such as ~/.claude/settings.json", err)
	}
	if s.Hooks == nil {
		return emptyImport(), errors.New(`no "hooks" in it: Claude Code keeps them in ~/.claude/settings.json, a project's .claude/settings.json or .claude/settings.local.json`)
	}
	out := importGroups(s.Hooks, shell, Hook{}, func(string) bool { return s.Disabled })
	if s.Disabled {
		out.Notes = append([]string{"its hooks are switched off there (Claude Code's disableAllHooks, Codex's features.hooks = false): they are imported switched off"}, out.Notes...)
	}
	return out, nil
}

// GeminiEvents says whether settings (JSON, comments allowed) hold hooks
// on an event only Gemini CLI has (BeforeTool, AfterAgent, …): a
// settings.json of Gemini CLI's rather than Claude Code's.
func GeminiEvents(b []byte) bool {
	return slices.ContainsFunc(hookEvents(b), func(e string) bool { return gemini().names(e) && !claude().names(e) })
}

// hookEvents are the events a settings or hooks file (JSON, comments
// allowed) holds hooks on; none when it is not JSON.
func hookEvents(b []byte) []string {
	b, err := jsonc.Standard(b)
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err != nil || json.Unmarshal(b, &s) != nil {
		return nil
	}
	return slices.Collect(maps.Keys(s.Hooks))
}

// names reports whether event is one of the table's agent's events, run
// here or not.
func (t claudeTable) names(event string) bool {
	_, known := t.Events[event]
	_, unsupported := t.Unsupported[event]
	return known || unsupported
}

// ImportGemini reads the hooks of Gemini CLI's settings (~/.gemini/
// settings.json, a project's .gemini/settings.json) as Shrimp hooks that
// keep their meaning (Hook.Gemini, gemini.json): each command run by
// shell, as ImportClaude's are, with its timeout (given in milliseconds
// there; 60 seconds, Gemini CLI's default, when it gives none). Its
// hooksConfig.enabled false, or a hook's name in hooksConfig.disabled,
// imports hooks switched off.
func ImportGemini(b []byte, shell string) (Imported, error) {
	b, err := jsonc.Standard(b)
	var s struct {
		Hooks  map[string]json.RawMessage `json:"hooks"`
		Config struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		return emptyImport(), fmt.Errorf("not Gemini CLI settings (%v): give its settings.json, such as ~/.gemini/settings.json", err)
	}
	if s.Hooks == nil {
		return emptyImport(), errors.New(`no "hooks" in it: Gemini CLI keeps them in ~/.gemini/settings.json or a project's .gemini/settings.json`)
	}
	groups := map[string][]hookGroup{}
	for event, raw := range s.Hooks {
		var g []hookGroup
		if err := json.Unmarshal(raw, &g); err != nil {
			continue // not an event's hooks (an older "enabled": true)
		}
		for i := range g {
			for j := range g[i].Hooks {
				if t := g[i].Hooks[j].Timeout; t != nil { // milliseconds there
					g[i].Hooks[j].Timeout = new(*t / 1000)
				}
			}
		}
		groups[event] = g
	}
	off := s.Config.Enabled != nil && !*s.Config.Enabled
	out := importGroups(groups, shell, Hook{Gemini: true}, func(name string) bool { return off || (name != "" && slices.Contains(s.Config.Disabled, name)) })
	if off {
		out.Notes = append([]string{"its hooks are switched off there (Gemini CLI's hooksConfig.enabled = false): they are imported switched off"}, out.Notes...)
	}
	return out, nil
}

// CursorEvents says whether a hooks file (JSON, comments allowed) holds
// hooks on an event of Cursor's (beforeShellExecution, stop, …: its
// names begin in lower case, Claude Code's and Gemini CLI's in upper).
func CursorEvents(b []byte) bool { return slices.ContainsFunc(hookEvents(b), cursor().names) }

// cursorEntry is one of Cursor's hooks: a hooks.json event's list holds
// them without Claude Code's matcher groups.
type cursorEntry struct {
	Type       string   `json:"type"`
	Command    string   `json:"command"`
	Prompt     string   `json:"prompt"`
	Matcher    string   `json:"matcher"`
	Timeout    *float64 `json:"timeout"`
	FailClosed bool     `json:"failClosed"`
	LoopLimit  *float64 `json:"loop_limit"`
}

// ImportCursor reads the hooks of Cursor's hooks.json (~/.cursor/
// hooks.json, a project's .cursor/hooks.json) as Shrimp hooks that keep
// their meaning (Hook.Cursor, cursor.json): each command run by shell,
// as ImportClaude's are, with its timeout in seconds (a value of 1,000
// or more is taken for milliseconds: the sources read disagree on the
// unit; ClaudeTimeout when it gives none) and its failClosed.
func ImportCursor(b []byte, shell string) (Imported, error) {
	b, err := jsonc.Standard(b)
	var s struct {
		Version *float64                   `json:"version"`
		Hooks   map[string]json.RawMessage `json:"hooks"`
	}
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		return emptyImport(), fmt.Errorf("not Cursor's hooks.json (%v): give it, such as ~/.cursor/hooks.json or a project's .cursor/hooks.json", err)
	}
	if s.Hooks == nil {
		return emptyImport(), errors.New(`no "hooks" in it: Cursor keeps them in ~/.cursor/hooks.json or a project's .cursor/hooks.json`)
	}
	var notes []string
	groups := map[string][]hookGroup{}
	for _, event := range slices.Sorted(maps.Keys(s.Hooks)) {
		var list []cursorEntry
		if err := json.Unmarshal(s.Hooks[event], &list); err != nil {
			notes = append(notes, fmt.Sprintf("%q is not a list of hooks, so it was left out", cutCommand(event)))
			continue
		}
		for _, c := range list {
			g := hookGroup{Matcher: c.Matcher, Hooks: []groupHook{{Type: cmp.Or(c.Type, "command"), Command: c.Command, Prompt: c.Prompt, Timeout: c.Timeout, FailClosed: c.FailClosed}}}
			if t := c.Timeout; t != nil && *t >= 1000 {
				notes = append(notes, fmt.Sprintf("%q %q: its timeout %g is read as milliseconds", cutCommand(event), cutCommand(cmp.Or(c.Command, c.Prompt)), *t))
				g.Hooks[0].Timeout = new(*t / 1000)
			}
			if c.LoopLimit != nil && event == "stop" {
				notes = append(notes, fmt.Sprintf("stop %q: its loop_limit is not kept; Shrimp sends the model back at most 8 times a request", cutCommand(c.Command)))
			}
			groups[event] = append(groups[event], g)
		}
	}
	out := importGroups(groups, shell, Hook{Cursor: true}, func(string) bool { return false })
	if s.Version != nil && *s.Version != 1 {
		notes = append(notes, fmt.Sprintf("its version is %g; Shrimp reads Cursor's hooks.json version 1", *s.Version))
	}
	out.Notes = append(notes, out.Notes...)
	return out, nil
}

func emptyImport() Imported {
	return Imported{Hooks: []Hook{}, Skipped: []Skipped{}, Notes: []string{}}
}

// importGroups turns settings' hooks by event (the names of the agent
// as's flags name: Claude Code's, Gemini CLI's, Cursor's) into Shrimp
// hooks (ImportClaude); disabled says whether a hook of that name is
// switched off there.
func importGroups(groups map[string][]hookGroup, shell string, as Hook, disabled func(name string) bool) Imported {
	out := emptyImport()
	t, agent := as.table(), as.Agent()
	for _, event := range slices.Sorted(maps.Keys(groups)) {
		ev, known := t.Events[event]
		for _, group := range groups[event] {
			for _, c := range group.Hooks {
				skip := func(why string) {
					out.Skipped = append(out.Skipped, Skipped{Event: event, Matcher: group.Matcher, Command: cmp.Or(c.Command, c.Prompt), Why: why})
				}
				switch {
				case !known && t.Unsupported[event] != "":
					skip(t.Unsupported[event])
					continue
				case !known:
					skip(fmt.Sprintf("not a %s event Shrimp knows", agent))
					continue
				case c.Type == "prompt" && len(t.promptEvents()) == 0:
					skip(fmt.Sprintf("a \"prompt\" hook: Shrimp runs %s's command hooks only", agent))
					continue
				case c.Type == "prompt" && !ev.Prompts:
					skip(fmt.Sprintf("a \"prompt\" hook on %s: Shrimp asks the model only for %s hooks", event, strings.Join(t.promptEvents(), ", ")))
					continue
				case c.Type != "command" && c.Type != "prompt":
					skip(fmt.Sprintf("a %q hook: Shrimp runs commands and prompts only", c.Type))
					continue
				case c.Type == "command" && strings.TrimSpace(c.Command) == "":
					skip("it has no command")
					continue
				case c.Type == "prompt" && strings.TrimSpace(c.Prompt) == "":
					skip("it has no prompt")
					continue
				}
				what := c.Command
				if c.Type == "prompt" {
					what = c.Prompt
				}
				matcher := strings.TrimSpace(group.Matcher)
				if matcher == "*" {
					matcher = ""
				}
				if err := checkClaudeMatcher(matcher); err != nil {
					skip(err.Error())
					continue
				}
				timeout := float64(ClaudeTimeout)
				if c.Type == "prompt" {
					timeout = ClaudePromptTimeout
					if c.Model != "" {
						out.Notes = append(out.Notes, fmt.Sprintf("%s %q names the model %q: here the request's own model answers it", event, cutCommand(c.Prompt), c.Model))
					}
				}
				if c.Timeout != nil && *c.Timeout > 0 {
					timeout = *c.Timeout
				}
				if timeout > 600 {
					out.Notes = append(out.Notes, fmt.Sprintf("%s %q: its timeout of %gs is cut to 600s, the most a Shrimp hook may take", event, cutCommand(what), timeout))
					timeout = 600
				}
				if c.Async {
					out.Notes = append(out.Notes, fmt.Sprintf("%s %q runs in the background in %s (async); Shrimp waits for it", event, cutCommand(what), agent))
				}
				var on []string
				switch ev.Matcher {
				case "tool":
					if why := t.matchesNoTool(matcher); why != "" {
						skip(why)
						continue
					}
					on = ev.Shrimp
				case "notification":
					on = slices.DeleteFunc(slices.Clone(ev.Shrimp), func(e string) bool { return !claudeMatches(matcher, t.Notifications[e]) })
					if len(on) == 0 {
						skip(fmt.Sprintf("its matcher %q selects no notice Shrimp gives (%s)", matcher, strings.Join(slices.Sorted(maps.Values(t.Notifications)), ", ")))
						continue
					}
					matcher = ""
				case "source":
					selected := slices.DeleteFunc(slices.Clone(Sources), func(src string) bool { return !claudeMatches(matcher, src) })
					switch len(selected) {
					case 0:
						skip(fmt.Sprintf("its matcher %q selects no start Shrimp has (%s: Shrimp has no /clear and no compaction to start again from)", matcher, strings.Join(Sources, ", ")))
						continue
					case len(Sources):
						matcher = ""
					default:
						matcher = strings.Join(selected, "|")
					}
					on = ev.Shrimp
				default:
					if matcher != "" {
						out.Notes = append(out.Notes, fmt.Sprintf("%s %q: its matcher %q is not kept; it runs on every %s here", event, cutCommand(what), matcher, event))
					}
					on, matcher = ev.Shrimp, ""
				}
				for _, e := range on {
					h := Hook{Event: e, Claude: event, Gemini: as.Gemini, Cursor: as.Cursor, FailClosed: c.FailClosed, Tool: matcher, Command: shell, Args: []string{"-c", c.Command}, Timeout: timeout, Disabled: disabled(c.Name)}
					if c.Type == "prompt" {
						h.Command, h.Args, h.Prompt = "", nil, c.Prompt
					}
					if err := h.Check(); err != nil {
						skip(err.Error())
						continue
					}
					out.Hooks = append(out.Hooks, h)
				}
			}
		}
	}
	return out
}

// FromCodexTOML reads the hooks of a Codex config.toml (its [hooks]
// tables, which have Claude Code's form: event, matcher groups, command
// hooks, and its meaning) as the JSON ImportClaude reads; Codex's
// features.hooks = false (or its older codex_hooks) is Claude Code's
// disableAllHooks.
func FromCodexTOML(b []byte) ([]byte, error) {
	var c struct {
		Hooks    map[string]any  `toml:"hooks"`
		Features map[string]bool `toml:"features"`
	}
	if _, err := toml.Decode(string(b), &c); err != nil {
		return nil, fmt.Errorf("not a Codex config.toml (%v)", err)
	}
	if c.Hooks == nil {
		return nil, errors.New("no [hooks] in it: Codex keeps them there or in hooks.json beside it (~/.codex/hooks.json)")
	}
	off := false
	for _, k := range []string{"hooks", "codex_hooks"} {
		if on, set := c.Features[k]; set && !on {
			off = true
		}
	}
	return json.Marshal(map[string]any{"hooks": c.Hooks, "disableAllHooks": off})
}

// PluginRoot is the Claude Code plugin a hooks file belongs to: the
// folder of file's hooks folder when it holds .claude-plugin/plugin.json
// (a plugin's hooks/hooks.json); "" for a settings file.
func PluginRoot(file string) string {
	dir := filepath.Dir(file)
	if filepath.Base(dir) != "hooks" {
		return ""
	}
	root := filepath.Dir(dir)
	if _, err := os.Stat(filepath.Join(root, ".claude-plugin", "plugin.json")); err != nil {
		return ""
	}
	return root
}

// pluginVar is how a plugin's hook names its folder.
var pluginVar = regexp.MustCompile(`\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b`)

// PluginName is the name a Claude Code plugin's manifest gives it, made
// safe for a folder's name as Claude Code makes it (what is not a letter,
// a digit, _ or - becomes -); its folder's name when the manifest has
// none.
func PluginName(root string) string {
	var m struct {
		Name string `json:"name"`
	}
	b, _ := os.ReadFile(filepath.Join(root, ".claude-plugin", "plugin.json"))
	if json.Unmarshal(b, &m) != nil || m.Name == "" {
		m.Name = filepath.Base(root)
	}
	return pluginNameUnsafe.ReplaceAllString(m.Name, "-")
}

var pluginNameUnsafe = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// InPlugin makes the hooks of a Claude Code plugin (root, its folder)
// run as Claude Code runs them: CLAUDE_PLUGIN_ROOT set to root, and
// written out in their command lines, so `hooks list` and `shrimp doctor`
// see the script they run; CLAUDE_PLUGIN_DATA set to data, the folder its
// scripts keep their state in ("" for none). A root a command line
// cannot hold as written (quotes, $, `, \) is left to the variable.
func (in *Imported) InPlugin(root, data string) {
	plain := !strings.ContainsAny(root, "\"'$`\\\n")
	for i, h := range in.Hooks {
		h.Env = map[string]string{"CLAUDE_PLUGIN_ROOT": root}
		if data != "" {
			h.Env["CLAUDE_PLUGIN_DATA"] = data
		}
		if n := len(h.Args); n > 0 && plain {
			h.Args = slices.Clone(h.Args)
			h.Args[n-1] = pluginVar.ReplaceAllLiteralString(h.Args[n-1], root)
		}
		in.Hooks[i] = h
	}
	if len(in.Hooks) > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("the plugin's folder (CLAUDE_PLUGIN_ROOT) is %s: its hooks run the scripts there, as the plugin's authors wrote them", root))
		if data != "" {
			in.Notes = append(in.Notes, fmt.Sprintf("its scripts keep their state in %s (CLAUDE_PLUGIN_DATA)", data))
		}
	}
}

// matchesNoTool says why a tool matcher selects no tool Shrimp has ("" when
// it may select one): names joined by | that are none of the table's
// names for Shrimp's tools and no MCP tool's (mcp__…).
func (t claudeTable) matchesNoTool(m string) string {
	if m == "" || !literalMatcher.MatchString(m) {
		return ""
	}
	mcp := fmt.Sprintf(cmp.Or(t.MCP, "mcp__%s__%s"), "", "") // what an MCP tool's name begins with
	for name := range strings.SplitSeq(m, "|") {
		if strings.HasPrefix(name, "mcp__") || t.MCP != "" && strings.HasPrefix(mcp, name) {
			return ""
		}
		for _, tool := range t.Tools {
			if tool.Name == name || t.MCP != "" && strings.Contains(tool.Name, name) { // Cursor's matchers are searched for
				return ""
			}
		}
	}
	have := slices.Sorted(func(yield func(string) bool) {
		for _, tool := range t.Tools {
			if !yield(tool.Name) {
				return
			}
		}
	})
	return fmt.Sprintf("its matcher %q names no tool Shrimp has (it has %s and MCP tools)", m, strings.Join(have, ", "))
}

// cutCommand shortens a command for a note.
func cutCommand(c string) string {
	c = strings.Join(strings.Fields(c), " ")
	if r := []rune(c); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return c
}

// AddNew adds h (Add) unless a hook that does the same is there (the same
// event, Claude Code event, tool pattern, command and arguments): then it
// returns that one, and added is false. Importing a file twice adds
// nothing the second time.
func (c *Config) AddNew(h Hook) (out Hook, added bool, err error) {
	if i := c.same(h); i >= 0 {
		return c.Hooks[i], false, nil
	}
	out, err = c.Add(h)
	return out, err == nil, err
}

// Has reports whether a hook that does the same as h is there (AddNew
// would not add it).
func (c Config) Has(h Hook) bool { return c.same(h) >= 0 }

// same is the index of the hook that does the same as h, or -1.
func (c Config) same(h Hook) int {
	return slices.IndexFunc(c.Hooks, func(k Hook) bool {
		return k.Event == h.Event && k.Claude == h.Claude && k.Gemini == h.Gemini && k.Cursor == h.Cursor && k.FailClosed == h.FailClosed && k.Tool == h.Tool && k.Command == h.Command && k.Prompt == h.Prompt && slices.Equal(k.Args, h.Args) && maps.Equal(k.Env, h.Env)
	})
}
