package gitignore

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writeTree writes files (slash paths relative to dir → content).
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOutsideAsGitDoes: a workspace that is a package of a larger
// repository, with ignore files above it, the repository's info/exclude
// and the user's global excludes file (named by ~/.gitconfig): every
// path a walk of the workspace asks about is ignored exactly when git
// check-ignore, run in the workspace as that user, says so.
func TestOutsideAsGitDoes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the comparison with git is not made")
	}
	base := t.TempDir()
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "mono")
	writeTree(t, home, map[string]string{
		".gitconfig":         "[user]\n\tname = x\n[core]\n\texcludesFile = \"~/my ignores\" ; the user's\n",
		"my ignores":         "*.swp\n.idea/\n",
		".config/git/ignore": "never-read-when-gitconfig-names-another\n",
	})
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	own := map[string]string{ // the workspace's own ignore files, added by a walk
		".gitignore":     "!keep.log\ncoverage/\n",
		"src/.gitignore": "*.gen.go\n",
	}
	files := map[string]string{
		".gitignore":          "node_modules/\ndist/\n*.log\n/top-only/\n",
		"packages/.gitignore": "*.tmp\n!wanted.tmp\n/api/local/\n",
		".git/info/exclude":   "scratch/\n",
	}
	for p, c := range own {
		files["packages/api/"+p] = c
	}
	paths := []string{
		"dist/app.js", "node_modules/x/i.js", "a.log", "keep.log", "top-only/x", "coverage/c.out",
		"b.tmp", "wanted.tmp", "local/notes", "src/local/notes", "src/a.gen.go", "src/a.go",
		"scratch/s", "notes.txt.swp", ".idea/ws.xml", "src/.idea/x", "README.md", "never-read-when-gitconfig-names-another",
	}
	for _, p := range paths {
		files["packages/api/"+p] = "x"
	}
	writeTree(t, repo, files)
	ws := filepath.Join(repo, "packages", "api")

	u := User{Home: home, System: filepath.Join(base, "no-system-config")}
	r := Outside(ws, u)
	for p, c := range own {
		r.Add(path.Dir(p), []byte(c))
	}
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=", "GIT_CONFIG_NOSYSTEM=1")
	checked, ignored := compareWithGit(t, r, paths, ws, env)
	if checked < 20 || ignored < 8 {
		t.Fatalf("only %d paths compared, %d ignored", checked, ignored)
	}
	t.Logf("%d paths compared with git, %d ignored", checked, ignored)
}

// TestOutside: what Outside finds in the places git keeps ignore rules,
// and what it leaves alone.
func TestOutside(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string // under a temporary folder; "home/" is the user's
		ws    string            // the workspace, under it
		link  map[string]string // links to make: name → target
		want  []string          // paths (relative to the workspace) ignored
		not   []string          // and not
	}{{
		name:  "no repository: the global excludes still hold",
		files: map[string]string{"home/.config/git/ignore": "*.swp\n", "ws/a": ""},
		ws:    "ws",
		want:  []string{"a.swp", "x/b.swp"},
		not:   []string{"a", "swp"},
	}, {
		name:  "a workspace in a folder its repository ignores keeps none of the outside rules",
		files: map[string]string{"repo/.git/HEAD": "", "repo/.gitignore": "build/\n*.o\n", "repo/build/out/a": ""},
		ws:    "repo/build/out",
		not:   []string{"a", "a.o"},
	}, {
		name: "a home folder in git with everything ignored",
		files: map[string]string{
			"home/.git/HEAD": "", "home/.gitignore": "*\n!.bashrc\n", "home/code/app/main.go": "",
		},
		ws:  "home/code/app",
		not: []string{"main.go", "src/x.go"},
	}, {
		name: "the workspace is the repository's top: its info/exclude",
		files: map[string]string{
			"repo/.git/HEAD": "", "repo/.git/info/exclude": "scratch.txt\n", "repo/.gitignore": "never-read/\n",
		},
		ws:   "repo",
		want: []string{"scratch.txt"},
		not:  []string{"never-read/x"}, // the workspace's own .gitignore is the walk's to add
	}, {
		name: "a linked worktree: the main repository's info/exclude",
		files: map[string]string{
			"main/.git/HEAD": "", "main/.git/info/exclude": "*.bak\n",
			"main/.git/worktrees/wt/commondir": "../..\n",
			"wt/.git":                          "gitdir: ../main/.git/worktrees/wt\n",
		},
		ws:   "wt",
		want: []string{"a.bak"},
	}, {
		name: "a linked .gitignore above is not followed, as git does not",
		files: map[string]string{
			"repo/.git/HEAD": "", "secret": "*.go\n", "repo/pkg/main.go": "",
		},
		link: map[string]string{"repo/.gitignore": "../secret"},
		ws:   "repo/pkg",
		not:  []string{"main.go"},
	}, {
		name: "a workspace reached through a link: the repository it really lies in",
		files: map[string]string{
			"repo/.git/HEAD": "", "repo/.gitignore": "*.tmp\n", "repo/pkg/x": "",
		},
		link: map[string]string{"elsewhere": "repo/pkg"},
		ws:   "elsewhere",
		want: []string{"a.tmp"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			writeTree(t, base, c.files)
			for name, target := range c.link {
				if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
					t.Fatal(err)
				}
			}
			r := Outside(filepath.Join(base, c.ws), User{Home: filepath.Join(base, "home"), System: filepath.Join(base, "none")})
			for _, p := range c.want {
				if !r.Ignored(p, strings.HasSuffix(p, "/")) {
					t.Errorf("%s not ignored", p)
				}
			}
			for _, p := range c.not {
				if r.Ignored(p, false) {
					t.Errorf("%s ignored", p)
				}
			}
		})
	}
}

// TestOutsideDoesNotBlock: a global excludes "file" that is a FIFO (or
// a folder) is not read: opening a FIFO to read blocks until something
// writes to it.
func TestOutsideDoesNotBlock(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(home, ".config", "git", "ignore"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	r := Outside(t.TempDir(), User{Home: home, System: filepath.Join(home, "none")})
	if r.Ignored("a", false) {
		t.Error("ignored")
	}
}

// TestCoreExcludesFile: git config's forms of core.excludesFile.
func TestCoreExcludesFile(t *testing.T) {
	for _, c := range []struct {
		config, want string
		ok           bool
	}{
		{"[core]\n\texcludesfile = ~/.gitignore_global\n", "~/.gitignore_global", true},
		{"[Core]\n  ExcludesFile=/etc/ign # a comment\n", "/etc/ign", true},
		{"[core] excludesFile = a\n[core]\nexcludesFile = \"b c\" ; last wins\n", "b c", true},
		{"[core]\nexcludesFile = \"a\\\"q\\\\b\"\n", `a"q\b`, true},
		{"[user]\nexcludesFile = no\n", "", false},
		{"[core \"sub\"]\nexcludesFile = no\n", "", false},
		{"[core]\neditor = vim\n[alias]\nexcludesFile = no\n", "", false},
		{"", "", false},
	} {
		got, ok := coreExcludesFile([]byte(c.config))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.config, got, ok, c.want, c.ok)
		}
	}
}

// TestExcludesFile: where the global excludes file is looked for.
func TestExcludesFile(t *testing.T) {
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	writeTree(t, home, map[string]string{"xdg/git/config": "[core]\nexcludesFile = ~/from-xdg\n"})
	u := User{Home: home, ConfigHome: xdg, System: filepath.Join(home, "none")}
	if got, want := excludesFile(u), filepath.Join(home, "from-xdg"); got != want {
		t.Errorf("XDG config: %q, want %q", got, want)
	}
	writeTree(t, home, map[string]string{".gitconfig": "[core]\nexcludesFile = /abs/ignore\n"})
	if got := excludesFile(u); got != "/abs/ignore" {
		t.Errorf("~/.gitconfig after XDG's: %q", got)
	}
	writeTree(t, home, map[string]string{".gitconfig": "[core]\nexcludesFile = relative\n"})
	if got := excludesFile(u); got != "" {
		t.Errorf("a relative path: %q, want none", got)
	}
	if got, want := excludesFile(User{Home: t.TempDir(), ConfigHome: xdg + "2", System: filepath.Join(home, "none")}), filepath.Join(xdg+"2", "git", "ignore"); got != want {
		t.Errorf("unset: %q, want %q", got, want)
	}
}
