package protected

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A command a standing answer allows runs `git remote add`, `git push -u`
// or `git submodule update --init`, which write the repository's config;
// a page could steer it to `git config core.hooksPath x` instead, whose
// value runs on the user's next commit. Guard tells them apart by the
// keys the change touched (gitconfig.json), read as git reads them, and
// anything it cannot read as git would is a change.

//go:embed gitconfig.json
var gitConfigJSON []byte

// safeKeys are the patterns of keys a call may change (gitconfig.json).
var safeKeys = func() []string {
	var f struct {
		Safe []string `json:"safe"`
	}
	if err := json.Unmarshal(gitConfigJSON, &f); err != nil || len(f.Safe) == 0 {
		panic(fmt.Sprintf("gitconfig.json: %v", err))
	}
	for i, k := range f.Safe {
		f.Safe[i] = strings.ToLower(k)
	}
	return f.Safe
}()

// configEntry is one variable of a git config file: its key as git
// names it (section and name lower case, a subsection as written) and
// its value as written.
type configEntry struct {
	section, sub, name, value string
}

// errUnread is a config that cannot be read with certainty the way git
// reads it.
var errUnread = errors.New("not read as git reads it")

// parseGitConfig reads a git config file's variables, strictly: a line
// continued with a backslash, a variable on a section's line, a quote
// left open or anything else unusual is errUnread (git may read it
// otherwise than this does).
func parseGitConfig(text string) ([]configEntry, error) {
	var out []configEntry
	section, sub, inSection := "", "", false
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case strings.HasSuffix(line, "\\"):
			return nil, fmt.Errorf("line %d continues: %w", n+1, errUnread)
		case line[0] == '[':
			var err error
			if section, sub, err = parseSection(line); err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			inSection = true
			continue
		case !inSection:
			return nil, fmt.Errorf("line %d: a variable before any section: %w", n+1, errUnread)
		}
		name, value, _ := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !isConfigName(name) || strings.Count(value, `"`)%2 != 0 {
			return nil, fmt.Errorf("line %d: %w", n+1, errUnread)
		}
		out = append(out, configEntry{section, sub, strings.ToLower(name), strings.TrimSpace(value)})
	}
	return out, nil
}

// parseSection reads `[section]`, `[section "subsection"]` or the old
// `[section.subsection]`.
func parseSection(line string) (section, sub string, err error) {
	end := strings.LastIndexByte(line, ']')
	if end < 0 || strings.TrimSpace(line[end+1:]) != "" && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), "#") && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), ";") {
		return "", "", errUnread // a variable after the header: git reads it, this does not
	}
	inner := line[1:end]
	if name, rest, ok := strings.Cut(inner, " "); ok {
		rest = strings.TrimSpace(rest)
		if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' || !isSectionName(name) {
			return "", "", errUnread
		}
		return strings.ToLower(name), strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(rest[1 : len(rest)-1]), nil
	}
	name, old, _ := strings.Cut(inner, ".")
	if !isSectionName(name) {
		return "", "", errUnread
	}
	return strings.ToLower(name), strings.ToLower(old), nil
}

func isSectionName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.')
	}) < 0
}

func isConfigName(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-')
	}) < 0
}

// pattern is the entry's key as gitconfig.json writes it: section.name,
// or section.*.name with a subsection.
func (e configEntry) pattern() string {
	if e.sub == "" {
		return e.section + "." + e.name
	}
	return e.section + ".*." + e.name
}

// safeConfigChange reports whether a git config went from before to
// after ("" when it did not exist) by adding, changing or removing safe
// keys alone; unsafe names the first key that is not, or why the file
// could not be read.
func safeConfigChange(before, after string) (unsafe string) {
	was, err := parseGitConfig(before)
	if err != nil {
		return "the config as it was is " + err.Error()
	}
	now, err := parseGitConfig(after)
	if err != nil {
		return "the config is " + err.Error()
	}
	count := func(es []configEntry) map[configEntry]int {
		m := map[configEntry]int{}
		for _, e := range es {
			m[e]++
		}
		return m
	}
	a, b := count(was), count(now)
	keys := slices.Collect(maps.Keys(a))
	keys = append(keys, slices.Collect(maps.Keys(b))...)
	slices.SortFunc(keys, func(x, y configEntry) int { return strings.Compare(x.pattern()+x.sub, y.pattern()+y.sub) })
	for _, e := range keys {
		if a[e] == b[e] {
			continue
		}
		if !slices.Contains(safeKeys, e.pattern()) {
			if e.sub != "" {
				return fmt.Sprintf("%s.%s.%s", e.section, e.sub, e.name)
			}
			return e.section + "." + e.name
		}
	}
	return ""
}

// SafeGitKey reports whether a git config key, as `git config` takes it
// (section.name or section.subsection.name), is one a call may set
// without the change being put back (gitconfig.json): what git's own
// commands write, naming no command to run.
func SafeGitKey(key string) bool {
	section, rest, ok := strings.Cut(key, ".")
	if !ok || section == "" {
		return false
	}
	pattern := strings.ToLower(section + "." + rest)
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		pattern = strings.ToLower(section) + ".*." + strings.ToLower(rest[i+1:])
	}
	return slices.Contains(safeKeys, pattern)
}
