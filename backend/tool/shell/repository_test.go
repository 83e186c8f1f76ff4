package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/sandbox"
	"github.com/shrimp-harness/shrimp/internal/sandbox/sandboxtest"
)

// TestOutsideGitDir: a workspace that is a package of a repository, a
// submodule or a linked worktree has its git folder outside it; one that
// is the repository's top, or in no repository, or whose repository is in
// a temporary folder (writable), has not.
func TestOutsideGitDir(t *testing.T) {
	out, tmp := sandboxtest.Outside(t), t.TempDir()
	for p, text := range map[string]string{
		"repo/.git/HEAD":              "ref: refs/heads/main\n",
		"repo/pkg/api/a.go":           "package api\n",
		"repo/.git/modules/sub/HEAD":  "ref: refs/heads/main\n",
		"repo/sub/.git":               "gitdir: ../.git/modules/sub\n",
		"repo/.git/worktrees/wt/HEAD": "x\n",
		"plain/notes.txt":             "x",
		"broken/.git":                 "not a git file\n",
		"broken/inner/x.txt":          "x",
	} {
		for _, base := range []string{out, tmp} {
			abs := filepath.Join(base, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	wt := filepath.Join(out, "wt")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(out, "repo/.git/worktrees/wt")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ws, gitDir, top string // gitDir "": none outside
	}{
		{filepath.Join(out, "repo"), "", ""},
		{filepath.Join(out, "repo/pkg/api"), filepath.Join(out, "repo/.git"), filepath.Join(out, "repo")},
		{filepath.Join(out, "repo/sub"), filepath.Join(out, "repo/.git/modules/sub"), filepath.Join(out, "repo/sub")},
		{wt, filepath.Join(out, "repo/.git/worktrees/wt"), wt},
		{filepath.Join(out, "plain"), "", ""},
		{filepath.Join(out, "broken/inner"), "", ""},
		{filepath.Join(tmp, "repo/pkg/api"), "", ""}, // a temporary folder: commands may write its .git
	} {
		gitDir, top, ok := OutsideGitDir(c.ws)
		if gitDir != c.gitDir || top != c.top || ok != (c.gitDir != "") {
			t.Errorf("%s: %q %q %v, want %q %q", c.ws, gitDir, top, ok, c.gitDir, c.top)
		}
	}
}

// TestGitOutsideTheWorkspaceIsExplained: in a package of a repository,
// a confined `git commit` fails (its .git is outside the workspace), and
// the error says why and what the user can do, not only "permission
// denied".
func TestGitOutsideTheWorkspaceIsExplained(t *testing.T) {
	if _, err := sandbox.Check(); err != nil {
		t.Skipf("commands cannot be confined here: %v", err)
	}
	repo := filepath.Join(sandboxtest.Outside(t), "repo")
	pkg := filepath.Join(repo, "pkg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s (git is needed)", err, out)
	}
	if err := os.WriteFile(filepath.Join(pkg, "a.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := (&Runner{Dir: pkg, Confined: true}).run(context.Background(), Args{Command: "git add a.txt"})
	if err == nil {
		t.Fatalf("git add wrote the .git outside the workspace: %q", out)
	}
	for _, want := range []string{"the git repository at " + repo, "choose " + repo + " as the workspace"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	// A failure that has nothing to do with the repository says nothing of it.
	_, err = (&Runner{Dir: pkg, Confined: true}).run(context.Background(), Args{Command: "touch /etc/shrimp-test"})
	if err == nil || strings.Contains(err.Error(), "git repository") {
		t.Errorf("an unrelated refusal: %v", err)
	}
}

// TestSSHIsExplained: a git push over SSH fails in a command (no keys,
// no agent, no known hosts) and the error says why, not that the sandbox
// refused a write.
func TestSSHIsExplained(t *testing.T) {
	for _, out := range []string{"Host key verification failed.\r\nfatal: Could not read from remote repository.", "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository."} {
		_, err := (&Runner{Dir: t.TempDir()}).run(context.Background(), Args{Command: fmt.Sprintf("printf '%%s\\n' %s >&2; exit 128", Quote(out))})
		if err == nil || !strings.Contains(err.Error(), "without the user's SSH keys") || strings.Contains(err.Error(), "a write elsewhere is refused") {
			t.Errorf("%q: %v", out, err)
		}
	}
}
