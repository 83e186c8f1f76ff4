package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/datadir"
	"github.com/shrimp-harness/shrimp/internal/sqlite"
)

// indexDir is the procedure index's folder in the data folder (package
// procedures opens it there); its lock file is indexDir+".lock", held by
// the process that owns the index.
const indexDir = "procedures.bleve"

// Salvage is what SalvageDatabase did.
type Salvage struct {
	sqlite.Salvaged
	// Database is the data directory's database, now the salvaged copy.
	Database string
	// Damaged is where the damaged database is kept.
	Damaged string
	// Restored counts the sessions whose record was lost and was made
	// again from their messages and events (store.RestoreLostSessions).
	Restored int
}

// SalvageDatabase replaces a damaged database with what can be read of
// it (sqlite.Salvage), keeping the damaged file beside it as
// shrimp.db.damaged-TIME (its WAL too), then opens the new one as Shrimp
// does (migrating it), gives the conversations whose session record was
// lost a record again, and drops the procedure index, which Shrimp
// rebuilds from it when it next opens. It refuses, changing nothing,
// while another process has the database open: that process would go on
// writing to the damaged file. progress hears each table's rows copied
// so far.
func SalvageDatabase(ctx context.Context, cfg Config, progress func(table string, rows int64)) (Salvage, error) {
	cfg = cfg.FromEnv()
	dir, err := datadir.Resolve(cfg.DataDir)
	if err != nil {
		return Salvage{}, err
	}
	db := filepath.Join(dir, store.FileName)
	out := Salvage{Database: db}
	if _, err := os.Stat(db); err != nil {
		return out, fmt.Errorf("nothing to salvage: %w", err)
	}
	// Each connection holds a lock on the WAL index while it is open (an
	// idle one is closed after a while), the process that owns the
	// procedure index holds its lock, and a running request its session's.
	held := []string{db + "-shm", filepath.Join(dir, indexDir+".lock")}
	running, _ := filepath.Glob(filepath.Join(dir, session.LocksDir, "*.lock"))
	for _, f := range append(held, running...) {
		if pid, comm := doctor.LockHolder(f); pid > 0 {
			return out, fmt.Errorf("another process has %s open: pid %d (%s); close it (the window, a `shrimp chat`), then run this again; nothing was changed", db, pid, comm)
		}
	}
	// The copy is made, and opened as Shrimp opens it, in a folder of its
	// own: only a copy that opens takes the damaged one's place.
	work := filepath.Join(dir, "salvage")
	if err := os.RemoveAll(work); err != nil {
		return out, fmt.Errorf("remove an earlier salvage's %s: %w", work, err)
	}
	if err := os.Mkdir(work, 0o700); err != nil {
		return out, fmt.Errorf("salvage: %w", err)
	}
	tmp := filepath.Join(work, store.FileName)
	if out.Salvaged, err = sqlite.Salvage(ctx, db, tmp, progress); err != nil {
		os.RemoveAll(work)
		return out, err
	}
	st, err := store.Open(work)
	if err != nil {
		return out, fmt.Errorf("the salvaged copy %s does not open (%w); the damaged database is as it was", tmp, err)
	}
	if out.Restored, err = st.RestoreLostSessions(ctx); err != nil {
		st.Close()
		return out, fmt.Errorf("the salvaged copy %s: %w; the damaged database is as it was", tmp, err)
	}
	if err := st.Close(); err != nil { // its WAL checkpointed into it
		return out, fmt.Errorf("the salvaged copy %s: %w; the damaged database is as it was", tmp, err)
	}
	if info, err := os.Stat(tmp + "-wal"); err == nil && info.Size() > 0 {
		return out, fmt.Errorf("the salvaged copy %s was not closed whole (its WAL is left); the damaged database is as it was", tmp)
	}
	out.Damaged = db + ".damaged-" + time.Now().Format("20060102-150405")
	// The damaged database gets its second name before the copy takes the
	// first (a rename over it), so a Shrimp killed on the way leaves one
	// or the other in place, never none. Its WAL goes with it (SQLite
	// finds a WAL by its database's name) and must be gone before the copy
	// takes the name: it would be applied to the copy.
	if err := secondName(db, out.Damaged); err != nil {
		return out, fmt.Errorf("keep the damaged database as %s: %w; the salvaged copy is %s", out.Damaged, err, tmp)
	}
	if err := secondName(db+"-wal", out.Damaged+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, fmt.Errorf("keep the damaged database's WAL as %s: %w; the salvaged copy is %s", out.Damaged+"-wal", err, tmp)
	}
	for _, f := range []string{db + "-wal", db + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, fmt.Errorf("remove the damaged database's %s (it is kept as %s): %w; the salvaged copy is %s", f, out.Damaged, err, tmp)
		}
	}
	if err := os.Rename(tmp, db); err != nil {
		return out, fmt.Errorf("put the salvaged copy %s in place: %w (move it to %s yourself)", tmp, err, db)
	}
	os.RemoveAll(work)
	if err := os.RemoveAll(filepath.Join(dir, indexDir)); err != nil {
		return out, fmt.Errorf("drop the procedure index, to be rebuilt from the salvaged database: %w; run `shrimp doctor --rebuild-index`", err)
	}
	return out, nil
}

// secondName gives the file at path the name also, where the file system
// allows (a hard link), else moves it there.
func secondName(path, also string) error {
	if err := os.Link(path, also); err == nil || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(path, also)
}
