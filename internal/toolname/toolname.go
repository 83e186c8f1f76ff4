// Package toolname resolves the spellings models give tool names to the
// names registered. Models trained on other harnesses' conventions write
// fs_read for fs.read (OpenAI's function names allow no dots), FS.Read,
// mcp__server__tool (Claude Code's MCP naming) or functions.fs.read (the
// harmony format's namespace); gpt-oss, whose header reads
// "to=functions.NAME <|constrain|>json", leaves its format's tokens in the
// name when it runs them together ("fs.read<|constrain|>json",
// "shell.run<|channel|>commentary", "fs.readjson": llama.cpp #15158,
// ollama #11704). Its contract: an exact name is itself; any other
// spelling resolves only when exactly one registered name has the same key
// (case folded, the separators _ - / : . and __ alike, a leading
// "functions." dropped, what follows a "<|" or a blank left out), or, that
// failing, when its key ends in a glued "json" and the key without it
// does; so two tools never share a resolved spelling. Last, another
// agent's name for a registered tool (Aliases: Bash for shell.run), in
// any of those spellings, stands for it.
package toolname

import "strings"

// Key is a name's spelling-free form.
func Key(name string) string {
	k, _, _ := strings.Cut(name, "<|")
	if f := strings.Fields(k); len(f) > 0 {
		k = f[0]
	}
	k = strings.ToLower(k)
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

// Aliases are other agents' names for tools (Claude Code's Bash for
// shell.run), by Key, each to the registered name it stands for.
type Aliases map[string]string

// NewAliases keys names (another agent's name → the registered name).
func NewAliases(names map[string]string) Aliases {
	a := make(Aliases, len(names))
	for other, own := range names {
		a[Key(other)] = own
	}
	return a
}

// Index resolves spellings against a set of registered names.
type Index struct {
	exact   map[string]bool
	byKey   map[string]string // "" when two names share the key
	aliases Aliases
}

// New indexes names, and aliases for those of them it has (nil for none).
func New(names []string, aliases Aliases) *Index {
	x := &Index{exact: make(map[string]bool, len(names)), byKey: make(map[string]string, len(names)), aliases: aliases}
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
	k := Key(name)
	n := x.byKey[k]
	if glued, ok := strings.CutSuffix(k, "json"); n == "" && ok && glued != "" {
		n = x.byKey[strings.TrimRight(glued, ".")]
	}
	if own, ok := x.aliases[k]; n == "" && ok && x.exact[own] {
		n = own
	}
	return n, n != ""
}
