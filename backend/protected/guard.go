package protected

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A shell command (or an MCP server's tool) writes where the sandbox lets
// it, and the kernel cannot keep it out of a folder inside the workspace:
// a command allowed by a standing answer could write .git/hooks/pre-commit
// or .vscode/tasks.json, which run later, unconfined, while a write to
// them by the file tools is asked every time. Guard records the protected
// files at the workspace's top level before such a call, so that what it
// changed there can be found and put back after it.

// Guard limits: a protected folder with more files than maxGuarded, or a
// file larger than maxGuardedFile, is recorded as far as it goes; a change
// past the limits is found (by size and time) but cannot be put back.
const (
	maxGuarded     = 1000
	maxGuardedFile = 1 << 20
)

// Guarded is the state of a workspace's protected files at one moment.
type Guarded struct {
	workspace string
	files     map[string]guardedFile // by slash path relative to the workspace
	existed   map[string]bool        // the folders above the guarded paths that existed
}

// guardRoot is one guarded path: deep, everything beneath it; else only
// itself (.git, whose hooks and config are guarded and objects not).
type guardRoot struct {
	path string
	deep bool
}

// guardedFile is what one file, link or folder held.
type guardedFile struct {
	mode fs.FileMode
	data []byte // a file's content, a link's target; nil when not kept
	kept bool   // data holds all of it
	size int64
	mod  int64 // modification time, for a file not kept
}

// Change is one protected file a call changed.
type Change struct {
	Path string `json:"path"` // relative to the workspace, with /
	Kind string `json:"kind"` // "created", "changed" or "removed"
	Why  string `json:"why"`  // what the file does (protected.json)
}

// String is the change as a note names it: ".git/hooks/pre-commit (created)".
func (c Change) String() string { return fmt.Sprintf("%s (%s)", c.Path, c.Kind) }

// guardRoots are the top-level paths Guard records: each listed path, or
// the path itself and what its entry's guard names beneath it.
var guardRoots = func() []guardRoot {
	var out []guardRoot
	for _, e := range list {
		switch {
		case e.Unguarded:
		case len(e.Guard) == 0:
			out = append(out, guardRoot{e.Path, true})
		default:
			out = append(out, guardRoot{e.Path, false})
			for _, g := range e.Guard {
				out = append(out, guardRoot{g, true})
			}
		}
	}
	return out
}()

// Guard records the protected files at the workspace's top level (its
// own .git's hooks and config, .vscode, AGENTS.md, shell startup files
// when it is a home folder, …): call it before a call that may write
// them, and Changed after.
func Guard(workspace string) *Guarded {
	g := &Guarded{workspace: workspace, existed: map[string]bool{}}
	g.files = g.record()
	for _, r := range guardRoots {
		for dir := path.Dir(r.path); dir != "."; dir = path.Dir(dir) {
			if info, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(dir))); err == nil && info.IsDir() {
				g.existed[dir] = true
			}
		}
	}
	return g
}

// record walks the guarded paths as they are now.
func (g *Guarded) record() map[string]guardedFile {
	files := map[string]guardedFile{}
	budget := maxGuarded
	for _, root := range guardRoots {
		start := filepath.Join(g.workspace, filepath.FromSlash(root.path))
		_ = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
			switch {
			case budget == 0:
				return fs.SkipAll // the rest is not kept
			case err != nil:
				return nil // absent (or under a .git that is a file): nothing to keep
			}
			rel, rerr := filepath.Rel(g.workspace, p)
			info, ierr := d.Info()
			if rerr != nil || ierr != nil {
				return nil
			}
			f := guardedFile{mode: info.Mode(), size: info.Size(), mod: info.ModTime().UnixNano()}
			switch {
			case info.Mode()&fs.ModeSymlink != 0:
				if t, err := os.Readlink(p); err == nil {
					f.data, f.kept = []byte(t), true
				}
			case info.Mode().IsRegular() && info.Size() <= maxGuardedFile:
				if b, err := os.ReadFile(p); err == nil {
					f.data, f.kept = b, true
				}
			}
			budget--
			files[filepath.ToSlash(rel)] = f
			if d.IsDir() && !root.deep {
				return fs.SkipDir
			}
			return nil
		})
	}
	return files
}

// Changed says which protected files at the workspace's top level were
// created, changed or removed since Guard, in path order. Of a folder the
// call made, its files are named (the folder alone when it is empty); in
// a folder an entry's fresh patterns name (a repository `git init` made),
// what they match is not a change.
func (g *Guarded) Changed() []Change {
	now := g.record()
	var out []Change
	add := func(p, kind string) {
		out = append(out, Change{Path: p, Kind: kind, Why: Check(g.workspace, p)})
	}
	for p, f := range now {
		was, ok := g.files[p]
		switch {
		case !ok && fresh(p, g.files):
		case !ok && f.mode.IsDir():
			if !hasBeneath(now, p) {
				add(p, "created")
			}
		case !ok:
			add(p, "created")
		case differs(was, f):
			add(p, "changed")
		}
	}
	for p := range g.files {
		if _, ok := now[p]; !ok {
			add(p, "removed")
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// fresh reports whether p, created by the call, is what making its
// entry's folder anew makes (an entry's fresh patterns) and that folder
// did not exist before (before: Guard's record).
func fresh(p string, before map[string]guardedFile) bool {
	for _, e := range list {
		if _, had := before[e.Path]; had || len(e.Fresh) == 0 || p != e.Path && !strings.HasPrefix(p, e.Path+"/") {
			continue
		}
		return slices.ContainsFunc(e.Fresh, func(pattern string) bool {
			ok, _ := path.Match(pattern, p)
			return ok
		})
	}
	return false
}

func hasBeneath(files map[string]guardedFile, dir string) bool {
	for p := range files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// differs reports whether a file changed between two records.
func differs(was, now guardedFile) bool {
	switch {
	case was.mode.Type() != now.mode.Type() || was.mode.Perm() != now.mode.Perm():
		return true
	case was.mode.IsDir():
		return false // its files say
	case was.kept && now.kept:
		return !bytes.Equal(was.data, now.data)
	}
	return was.size != now.size || was.mod != now.mod
}

// Restore puts back changes (Changed's): a changed or removed file gets
// what it held and its mode, a created one is removed, with the folders
// made for it when they are left empty. It returns the changes it could
// not put back (a file past the limits), each with why.
func (g *Guarded) Restore(changes []Change) (failed []error) {
	var made []string // folders the call made, removed last, deepest first
	for _, c := range changes {
		abs := filepath.Join(g.workspace, filepath.FromSlash(c.Path))
		if err := inside(g.workspace, abs); err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", c.Path, err))
			continue
		}
		was, had := g.files[c.Path]
		var err error
		switch {
		case c.Kind == "created":
			err = os.RemoveAll(abs)
			for dir := path.Dir(c.Path); dir != "." && !g.existed[dir]; dir = path.Dir(dir) {
				if _, ok := g.files[dir]; ok {
					break
				}
				made = append(made, dir)
			}
		case !had || !was.kept && !was.mode.IsDir():
			err = errors.New("what it held was not kept (larger than 1 MiB, or past the 1,000 files kept), so it cannot be put back")
		default:
			err = put(abs, was)
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", c.Path, err))
		}
	}
	slices.SortFunc(made, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, dir := range slices.Compact(made) {
		_ = os.Remove(filepath.Join(g.workspace, filepath.FromSlash(dir))) // only when empty
	}
	return failed
}

// put writes back what a file, link or folder was.
func put(abs string, was guardedFile) error {
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	// Something else in its place goes first: writing through a link
	// would change the file it leads to.
	if info, err := os.Lstat(abs); err == nil && info.Mode().Type() != was.mode.Type() || err == nil && was.mode&fs.ModeSymlink != 0 {
		if err := os.RemoveAll(abs); err != nil {
			return err
		}
	}
	switch {
	case was.mode.IsDir():
		if err := os.MkdirAll(abs, was.mode.Perm()); err != nil {
			return err
		}
	case was.mode&fs.ModeSymlink != 0:
		return os.Symlink(string(was.data), abs)
	default:
		if err := os.WriteFile(abs, was.data, was.mode.Perm()); err != nil {
			return err
		}
	}
	return os.Chmod(abs, was.mode.Perm())
}

// inside refuses a path whose folders lead out of the workspace through a
// link (a call may have put one in place of .git).
func inside(workspace, abs string) error {
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return err
	}
	if !within(ws, dir) {
		return fmt.Errorf("its folder now leads out of the workspace (%s)", dir)
	}
	return nil
}
