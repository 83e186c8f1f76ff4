package undo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/backend/store"
)

// gitWait bounds each git command Watch runs: a status of a huge work
// tree must not hold a shell call up for long.
const gitWait = 10 * time.Second

// maxIgnored is how many ignored files (outside ignored folders) Watch
// keeps in a git work tree; a repository with more ignores its build
// output file by file, and none is kept.
const maxIgnored = 100

// maxWatched is how many changed or untracked files Watch keeps before a
// command; past it (a tree of untracked files nobody ignored), the rest
// are not read, and what the command does to them is not recorded.
const maxWatched = 2000

// Watch is called before a shell command runs in the journal's workspace
// and returns what to call once it has: the files the command changed in
// the workspace are recorded as changes of that call (what they held kept
// first), so undo covers `git checkout -- .`, `git clean -fd`, `sed -i`,
// `mv` or `rm` as it covers the file tools. In a git work tree git says
// which files to keep (tracked ones, untracked ones, and ignored ones but
// for those in ignored folders; files with a git filter, such as LFS, are
// left out); elsewhere the
// workspace's files are (see watchFolder). It writes nothing into the
// workspace.
//
// A change another run may have made (one of its file tools wrote the
// file during the command, or a command of its own ran in the workspace
// meanwhile) is recorded as shared, and undo leaves it.
func (j *Journal) Watch(ctx context.Context) (after func()) {
	act := j.k.begin(ctx, j)
	done := j.watch(ctx, act)
	return func() {
		done()
		j.k.end(ctx, act)
	}
}

// watch is Watch in a git work tree or in a folder.
func (j *Journal) watch(ctx context.Context, act *activity) (after func()) {
	// rev-parse runs nothing the configuration names; the filters are
	// read only in a work tree, where status would run them.
	prefix, err := (&gitRepo{dir: j.workspace}).run(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		return j.watchFolder(ctx, act)
	}
	g, err := newGit(ctx, j.workspace)
	if err != nil {
		return j.watchFolder(ctx, act)
	}
	return j.watchGit(ctx, act, g, strings.TrimSpace(prefix))
}

// watchGit is Watch in a git work tree (prefix: the workspace's path in
// it).
func (j *Journal) watchGit(ctx context.Context, act *activity, g *gitRepo, prefix string) (after func()) {
	none := func() {}
	head := g.head(ctx)
	skip := func(p string) bool { return j.k.skipped(j.workspace, p) }
	before, ok := g.status(ctx, prefix, skip)
	if !ok {
		return none
	}
	// Ignored files too (a .env, a local config): `git clean -fdx` or an
	// rm takes them as well. Not those in ignored folders (node_modules,
	// build output): git names the folder, and it is left out; nor more
	// than maxIgnored, which is build output ignored file by file (*.o),
	// rewritten by every build.
	if ignored := g.ignored(ctx, prefix, skip); len(ignored) <= maxIgnored {
		before = append(before, ignored...)
	}
	kept := map[string]earlier{} // by path in the workspace: what a changed, untracked or ignored file held
	infos := map[string]fs.FileInfo{}
	root, err := os.OpenRoot(j.workspace)
	if err != nil {
		return none
	}
	for i, p := range before {
		if i >= maxWatched {
			kept[p] = earlier{hash: "?"} // past the cap: not read, never recorded
			continue
		}
		f, err := openRegular(root, p)
		if errors.Is(err, fs.ErrNotExist) {
			kept[p] = earlier{} // deleted before the command: no file
			continue
		}
		if err != nil {
			kept[p] = earlier{hash: "?"} // a link, a submodule: not a file undo writes
			continue
		}
		e := earlier{hash: "?"} // unknown: never taken for "no file"
		if st, err := f.Stat(); err == nil {
			infos[p] = st
			e.mode = st.Mode().Perm()
			if st.Size() > j.k.max() {
				e.hash = tooLarge // not read: a change to it cannot be put back
			} else if h, k, err := j.k.put(f, st.Size()); err == nil {
				e.hash, e.kept = h, k
			}
		}
		f.Close()
		kept[p] = e
	}
	root.Close()
	return func() {
		ctx := context.WithoutCancel(ctx)
		// The command may have set filters of its own: read them again.
		g, err := newGit(ctx, j.workspace)
		if err != nil {
			j.k.log().Error("read the repository's filters after a command: what it changed cannot be undone", "err", err)
			return
		}
		after, ok := g.status(ctx, prefix, skip)
		if !ok {
			return
		}
		candidates := append(before, after...)
		if now := g.head(ctx); now != head && head != "" && now != "" {
			if out, err := g.run(ctx, "diff", "--name-only", "-z", head, now, "--", "."); err == nil {
				for _, p := range strings.Split(out, "\x00") {
					if p, ok := strings.CutPrefix(p, prefix); ok && p != "" && !skip(p) {
						candidates = append(candidates, p)
					}
				}
			}
		}
		seen := map[string]bool{}
		for _, p := range candidates {
			if seen[p] {
				continue
			}
			seen[p] = true
			e, ok := kept[p]
			if e.hash == "?" {
				continue // it could not be read before: unknown
			}
			if !ok { // clean before the command: what the commit held
				if e, ok = j.fromCommit(ctx, g, head, prefix, p); !ok {
					continue
				}
			} else if was, ok := infos[p]; ok {
				if now, err := os.Lstat(filepath.Join(j.workspace, filepath.FromSlash(p))); err == nil && same(was, now) {
					continue // untouched: not read again
				}
			}
			j.record(ctx, act, p, e, nil)
		}
	}
}

// record records that a command (watched as act) changed the file at path
// p, which held e before it, if it holds something else now (folders:
// those the command made for a file it created).
func (j *Journal) record(ctx context.Context, act *activity, p string, e earlier, folders []string) {
	at := act.at
	now, err := current(j.workspace, p)
	if err != nil || now == e.hash {
		return // no longer a file (a folder, a link): not undone
	}
	c := store.FileChange{SessionID: at.Session, RunSeq: at.Run, CallSeq: at.Call, Tool: at.Tool,
		Workspace: j.workspace, Path: p, Before: e.hash, Kept: e.kept, Mode: uint32(e.mode), After: now,
		Folders: strings.Join(folders, "\n"), Shared: j.k.sharedPath(ctx, act, p), CreatedAt: time.Now().UTC()}
	if _, err := j.k.Changes.Add(ctx, c); err != nil {
		j.k.log().Error("record a file a command changed: it cannot be undone", "path", p, "err", err)
	}
}

// earlier is what a file held before a command: its hash ("" for no
// file), whether its content is kept, its permissions.
type earlier struct {
	hash string
	kept bool
	mode fs.FileMode
}

// fromCommit keeps what the file at workspace path p (prefix+p in the
// repository) held in commit head, as it is checked out (line-end filters
// applied); false when that cannot be put back: a link, a submodule, or a
// file with a filter git would run (LFS).
func (j *Journal) fromCommit(ctx context.Context, g *gitRepo, head, prefix, p string) (earlier, bool) {
	if head == "" {
		return earlier{}, true // no commit yet: no file before
	}
	tree, err := g.run(ctx, "ls-tree", "-z", head, "--", p)
	if err != nil {
		return earlier{}, false
	}
	if tree == "" {
		return earlier{}, true // not in the commit: no file before
	}
	if attr, err := g.run(ctx, "check-attr", "filter", "--", p); err != nil || !strings.HasSuffix(strings.TrimSpace(attr), ": unspecified") {
		return earlier{}, false
	}
	e := earlier{mode: 0o644}
	switch {
	case strings.HasPrefix(tree, "100755"):
		e.mode = 0o755
	case !strings.HasPrefix(tree, "100644"):
		return earlier{}, false
	}
	blob, err := g.run(ctx, "cat-file", "--filters", head+":"+prefix+p)
	if err != nil {
		return earlier{}, false
	}
	e.hash, e.kept, err = j.k.put(strings.NewReader(blob), int64(len(blob)))
	return e, err == nil
}

// InWorkTree reports whether dir is in a git work tree, where Watch knows
// what shell commands change (all but ignored files).
func InWorkTree(ctx context.Context, dir string) bool {
	out, err := (&gitRepo{dir: dir}).run(ctx, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(out) == "true"
}

// ignored lists the ignored files in the workspace (paths in it), not
// those in ignored folders, but those skip says to leave out.
func (g *gitRepo) ignored(ctx context.Context, prefix string, skip func(string) bool) []string {
	out, err := g.run(ctx, "ls-files", "-z", "--full-name", "--others", "--ignored", "--exclude-standard", "--directory", "--", ".")
	if err != nil {
		return nil
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p, ok := strings.CutPrefix(p, prefix); ok && p != "" && !strings.HasSuffix(p, "/") && !skip(p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// head is the commit checked out ("" when there is none yet).
func (g *gitRepo) head(ctx context.Context) string {
	out, err := g.run(ctx, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// status lists the files in the workspace (paths in it) that differ from
// the commit or are untracked and not ignored, but those skip says to
// leave out; false when git cannot say.
// Submodules are not looked into: git would run in each with its own
// configuration (and filters), and undo does not write them anyway.
func (g *gitRepo) status(ctx context.Context, prefix string, skip func(string) bool) ([]string, bool) {
	out, err := g.run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all", "--", ".")
	if err != nil {
		return nil, false
	}
	var paths []string
	for _, entry := range strings.Split(out, "\x00") {
		if len(entry) < 4 {
			continue
		}
		if p, ok := strings.CutPrefix(entry[3:], prefix); ok && p != "" && !strings.HasSuffix(p, "/") && !skip(p) {
			paths = append(paths, p)
		}
	}
	return paths, true
}

// gitRepo runs git in a work tree without running anything the
// repository's configuration names. A command the model ran may have set
// some there for git to run (the sandbox lets it write the workspace, .git
// included), and these git commands run outside the sandbox, unapproved:
// no fsmonitor, and every filter driver the configuration defines (clean,
// smudge, process: git runs a clean filter on a status, to compare a file
// whose size did not change) emptied, so git compares files as they are
// and a required one fails the command instead.
type gitRepo struct {
	dir string
	off []string // -c options turning the filters off
}

// newGit reads the filter drivers the configuration of dir's repository
// defines (its own, the user's, included files) and returns a gitRepo that
// turns them off.
func newGit(ctx context.Context, dir string) (*gitRepo, error) {
	g := &gitRepo{dir: dir}
	out, err := g.run(ctx, "config", "-z", "--get-regexp", `^filter\.`)
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return g, nil // none
	}
	if err != nil {
		return nil, fmt.Errorf("read the repository's filters: %w", err)
	}
	seen := map[string]bool{}
	for _, entry := range strings.Split(out, "\x00") {
		key, _, _ := strings.Cut(entry, "\n")
		name, ok := strings.CutPrefix(key, "filter.")
		if i := strings.LastIndexByte(name, '.'); ok && i > 0 && !seen[name[:i]] {
			seen[name[:i]] = true
			for _, v := range []string{"clean", "smudge", "process"} {
				g.off = append(g.off, "-c", "filter."+name[:i]+"."+v+"=")
			}
		}
	}
	return g, nil
}

// run runs git with args and returns its standard output.
func (g *gitRepo) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitWait)
	defer cancel()
	opts := append([]string{"-C", g.dir, "--no-optional-locks", "-c", "core.quotepath=off", "-c", "core.fsmonitor=false"}, g.off...)
	cmd := exec.CommandContext(ctx, "git", append(opts, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return out.String(), nil
}
