package gitignore

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestIgnored: gitignore(5)'s own examples and the forms projects use.
func TestIgnored(t *testing.T) {
	var r Rules
	r.Add(".", []byte(strings.Join([]string{
		"# build output",
		"target/",
		"/dist",
		"*.log",
		"!keep.log",
		"doc/frotz/",
		"foo/**/bar",
		"cache/**",
		`\#notes`,
		"trailing   ",
		"[!a]x.tmp",
		"",
	}, "\n")))
	r.Add("web", []byte("node_out\n/local.env\n!*.log\n"))
	for _, tc := range []struct {
		p    string
		dir  bool
		want bool
	}{
		{"target", true, true},
		{"crates/x/target", true, true}, // no slash but the trailing one: any depth
		{"target", false, false},        // folders only
		{"dist", true, true},
		{"dist", false, true},
		{"src/dist", true, false}, // anchored to the top
		{"app.log", false, true},
		{"deep/er/app.log", false, true},
		{"keep.log", false, false},
		{"doc/frotz", true, true},
		{"a/doc/frotz", true, false}, // a middle slash anchors
		{"foo/bar", true, true},
		{"foo/a/b/bar", false, true},
		{"cache", true, false}, // "cache/**" is what is inside
		{"cache/x", false, true},
		{"#notes", false, true},
		{"trailing", false, true},
		{"bx.tmp", false, true},
		{"ax.tmp", false, false},
		{"web/node_out", true, true},
		{"web/local.env", false, true},
		{"local.env", false, false},
		{"web/server.log", false, false}, // re-included deeper
		{"web/sub/server.log", false, false},
		{"README.md", false, false},
	} {
		if got := r.Ignored(tc.p, tc.dir); got != tc.want {
			t.Errorf("Ignored(%q, dir %v) = %v, want %v", tc.p, tc.dir, got, tc.want)
		}
	}
	var none *Rules
	if none.Ignored("x", false) {
		t.Error("no rules ignored a path")
	}
}

// TestAsGitDoes: on a tree of folders and files with ignore files at
// three depths, every path a walk would ask about is ignored exactly when
// git check-ignore says so.
func TestAsGitDoes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the comparison with git is not made")
	}
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":          "*.o\n/build/\nlogs/\n!important.o\n**/gen/*.go\ndocs/**/*.tmp\n[Tt]humbs.db\n*~\n",
		"src/.gitignore":      "!keep.o\n/local/\nout\n",
		"src/deep/.gitignore": "*.txt\n!README.txt\n",
	}
	paths := []string{
		"a.o", "important.o", "build/x", "src/build/y", "logs/today", "src/logs/old",
		"src/keep.o", "src/other.o", "src/local/x", "src/deep/local/y", "src/out", "src/deep/out",
		"src/deep/a.txt", "src/deep/README.txt", "src/b.txt", "gen/a.go", "x/gen/b.go", "x/gen/sub/c.go",
		"docs/a.tmp", "docs/x/y/b.tmp", "Thumbs.db", "thumbs.db", "notes.md~", "README.md", "src/main.c",
	}
	for _, p := range paths {
		files[p] = "x"
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	var r Rules
	for _, p := range []string{".gitignore", "src/.gitignore", "src/deep/.gitignore"} {
		r.Add(path.Dir(p), []byte(files[p]))
	}
	checked, _ := compareWithGit(t, &r, paths, dir, nil)
	if checked < 30 {
		t.Fatalf("only %d paths compared", checked)
	}
	t.Logf("%d paths compared with git", checked)
}

// compareWithGit asks git check-ignore, run in dir with env (nil: this
// process's), about every path a walk of a tree holding the files paths
// would ask r about, and reports each answer that differs; it returns how
// many paths it compared and how many git ignores.
func compareWithGit(t *testing.T, r *Rules, paths []string, dir string, env []string) (checked, ignored int) {
	t.Helper()
	asked, sorted := walkAsks(paths)
	for _, p := range sorted {
		if parentIgnored(r, p) {
			continue
		}
		q := p
		if asked[p] {
			q += "/"
		}
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", q)
		cmd.Dir, cmd.Env = dir, env
		err := cmd.Run()
		gitSays := err == nil
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("git check-ignore %s: %v", q, err)
		}
		if got := r.Ignored(p, asked[p]); got != gitSays {
			t.Errorf("%s: Ignored %v, git check-ignore %v", q, got, gitSays)
		}
		checked++
		if gitSays {
			ignored++
		}
	}
	return checked, ignored
}

// walkAsks is what a walk of a tree holding the files paths asks
// about: every folder and file (path → is a folder), and those paths in
// order (a walk skips what is below an ignored folder: parentIgnored).
func walkAsks(paths []string) (map[string]bool, []string) {
	asked := map[string]bool{}
	for _, p := range paths {
		parts := strings.Split(p, "/")
		for i := 1; i <= len(parts); i++ {
			asked[strings.Join(parts[:i], "/")] = asked[strings.Join(parts[:i], "/")] || i < len(parts)
		}
	}
	sorted := make([]string, 0, len(asked))
	for p := range asked {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	return asked, sorted
}

func parentIgnored(r *Rules, p string) bool {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if r.Ignored(d, true) {
			return true
		}
	}
	return false
}

// naive is match by trying every split, for comparison.
func naive(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return len(name) > 0
		}
		for i := 0; i <= len(name); i++ {
			if naive(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && naive(pat[1:], name[1:])
}

// FuzzMatch: the table gives what trying every split gives.
func FuzzMatch(f *testing.F) {
	f.Add("**/a/**/b", "x/a/y/z/b")
	f.Add("a/**", "a")
	f.Add("**/*.o", "src/x.o")
	f.Add("[!a]*/**/c?", "b/q/cd")
	f.Fuzz(func(t *testing.T, pattern, p string) {
		pat, name := strings.Split(pattern, "/"), strings.Split(p, "/")
		if len(pat) > 8 || len(name) > 8 {
			return
		}
		if got, want := match(pat, name), naive(pat, name); got != want {
			t.Errorf("match(%q, %q) = %v, trying every split %v", pattern, p, got, want)
		}
	})
}

// TestHostilePattern: many ** against a deep path ends (trying every
// split would take 400^12 steps).
func TestHostilePattern(t *testing.T) {
	var r Rules
	r.Add(".", []byte(strings.Repeat("a/**/", 12)+"never\n"))
	if r.Ignored(strings.Repeat("a/", 400)+"x", false) {
		t.Error("ignored")
	}
}
