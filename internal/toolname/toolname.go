// Package toolname resolves the spellings models give tool names to the
// names registered. Models trained on other harnesses' conventions write
// fs_read for fs.read (OpenAI's function names allow no dots), FS.Read,
// mcp__server__tool (Claude Code's MCP naming) or functions.fs.read (the
// harmony format's namespace). Its contract: an exact name is itself; any
// other spelling resolves only when exactly one registered name has the
// same key (case folded, the separators _ - / : . and __ alike, a leading
// "functions." dropped), so two tools never share a resolved spelling.
package toolname

import "strings"

// Key is a name's spelling-free form.
func Key(name string) string {
	k := strings.ToLower(strings.TrimSpace(name))
	k = strings.TrimPrefix(k, "functions.")
	k = strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '/', ':':
			return '.'
		}
		return r
	}, k)
	for strings.Contains(k, "..") {
		k = strings.ReplaceAll(k, "..", ".")
	}
	return strings.Trim(k, ".")
}

// Index resolves spellings against a set of registered names.
type Index struct {
	exact map[string]bool
	byKey map[string]string // "" when two names share the key
}

// New indexes names.
func New(names []string) *Index {
	x := &Index{exact: make(map[string]bool, len(names)), byKey: make(map[string]string, len(names))}
	for _, n := range names {
		x.exact[n] = true
		k := Key(n)
		if prev, dup := x.byKey[k]; dup && prev != n {
			x.byKey[k] = ""
		} else {
			x.byKey[k] = n
		}
	}
	return x
}

// Resolve returns the registered name a spelling stands for.
func (x *Index) Resolve(name string) (string, bool) {
	if x.exact[name] {
		return name, true
	}
	n := x.byKey[Key(name)]
	return n, n != ""
}
