package shell

import (
	"os"
	"path/filepath"

	"github.com/shrimp-harness/shrimp/internal/gitfile"
)

// A workspace may be a package of a larger repository (a monorepo's
// packages/api), a submodule, or a linked worktree: its git folder then
// lies outside it, where the sandbox lets no command write, and `git
// add`, `git commit`, `git checkout` fail there with a bare "permission
// denied". Letting commands write that git folder would not do either: a
// checkout writes the whole work tree, most of it outside the workspace,
// and would stop half done. So the user and the model are told instead.

// OutsideGitDir returns the git folder of the repository workspace lies
// in when it is outside what a confined command may write (Writable),
// and the folder holding that repository's work tree; ok is false when
// the workspace is in no repository, or its git folder is writable (its
// own .git, or one in a temporary folder).
func OutsideGitDir(workspace string) (gitDir, top string, ok bool) {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return "", "", false
	}
	for dir := ws; ; dir = filepath.Dir(dir) {
		dotGit := filepath.Join(dir, ".git")
		if info, err := os.Lstat(dotGit); err == nil {
			gitDir = dotGit
			if info.Mode().IsRegular() { // a submodule's or a worktree's: "gitdir: …"
				b, err := os.ReadFile(dotGit)
				if err != nil {
					return "", "", false
				}
				if gitDir, ok = gitfile.Target(dotGit, string(b)); !ok {
					return "", "", false
				}
			}
			for _, w := range Writable(ws) {
				if within(gitDir, w) {
					return "", "", false
				}
			}
			return gitDir, dir, true
		}
		if dir == filepath.Dir(dir) {
			return "", "", false
		}
	}
}
