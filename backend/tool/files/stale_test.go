package files

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TestStaleWrite: a write over a file that changed after a file tool read
// or wrote it (the user saved it in an editor) is refused once, keeping
// the change; a file only the tools changed, or none read, is written at
// once, and so is a call the user was shown and allowed.
func TestStaleWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	put := func(content string, age time.Duration) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(file, when, when); err != nil {
			t.Fatal(err)
		}
	}
	put("milk\n", time.Hour)
	if err := os.Symlink("notes.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()

	// Read through a link, saved by the user, written by the model.
	if _, err := ws.read(ctx, ReadArgs{Path: "link.txt"}); err != nil {
		t.Fatal(err)
	}
	put("milk\nbread (mine)\n", time.Minute)
	_, err = ws.write(ctx, WriteArgs{Path: "notes.txt", Content: "milk\neggs\n"})
	if err == nil || !strings.Contains(err.Error(), "it changed after it was last read") || !strings.Contains(err.Error(), "make the same call again") {
		t.Fatalf("a write over the user's change: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "milk\nbread (mine)\n" {
		t.Fatalf("the user's change was lost: %q", b)
	}
	if _, err := ws.write(ctx, WriteArgs{Path: "notes.txt", Content: "milk\neggs\n"}); err != nil {
		t.Errorf("the same call again: %v", err)
	}

	// Written by the tools, written again: no one else changed it.
	if _, err := ws.write(ctx, WriteArgs{Path: "notes.txt", Content: "milk\neggs\nham\n"}); err != nil {
		t.Errorf("a second write of the model's own: %v", err)
	}
	if _, err := ws.edit(ctx, EditArgs{Path: "notes.txt", Old: "ham", New: "jam"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.write(ctx, WriteArgs{Path: "notes.txt", Content: "after the edit\n"}); err != nil {
		t.Errorf("a write after the tools' own edit: %v", err)
	}

	// Never read: nothing to compare.
	fresh, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	put("changed\n", 0)
	if _, err := fresh.write(ctx, WriteArgs{Path: "notes.txt", Content: "x\n"}); err != nil {
		t.Errorf("a file no tool read: %v", err)
	}

	// Shown to the user and allowed.
	if _, err := fresh.read(ctx, ReadArgs{Path: "notes.txt"}); err != nil {
		t.Fatal(err)
	}
	put("theirs\n", 0)
	if _, err := fresh.write(agent.WithSeen(ctx, true), WriteArgs{Path: "notes.txt", Content: "y\n"}); err != nil {
		t.Errorf("a write the user saw: %v", err)
	}
}

// TestDoubtedTwiceRefusedOnce: a write two checks doubt (a placeholder
// over a file changed since it was read) is refused once, not once per
// check: three identical calls in a row stop a run.
func TestDoubtedTwiceRefusedOnce(t *testing.T) {
	ctx := context.Background()
	ws, dir := workspace(t, map[string]string{"tool.py": module})
	file := filepath.Join(dir, "tool.py")
	if _, err := ws.read(ctx, ReadArgs{Path: "tool.py"}); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.WriteFile(file, []byte(module+"# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	in := WriteArgs{Path: "tool.py", Content: "import os\n\n# ... rest of the file unchanged ...\n"}
	args, _ := json.Marshal(in)
	if doubts := ws.Doubts(ctx, "fs.write", args); len(doubts) != 2 || !strings.Contains(doubts[0], "placeholder") || !strings.Contains(doubts[1], "changed after it was last read") {
		t.Errorf("the approval question's doubts: %q", doubts)
	}
	if _, err := ws.write(ctx, in); err == nil {
		t.Fatal("the doubted write was done at once")
	}
	if _, err := ws.write(ctx, in); err != nil {
		t.Errorf("made again, it was refused again: %v", err)
	}
}

// TestKnownIsBounded: a session that reads ever more files keeps at most
// maxKnown of them, dropping those noted longest ago; a file read again
// is noted anew, and what is kept still tells a change.
func TestKnownIsBounded(t *testing.T) {
	var k Known
	info := func(size int64) os.FileInfo { return fakeInfo{size: size} }
	k.note("first", info(1))
	for i := range 3 * maxKnown {
		k.note(fmt.Sprintf("f%d", i), info(1))
		if i%1000 == 0 {
			k.note("first", info(1)) // read again and again: stays
		}
	}
	if n := len(k.files); n > maxKnown || n < maxKnown/2 {
		t.Fatalf("%d files known, want between %d and %d", n, maxKnown/2, maxKnown)
	}
	if !k.changed("first", info(2)) {
		t.Error("a file read again lately was dropped")
	}
	if k.changed("f0", info(2)) {
		t.Error("the file noted longest ago is still known")
	}
}

// fakeInfo is a file of a size, modified at the zero time.
type fakeInfo struct {
	os.FileInfo
	size int64
}

func (f fakeInfo) Size() int64        { return f.size }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
