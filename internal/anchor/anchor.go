// Package anchor pins the relative paths of a command line to the folder
// they were written in. A command Shrimp keeps to run later (a hook, an
// MCP server) runs from another folder (the request's workspace, the
// window's), where "scripts/check.sh" names another file or none. Its
// contract: a word is changed only when it is relative, holds a path
// separator and names a regular file in dir; it then becomes that file's
// absolute path. Anything else (a flag, a word such as "Shrimp", a path
// to nothing or to a folder) is left as written.
package anchor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Words returns words with each relative path to a file in dir made
// absolute (a flag's value after = too: --config=conf/x.json), and the
// words it changed, as given. words itself is not changed.
func Words(dir string, words []string) ([]string, []string) {
	out := slices.Clone(words)
	var changed []string
	for i, w := range out {
		flag, value := "", w // flag: "--config=" before a flag's value, else ""
		if strings.HasPrefix(w, "-") {
			f, v, ok := strings.Cut(w, "=")
			if !ok {
				continue
			}
			flag, value = f+"=", v
		}
		if value == "" || filepath.IsAbs(value) || !strings.ContainsRune(value, filepath.Separator) {
			continue
		}
		abs := filepath.Join(dir, value)
		if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		changed = append(changed, value)
		out[i] = flag + abs
	}
	return out, changed
}
