package files

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/shrimp-harness/shrimp/backend/spell"
	"github.com/shrimp-harness/shrimp/internal/depfolders"
)

// Small models guess paths: "README.MD" for README.md, "src/utils.py" for
// app/utils.py, "myproj/src/a.go" with the workspace's own name in front,
// "/src/a.go" as if the workspace were the root. Told only "does not
// exist", they guess again, or list folder after folder. suggest names
// the path they probably meant, when one is plain.

// maxLooked caps the entries suggest looks through for a file of the same
// name elsewhere.
const maxLooked = 5000

// suggest returns a hint for the workspace path p (slash-separated,
// relative) that does not exist: "" when nothing plainly fits.
func (w *Workspace) suggest(p string) string {
	fsys := w.root.FS()
	exists := func(q string) bool { _, err := fs.Stat(fsys, q); return err == nil }
	// Written as in prose or Markdown: in quotes or backquotes, or with a
	// space at an end.
	if q := strings.Trim(p, quotes+" "); q != p && q != "" && exists(q) {
		return "; did you mean " + q + "? (without the quotes and spaces around it)"
	}
	// The workspace's own name in front.
	if first, rest, ok := strings.Cut(p, "/"); ok && first == path.Base(w.dir) && exists(rest) {
		return "; paths are relative to the workspace, without its name: " + rest + " is there"
	}
	// A name spelt a little differently in a folder that is there.
	dir, base := path.Dir(p), path.Base(p)
	if entries, err := fs.ReadDir(fsys, dir); err == nil {
		// One slip (a letter left out, added, changed or two swapped),
		// two in a name of eight letters or more; none in one of three
		// ("a.c" is one slip from too much). Another case is no slip.
		slips := 1
		switch {
		case len(base) < 4:
			slips = 0
		case len(base) >= 8:
			slips = 2
		}
		best, bestD := "", slips+1
		for _, e := range entries {
			d := 0
			// Another case, or the same letters composed otherwise (a
			// name from a Mac keeps é as e and an accent: NFD), is no slip.
			if !strings.EqualFold(norm.NFC.String(e.Name()), norm.NFC.String(base)) {
				d = spell.OSA(strings.ToLower(e.Name()), strings.ToLower(base), slips)
				if slips == 0 {
					d = 1
				}
			}
			if d < bestD {
				best, bestD = e.Name(), d
			}
		}
		if best != "" {
			return "; did you mean " + path.Join(dir, best) + "?"
		}
		if len(entries) > 0 {
			return ""
		}
	}
	// The same name elsewhere (its folder is not there, or is empty).
	var found []string
	looked := 0
	_ = fs.WalkDir(fsys, ".", func(q string, d fs.DirEntry, err error) error {
		looked++
		switch {
		case err != nil:
			return nil
		case looked > maxLooked || len(found) == 3:
			return fs.SkipAll
		case d.IsDir() && q != "." && (strings.HasPrefix(d.Name(), ".") || depfolders.Is(d.Name())):
			return fs.SkipDir
		case strings.EqualFold(d.Name(), base) && q != ".":
			found = append(found, q)
		}
		return nil
	})
	if len(found) > 0 {
		return "; " + path.Base(found[0]) + " is at " + strings.Join(found, ", ")
	}
	return ""
}

// nestedDoubt is the doubt about a write that would make a folder named
// as the workspace inside it ("myproj/src/a.go" in myproj, where src is):
// the model put the workspace's name in front of a path relative to it (a
// project may hold a folder of its own name); nil when it would not.
func (w *Workspace) nestedDoubt(p string) *doubt {
	first, rest, ok := strings.Cut(p, "/")
	if !ok || first != path.Base(w.dir) {
		return nil
	}
	fsys := w.root.FS()
	if _, err := fs.Stat(fsys, first); err == nil {
		return nil // the folder is there: a project of its own name
	}
	if dir := path.Dir(rest); dir != "." {
		if _, err := fs.Stat(fsys, dir); err != nil {
			return nil // nothing of the rest is there either
		}
	}
	return &doubt{
		why:    fmt.Sprintf("it would make a folder %s inside the workspace %s, which has that name", first, w.dir),
		advice: fmt.Sprintf("Paths are relative to the workspace, so this file is %s: write that", rest),
	}
}
