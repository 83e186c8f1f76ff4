package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/protected"
)

// FuzzProtectedWrites: whatever path the model gives fs.write, a write
// that lands in a protected place (git's files, editor tasks), checked on
// the disk afterwards, is one protected.Check flagged beforehand, so the
// approval gate asked the user whatever rule was stored. The fixture
// reaches those places through links as well (to .git, into it, and back
// out of a subfolder).
func FuzzProtectedWrites(f *testing.F) {
	for _, p := range []string{
		".git/hooks/pre-commit", ".GIT/config", "g/config", "gh/pre-commit", "obj/../hooks/x", "sub/up/.git/config",
		"./.git//hooks/post-merge", "sub/../.vscode/tasks.json", "vs/tasks.json", "notes.txt", "sub/a.txt", "in/.git/x",
		".git", ".gitignore", "git/hooks/x", "sub/.git/config",
	} {
		f.Add(p)
	}
	base := f.TempDir()
	ws := filepath.Join(base, "ws")
	for _, d := range []string{".git/hooks", ".git/objects", ".vscode", "sub"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{"g": ".git", "gh": ".git/hooks", "obj": ".git/objects", "vs": ".vscode", "sub/up": "..", "in": "sub"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			f.Fatal(err)
		}
	}
	w, err := Open(ws)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { w.Close() })
	fixture := tree(ws)
	write, edit := w.Tools()[2], w.Tools()[4]
	f.Fuzz(func(t *testing.T, p string) {
		before := protectedTree(t, ws)
		flagged := protected.Check(ws, p) != ""
		args, _ := json.Marshal(WriteArgs{Path: p, Content: "written"})
		if _, err := write.Run(context.Background(), args); err != nil {
			return
		}
		after := protectedTree(t, ws)
		for f, c := range after {
			if before[f] != c && !flagged {
				t.Fatalf("fs.write %q changed %s, and protected.Check did not flag it", p, f)
			}
		}
		// fs.edit goes the same way (and the app asks the same check).
		args, _ = json.Marshal(EditArgs{Path: p, Old: "written", New: "edited"})
		if _, err := edit.Run(context.Background(), args); err == nil {
			edited := protectedTree(t, ws)
			for f, c := range edited {
				if after[f] != c && !flagged {
					t.Fatalf("fs.edit %q changed %s, and protected.Check did not flag it", p, f)
				}
			}
		}
		// Put the workspace back as it was, so every input walks the same
		// small tree (and a fuzzing run does not leave thousands of files
		// in a temporary folder its killed workers never remove): the
		// fixture holds folders and links only, so removing what is new
		// restores it.
		removeAllBut(ws, fixture)
	})
}

// tree names everything under dir, links not followed.
func tree(dir string) map[string]bool {
	names := map[string]bool{}
	_ = filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			names[p] = true
		}
		return nil
	})
	return names
}

// removeAllBut removes whatever is under dir and not in keep.
func removeAllBut(dir string, keep map[string]bool) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || keep[p] {
			return nil
		}
		_ = os.RemoveAll(p)
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
}

// protectedTree reads the files (and names the folders) under ws's
// protected folders.
func protectedTree(t *testing.T, ws string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	for _, dir := range []string{".git", ".vscode"} {
		_ = filepath.WalkDir(filepath.Join(ws, dir), func(p string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
			case d.Type().IsRegular():
				b, _ := os.ReadFile(p)
				tree[p] = string(b)
			case d.IsDir():
				tree[p] = "(folder)"
			}
			return nil
		})
	}
	return tree
}
