package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if !strings.Contains(err.Error(), "not a SQLite database, or it is damaged; move it aside") {
		t.Fatalf("the error does not say what to do: %v", err)
	}
}
