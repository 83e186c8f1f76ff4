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
	"sync"

	"github.com/shrimp-harness/shrimp/internal/depfolders"
	"github.com/shrimp-harness/shrimp/internal/gitfile"
)

// A shell command (or an MCP server's tool) writes where the sandbox lets
// it, and the kernel cannot keep it out of a folder inside the workspace:
// a command allowed by a standing answer could write .git/hooks/pre-commit
// or .vscode/tasks.json, which run later, unconfined, while a write to
// them by the file tools is asked every time. Guard records the protected
// files of the workspace, at its top level and in its subfolders (a
// package's AGENTS.md, a nested repository's hooks, a submodule's git
// folder), before such a call, so that what it changed there can be found
// and put back after it.

// Guard limits: past maxGuarded files recorded, the rest are not; a file
// larger than maxGuardedFile, or past maxKept bytes kept in all, is
// recorded by size and time, so a change to it is found but cannot be put
// back.
// Subfolders are looked through breadth first, maxFolders of them (the
// shallow ones first), never into other projects' folders (depfolders).
const (
	maxGuarded     = 4000
	maxGuardedFile = 1 << 20
	maxKept        = 32 << 20
	maxFolders     = 4000
	maxModuleDepth = 6 // folders of a submodule's name (libs/ui/button)
)

// Guarded is the state of a workspace's protected files at one moment.
type Guarded struct {
	scan
}

// scan is one look through a workspace's protected files.
type scan struct {
	workspace string
	files     map[string]guardedFile // by slash path relative to the workspace
	folders   map[string]bool        // folders seen ("." the workspace)
	listed    map[string]bool        // folders whose entries were read
	gitDirs   map[string]bool        // repositories' git folders: .git, sub/.git, .git/modules/x
	budget    int                    // files still to record
	kept      int64                  // bytes kept so far
	partial   bool                   // the budget ran out: what was not recorded is not known
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

// Guard records the protected files of the workspace (its .git's hooks
// and config and those of the repositories and submodules in it,
// .vscode, AGENTS.md and a subfolder's, shell startup files when it is a
// home folder, …): call it before a call that may write them, and
// Changed after.
func Guard(workspace string) *Guarded {
	return &Guarded{look(workspace)}
}

// look finds the workspace's protected files, breadth first.
func look(workspace string) scan {
	s := scan{workspace: workspace, files: map[string]guardedFile{}, folders: map[string]bool{".": true},
		listed: map[string]bool{}, gitDirs: map[string]bool{}, budget: maxGuarded}
	looked := 0
	for level := []string{"."}; len(level) > 0 && looked < maxFolders; {
		level = level[:min(len(level), maxFolders-looked)]
		looked += len(level)
		var next []string
		for i, found := range s.readDirs(level) {
			dir := level[i]
			if found == nil {
				continue
			}
			s.listed[dir] = true
			for _, d := range found {
				rel := path.Join(dir, d.Name())
				if d.IsDir() {
					s.folders[rel] = true
				}
				entries, matched := firsts[strings.ToLower(d.Name())]
				for _, e := range entries {
					switch {
					case e.Unguarded:
					case e.Git:
						s.gitDir(rel)
					default:
						_, beneath, _ := strings.Cut(e.Path, "/") // as the entry spells it
						s.tree(path.Join(rel, beneath), "")
					}
				}
				if d.IsDir() && !matched && !depfolders.Is(d.Name()) {
					next = append(next, rel)
				}
			}
		}
		level = next
	}
	return s
}

// readDirs lists folders (slash paths relative to the workspace) a few at a
// time: a large tree's cost is the system's calls, which wait on each
// other less when several are under way. An unreadable folder's list is
// nil.
func (s *scan) readDirs(dirs []string) [][]fs.DirEntry {
	out := make([][]fs.DirEntry, len(dirs))
	workers := min(len(dirs), 4)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(dirs); i += workers {
				found, err := os.ReadDir(s.abs(dirs[i]))
				if err == nil && found == nil {
					found = []fs.DirEntry{}
				}
				out[i] = found
			}
		})
	}
	wg.Wait()
	return out
}

// firsts are the entries by their first component, lower case.
var firsts = func() map[string][]entry {
	m := map[string][]entry{}
	for _, e := range list {
		m[e.comp[0]] = append(m[e.comp[0]], e)
	}
	return m
}()

func (s *scan) abs(rel string) string { return filepath.Join(s.workspace, filepath.FromSlash(rel)) }

// gitDir records a repository's git folder (or the file in its place
// that names one): its config, hooks and attributes, its worktrees' own
// config, and the git folders of its submodules beneath modules/.
func (s *scan) gitDir(rel string) {
	if info := s.node(rel); info == nil || !info.IsDir() {
		return
	}
	s.gitDirs[rel] = true
	s.node(rel + "/config")
	s.tree(rel+"/hooks", ".sample") // git runs none: what git init writes, not kept
	s.node(rel + "/info")
	s.node(rel + "/info/attributes")
	if s.node(rel+"/worktrees") != nil {
		s.listed[rel+"/worktrees"] = true
		for _, w := range s.dirs(rel + "/worktrees") {
			s.node(w)
			s.node(w + "/commondir")
			s.node(w + "/config.worktree")
		}
	}
	s.modules(rel+"/modules", 0)
}

// modules records the git folders beneath a repository's modules/ (a
// submodule's name may hold slashes, so a folder without HEAD is looked
// into).
func (s *scan) modules(rel string, depth int) {
	if depth > maxModuleDepth || s.node(rel) == nil {
		return
	}
	s.listed[rel] = true
	for _, m := range s.dirs(rel) {
		if _, err := os.Lstat(s.abs(m + "/HEAD")); err == nil {
			s.gitDir(m)
		} else {
			s.modules(m, depth+1)
		}
	}
}

// dirs lists the folders in a folder (not links to one).
func (s *scan) dirs(rel string) []string {
	entries, _ := os.ReadDir(s.abs(rel))
	var out []string
	for _, d := range entries {
		if d.IsDir() {
			out = append(out, rel+"/"+d.Name())
		}
	}
	return out
}

// node records one path (not what a folder holds), and returns what it
// is, or nil when it is absent or past the limit.
func (s *scan) node(rel string) fs.FileInfo {
	info, err := os.Lstat(s.abs(rel))
	if err != nil {
		return nil
	}
	if s.budget == 0 {
		s.partial = true
		return nil
	}
	s.keep(rel, info)
	return info
}

// tree records a path and all it holds, but for files whose names end
// in skip (when not "").
func (s *scan) tree(rel, skip string) {
	_ = filepath.WalkDir(s.abs(rel), func(p string, d fs.DirEntry, err error) error {
		switch {
		case s.budget == 0:
			s.partial = true
			return fs.SkipAll // the rest is not kept
		case err != nil:
			return nil // absent (or under a folder that is a file): nothing to keep
		case skip != "" && !d.IsDir() && strings.HasSuffix(d.Name(), skip):
			return nil
		}
		r, rerr := filepath.Rel(s.workspace, p)
		info, ierr := d.Info()
		if rerr == nil && ierr == nil {
			s.keep(filepath.ToSlash(r), info)
			if d.IsDir() {
				s.listed[filepath.ToSlash(r)] = true // all it holds is recorded
			}
		}
		return nil
	})
}

// keep records what one file, link or folder holds.
func (s *scan) keep(rel string, info fs.FileInfo) {
	f := guardedFile{mode: info.Mode(), size: info.Size(), mod: info.ModTime().UnixNano()}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if t, err := os.Readlink(s.abs(rel)); err == nil {
			f.data, f.kept = []byte(t), true
		}
	case info.Mode().IsRegular() && info.Size() <= maxGuardedFile && s.kept+info.Size() <= maxKept:
		if b, err := os.ReadFile(s.abs(rel)); err == nil {
			f.data, f.kept = b, true
			s.kept += int64(len(b))
		}
	}
	s.budget--
	s.files[rel] = f
}

// Changed says which protected files were created, changed or removed
// since Guard, in path order. Of a folder the call made, its files are
// named (the folder alone when it is empty). Not changes: what a
// repository made anew holds as git makes it (git init, git clone, git
// submodule add, git worktree add: a config of safe keys, sample hooks, a
// link to a git folder in the workspace); a change to a git config that
// touches only safe keys (gitconfig.json: a remote, a branch's upstream,
// the user's name); what a call made in a subfolder it made itself (a
// clone's or a new project's AGENTS.md: nothing was there to change).
func (g *Guarded) Changed() []Change {
	now := look(g.workspace)
	var out []Change
	add := func(p, kind string) {
		out = append(out, Change{Path: p, Kind: kind, Why: Check(g.workspace, p)})
	}
	for p, f := range now.files {
		was, ok := g.files[p]
		switch {
		case !ok && !g.reached(p, now.gitDirs):
			// Guard did not look there (past its limits, or where a
			// folder the call made moved its look): not known to be new.
		case !ok && g.fresh(p, f, now):
		case !ok && f.mode.IsDir():
			if !hasBeneath(now.files, p) {
				add(p, "created")
			}
		case !ok:
			add(p, "created")
		case !differs(was, f):
		case isGitConfig(p, now.gitDirs) && was.kept && f.kept && safeConfigChange(string(was.data), string(f.data)) == "":
		default:
			add(p, "changed")
		}
	}
	for p, was := range g.files {
		if _, ok := now.files[p]; !ok && now.reached(p, g.gitDirs) && !g.removable(p, was) {
			add(p, "removed")
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// reached reports whether this look would have recorded p had it been
// there: its folder was read (or was not there, in a folder that was),
// or it is one of the paths a git folder it recorded is looked at for;
// not when the look ran out of its budget.
func (s *scan) reached(p string, gitDirs map[string]bool) bool {
	if s.partial {
		return false
	}
	if dir, _, ok := gitDirOf(p, gitDirs); ok {
		if _, recorded := s.files[dir]; recorded || dir != p && s.reached(dir, nil) {
			return true
		}
	}
	parent := path.Dir(p)
	if s.listed[parent] {
		return true
	}
	if _, err := os.Lstat(s.abs(parent)); err != nil {
		return s.reached(parent, nil) // gone: known if where it was is
	}
	return s.isNew(parent)
}

// removable reports whether removing p is what git worktree remove does
// (a worktree's record, the .git file naming it): nothing that ran
// commands is gone.
func (g *Guarded) removable(p string, was guardedFile) bool {
	if _, rest, ok := gitDirOf(p, g.gitDirs); ok && (rest == "worktrees" || strings.HasPrefix(rest, "worktrees/")) {
		return true
	}
	return was.mode.IsRegular() && strings.EqualFold(path.Base(p), ".git")
}

// gitDirOf returns the git folder p lies in (the deepest) and p's path
// within it ("" for the folder itself).
func gitDirOf(p string, gitDirs map[string]bool) (dir, rest string, ok bool) {
	for d := range gitDirs {
		if (p == d || strings.HasPrefix(p, d+"/")) && len(d) > len(dir) {
			dir, ok = d, true
		}
	}
	if ok {
		rest = strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
	}
	return dir, rest, ok
}

// isGitConfig reports whether p is a repository's config (or a
// worktree's own).
func isGitConfig(p string, gitDirs map[string]bool) bool {
	_, rest, ok := gitDirOf(p, gitDirs)
	if !ok {
		return false
	}
	m, _ := path.Match("worktrees/*/config.worktree", rest)
	return rest == "config" || m
}

// fresh reports whether p (a file, link or folder f), which the call
// created, is what git makes in a repository's folder it makes anew, or
// lies in a subfolder the call made.
func (g *Guarded) fresh(p string, f guardedFile, now scan) bool {
	_, rest, ok := gitDirOf(p, now.gitDirs)
	if !ok {
		if p == ".git" || strings.HasSuffix(strings.ToLower(p), "/.git") { // a file naming a git folder
			return f.mode.IsRegular() && f.kept && g.gitLink(p, string(f.data))
		}
		return g.isNew(entryBase(p))
	}
	match := func(pattern string) bool { ok, _ := path.Match(pattern, rest); return ok }
	switch {
	case f.mode.IsDir():
		return true // an empty folder runs nothing; what it holds is judged
	case rest == "config" || match("worktrees/*/config.worktree"):
		return f.mode.IsRegular() && f.kept && safeConfigChange("", string(f.data)) == ""
	case match("worktrees/*/commondir"):
		_, existed := g.files[path.Dir(p)]
		return !existed && f.kept && strings.TrimSpace(string(f.data)) == "../.."
	}
	return false
}

// gitLink reports whether a .git file (a submodule's or a worktree's)
// names a git folder inside the workspace, whose hooks are guarded.
func (g *Guarded) gitLink(p, text string) bool {
	target, ok := gitfile.Target(g.abs(p), text)
	if !ok {
		return false
	}
	ws := g.workspace
	if !within(ws, target) {
		// The workspace reached through a link (the target is written as
		// it resolves).
		real, err := filepath.EvalSymlinks(ws)
		if err != nil || !within(real, target) {
			return false
		}
		ws = real
	}
	rel, err := filepath.Rel(ws, target)
	return err == nil && slices.ContainsFunc(strings.Split(filepath.ToSlash(rel), "/"), func(c string) bool { return strings.EqualFold(c, ".git") })
}

// entryBase is the folder holding the protected entry p lies in
// ("pkg/api" for pkg/api/AGENTS.md, "." for .vscode/tasks.json).
func entryBase(p string) string {
	comps := strings.Split(strings.ToLower(p), "/")
	for i := range comps {
		for _, e := range list {
			if i+len(e.comp) <= len(comps) && equal(comps[i:i+len(e.comp)], e.comp) {
				return path.Join(append([]string{"."}, strings.Split(p, "/")[:i]...)...)
			}
		}
	}
	return "."
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
			for dir := path.Dir(c.Path); g.isNew(dir); dir = path.Dir(dir) {
				made = append(made, dir)
			}
		case !had || !was.kept && !was.mode.IsDir():
			err = errors.New("what it held was not kept (larger than 1 MiB, past the 32 MiB kept in all, or past the 4,000 files recorded), so it cannot be put back")
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

// isNew reports whether a folder is known not to have existed at Guard:
// the folder holding it was looked through (or did not exist either), and
// it was not there.
func (s *scan) isNew(dir string) bool {
	if _, ok := s.files[dir]; ok || dir == "." || s.folders[dir] {
		return false
	}
	parent := path.Dir(dir)
	return s.listed[parent] || s.isNew(parent)
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
