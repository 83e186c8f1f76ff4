package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorm.io/gorm"
)

func TestPragmasOnEveryConnection(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
		{"journal_size_limit", "8388608"},
	}
	for _, tt := range tests {
		var got string
		if err := db.Raw("PRAGMA " + tt.pragma).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("PRAGMA %s = %s, want %s", tt.pragma, got, tt.want)
		}
	}
}

func TestOpenGarbageFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.db")
	if err := os.WriteFile(path, []byte("this is not a database, not at all, just text padding it out"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil {
		t.Fatal("opening a non-database succeeded")
	}
	if !strings.Contains(err.Error(), "it is damaged, or not a SQLite database") || !strings.Contains(err.Error(), "shrimp doctor --salvage") || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("the error does not say what to do: %v", err)
	}
}

// TestDatabaseIsPrivate: the database, new or found readable by others,
// and the WAL SQLite makes beside it, are readable by their owner only.
func TestDatabaseIsPrivate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil { // a shared data directory
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.db")
	if db, err := Open(old); err != nil {
		t.Fatal(err)
	} else {
		sqlDB, _ := db.DB()
		sqlDB.Close()
	}
	if err := os.Chmod(old, 0o644); err != nil { // as an older Shrimp left it
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "new.db"), old} {
		db, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Exec("CREATE TABLE IF NOT EXISTS t (x)").Error; err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{path, path + "-wal"} {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s is %v: others can read it", f, st.Mode().Perm())
			}
		}
		sqlDB, _ := db.DB()
		sqlDB.Close()
	}
}

// TestWALCutBackAfterABurst: one large write (a request that kept a lot
// of tool output) no longer leaves a WAL of its size for as long as the
// database stays open; the writes after it cut it back to WALLimit.
func TestWALCutBackAfterABurst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	defer sqlDB.Close()
	if err := db.Exec("CREATE TABLE kept (body TEXT)").Error; err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	if err := db.Transaction(func(tx *gorm.DB) error {
		for range 3 * WALLimit >> 20 {
			if err := tx.Exec("INSERT INTO kept VALUES (?)", big).Error; err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wal := func() int64 {
		info, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	if wal() <= WALLimit {
		t.Fatalf("the burst left a WAL of %d bytes: the test writes too little", wal())
	}
	for range 20 {
		if err := db.Exec("INSERT INTO kept VALUES ('small')").Error; err != nil {
			t.Fatal(err)
		}
	}
	if n := wal(); n > WALLimit {
		t.Errorf("the WAL stays at %d bytes after the burst, past the %d limit", n, WALLimit)
	}
}
