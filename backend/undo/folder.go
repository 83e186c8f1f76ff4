package undo

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// maxRead is how many bytes of files not yet kept one watch reads before
// a command (the first in a folder reads its files; later ones, of any
// request, only what changed since); past it, the rest are not read, and
// what the command does to them is not recorded.
const maxRead = 256 << 20

// stamped is what a file was when a watch last read it: its information
// (to tell whether it changed since, without reading it) and what it held.
// The keeper remembers it for as long as the process runs, so only the
// first command in a folder reads all its files.
type stamped struct {
	info fs.FileInfo
	e    earlier
}

// same reports whether a and b are one file, unchanged between them: the
// same inode, size, modification time and permissions, and where the
// system says it, the same inode change time (a command can set a file's
// modification time back, not that).
func same(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode() && changed(a) == changed(b)
}

// snapshot is the workspace's files and folders as a walk found them.
type snapshot struct {
	files    map[string]fs.FileInfo // regular files, by path in the workspace
	dirs     map[string]bool
	complete bool // every file was reached: none past the caps
}

// maxEntries bounds how many entries (files, folders, links) a walk of
// the workspace visits.
const maxEntries = 20 * maxWatched

// walk lists the workspace's regular files (links, devices and what is
// in .git folders or the Keeper's own left out), maxWatched at most.
func (j *Journal) walk() (snapshot, error) {
	s := snapshot{files: map[string]fs.FileInfo{}, dirs: map[string]bool{}, complete: true}
	root, err := os.OpenRoot(j.workspace)
	if err != nil {
		return s, err
	}
	defer root.Close()
	entries := 0
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if entries++; entries > maxEntries { // a tree of folders (a home folder)
			s.complete = false
			return fs.SkipAll
		}
		switch {
		case err != nil:
			s.complete = false // unreadable: what is in it is unknown
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case d.IsDir() && (d.Name() == ".git" || j.k.skipped(j.workspace, p)):
			return fs.SkipDir
		case d.IsDir():
			s.dirs[p] = true
			return nil
		case !d.Type().IsRegular():
			return nil
		case len(s.files) == maxWatched:
			s.complete = false
			return fs.SkipAll
		}
		info, err := d.Info()
		if err == nil {
			s.files[p] = info
		}
		return nil
	})
	return s, err
}

// watchFolder is Watch outside a git work tree, in a workspace of at
// most 2,000 files (not counting .git folders) and 20,000 entries: before
// the command, every regular file is kept unless a watch read it already
// and it has not changed since (up to maxRead bytes read; past
// that, files are not read and what the command does to them is not
// recorded); after it, a walk finds what the command changed, created or
// removed, and each change is recorded, a created file with the folders
// made for it. A file larger than Max is not read: a change to it is
// recorded as one undo cannot put back. A larger workspace is not watched.
func (j *Journal) watchFolder(ctx context.Context, act *activity) (after func()) {
	before, err := j.walk()
	if err != nil || !before.complete {
		// A folder too large to keep (a home folder) is not watched at
		// all: keeping its first files would cost every command time and
		// cover little; the undo says the command's changes are unknown.
		j.k.log().Debug("the workspace is not watched around a command", "files", len(before.files), "err", err)
		return func() {}
	}
	root, err := os.OpenRoot(j.workspace)
	if err != nil {
		return func() {}
	}
	k := j.k
	k.mu.Lock()
	if k.files == nil {
		k.files = map[string]stamped{}
	}
	budget := int64(maxRead)
	known := map[string]earlier{}
	for p, info := range before.files {
		// Unchanged since the run's last watch read it, and what it held
		// still kept (another Shrimp starting prunes what no change
		// refers to).
		abs := filepath.Join(j.workspace, filepath.FromSlash(p))
		if old, ok := k.files[abs]; ok && same(old.info, info) && (!old.e.kept || k.has(old.e.hash)) {
			known[p] = old.e
			continue
		}
		e := earlier{hash: "?"}
		switch {
		case info.Size() > j.k.max():
			e = earlier{hash: tooLarge, mode: info.Mode().Perm()}
		case info.Size() <= budget:
			budget -= info.Size()
			if f, err := openRegular(root, p); err == nil {
				if h, kept, err := j.k.put(f, info.Size()); err == nil {
					e = earlier{hash: h, kept: kept, mode: info.Mode().Perm()}
				}
				f.Close()
			}
		}
		known[p] = e
		if e.hash != "?" { // not read this time: tried again at the next
			k.files[abs] = stamped{info, e}
		}
	}
	k.mu.Unlock()
	root.Close()
	return func() {
		ctx := context.WithoutCancel(ctx)
		now, err := j.walk()
		if err != nil {
			return
		}
		for p, e := range known {
			if info, ok := now.files[p]; ok && same(before.files[p], info) {
				continue
			}
			j.forget(p)
			if e.hash != "?" {
				j.record(ctx, act, p, e, nil)
			}
		}
		for p := range now.files {
			if _, ok := known[p]; !ok {
				j.forget(p)
				j.record(ctx, act, p, earlier{}, made(p, before.dirs))
			}
		}
	}
}

// tooLarge stands for the hash of a file larger than Max, not read.
const tooLarge = "too large"

// forget drops what the journal knows of p: it changed.
func (j *Journal) forget(p string) {
	j.k.mu.Lock()
	delete(j.k.files, filepath.Join(j.workspace, filepath.FromSlash(p)))
	j.k.mu.Unlock()
}

// made returns the folders of p that were not in dirs, outermost first.
func made(p string, dirs map[string]bool) []string {
	var out []string
	for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
		out = append([]string{d}, out...)
	}
	return out
}

// Covered reports whether Watch knows every change a shell command can
// make to the files of dir: in a git work tree, all but ignored files; in
// another folder, when it holds at most 2,000 files (outside .git folders
// and the keeper's own) and every folder can be read.
func (k *Keeper) Covered(ctx context.Context, dir string) bool {
	if InWorkTree(ctx, dir) {
		return true
	}
	s, err := (&Journal{k: k, workspace: dir}).walk()
	return err == nil && s.complete
}
