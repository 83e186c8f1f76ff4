// Package commands reads the saved prompts other agents keep as slash
// commands, so the ones a user wrote for them work here: Claude Code's
// Markdown commands (a project's .claude/commands, the user's
// ~/.claude/commands), Cursor's (.cursor/commands, ~/.cursor/commands),
// OpenCode's (.opencode/commands, ~/.config/opencode/commands), Codex's
// prompts (~/.codex/prompts), Gemini CLI's TOML commands
// (.gemini/commands, ~/.gemini/commands) and Shrimp's own (the data
// directory's commands folder). A command is a Markdown file, its name
// the file's (a subfolder's name before a colon: frontend/component.md is
// frontend:component), with optional YAML front matter (description,
// argument-hint) and a body with $ARGUMENTS and $1…$9 for what is typed
// after it; or a Gemini CLI .toml file with a prompt (and a description)
// where {{args}} is what is typed after it.
//
// Its contract: a command is text that becomes the user's request when
// the user picks it; it runs nothing. Claude Code runs a body's
// !`command` lines before sending, and Gemini CLI its !{command}s and
// reads its @{file}s; here they are left for the model to run and read,
// through the approval mode like any call, and Fill says so. A file
// another user owns or others may write, one larger than maxFile, a name
// that is not a name, and a workspace command whose file leads out of the
// workspace are left out with a warning; text a reader cannot see is
// removed from what Fill returns. When two folders hold a command of the
// same name, the first (the workspace's) is used.
package commands

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/shrimp-harness/shrimp/backend/injection"
	"github.com/shrimp-harness/shrimp/backend/instructions"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// WorkspaceFolders are where a workspace keeps its commands: Claude
// Code's, then Cursor's and OpenCode's (plain Markdown, the same shape;
// OpenCode's older folder is command), then Gemini CLI's (TOML).
var WorkspaceFolders = []string{
	filepath.Join(".claude", "commands"), filepath.Join(".cursor", "commands"),
	filepath.Join(".opencode", "commands"), filepath.Join(".opencode", "command"),
	filepath.Join(".gemini", "commands"),
}

// Command is one command found.
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Arguments reports whether its body uses what is typed after it
	// ($ARGUMENTS, $1…); text typed after one that does not is added at
	// its end, as Claude Code adds it.
	Arguments bool   `json:"arguments"`
	Scope     string `json:"scope"` // "workspace" or "user"
	File      string `json:"file"`
	body      string
	gemini    bool // a Gemini CLI command: {{args}}, !{…} and @{…}, not $ARGUMENTS
}

// Found is what Find found.
type Found struct {
	Commands []Command `json:"commands"`
	Warnings []string  `json:"warnings"`
}

// Limits.
const (
	maxFile     = 64 << 10 // a command's file
	maxCommands = 500      // commands one folder offers
	maxDepth    = 3        // subfolders a name may go through
)

// validName is a command's name (after the subfolders' names and colons):
// letters, digits, '-', '_' and '.', starting with a letter or digit.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(:[A-Za-z0-9][A-Za-z0-9._-]{0,63}){0,3}$`)

// Find looks for commands in the workspace's folders, then in userDirs
// (the user's own folders, in order).
func Find(workspace string, userDirs []string) Found {
	f := Found{Commands: []Command{}, Warnings: []string{}}
	seen := map[string]string{}
	root := instructions.Resolved(workspace)
	look := func(dir, scope string) {
		n := 0
		// A folder that is a link (~/.claude/commands kept in a dotfiles
		// repository) is walked where it leads; files are named by it.
		walked := dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			walked = r
		}
		_ = filepath.WalkDir(walked, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // no such folder: the common case
			}
			rel, _ := filepath.Rel(walked, path)
			path = filepath.Join(dir, rel)
			if d.IsDir() {
				if rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(rel, string(filepath.Separator)) >= maxDepth) {
					return filepath.SkipDir
				}
				return nil
			}
			ext := filepath.Ext(d.Name())
			if ext != ".md" && ext != ".toml" {
				return nil
			}
			if n == maxCommands {
				f.Warnings = append(f.Warnings, fmt.Sprintf("%s holds more than %d commands: the rest are left out", dir, maxCommands))
				return filepath.SkipAll
			}
			n++
			c, err := read(path, strings.ReplaceAll(strings.TrimSuffix(rel, ext), string(filepath.Separator), ":"), scope)
			if err == nil && scope == "workspace" && !instructions.Within(instructions.Resolved(path), root) {
				err = errors.New("its file leads out of the workspace")
			}
			switch {
			case err != nil:
				f.Warnings = append(f.Warnings, fmt.Sprintf("command %s left out: %v", path, err))
			case seen[c.Name] != "":
				f.Warnings = append(f.Warnings, fmt.Sprintf("command %s left out: /%s is %s", path, c.Name, seen[c.Name]))
			default:
				seen[c.Name] = c.File
				f.Commands = append(f.Commands, c)
			}
			return nil
		})
	}
	if workspace != "" {
		for _, d := range WorkspaceFolders {
			look(filepath.Join(workspace, d), "workspace")
		}
	}
	for _, d := range userDirs {
		look(d, "user")
	}
	return f
}

// Lookup returns the command named name ("/name" as typed is taken too).
func (f Found) Lookup(name string) (Command, bool) {
	name = strings.TrimPrefix(name, "/")
	i := slices.IndexFunc(f.Commands, func(c Command) bool { return c.Name == name })
	if i < 0 {
		return Command{}, false
	}
	return f.Commands[i], true
}

// uses finds what a body uses of what is typed after it.
var uses = regexp.MustCompile(`\$(ARGUMENTS|[1-9])`)

// read reads one command's file.
func read(path, name, scope string) (Command, error) {
	if !validName.MatchString(name) {
		return Command{}, fmt.Errorf("its name %q is not letters, digits, '-', '_' and '.' (subfolders joined by ':')", name)
	}
	text, size, err := instructions.ReadTrusted(path)
	if err != nil {
		return Command{}, err
	}
	if size > maxFile {
		return Command{}, fmt.Errorf("it is larger than %d KiB", maxFile>>10)
	}
	if strings.HasSuffix(path, ".toml") {
		return readGemini(text, Command{Name: name, Scope: scope, File: path})
	}
	meta, body := split(text)
	var fm struct {
		Description  string `yaml:"description"`
		ArgumentHint any    `yaml:"argument-hint"`
	}
	if err := yaml.Unmarshal([]byte(meta), &fm); err != nil {
		return Command{}, fmt.Errorf("its front matter is not YAML (%v)", err)
	}
	desc := cmp.Or(oneLine(fm.Description), firstLine(body))
	hint := ""
	switch h := fm.ArgumentHint.(type) {
	case string:
		hint = oneLine(h)
	case []any: // [file] [message] written as a YAML list
		for _, v := range h {
			hint = strings.TrimSpace(hint + " [" + oneLine(fmt.Sprint(v)) + "]")
		}
	}
	return Command{Name: name, Description: desc, ArgumentHint: hint, Arguments: uses.MatchString(body), Scope: scope, File: path, body: body}, nil
}

// readGemini reads a Gemini CLI command: TOML with a prompt and an
// optional description.
func readGemini(text string, c Command) (Command, error) {
	var g struct {
		Prompt      *string `toml:"prompt"`
		Description string  `toml:"description"`
	}
	if _, err := toml.Decode(strings.TrimPrefix(text, "\ufeff"), &g); err != nil {
		return Command{}, fmt.Errorf("it is not TOML (%v)", err)
	}
	if g.Prompt == nil || strings.TrimSpace(*g.Prompt) == "" {
		return Command{}, errors.New("it has no prompt (Gemini CLI's commands need prompt = \"…\")")
	}
	c.body, c.gemini = *g.Prompt, true
	c.Arguments = strings.Contains(c.body, geminiArgs)
	c.Description = cmp.Or(oneLine(g.Description), firstLine(c.body))
	return c, nil
}

// firstLine is a command's description when it gives none, as Claude
// Code makes it: its text's first line, a heading's marks taken off.
func firstLine(body string) string {
	return oneLine(strings.TrimLeft(strings.SplitN(strings.TrimSpace(body), "\n", 2)[0], "# "))
}

// geminiArgs is where a Gemini CLI command takes what is typed after it.
const geminiArgs = "{{args}}"

// oneLine is s on one line, without hidden characters, at most 200 characters.
func oneLine(s string) string {
	s, _ = injection.Unhide(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// split parts a command's file into its front matter (none: "") and body.
func split(text string) (meta, body string) {
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", text
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return "", text
	}
	body = rest[end+4:]
	body = strings.TrimPrefix(strings.TrimLeft(body, "-"), "\n")
	return rest[:end], body
}

// placeholder is what Fill replaces: $ARGUMENTS, $1…$9, and $$ (a $).
var placeholder = regexp.MustCompile(`\$(ARGUMENTS|[1-9]|\$)`)

// bang is a line's !`command`, which Claude Code runs before sending.
var bang = regexp.MustCompile("!`([^`\n]+)`")

// Fill is the command's request with args (what was typed after it) in
// place of $ARGUMENTS, and its words (quotes group them) in place of
// $1…$9; args added at its end when the body uses neither. notes say what
// the user should know: !`command`s left for the model to run, hidden
// characters removed.
func (c Command) Fill(args string) (text string, notes []string) {
	args = strings.TrimSpace(args)
	if c.gemini {
		return c.fillGemini(args)
	}
	words := fields(args)
	text = placeholder.ReplaceAllStringFunc(c.body, func(m string) string {
		switch m {
		case "$ARGUMENTS":
			return args
		case "$$":
			return "$"
		}
		i, _ := strconv.Atoi(m[1:])
		if i <= len(words) {
			return words[i-1]
		}
		return ""
	})
	if !c.Arguments && args != "" {
		text = strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + args
	}
	if ran := bang.FindAllStringSubmatch(text, -1); len(ran) > 0 {
		text = bang.ReplaceAllString(text, "the output of `$1` (run it)")
		notes = append(notes, c.ranNote("Claude Code", len(ran)))
	}
	return c.finish(text, notes)
}

// ranNote says that a command's shell commands are left for the model.
func (c Command) ranNote(agent string, n int) string {
	them := "them"
	if n == 1 {
		them = "it"
	}
	return fmt.Sprintf("/%s runs %s before it is sent in %s; here the model runs %s, asking you as for any command", c.Name, plural.N(n, "shell command", "shell commands"), agent, them)
}

// finish removes what a reader cannot see from a filled command, saying so.
func (c Command) finish(text string, notes []string) (string, []string) {
	text, hidden := injection.Unhide(strings.TrimSpace(text))
	if hidden > 0 {
		notes = append(notes, fmt.Sprintf("/%s held %d characters a reader cannot see: they were removed", c.Name, hidden))
	}
	return text, notes
}

// fillGemini fills a Gemini CLI command as Gemini CLI does: {{args}} is
// what was typed; without it, the command as typed is added after the
// prompt. Its !{command}s and @{file}s, which Gemini CLI runs and reads
// before sending, are left for the model.
func (c Command) fillGemini(args string) (text string, notes []string) {
	text = strings.ReplaceAll(c.body, geminiArgs, args)
	if !c.Arguments && args != "" {
		text = strings.TrimRight(text, "\n") + "\n\n/" + c.Name + " " + args
	}
	text, ran := injections(text, "!{", func(cmd string) string { return "the output of `" + cmd + "` (run it)" })
	if ran > 0 {
		notes = append(notes, c.ranNote("Gemini CLI", ran))
	}
	text, read := injections(text, "@{", func(path string) string { return "the contents of " + path + " (read it)" })
	if read > 0 {
		notes = append(notes, fmt.Sprintf("/%s reads %s into the prompt in Gemini CLI; here the model reads them, as it may", c.Name, plural.N(read, "file", "files")))
	}
	return c.finish(text, notes)
}

// injections replaces each open…} of text (braces inside balanced, as
// Gemini CLI reads them) by what with makes of what is inside; one left
// open stays as it is. n is how many were replaced.
func injections(text, open string, with func(string) string) (out string, n int) {
	var b strings.Builder
	for {
		i := strings.Index(text, open)
		if i < 0 {
			break
		}
		depth, end := 1, -1
		for j := i + len(open); j < len(text) && end < 0; j++ {
			switch text[j] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = j
				}
			}
		}
		if end < 0 {
			break
		}
		b.WriteString(text[:i])
		b.WriteString(with(strings.TrimSpace(text[i+len(open) : end])))
		text = text[end+1:]
		n++
	}
	b.WriteString(text)
	return b.String(), n
}

// fields splits what was typed after a command into words, as a shell
// would for quotes: "two words" and 'two words' are one.
func fields(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
