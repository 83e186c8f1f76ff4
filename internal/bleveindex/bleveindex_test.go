package bleveindex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
)

func newMapping() mapping.IndexMapping { return bleve.NewIndexMapping() }

type doc struct {
	Text string `json:"text"`
}

// TestOpen: made when missing, unreadable or of another version, kept
// otherwise; a second owner is refused at once.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "x.bleve")
	tests := []struct {
		name     string
		before   func()
		version  string
		wantMade bool
	}{
		{"missing", func() {}, "1", true},
		{"kept", func() {}, "1", false},
		{"another version", func() {}, "2", true},
		{"unreadable", func() { _ = os.WriteFile(filepath.Join(path, "index_meta.json"), []byte("{not json"), 0o600) }, "2", true},
		{"a file in its place", func() { _ = os.RemoveAll(path); _ = os.WriteFile(path, []byte("garbage"), 0o600) }, "2", true},
	}
	for _, tt := range tests {
		tt.before()
		ix, made, err := Open(path, tt.version, newMapping)
		if err != nil || made != tt.wantMade {
			t.Fatalf("%s: made %v, %v; want made %v", tt.name, made, err, tt.wantMade)
		}
		if _, _, err := Open(path, tt.version, newMapping); !errors.Is(err, ErrLocked) {
			t.Fatalf("%s: a second open while the first is open: %v, want ErrLocked", tt.name, err)
		}
		if err := ix.Close(); err != nil {
			t.Fatalf("%s: close: %v", tt.name, err)
		}
	}
}

// TestEachIndexItsOwnFolder: a process that opens two folders' indexes
// reads each from its own folder. Bleve writes the store's path into the
// configuration map it is given; one map shared by every open sent each
// later open to the folder of the index made last, even after that folder
// was removed (CI's /tmp filled with indexes made again after their tests
// ended).
func TestEachIndexItsOwnFolder(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a.bleve"), filepath.Join(t.TempDir(), "b.bleve")
	for _, p := range []string{a, b} {
		ix, made, err := Open(p, "1", newMapping)
		if err != nil || !made {
			t.Fatalf("new index %s: made %v, %v", p, made, err)
		}
		ix.Close()
	}
	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	ix, _, err := Open(a, "1", newMapping)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := os.Stat(b); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("opening %s made %s again (%v): it opened another folder's index", a, b, err)
	}
}

// TestCloseKeepsWhatWasIndexed: what was indexed just before Close is
// there at the next Open. Bleve's Close drops what its persister had not
// written: a new index closed at once lost its version and was made again,
// its documents lost.
func TestCloseKeepsWhatWasIndexed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.bleve")
	for round := range 3 {
		ix, made, err := Open(path, "1", newMapping)
		if err != nil || made != (round == 0) {
			t.Fatalf("open %d: made %v, %v", round, made, err)
		}
		if n, err := ix.DocCount(); err != nil || n != uint64(round) {
			t.Fatalf("open %d: %d documents (%v), want %d", round, n, err, round)
		}
		if err := ix.Index(fmt.Sprint(round), doc{Text: "rotate the logs"}); err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
