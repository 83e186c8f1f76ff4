package instructions

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/injection"
)

// Cursor keeps a project's rules in .cursor/rules/*.mdc (or .md): each
// a Markdown file whose front matter says when it applies. A rule with
// alwaysApply is always in force; one with globs is attached when the
// agent works on a file they match; one with a description only is
// offered to the agent, which reads it when the task is what it
// describes; one with none is added by hand (@rule) and left here. The
// older .cursorrules file at the project's root is always in force.
// Only the workspace's own rules are read, with an AGENTS.md's checks
// (readTrusted, a link leading out of .cursor/rules refused, hidden
// characters removed).

// RulesDir is where Cursor keeps a project's rules.
var RulesDir = filepath.Join(".cursor", "rules")

// LegacyRules is the older single file of Cursor's rules.
const LegacyRules = ".cursorrules"

// maxRules bounds how many rule files are read.
const maxRules = 100

// cursorRule is one of a project's Cursor rules.
type cursorRule struct {
	path        string
	description string
	globs       []string
	always      bool
	text        string // the rule, front matter removed, hidden characters too
	read        int    // bytes of the file read
	size        int64
}

// kind says how a rule applies: "always", "globs" (attached to files it
// matches), "requested" (offered by its description) or "manual".
func (r cursorRule) kind() string {
	switch {
	case r.always:
		return "always"
	case len(r.globs) > 0:
		return "globs"
	case r.description != "":
		return "requested"
	}
	return "manual"
}

// cursorRules reads the workspace's Cursor rules (ws: its path, links
// resolved), in the order of their paths, .cursorrules first, with
// warnings about what was not read.
func cursorRules(ws string) (rules []cursorRule, warnings []string) {
	legacy := filepath.Join(ws, LegacyRules)
	text, size, err := "", int64(0), staysIn(legacy, ws)
	if err == nil {
		text, size, err = readTrusted(legacy)
	}
	switch {
	case err == nil:
		r, why := ruleOf(legacy, text, size, false)
		warnings = append(warnings, why...)
		r.always = true
		rules = append(rules, r)
	case !os.IsNotExist(err):
		warnings = append(warnings, fmt.Sprintf("%s not read: %v", legacy, err))
	}
	dir := filepath.Join(ws, RulesDir)
	if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
		return rules, warnings // none, or a link: a folder of rules is the project's own
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
		if ext := filepath.Ext(path); ext == ".mdc" || ext == ".md" {
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
		r, why := ruleOf(path, text, size, true)
		warnings = append(warnings, why...)
		rules = append(rules, r)
	}
	return rules, warnings
}

// ruleOf reads a rule file's text: its front matter when meta (a .mdc
// file's), and the rule with hidden characters removed.
func ruleOf(path, text string, size int64, meta bool) (cursorRule, []string) {
	r := cursorRule{path: path, read: len(text), size: max(size, int64(len(text)))}
	var warnings []string
	if size > int64(len(text)) {
		warnings = append(warnings, fmt.Sprintf("%s has %d bytes: only its first %d are read; shorten it", path, size, len(text)))
	}
	body := text
	if meta {
		var fields map[string][]string
		fields, body = frontMatter(text)
		r.description = strings.Join(fields["description"], ", ")
		r.always = strings.EqualFold(strings.Join(fields["alwaysapply"], ""), "true")
		r.globs = slices.DeleteFunc(fields["globs"], func(g string) bool { return g == "" })
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

// frontMatter splits a .mdc file into its front matter's fields (keys in
// lower case; a value split at commas, or a list's items) and the rest.
// Cursor's front matter is not always YAML (globs: *.ts, unquoted, is an
// alias there), so it is read line by line: key: value, and "- item"
// lines under a key without a value.
func frontMatter(text string) (map[string][]string, string) {
	rest, ok := strings.CutPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "---\n")
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
		for _, part := range splitList(v) {
			if part = unquote(part); part != "" {
				fields[key] = append(fields[key], part)
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

// requestedBlock lists the rules offered by their description, for the
// system prompt ("" for none).
func requestedBlock(rules []cursorRule, ws string) string {
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
	return "The project's Cursor rules below apply to some tasks only: when the task is what one describes, read it (fs.read) and follow it.\n" + b.String()
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
// relative to the workspace written with /.
func (r cursorRule) matches(rel string) bool {
	for _, g := range r.globs {
		if re, err := globPattern(g); err == nil && re.MatchString(rel) {
			return true
		}
	}
	return false
}

// file is the File a rule is shown as, used bytes of it in the prompt.
func (r cursorRule) file(used int) File {
	return File{Path: r.path, Bytes: int(r.size), Scope: "cursor rule", Used: used}
}
