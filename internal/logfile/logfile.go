// Package logfile keeps a process's log in a file of bounded size, for a
// program started from a desktop menu, whose standard error goes nowhere.
//
// Its contract: a [File] is an io.Writer safe for concurrent use; each
// Write is one record (slog's handlers write a record per call), passed
// through the file's filter (to take secrets out) and appended. The file
// is created readable by its owner only. Once it passes its size, it is
// renamed NAME.1 (the one before is dropped) and a new one begins, so the
// log takes at most about twice its size. A record that cannot be written
// is dropped: logging never fails the program.
package logfile

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// File is a size-bounded log file.
type File struct {
	mu     sync.Mutex
	path   string
	max    int64
	filter func(string) string
	f      *os.File
	size   int64
}

// Open opens (creating it and its folder if needed) the log at path,
// rotated past max bytes; filter, if not nil, rewrites each record.
func Open(path string, max int64, filter func(string) string) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log folder: %w", err)
	}
	l := &File{path: path, max: max, filter: filter}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log %s: %w", l.path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log %s: %w", l.path, err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Path is where the log is.
func (l *File) Path() string { return l.path }

// Write appends one record; it reports len(p) written whatever happens.
func (l *File) Write(p []byte) (int, error) {
	rec := p
	if l.filter != nil {
		rec = []byte(l.filter(string(p)))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return len(p), nil
	}
	if l.size > 0 && l.size+int64(len(rec)) > l.max {
		l.rotate()
		if l.f == nil {
			return len(p), nil
		}
	}
	n, _ := l.f.Write(rec)
	l.size += int64(n)
	return len(p), nil
}

// rotate moves the log to NAME.1 and starts a new one.
func (l *File) rotate() {
	l.f.Close()
	l.f = nil
	_ = os.Rename(l.path, l.path+".1")
	_ = l.open()
}

// Close closes the file.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
