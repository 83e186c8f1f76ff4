package undo_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/undo"
)

// folderFixture is a fixture whose workspace is a folder outside any git
// work tree, holding a few files, one of them in a folder of its own.
func folderFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.file("a.txt", "one\n", 0o644)
	f.file("run.sh", "echo hi\n", 0o755)
	f.file("keep.txt", "keep\n", 0o644)
	f.file("src/lib/main.go", "package main\n", 0o644)
	if undo.InWorkTree(context.Background(), f.ws) {
		t.Fatalf("the test's folder %s is in a git work tree: set TMPDIR outside one", f.ws)
	}
	return f
}

// TestCommandsInAFolder: outside a git work tree, what a shell command did
// to the workspace's files (removed, created, edited in place, emptied,
// rewritten in place with its time set back, moved, a folder removed) is
// put back by undo, and the folders it made
// for the files it created go with them; files it did not touch, links
// and what is in a .git folder are not recorded.
func TestCommandsInAFolder(t *testing.T) {
	for _, tt := range []struct {
		name    string
		command string
		want    map[string]string // file → action
		gone    []string          // folders undo removes
	}{
		{"remove and create", "rm keep.txt run.sh && echo new > new.txt", map[string]string{"keep.txt": undo.Restore, "run.sh": undo.Restore, "new.txt": undo.Remove}, nil},
		{"edit in place", "sed -i s/e/E/ a.txt keep.txt", map[string]string{"a.txt": undo.Restore, "keep.txt": undo.Restore}, nil},
		{"empty", ": > a.txt", map[string]string{"a.txt": undo.Restore}, nil},
		{"rewrite in place, its time set back", "ref=$(mktemp) && cp -p keep.txt $ref && printf 'KEEP\\n' | dd of=keep.txt conv=notrunc status=none && touch -r $ref keep.txt && rm $ref", map[string]string{"keep.txt": undo.Restore}, nil},
		{"move", "mv a.txt b.txt", map[string]string{"a.txt": undo.Restore, "b.txt": undo.Remove}, nil},
		{"remove a folder", "rm -r src", map[string]string{"src/lib/main.go": undo.Restore}, nil},
		{"move a folder", "mv src lib2", map[string]string{"src/lib/main.go": undo.Restore, "lib2/lib/main.go": undo.Remove}, []string{"lib2"}},
		{"new folders", "mkdir -p out/x && echo r > out/x/r.txt && echo s > src/s.txt", map[string]string{"out/x/r.txt": undo.Remove, "src/s.txt": undo.Remove}, []string{"out"}},
		{"a link and a .git folder", "ln -s a.txt link && mkdir -p sub/.git && echo x > sub/.git/HEAD", map[string]string{}, nil},
		{"nothing", "true", map[string]string{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := folderFixture(t)
			f.undoneAsBefore(tt.command, tt.want, "a.txt", "run.sh", "keep.txt", "new.txt", "b.txt", "src/lib/main.go", "src/s.txt")
			for _, dir := range tt.gone {
				if _, err := os.Stat(filepath.Join(f.ws, dir)); err == nil {
					t.Errorf("%s is still there after undo", dir)
				}
			}
			if _, err := os.Stat(filepath.Join(f.ws, "src", "lib")); err != nil {
				t.Errorf("src/lib after undo: %v", err)
			}
		})
	}
}

// TestWatchedCommandsInARun: within a run, each command's changes are
// its own and undo puts the files back as they were before the run; a
// file the file tools wrote between two commands is read again.
func TestWatchedCommandsInARun(t *testing.T) {
	f := folderFixture(t)
	f.watched("echo two >> a.txt")
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "written\n"})
	f.watched("echo three >> a.txt && rm keep.txt")
	f.watched("true")
	runs, err := f.keep.Changes.Runs(context.Background(), "s1")
	if err != nil || runs[1] == 0 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	rows, _ := f.keep.Changes.Since(context.Background(), "s1", 1)
	if len(rows) != 4 {
		t.Errorf("%d changes recorded, want 4 (a.txt thrice, keep.txt): %+v", len(rows), rows)
	}
	if _, err := f.keep.Undo(context.Background(), "s1", 1); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "one\n", "keep.txt": "keep\n"} {
		if got, _ := f.read(name); got != want {
			t.Errorf("%s after undo: %q, want %q", name, got, want)
		}
	}
}

// TestLaterRequestsOnlyLook: the keeper remembers what it read of a
// folder, so a later request's first command reads only what changed
// (a kept content read again is made fresh: its time says so); a new
// keeper (a new process) reads everything.
func TestLaterRequestsOnlyLook(t *testing.T) {
	f := folderFixture(t)
	f.watched("true")
	old := time.Now().Add(-2 * time.Hour)
	age := func() (fresh int) {
		objects, _ := filepath.Glob(filepath.Join(f.keep.Dir, "*", "*"))
		for _, o := range objects {
			if st, err := os.Stat(o); err == nil && st.ModTime().After(old.Add(time.Minute)) {
				fresh++
			}
		}
		return fresh
	}
	setOld := func() {
		objects, _ := filepath.Glob(filepath.Join(f.keep.Dir, "*", "*"))
		for _, o := range objects {
			if err := os.Chtimes(o, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	setOld()
	f.run(2)
	f.file("a.txt", "changed since\n", 0o644)
	f.watched("true")
	if n := age(); n != 1 { // a.txt's new content, kept
		t.Errorf("a later request read %d files again, want only the one that changed", n)
	}
	setOld()
	f.keep = &undo.Keeper{Changes: f.keep.Changes, Watches: f.keep.Watches, Dir: f.keep.Dir}
	f.run(3)
	f.watched("true")
	if n := age(); n != 4 {
		t.Errorf("a new keeper read %d files, want all 4", n)
	}
}

// TestLargeFilesInAFolder: a file larger than Max is not read before a
// command; a change to it is recorded, and undo leaves it saying why.
func TestLargeFilesInAFolder(t *testing.T) {
	f := folderFixture(t)
	f.keep.Max = 1 << 10
	f.file("big.log", strings.Repeat("x", 4<<10), 0o644)
	f.watched("echo more >> big.log && rm a.txt")
	plan, err := f.keep.Undo(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]undo.File{}
	for _, file := range plan.Files {
		got[file.Path] = file
	}
	if got["big.log"].Action != undo.Leave || !strings.Contains(got["big.log"].Why, "larger than") || got["a.txt"].Action != undo.Restore {
		t.Errorf("plan: %+v", plan.Files)
	}
}

// TestTooManyFilesInAFolder: a folder of more than 2,000 files is not
// watched (keeping its first files would cost every command and cover
// little), and it is not covered, so the undo names the calls.
func TestTooManyFilesInAFolder(t *testing.T) {
	f := folderFixture(t)
	if !f.keep.Covered(context.Background(), f.ws) {
		t.Error("a folder of four files is not covered")
	}
	for i := range 2005 {
		f.file(fmt.Sprintf("u/%04d.txt", i), "file\n", 0o644)
	}
	if f.keep.Covered(context.Background(), f.ws) {
		t.Error("a folder of 2,009 files is covered")
	}
	f.watched("rm a.txt u/2004.txt && echo new > new.txt")
	if kept, _ := filepath.Glob(filepath.Join(f.keep.Dir, "*", "*")); len(kept) != 0 {
		t.Errorf("%d files kept from a folder not watched", len(kept))
	}
	plan, err := f.keep.Plan(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 0 {
		t.Errorf("plan: %+v", plan.Files)
	}
}

// TestPruneDuringACommand: a prune while a command runs (the window
// prunes hourly) leaves what the watch kept of the workspace's files, old
// as it may be, so the command's changes can still be undone.
func TestPruneDuringACommand(t *testing.T) {
	f := folderFixture(t)
	f.watched("true") // the first command keeps every file
	f.at.Call++
	f.at.Tool = "shell.run"
	after := f.w.Journal.(*undo.Journal).Watch(context.Background())
	old := time.Now().Add(-2 * time.Hour)
	kept := f.kept()
	for _, p := range kept {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.keep.Prune(context.Background(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := f.kept(); len(got) != len(kept) {
		t.Fatalf("prune removed what the watch kept: %d of %d left", len(got), len(kept))
	}
	f.sh("rm keep.txt")
	after()
	plan, err := f.keep.Undo(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("keep.txt"); got != "keep\n" {
		t.Errorf("keep.txt after undo: %q (%+v)", got, plan.Files)
	}
}

// TestTheDataFolderIsNotWatched: a workspace that holds Shrimp's data
// folder (a home folder): its database, which changes while a command
// runs, and the contents the watch keeps there are never recorded, so
// undo never writes them back or removes them; in a git work tree too.
func TestTheDataFolderIsNotWatched(t *testing.T) {
	for _, kind := range []string{"folder", "git"} {
		t.Run(kind, func(t *testing.T) {
			f := folderFixture(t)
			if kind == "git" {
				f.sh("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm first")
			}
			data := filepath.Join(f.ws, ".local", "shrimp")
			f.keep.Dir, f.keep.Skip = filepath.Join(data, "file-history"), []string{data}
			f.file(".local/shrimp/shrimp.db", "the database\n", 0o600)
			f.file(".local/other.txt", "not Shrimp's\n", 0o644)
			f.watched("echo more >> .local/shrimp/shrimp.db && rm a.txt .local/other.txt")
			plan, err := f.keep.Undo(context.Background(), "s1", 1)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"a.txt": undo.Restore, ".local/other.txt": undo.Restore}
			if got := actions(plan); !maps.Equal(got, want) {
				t.Errorf("undo did %v, want %v", got, want)
			}
			if got, _ := f.read(".local/shrimp/shrimp.db"); got != "the database\nmore\n" {
				t.Errorf("the database after undo: %q", got)
			}
			if kept, _ := filepath.Glob(filepath.Join(f.keep.Dir, "*", "*")); len(kept) == 0 {
				t.Error("undo removed the kept contents")
			}
		})
	}
}

// BenchmarkWatchFolder: what watching adds to one shell call in a folder
// of 2,000 files of 400 bytes, the command itself doing nothing: the
// first call in the folder since Shrimp started, which reads every file
// (kept already by an earlier process: read, hashed, not written), and
// the later ones, of any request, which only look.
func BenchmarkWatchFolder(b *testing.B) {
	f := newFixture(b)
	for i := range 2000 {
		f.file(filepath.Join(fmt.Sprintf("d%02d", i%40), fmt.Sprintf("f%04d.go", i)), strings.Repeat("package x\n", 40), 0o644)
	}
	f.w.Journal.(*undo.Journal).Watch(context.Background())()
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			f.keep = &undo.Keeper{Changes: f.keep.Changes, Watches: f.keep.Watches, Dir: f.keep.Dir} // a new process
			f.run(f.at.Run + 1)
			f.w.Journal.(*undo.Journal).Watch(context.Background())()
		}
	})
	b.Run("later", func(b *testing.B) {
		j := f.w.Journal.(*undo.Journal)
		for b.Loop() {
			j.Watch(context.Background())()
		}
	})
}
