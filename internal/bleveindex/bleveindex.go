// Package bleveindex opens a Bleve index on disk that one process owns
// and that can always be built again from elsewhere (a database holds
// its documents):
//
//   - a lock file beside it (an flock, let go of however the process
//     ends) keeps a second process out: it gets [ErrLocked] at once;
//   - an index that is missing, unreadable or of another version is
//     removed and made again empty, and Open says so, for its owner to
//     fill;
//   - a batch returns once searchable, not once on disk (Bleve's
//     unsafe_batch): one lost to a crash is its owner's to index again;
//   - Close waits, a few seconds at most, for what was indexed to reach
//     the disk, since Bleve's own Close drops what it had not written.
package bleveindex

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
)

// ErrLocked means another process owns the index.
var ErrLocked = errors.New("the index is in use by another process")

// FlushWait bounds how long Close waits for what was indexed to reach
// the disk.
const FlushWait = 5 * time.Second

// versionKey is where an index keeps the version it was made for.
var versionKey = []byte("shrimp.mapping_version")

// Index is an open index on disk: a bleve.Index whose Close also writes
// out what was indexed and lets go of the lock.
type Index struct {
	inner
	path string
	lock *os.File
}

// inner names the embedded bleve.Index so that its Index method is not
// hidden by a field of that name.
type inner = bleve.Index

// runtime is the store's run-time configuration, made anew for each open:
// Bleve writes the store's path into the map it is given, and a map
// shared by every open sent each later one to the folder of the index
// made last (a second data folder read the first one's index, and a
// removed folder was made again).
func runtime() map[string]any { return map[string]any{"unsafe_batch": true} }

// Open opens the index at path, made with newMapping and marked version.
// made reports that it was made anew (missing, unreadable or of another
// version) and is empty.
func Open(path, version string, newMapping func() mapping.IndexMapping) (ix *Index, made bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("make the folder of %s: %w", path, err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, fmt.Errorf("%w (%s is locked)", ErrLocked, path)
		}
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	ix = &Index{path: path, lock: lock}
	if idx, err := bleve.OpenUsing(path, runtime()); err == nil {
		if v, err := idx.GetInternal(versionKey); err == nil && string(v) == version {
			ix.inner = idx
			return ix, false, nil
		}
		idx.Close()
	}
	if err := os.RemoveAll(path); err != nil {
		ix.unlock()
		return nil, false, fmt.Errorf("remove the old index %s: %w", path, err)
	}
	idx, err := bleve.NewUsing(path, newMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, runtime())
	if err == nil {
		if err = idx.SetInternal(versionKey, []byte(version)); err != nil {
			idx.Close()
		}
	}
	if err != nil {
		ix.unlock()
		return nil, false, fmt.Errorf("make the index %s: %w", path, err)
	}
	ix.inner = idx
	return ix, true, nil
}

// Close writes out what was indexed (waiting at most FlushWait), closes
// the index and lets go of its lock.
func (ix *Index) Close() error {
	ix.flush()
	err := ix.inner.Close()
	ix.unlock()
	return err
}

func (ix *Index) unlock() { ix.lock.Close() } // closing lets go of the flock

// flush sends one batch and waits until it, and so every batch before
// it, is on disk.
func (ix *Index) flush() {
	const failed = "index: not all written out before closing; its owner indexes the last changes again at the next open"
	persisted := make(chan error, 1)
	b := ix.NewBatch()
	v, _ := ix.GetInternal(versionKey)
	b.SetInternal(versionKey, v)
	b.SetPersistedCallback(func(err error) { persisted <- err })
	if err := ix.Batch(b); err != nil {
		slog.Warn(failed, "path", ix.path, "err", err)
		return
	}
	select {
	case err := <-persisted:
		if err != nil {
			slog.Warn(failed, "path", ix.path, "err", err)
		}
	case <-time.After(FlushWait):
		slog.Warn(failed, "path", ix.path, "waited", FlushWait)
	}
}
