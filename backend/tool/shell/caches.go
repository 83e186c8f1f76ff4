package shell

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Commands keep their tools' caches (go's modules, npm's, pip's) in a
// folder of Shrimp's own for each workspace (CacheDir), which would grow
// without end as projects come and go: each use is recorded beside the
// folder, where a confined command cannot write, and PruneCaches removes
// the folders nobody used for long, or whose workspace is gone.

//go:embed caches.json
var cachesJSON []byte

// caches are caches.json's: a variable → the subfolder of the workspace's
// cache folder it is set to.
var caches = func() map[string]string {
	var f struct {
		Caches map[string]string `json:"caches"`
	}
	if err := json.Unmarshal(cachesJSON, &f); err != nil || len(f.Caches) == 0 {
		panic(fmt.Sprintf("shell: caches.json: %v", err)) // embedded data; a test reads it
	}
	return f.Caches
}()

// CacheDir is where commands in workspace keep their tools' caches (go's
// modules and builds, npm's, pip's): a folder of Shrimp's own in the
// user's cache folder, one a workspace, so a project is not filled with
// them and one workspace's commands cannot change what another's build
// with. "" when the system names no cache folder.
func CacheDir(workspace string) string {
	root := cachesRoot()
	if root == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(root, filepath.Base(workspace)+"-"+hex.EncodeToString(sum[:6]))
}

// Caches are the variables (NAME=value) that put the caches of commands
// in workspace in its CacheDir (caches.json); unconfined, one Shrimp's
// environment sets (lookup) is passed on instead.
func Caches(workspace string, confined bool, lookup func(string) (string, bool)) []string {
	dir := CacheDir(workspace)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(caches)) {
		if v, ok := lookup(name); ok && v != "" && !confined {
			out = append(out, name+"="+v)
		} else if dir != "" {
			out = append(out, name+"="+filepath.Join(dir, caches[name]))
		}
	}
	return out
}

// usedSuffix names the file beside a workspace's cache folder that
// records its last use (its time) and its workspace (its text).
const usedSuffix = ".used"

// usedCache is called after a command: a cache folder it left empty is
// removed, with its record (markUsed wrote it as the command began, so
// that no prune removes the folder while the command runs).
func usedCache(dir string) {
	if os.Remove(dir) == nil {
		_ = os.Remove(dir + usedSuffix)
	}
}

// markUsed records that workspace's cache folder dir is used now.
func markUsed(workspace, dir string) {
	// Written beside and renamed into place, so a link planted at its
	// name (by an unconfined command) is replaced, not written through.
	tmp, err := os.CreateTemp(filepath.Dir(dir), ".used-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(workspace)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), dir+usedSuffix) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// cachesRoot is the folder holding every workspace's cache folder, ""
// when the system names no cache folder.
func cachesRoot() string {
	base, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(base) {
		return ""
	}
	return filepath.Join(base, "shrimp", "workspaces")
}

// CacheUsage is what the workspaces' cache folders hold.
type CacheUsage struct {
	Root    string // the folder holding them
	Folders int    // one a workspace
	Bytes   int64  // what their files hold
}

// Usage says how many workspaces' cache folders there are and what their
// files take.
func Usage() (CacheUsage, error) {
	u := CacheUsage{Root: cachesRoot()}
	if u.Root == "" {
		return u, errors.New("the system names no cache folder (neither XDG_CACHE_HOME nor HOME is set)")
	}
	entries, err := os.ReadDir(u.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("read the commands' cache folders: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		u.Folders++
		_ = filepath.WalkDir(filepath.Join(u.Root, e.Name()), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					u.Bytes += info.Size()
				}
			}
			return nil
		})
	}
	return u, nil
}

// Pruned is what PruneCaches removed.
type Pruned struct {
	Folders []string // the workspaces' cache folders removed
	Bytes   int64    // what their files held
}

// PruneCaches removes the workspaces' cache folders not used for idle,
// and those whose workspace is gone and not used for gone (a project
// deleted, a temporary folder). A folder whose use was never recorded
// (kept by an older Shrimp) is given one now, so it is removed only
// after idle more. Errors are those of folders it could not remove;
// the rest are removed anyway. Once ctx ends it stops (a folder cut
// short keeps its record, and is removed the next time).
func PruneCaches(ctx context.Context, now time.Time, idle, gone time.Duration) (Pruned, error) {
	var out Pruned
	root := cachesRoot()
	if root == "" {
		return out, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return out, nil
		}
		return out, fmt.Errorf("read the commands' cache folders: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if ctx.Err() != nil {
			break
		}
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() {
			// A record whose folder is gone.
			if name, ok := strings.CutSuffix(e.Name(), usedSuffix); ok {
				if _, err := os.Lstat(filepath.Join(root, name)); errors.Is(err, fs.ErrNotExist) {
					_ = os.Remove(dir)
				}
			}
			continue
		}
		info, err := os.Lstat(dir + usedSuffix)
		if err != nil || !info.Mode().IsRegular() {
			markUsed("", dir) // never recorded: its time starts now
			continue
		}
		since := now.Sub(info.ModTime())
		workspace, _ := os.ReadFile(dir + usedSuffix)
		_, missing := os.Stat(string(workspace))
		if since < idle && (len(workspace) == 0 || !errors.Is(missing, fs.ErrNotExist) || since < gone) {
			continue
		}
		n, err := removeCache(ctx, dir)
		out.Bytes += n
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_ = os.Remove(dir + usedSuffix)
		out.Folders = append(out.Folders, dir)
	}
	return out, errors.Join(errs...)
}

// removeCache removes a cache folder, whose tools may have left folders
// that cannot be written (go's module cache), and says how many bytes its
// files held. Links are removed, never followed.
func removeCache(ctx context.Context, dir string) (int64, error) {
	var size int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil:
			return fs.SkipAll
		case err != nil:
			return nil
		case d.IsDir():
			_ = os.Chmod(p, 0o700)
		case d.Type().IsRegular():
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	if err := ctx.Err(); err != nil {
		return size, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return size, fmt.Errorf("remove the cache folder %s: %w", dir, err)
	}
	return size, nil
}
