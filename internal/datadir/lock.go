package datadir

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// EditWait is how long a change to a shared file (mcp.json, hooks.json,
// the kept sign-ins) waits for another Shrimp process's change to it: a
// change is a read and a write of a small file, so waiting longer means
// that process is stuck.
const EditWait = 10 * time.Second

// Lock takes the lock that serialises read-modify-write changes of the
// file at path between Shrimp processes (the window and terminals on one
// data directory, which would otherwise each write back what they read
// and lose the other's change), waiting up to wait for another holder.
// It is an flock on path+".lock", so the kernel lets go of it when its
// process ends however it ends; on a file system without flock the
// change goes on unserialised. Call the returned function to let go.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s for a change: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing lets go of the flock
		}
		if unsupported(err) {
			// A file system without flock (some network and FUSE ones):
			// changed unserialised, as before there was a lock.
			f.Close()
			return func() {}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s for a change: %w", path, err)
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("another Shrimp process has been changing %s for %v: try again, or stop that process if it is stuck", path, wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// unsupported reports whether flock failed because the file system has
// no such locks.
func unsupported(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EINVAL)
}

// Edit changes the file at path: it loads it, lets edit change what was
// loaded and saves it, holding the file's Lock (waiting EditWait) from the
// read to the write. An error from edit leaves the file as it was.
func Edit[T any](path string, load func(string) (T, error), save func(T, string) error, edit func(*T) error) error {
	unlock, err := Lock(path, EditWait)
	if err != nil {
		return err
	}
	defer unlock()
	v, err := load(path)
	if err != nil {
		return err
	}
	if err := edit(&v); err != nil {
		return err
	}
	return save(v, path)
}
