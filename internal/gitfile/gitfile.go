// Package gitfile reads the .git file a submodule or a linked worktree
// has in place of a .git folder ("gitdir: ../.git/modules/sub"). Its
// contract: [Target] returns the git folder such a file names, absolute
// and clean (a relative one is taken from the file's own folder), and
// false for text that is not one such line.
package gitfile

import (
	"path/filepath"
	"strings"
)

// Target returns the git folder the .git file at dotGit (an absolute
// path), holding text, names.
func Target(dotGit, text string) (string, bool) {
	target, ok := strings.CutPrefix(strings.TrimSpace(text), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" || strings.Contains(target, "\n") {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(dotGit), target)
	}
	return filepath.Clean(target), true
}
