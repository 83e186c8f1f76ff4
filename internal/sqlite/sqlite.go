// Package sqlite opens SQLite databases for GORM (pure Go, through
// github.com/glebarez/sqlite) with the settings a desktop app that must not
// lose data needs, all in the connection string so every pooled connection
// gets them: WAL journal (cut back to WALLimit after a burst),
// synchronous(FULL), a busy timeout, foreign keys, and immediate
// transactions (writers take the lock at BEGIN, so two
// writers queue instead of failing on upgrade).
package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/glebarez/sqlite"
	"golang.org/x/sys/unix"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// BusyTimeout is how long a statement waits for another connection's or
// process's write lock before failing with "database is locked".
const BusyTimeout = 5 * time.Second

// WALLimit is the size the WAL file is cut back to once a checkpoint has
// emptied it. Without it the WAL keeps the size of the largest write
// while the database is open (a window stays open for days): 60 MB after
// one request that kept 60 MB of tool output. Normal use stays below it
// (SQLite checkpoints at about 4 MB of WAL), so it costs nothing there.
const WALLimit = 8 << 20

// DSN returns the connection string for the database file at path.
func DSN(path string) string {
	q := url.Values{}
	// The busy timeout first: switching a new database to WAL needs the
	// write lock, which another process opening it may hold.
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()), "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)", fmt.Sprintf("journal_size_limit(%d)", WALLimit)} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path.
func Open(path string) (*gorm.DB, error) {
	if err := preflight(path); err != nil {
		return nil, err
	}
	// SQLite answers "database is locked" at once, without its busy
	// timeout, to a connection that opens a new database while another
	// process is switching it to WAL or recovering its WAL: the window and
	// a terminal started together. Such an open is tried again for as long
	// as the busy timeout.
	deadline := time.Now().Add(BusyTimeout)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		db, err := open(path)
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return db, err
		}
		time.Sleep(wait)
	}
}

func open(path string) (*gorm.DB, error) {
	db, err := gorm.Open(sqlite.Open(DSN(path)), &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		if db != nil { // its pool may hold the connection that failed: not kept across tries
			if sqlDB, derr := db.DB(); derr == nil {
				sqlDB.Close()
			}
		}
		return nil, openError(path, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, openError(path, err)
	}
	// One writer at a time is SQLite's rule anyway; a few readers may run
	// beside it under WAL.
	sqlDB.SetMaxOpenConns(4)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	var mode string
	if err := db.Raw("PRAGMA journal_mode").Scan(&mode).Error; err != nil {
		sqlDB.Close()
		return nil, openError(path, err)
	}
	return db, nil
}

// IsBusy reports whether err is SQLite's "database is locked".
func IsBusy(err error) bool {
	return strings.Contains(err.Error(), "database is locked") || strings.Contains(err.Error(), "SQLITE_BUSY")
}

// IsCorrupt reports whether err is SQLite's "database disk image is
// malformed" (SQLITE_CORRUPT) or "file is not a database"
// (SQLITE_NOTADB): the file is damaged, or was never a database.
func IsCorrupt(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT")
}

// Damaged is what to do about a damaged database, for error messages.
const Damaged = "close Shrimp (the window and every `shrimp chat`) and run `shrimp doctor --salvage`, which puts what can be read of it in a new database and keeps the damaged file; or restore it from a backup"

// openError says what to do when the database cannot be opened: a file
// that is not a SQLite database, or is damaged, is named as such.
func openError(path string, err error) error {
	if IsCorrupt(err) {
		return fmt.Errorf("open database %s: %w: it is damaged, or not a SQLite database; %s; or move it aside (keep it: the sessions are in it) and Shrimp starts a new one", path, err, Damaged)
	}
	return fmt.Errorf("open database %s: %w", path, err)
}

// preflight says in plain words why a database cannot be opened where
// SQLite would only say "unable to open database file: out of memory (14)":
// the path is a directory or not a file, or the file or its directory
// cannot be written.
func preflight(path string) error {
	const fix = "or point Shrimp at another data directory with --data-dir or SHRIMP_DATA_DIR"
	dir := filepath.Dir(path)
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("the database %s is a directory, not a file: move it away, %s", path, fix)
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("the database %s is not a regular file (%v): move it away, %s", path, st.Mode().Type(), fix)
	case err == nil:
		if unix.Access(path, unix.R_OK|unix.W_OK) != nil {
			return fmt.Errorf("cannot write the database %s (permission denied): give your user write access to it, %s", path, fix)
		}
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot reach the database %s (permission denied): give your user access to %s, %s", path, dir, fix)
	default:
		return fmt.Errorf("cannot open the database %s: %w; %s", path, err, fix)
	}
	// SQLite writes its journal and WAL beside the database.
	if unix.Access(dir, unix.W_OK|unix.X_OK) != nil {
		return fmt.Errorf("cannot write in the data directory %s (permission denied): give your user write access to it, %s", dir, fix)
	}
	return private(path, st, err)
}

// private keeps the database readable by its owner only (what sessions
// saw, tool outputs included, is in it): a new one is created so, and one
// others can read is made so (SQLite creates its WAL and journal with the
// database's permissions). SQLite itself would create it readable by all,
// which matters when the data directory is not private (a chosen
// SHRIMP_DATA_DIR on a shared machine).
func private(path string, st os.FileInfo, statErr error) error {
	if errors.Is(statErr, fs.ErrNotExist) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			return f.Close()
		}
		if !errors.Is(err, fs.ErrExist) { // another process made it meanwhile: fine
			return fmt.Errorf("create the database %s: %w", path, err)
		}
		return nil
	}
	if statErr == nil && st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, st.Mode().Perm()&0o700); err != nil && !errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("make the database %s private: %w", path, err)
		}
	}
	return nil
}
