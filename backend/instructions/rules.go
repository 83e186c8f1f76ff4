package instructions

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/injection"
)

// Other coding agents keep a project's rules in files of their own
// (rules.json): Cursor in .cursor/rules/*.mdc, GitHub Copilot in
// .github/instructions/*.instructions.md, Windsurf in .windsurf/rules/*.md,
// Claude Code in .claude/rules/*.md, Cline in .clinerules/, each a
// Markdown file whose front matter says when it applies, beside a single
// file always in force (.cursorrules, .github/copilot-instructions.md,
// .windsurfrules, Cline's .clinerules, Zed's .rules). Their front
// matters mean the same under other keys, read as one:
//   - always in force: Cursor's alwaysApply: true, Windsurf's trigger:
//     always_on, Copilot's applyTo: "**", and for Claude Code and Cline a
//     rule that names no files;
//   - attached when the agent works on a file its globs match: Cursor's
//     and Windsurf's globs, Copilot's applyTo, Claude Code's and Cline's
//     paths;
//   - offered by its description, read when the task is what it
//     describes: a description alone, or Windsurf's model_decision;
//   - added by hand (@rule): none of these, or Windsurf's manual; left
//     here.
// Only the workspace's own rules are read, with an AGENTS.md's checks
// (readTrusted, a link leading out of the rules folder or the workspace
// refused, hidden characters removed).

//go:embed rules.json
var rulesJSON []byte

// ruleSource is where one agent keeps a project's rules.
type ruleSource struct {
	Agent    string   `json:"agent"`
	File     string   `json:"file"`     // always in force, relative to the workspace
	Dir      string   `json:"dir"`      // rule files, relative to the workspace
	Suffixes []string `json:"suffixes"` // the names of rule files there end so
	Always   bool     `json:"always"`   // a rule file there that names no files is always in force
	// Nested says a subfolder may keep a Dir of its own, for work on its
	// files (Cursor's nested .cursor/rules): read when a run's tools
	// reach into it (Nested.For).
	Nested bool `json:"nested"`
}

var ruleSources = func() []ruleSource {
	var f struct {
		Agents []ruleSource `json:"agents"`
	}
	if err := json.Unmarshal(rulesJSON, &f); err != nil || len(f.Agents) == 0 {
		panic(fmt.Sprintf("rules.json: %v", err))
	}
	for i, a := range f.Agents {
		f.Agents[i].File, f.Agents[i].Dir = filepath.FromSlash(a.File), filepath.FromSlash(a.Dir)
	}
	return f.Agents
}()

// RuleFiles are the files and folders, relative to a workspace, where
// other agents keep the project's rules Shrimp reads (rules.json).
func RuleFiles() []string {
	var out []string
	for _, a := range ruleSources {
		for _, p := range []string{a.File, a.Dir} {
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// maxRules bounds how many rule files of one agent are read.
const maxRules = 100

// rule is one of a project's rules.
type rule struct {
	agent       string
	path        string
	base        string // the subfolder (slash path from the workspace) whose own rules folder holds it; "" for the workspace's
	description string
	globs       []string
	always      bool
	manual      bool   // added by hand only, whatever else it says
	text        string // the rule, front matter removed, hidden characters too
	read        int    // bytes of the file read
	size        int64
}

// kind says how a rule applies: "always", "globs" (attached to files it
// matches), "requested" (offered by its description) or "manual".
func (r rule) kind() string {
	switch {
	case r.manual:
		return "manual"
	case r.always:
		return "always"
	case len(r.globs) > 0:
		return "globs"
	case r.description != "":
		return "requested"
	}
	return "manual"
}

// projectRules reads the workspace's rules (ws: its path, links
// resolved), agent by agent, each agent's single file first, with
// warnings about what was not read.
func projectRules(ws string) (rules []rule, warnings []string) {
	for _, a := range ruleSources {
		got, why := a.read(ws)
		rules, warnings = append(rules, got...), append(warnings, why...)
	}
	return rules, warnings
}

// read reads one agent's rules in ws.
func (a ruleSource) read(ws string) (rules []rule, warnings []string) {
	if a.File != "" {
		rules, warnings = a.readFile(ws)
	}
	if a.Dir == "" {
		return rules, warnings
	}
	dir := filepath.Join(ws, a.Dir)
	if err := staysIn(dir, ws); err != nil {
		if !os.IsNotExist(err) {
			warnings = append(warnings, fmt.Sprintf("%s not read: %v", dir, err))
		}
		return rules, warnings
	}
	var paths []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case len(paths) >= maxRules:
			return filepath.SkipAll
		case d.IsDir():
			return nil
		}
		if slices.ContainsFunc(a.Suffixes, func(s string) bool { return strings.HasSuffix(path, s) }) {
			paths = append(paths, path)
		}
		return nil
	})
	if len(paths) >= maxRules {
		warnings = append(warnings, fmt.Sprintf("%s holds more than %d rules: only the first %d are read", dir, maxRules, maxRules))
	}
	for _, path := range paths {
		if err := staysIn(path, dir); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s not read: %v", path, err))
			continue
		}
		text, size, err := readTrusted(path)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s not read: %v", path, err))
			continue
		}
		r, why := ruleOf(a, path, text, size, true)
		warnings = append(warnings, why...)
		if r.text != "" {
			rules = append(rules, r)
		}
	}
	return rules, warnings
}

// readFile reads the agent's single file of rules in ws, always in
// force; one that is a folder (Cline's .clinerules may be either) is read
// as its Dir.
func (a ruleSource) readFile(ws string) ([]rule, []string) {
	file := filepath.Join(ws, a.File)
	if info, err := os.Stat(file); err == nil && info.IsDir() {
		return nil, nil
	}
	text, size, err := "", int64(0), staysIn(file, ws)
	if err == nil {
		text, size, err = readTrusted(file)
	}
	switch {
	case os.IsNotExist(err):
		return nil, nil
	case err != nil:
		return nil, []string{fmt.Sprintf("%s not read: %v", file, err)}
	}
	r, warnings := ruleOf(a, file, text, size, false)
	r.always = true
	if r.text == "" { // an empty file says nothing
		return nil, warnings
	}
	return []rule{r}, warnings
}

// ruleOf reads one of a's rule files: its front matter when meta (a rule
// folder's file), and the rule with hidden characters removed.
func ruleOf(a ruleSource, path, text string, size int64, meta bool) (rule, []string) {
	r := rule{agent: a.Agent, path: path, read: len(text), size: max(size, int64(len(text)))}
	var warnings []string
	if size > int64(len(text)) {
		warnings = append(warnings, fmt.Sprintf("%s has %d bytes: only its first %d are read; shorten it", path, size, len(text)))
	}
	body := text
	if meta {
		var fields map[string][]string
		fields, body = frontMatter(text)
		one := func(key string) string { return strings.ToLower(strings.Join(fields[key], ",")) }
		r.description = strings.Join(fields["description"], ", ")
		r.globs = slices.DeleteFunc(slices.Concat(fields["globs"], fields["applyto"], fields["paths"]), func(g string) bool { return g == "" })
		switch trigger := one("trigger"); {
		case one("alwaysapply") == "true" || trigger == "always_on" || slices.ContainsFunc(fields["applyto"], func(g string) bool { return g == "**" || g == "**/*" }):
			r.always = true
		case trigger == "manual":
			r.manual = true
		case trigger == "model_decision":
			r.globs = nil // offered by its description, whatever globs it keeps
		case a.Always && len(r.globs) == 0 && one("alwaysapply") != "false":
			r.always = true
		}
	}
	var hidden int
	if body, hidden = injection.Unhide(body); hidden > 0 {
		warnings = append(warnings, fmt.Sprintf("%s holds %d invisible characters (Unicode tags or variation selectors) that could carry instructions you cannot see: removed", path, hidden))
	}
	if d, n := injection.Unhide(r.description); n > 0 {
		r.description = d
		warnings = append(warnings, fmt.Sprintf("%s's description holds %d invisible characters: removed", path, n))
	}
	r.description = strings.Join(strings.Fields(r.description), " ")
	r.text = strings.TrimSpace(body)
	return r, warnings
}

// frontMatter splits a rule file into its front matter's fields (keys in
// lower case; a value split at commas, or a list's items) and the rest.
// Cursor's front matter is not always YAML (globs: *.ts, unquoted, is an
// alias there), so it is read line by line: key: value, and "- item"
// lines under a key without a value.
func frontMatter(text string) (map[string][]string, string) {
	text = strings.TrimPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "\uFEFF") // as a Windows editor saves it
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, text
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, text
	}
	body := rest[end+len("\n---"):]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	fields := map[string][]string{}
	key := ""
	for line := range strings.SplitSeq(rest[:end], "\n") {
		if item, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok && key != "" {
			fields[key] = append(fields[key], unquote(item))
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if key == "description" {
			fields[key] = []string{unquote(v)}
			continue
		}
		v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		for _, quoted := range splitList(v) {
			for _, part := range splitList(unquote(quoted)) { // Copilot's applyTo: "a,b", one quoted list
				if part = strings.TrimSpace(part); part != "" {
					fields[key] = append(fields[key], part)
				}
			}
		}
	}
	return fields, body
}

// splitList splits a front matter value at its commas, except those
// within quotes or a glob's {a,b}.
func splitList(v string) []string {
	var parts []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, v[start:i])
			start = i + 1
		}
	}
	return append(parts, v[start:])
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		s = s[1 : len(s)-1]
	}
	return strings.TrimSpace(s)
}

// folderRules reads the rules a subfolder keeps for itself (dir, links
// resolved; base: its slash path from the workspace), for the agents
// whose rules folders nest (ruleSource.Nested).
func folderRules(dir, base string) (rules []rule, warnings []string) {
	for _, a := range ruleSources {
		if !a.Nested {
			continue
		}
		a.File = "" // the single file is the workspace's alone
		got, why := a.read(dir)
		for i := range got {
			got[i].base = base
		}
		rules, warnings = append(rules, got...), append(warnings, why...)
	}
	return rules, warnings
}

// requestedBlock lists the rules offered by their description, for the
// system prompt ("" for none).
func requestedBlock(rules []rule, ws string) string {
	var b strings.Builder
	for _, r := range rules {
		if r.kind() == "requested" {
			rel, _ := filepath.Rel(ws, r.path)
			fmt.Fprintf(&b, "- %s: %s\n", rel, r.description)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "The project's rules below (kept for other coding agents) apply to some tasks only: when the task is what one describes, read it (fs.read) and follow it.\n" + b.String()
}

// globPattern is a glob as a regular expression: ** any folders, * and
// ? within one name, {a,b} either.
func globPattern(glob string) (*regexp.Regexp, error) {
	glob = strings.TrimPrefix(strings.TrimPrefix(glob, "./"), "/")
	if !strings.Contains(glob, "/") {
		glob = "**/" + glob // a name alone matches in any folder
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '{':
			b.WriteString("(?:")
		case c == '}':
			b.WriteString(")")
		case c == ',' && strings.LastIndexByte(glob[:i], '{') > strings.LastIndexByte(glob[:i], '}'):
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1])) // a byte: a character of several comes whole
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// matches reports whether one of the rule's globs matches rel, a path
// relative to the workspace written with /; a subfolder's rule (base)
// matches files in that folder, its globs read from there.
func (r rule) matches(rel string) bool {
	if r.base != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(rel, r.base+"/"); !ok {
			return false
		}
	}
	for _, g := range r.globs {
		if re, err := globPattern(g); err == nil && re.MatchString(rel) {
			return true
		}
	}
	return false
}

// file is the File a rule is shown as, used bytes of it in the prompt.
func (r rule) file(used int) File {
	return File{Path: r.path, Bytes: int(r.size), Scope: "rule", Agent: r.agent, Used: used}
}
