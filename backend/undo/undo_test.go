package undo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/tool/files"
	"github.com/shrimp-harness/shrimp/backend/undo"
)

// fixture is a workspace whose file tools keep what they change, as a
// run's do, and a session whose runs are numbered by hand.
type fixture struct {
	t    testing.TB
	ws   string
	keep *undo.Keeper
	at   undo.Call
	w    *files.Workspace
	// fsWrite is the workspace's fs.write.
	fsWrite interface {
		Run(context.Context, json.RawMessage) (string, error)
	}
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	data := t.TempDir()
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, ws: t.TempDir(), keep: &undo.Keeper{Changes: st.FileChanges(), Watches: st.ShellWatches(), Dir: filepath.Join(data, "file-history")}, at: undo.Call{Session: "s1"}}
	f.w, err = files.Open(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.w.Close() })
	f.run(1)
	for _, tl := range f.w.Tools() {
		if tl.Name() == "fs.write" {
			f.fsWrite = tl
		}
	}
	return f
}

// run starts run seq: its file tools get a journal of their own, as each
// request's do.
func (f *fixture) run(seq int64) {
	f.at.Run = seq
	f.w.Journal = f.keep.Journal(f.w.Dir(), func(context.Context) undo.Call { return f.at })
}

// call runs a file tool as call seq of the current run.
func (f *fixture) call(name string, args map[string]any) {
	f.t.Helper()
	f.at.Call++
	f.at.Tool = name
	raw, _ := json.Marshal(args)
	for _, tl := range f.w.Tools() {
		if tl.Name() == name {
			if _, err := tl.Run(context.Background(), raw); err != nil {
				f.t.Fatalf("%s %s: %v", name, raw, err)
			}
			return
		}
	}
	f.t.Fatalf("no tool %s", name)
}

func (f *fixture) file(name, content string, mode os.FileMode) {
	f.t.Helper()
	p := filepath.Join(f.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

// read returns a file's content and mode ("<none>" when it does not exist).
func (f *fixture) read(name string) (string, os.FileMode) {
	f.t.Helper()
	p := filepath.Join(f.ws, name)
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return "<none>", 0
	}
	if err != nil {
		f.t.Fatal(err)
	}
	st, _ := os.Stat(p)
	return string(b), st.Mode().Perm()
}

// kept lists the files in the keep folder.
func (f *fixture) kept() []string {
	var out []string
	_ = filepath.WalkDir(f.keep.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func actions(p undo.Plan) map[string]string {
	out := map[string]string{}
	for _, f := range p.Files {
		out[f.Path] = f.Action
	}
	return out
}

// TestUndo: undoing a run puts back what its file tools changed (earlier
// content and permissions, created files removed), leaves what changed
// after, and marks what it undid, so the same run has nothing more to undo.
func TestUndo(t *testing.T) {
	f := newFixture(t)
	f.file("notes.txt", "one\ntwo\n", 0o640)
	f.file("script.sh", "#!/bin/sh\necho hi\n", 0o755)
	f.file("mine.txt", "mine\n", 0o644)

	f.call("fs.write", map[string]any{"path": "notes.txt", "content": "rewritten\n"})
	f.call("fs.edit", map[string]any{"path": "notes.txt", "old": "rewritten", "new": "edited"})
	f.call("fs.write", map[string]any{"path": "new/summary.txt", "content": "a summary\n"})
	f.call("fs.edit", map[string]any{"path": "script.sh", "old": "hi", "new": "bye"})
	f.call("fs.write", map[string]any{"path": "mine.txt", "content": "model's\n"})
	// The user edits mine.txt after the run wrote it.
	f.file("mine.txt", "the user's own edit\n", 0o644)

	plan, err := f.keep.Plan(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"notes.txt": undo.Restore, "new/summary.txt": undo.Remove, "script.sh": undo.Restore, "mine.txt": undo.Leave}
	if got := actions(plan); !maps.Equal(got, want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
	if !plan.Changes() {
		t.Error("a plan with files to restore says it changes nothing")
	}
	// Planning changes nothing.
	if got, _ := f.read("notes.txt"); got != "edited\n" {
		t.Fatalf("the plan changed notes.txt: %q", got)
	}
	// What undoing would do to each file, as a diff from what it holds.
	for _, d := range []struct{ path, want string }{
		{"notes.txt", "-edited\n+one\n+two\n"},
		{"new/summary.txt", "-a summary\n"},
		{"mine.txt", ""},
	} {
		got, err := f.keep.Diff(context.Background(), "s1", 1, f.w.Dir(), d.path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, d.want) || (d.want == "") != (got == "") {
			t.Errorf("diff of %s: %q, want it to hold %q", d.path, got, d.want)
		}
	}
	if _, err := f.keep.Diff(context.Background(), "s1", 1, f.w.Dir(), "untouched.txt"); err == nil {
		t.Error("a diff of a file the run did not change")
	}

	done, err := f.keep.Undo(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(done); !maps.Equal(got, want) {
		t.Errorf("undo did %v, want %v", got, want)
	}
	for name, want := range map[string]struct {
		content string
		mode    os.FileMode
	}{
		"notes.txt":       {"one\ntwo\n", 0o640},
		"script.sh":       {"#!/bin/sh\necho hi\n", 0o755},
		"new/summary.txt": {"<none>", 0},
		"mine.txt":        {"the user's own edit\n", 0o644},
	} {
		content, mode := f.read(name)
		if content != want.content || mode != want.mode {
			t.Errorf("%s after undo: %q %v, want %q %v", name, content, mode, want.content, want.mode)
		}
	}
	for _, file := range done.Files {
		if file.Path == "mine.txt" && !strings.Contains(file.Why, "changed after Shrimp wrote it") {
			t.Errorf("mine.txt is left without saying why: %q", file.Why)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(f.ws, "*.shrimp-tmp"))
	if len(leftovers) > 0 {
		t.Errorf("undo left temporary files: %v", leftovers)
	}

	// Undone once: only the file it left is still to do, and after the user
	// puts it back as the run wrote it, it is undone too.
	again, err := f.keep.Plan(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(again); !maps.Equal(got, map[string]string{"mine.txt": undo.Leave}) {
		t.Errorf("planned again: %v", got)
	}
	f.file("mine.txt", "model's\n", 0o644)
	if _, err := f.keep.Undo(context.Background(), "s1", 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("mine.txt"); got != "mine\n" {
		t.Errorf("mine.txt after the second undo: %q", got)
	}
}

// TestUndoFromARun: undoing from a run on takes that run and the later
// ones, each file back to what it held before the first of them; an
// earlier run's changes stay.
func TestUndoFromARun(t *testing.T) {
	f := newFixture(t)
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "run 1\n"})
	f.run(5)
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "run 5\n"})
	f.call("fs.write", map[string]any{"path": "b.txt", "content": "run 5\n"})
	f.run(9)
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "run 9\n"})

	runs, err := f.keep.Changes.Runs(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if runs[1] != 1 || runs[5] != 2 || runs[9] != 1 {
		t.Errorf("files changed per run: %v", runs)
	}
	if _, err := f.keep.Undo(context.Background(), "s1", 5); err != nil {
		t.Fatal(err)
	}
	if a, _ := f.read("a.txt"); a != "run 1\n" {
		t.Errorf("a.txt: %q, want run 1's", a)
	}
	if b, _ := f.read("b.txt"); b != "<none>" {
		t.Errorf("b.txt: %q, want none", b)
	}
	runs, _ = f.keep.Changes.Runs(context.Background(), "s1")
	if len(runs) != 1 || runs[1] != 1 {
		t.Errorf("runs with changes left: %v", runs)
	}
	// Another session's runs are not touched.
	plan, _ := f.keep.Plan(context.Background(), "other", 0)
	if len(plan.Files) != 0 {
		t.Errorf("another session's plan: %v", plan.Files)
	}
}

// TestRewrittenInALoop: a run that rewrites one file again and again
// keeps one copy of it, what it held before the run, and undo puts that
// back.
func TestRewrittenInALoop(t *testing.T) {
	f := newFixture(t)
	f.file("big.txt", strings.Repeat("original ", 1000), 0o644)
	for i := range 20 {
		f.call("fs.write", map[string]any{"path": "big.txt", "content": strings.Repeat(fmt.Sprintf("version %d ", i), 1000)})
	}
	if kept := f.kept(); len(kept) != 1 {
		t.Errorf("%d contents kept for one file rewritten 20 times in a run, want 1", len(kept))
	}
	if _, err := f.keep.Undo(context.Background(), "s1", 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("big.txt"); got != strings.Repeat("original ", 1000) {
		t.Errorf("big.txt after undo: %.40q…", got)
	}
}

// TestKilledMidWrite: the change is recorded before the file is
// replaced, so a process killed between the two leaves a file undo finds
// as it was; a write that fails takes its record back.
func TestKilledMidWrite(t *testing.T) {
	f := newFixture(t)
	f.file("a.txt", "before\n", 0o644)
	// Killed after the keep: the write never happened, done never called.
	if _, err := f.w.Journal.Keep(context.Background(), files.Change{Path: "a.txt", Old: strings.NewReader("before\n"), Size: 7, Mode: 0o644, Content: "after\n"}); err != nil {
		t.Fatal(err)
	}
	plan, err := f.keep.Plan(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || plan.Files[0].Action != undo.Same || plan.Changes() {
		t.Errorf("a change recorded but never made: %+v", plan.Files)
	}
	// A write that fails: its record is taken back.
	f.run(2)
	done, err := f.w.Journal.Keep(context.Background(), files.Change{Path: "b.txt", Content: "new\n"})
	if err != nil {
		t.Fatal(err)
	}
	done(false)
	runs, _ := f.keep.Changes.Runs(context.Background(), "s1")
	if runs[2] != 0 {
		t.Errorf("a failed write left its record: %v", runs)
	}
}

// TestFoldersGoWithTheFiles: the folders fs.write made for the files it
// created are removed with them; a folder that existed before, or that
// holds something else now, stays.
func TestFoldersGoWithTheFiles(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(filepath.Join(f.ws, "a"), 0o755); err != nil { // the user's, empty
		t.Fatal(err)
	}
	f.call("fs.write", map[string]any{"path": "a/b/c/new.txt", "content": "new\n"})
	f.call("fs.write", map[string]any{"path": "x/y/one.txt", "content": "1\n"})
	f.call("fs.write", map[string]any{"path": "x/y/two.txt", "content": "2\n"})
	f.call("fs.write", map[string]any{"path": "k/z/new.txt", "content": "new\n"})
	f.file("k/z/mine.txt", "the user's, added since\n", 0o644)

	if _, err := f.keep.Undo(context.Background(), "s1", 1); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{"a": true, "a/b": false, "x": false, "k/z": true, "k": true} {
		_, err := os.Stat(filepath.Join(f.ws, dir))
		if got := err == nil; got != want {
			t.Errorf("%s is there after undo: %v, want %v", dir, got, want)
		}
	}
	if got, _ := f.read("k/z/mine.txt"); got != "the user's, added since\n" {
		t.Errorf("k/z/mine.txt after undo: %q", got)
	}
}

// TestTooLargeToKeep: a file larger than Max is replaced, its earlier
// content not kept, and undo leaves it saying so.
func TestTooLargeToKeep(t *testing.T) {
	f := newFixture(t)
	f.keep.Max = 1 << 10
	f.file("big.log", strings.Repeat("x", 4<<10), 0o644)
	f.call("fs.write", map[string]any{"path": "big.log", "content": "small\n"})
	plan, err := f.keep.Undo(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || plan.Files[0].Action != undo.Leave || !strings.Contains(plan.Files[0].Why, "larger than") {
		t.Errorf("undo of a file too large to keep: %+v", plan.Files)
	}
	if plan.Changes() {
		t.Error("a plan that leaves every file says it changes some")
	}
	if got, _ := f.read("big.log"); got != "small\n" {
		t.Errorf("big.log: %q", got)
	}
}

// TestKeptContentDamaged: a kept content that is gone or no longer what
// was kept (a crash, a disk error) is never written back: undo leaves the
// file, saying why.
func TestKeptContentDamaged(t *testing.T) {
	for _, tt := range []struct {
		name string
		harm func(path string) error
		why  string
	}{
		{"gone", os.Remove, "no longer kept"},
		{"emptied", func(p string) error { return os.Truncate(p, 0) }, "damaged"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.file("a.txt", "before\n", 0o644)
			f.call("fs.write", map[string]any{"path": "a.txt", "content": "after\n"})
			kept := f.kept()
			if len(kept) != 1 {
				t.Fatalf("kept: %v", kept)
			}
			if err := tt.harm(kept[0]); err != nil {
				t.Fatal(err)
			}
			plan, err := f.keep.Undo(context.Background(), "s1", 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Files) != 1 || plan.Files[0].Action != undo.Leave || !strings.Contains(plan.Files[0].Why, tt.why) {
				t.Errorf("undo with the kept content %s: %+v", tt.name, plan.Files)
			}
			if got, _ := f.read("a.txt"); got != "after\n" {
				t.Errorf("a.txt: %q", got)
			}
		})
	}
}

// TestKeptPrivately: what the files held is kept readable by the user
// alone, and a keep that fails refuses the write, which leaves the file as
// it was.
func TestKeptPrivately(t *testing.T) {
	f := newFixture(t)
	f.file("secret.env", "TOKEN=x\n", 0o600)
	f.call("fs.write", map[string]any{"path": "secret.env", "content": "TOKEN=y\n"})
	err := filepath.WalkDir(f.keep.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s is mode %v: others may read it", p, perm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The next request's keep fails: a file stands where the folder should
	// be (a folder without write permission would not stop root).
	f.run(2)
	if err := os.RemoveAll(f.keep.Dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.keep.Dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"path": "secret.env", "content": "TOKEN=z\n"})
	if _, err := f.fsWrite.Run(context.Background(), raw); err == nil || !strings.Contains(err.Error(), "could not be kept for undo") {
		t.Errorf("a write whose earlier content cannot be kept: %v", err)
	}
	if got, _ := f.read("secret.env"); got != "TOKEN=y\n" {
		t.Errorf("the refused write changed the file: %q", got)
	}
}

// TestPrune: changes older than the cut are forgotten and their contents
// removed once no change needs them.
func TestPrune(t *testing.T) {
	f := newFixture(t)
	f.file("a.txt", "first\n", 0o644)
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "second\n"})
	kept := f.kept()
	if len(kept) != 1 {
		t.Fatalf("contents kept: %v", kept)
	}
	// Not yet due: nothing goes.
	if n, err := f.keep.Prune(context.Background(), time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("prune of nothing due: %d, %v", n, err)
	}
	// Due, but the content is fresh: a write under way may need it.
	if n, err := f.keep.Prune(context.Background(), time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("prune: %d, %v", n, err)
	}
	if len(f.kept()) != 1 {
		t.Error("a content an hour young went")
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(kept[0], old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := f.keep.Prune(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := f.kept(); len(got) != 0 {
		t.Errorf("contents left after prune: %v", got)
	}
}

// BenchmarkWrite: what keeping the earlier content adds to an fs.write
// that replaces a file (read, hash, copy and sync it, record the change).
func BenchmarkWrite(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		for _, kept := range []bool{false, true} {
			name := fmt.Sprintf("%dKiB/plain", size>>10)
			if kept {
				name = fmt.Sprintf("%dKiB/kept", size>>10)
			}
			b.Run(name, func(b *testing.B) {
				f := newFixture(b)
				if !kept {
					f.w.Journal = nil
				}
				content := strings.Repeat("x", size-1)
				write := func(i int) {
					raw, _ := json.Marshal(map[string]any{"path": "f.txt", "content": content + strconv.Itoa(i%10)})
					if _, err := f.fsWrite.Run(context.Background(), raw); err != nil {
						b.Fatal(err)
					}
				}
				write(0)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					write(i)
				}
			})
		}
	}
}

// TestNoLongerAFile: a file the run wrote that is now a FIFO, a folder or
// a link is left as it is, and planning does not wait on the FIFO.
func TestNoLongerAFile(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(p string) error
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"folder", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"link", func(p string) error { return os.Symlink("/etc/hostname", p) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.file("a.txt", "before\n", 0o644)
			f.call("fs.write", map[string]any{"path": "a.txt", "content": "after\n"})
			p := filepath.Join(f.ws, "a.txt")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := tt.make(p); err != nil {
				t.Fatal(err)
			}
			plan, err := f.keep.Undo(context.Background(), "s1", 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Files) != 1 || plan.Files[0].Action != undo.Leave || !strings.Contains(plan.Files[0].Why, "no longer a regular file") {
				t.Errorf("undo of a file that is now a %s: %+v", tt.name, plan.Files)
			}
			if st, err := os.Lstat(p); err != nil || st.Mode().IsRegular() {
				t.Errorf("the %s was replaced: %v %v", tt.name, st, err)
			}
		})
	}
}

// TestAFileLeftLeavesOnlyItself: a file that cannot be put back is left,
// saying why, and the files after it are undone as planned (a failed
// write's error once carried over to the next file).
func TestAFileLeftLeavesOnlyItself(t *testing.T) {
	f := newFixture(t)
	f.file("a/x.txt", "x before\n", 0o644)
	f.file("b.txt", "b before\n", 0o644)
	f.call("fs.write", map[string]any{"path": "a/x.txt", "content": "x after\n"})
	f.call("fs.write", map[string]any{"path": "b.txt", "content": "b after\n"})
	f.call("fs.write", map[string]any{"path": "b.txt", "content": "b before\n"}) // back as it was: as before already
	f.call("fs.write", map[string]any{"path": "c.txt", "content": "new\n"})
	// a/ cannot take the temporary file restore writes beside x.txt.
	if err := os.Chmod(filepath.Join(f.ws, "a"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(f.ws, "a"), 0o755) })
	if os.Geteuid() == 0 {
		t.Log("as root a read-only folder does not stop the write: the kept content is damaged instead, so the plan leaves the file (make test-unprivileged runs this as nobody)")
		for _, p := range f.kept() {
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	plan, err := f.keep.Undo(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/x.txt": undo.Leave, "b.txt": undo.Same, "c.txt": undo.Remove}
	if got := actions(plan); !maps.Equal(got, want) {
		t.Errorf("undo did %v, want %v", got, want)
	}
	if c, _ := f.read("c.txt"); c != "<none>" {
		t.Errorf("c.txt after undo: %q", c)
	}
}

// TestUndoKeepsWhatTheUserKeeps: files the user chooses to keep are left
// as they are (a file left as it was before already, or one Shrimp
// leaves anyway, is unaffected), the rest undone; the kept files'
// changes stay, so a later undo takes them.
func TestUndoKeepsWhatTheUserKeeps(t *testing.T) {
	f := newFixture(t)
	f.file("a.txt", "a\n", 0o644)
	f.file("b.txt", "b\n", 0o644)
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "A\n"})
	f.call("fs.write", map[string]any{"path": "b.txt", "content": "B\n"})
	f.call("fs.write", map[string]any{"path": "c.txt", "content": "C\n"})
	ws := f.w.Dir()
	done, err := f.keep.Undo(context.Background(), "s1", 1, undo.Ref{Workspace: ws, Path: "a.txt"}, undo.Ref{Workspace: ws, Path: "c.txt"}, undo.Ref{Workspace: "/elsewhere", Path: "b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(done), map[string]string{"a.txt": undo.Leave, "b.txt": undo.Restore, "c.txt": undo.Leave}; !maps.Equal(got, want) {
		t.Fatalf("undo did %v, want %v", got, want)
	}
	for _, file := range done.Files {
		if file.Action == undo.Leave && file.Why != undo.KeptWhy {
			t.Errorf("%s left because %q", file.Path, file.Why)
		}
	}
	for name, want := range map[string]string{"a.txt": "A\n", "b.txt": "b\n", "c.txt": "C\n"} {
		if got, _ := f.read(name); got != want {
			t.Errorf("%s after undo: %q, want %q", name, got, want)
		}
	}
	// The kept files' changes can still be undone.
	again, err := f.keep.Undo(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(again), map[string]string{"a.txt": undo.Restore, "c.txt": undo.Remove}; !maps.Equal(got, want) {
		t.Errorf("a second undo did %v, want %v", got, want)
	}
}

// TestRedo: the last undo can be taken back: the files it put back or
// removed get what the runs had written again (a file the user changed
// since is left, saying why), the changes can be undone again, an undo
// before it is the next to redo, and a prune meanwhile keeps what a redo
// needs.
func TestRedo(t *testing.T) {
	f := folderFixture(t)
	ctx := context.Background()
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "run one\n"})
	f.run(2)
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "run two\n"})
	f.call("fs.write", map[string]any{"path": "new/made.txt", "content": "made\n"})
	f.watched("rm keep.txt")
	after := map[string]string{"a.txt": "run two\n", "new/made.txt": "made\n", "keep.txt": "<none>"}
	if plan, err := f.keep.RedoPlan(ctx, "s1"); err != nil || len(plan.Files) != 0 {
		t.Fatalf("a redo before any undo: %+v %v", plan, err)
	}
	if _, err := f.keep.Undo(ctx, "s1", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := f.keep.Undo(ctx, "s1", 1); err != nil {
		t.Fatal(err)
	}
	// What a redo needs outlives a prune.
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range f.kept() {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.keep.Prune(ctx, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	// The last undo (of run one) first.
	plan, err := f.keep.RedoPlan(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(plan), map[string]string{"a.txt": undo.Restore}; !plan.Redo || !maps.Equal(got, want) {
		t.Fatalf("the redo of the last undo: %v, want %v", got, want)
	}
	if d, err := f.keep.RedoDiff(ctx, "s1", f.w.Dir(), "a.txt"); err != nil || !strings.Contains(d, "-one\n+run one\n") {
		t.Errorf("its diff: %q %v", d, err)
	}
	if _, err := f.keep.Redo(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("a.txt"); got != "run one\n" {
		t.Fatalf("a.txt after the first redo: %q", got)
	}
	// Then the undo before it, run two's: one file the user changed since.
	plan, err = f.keep.RedoPlan(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(plan), map[string]string{"a.txt": undo.Restore, "new/made.txt": undo.Restore, "keep.txt": undo.Remove}; !maps.Equal(got, want) {
		t.Fatalf("the redo of the undo before: %v, want %v", got, want)
	}
	if d, err := f.keep.RedoDiff(ctx, "s1", f.w.Dir(), "new/made.txt"); err != nil || !strings.Contains(d, "+made\n") {
		t.Errorf("the diff of a file the redo makes again: %q %v", d, err)
	}
	f.file("keep.txt", "the user's\n", 0o644)
	done, err := f.keep.Redo(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(done), map[string]string{"a.txt": undo.Restore, "new/made.txt": undo.Restore, "keep.txt": undo.Leave}; !maps.Equal(got, want) {
		t.Errorf("the redo did %v, want %v", got, want)
	}
	after["keep.txt"] = "the user's\n"
	for name, want := range after {
		if got, _ := f.read(name); got != want {
			t.Errorf("%s after the redo: %q, want %q", name, got, want)
		}
	}
	// The runs' changes can be undone again; the file left stays undone,
	// and no later redo is stuck on it.
	plan, err = f.keep.Plan(ctx, "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(plan), map[string]string{"a.txt": undo.Restore, "new/made.txt": undo.Remove}; !maps.Equal(got, want) {
		t.Errorf("undo after the redo: %v, want %v", got, want)
	}
	if plan, err := f.keep.RedoPlan(ctx, "s1"); err != nil || len(plan.Files) != 0 {
		t.Errorf("a redo after every undo was taken back: %+v %v", plan.Files, err)
	}
}

// TestRedoLeavesWhatUndoDidNotChange: a file the undo found as it was
// before the request (the user had put it back) is not written by a redo:
// the undo did not change it.
func TestRedoLeavesWhatUndoDidNotChange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.file("a.txt", "a\n", 0o644)
	f.file("b.txt", "b\n", 0o644)
	f.call("fs.write", map[string]any{"path": "a.txt", "content": "A\n"})
	f.call("fs.write", map[string]any{"path": "b.txt", "content": "B\n"})
	f.file("b.txt", "b\n", 0o644) // the user put it back
	done, err := f.keep.Undo(ctx, "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(done), map[string]string{"a.txt": undo.Restore, "b.txt": undo.Same}; !maps.Equal(got, want) {
		t.Fatalf("undo did %v, want %v", got, want)
	}
	plan, err := f.keep.RedoPlan(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(plan), map[string]string{"a.txt": undo.Restore}; !maps.Equal(got, want) {
		t.Errorf("the redo would do %v, want %v", got, want)
	}
}

// TestRedoKeepsPermissions: a redo gives a file the permissions it had
// when the undo took it back, not the default: a script the request wrote
// and made executable is executable again, and a replaced file gets the
// request's permissions rather than the earlier ones.
func TestRedoKeepsPermissions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.file("tool.sh", "echo old\n", 0o755)
	f.call("fs.write", map[string]any{"path": "run.sh", "content": "echo run\n"})
	f.call("fs.write", map[string]any{"path": "tool.sh", "content": "echo new\n"})
	for name, mode := range map[string]os.FileMode{"run.sh": 0o755, "tool.sh": 0o700} {
		if err := os.Chmod(filepath.Join(f.w.Dir(), name), mode); err != nil {
			t.Fatal(err)
		}
	}
	done, err := f.keep.Undo(ctx, "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(done), map[string]string{"run.sh": undo.Remove, "tool.sh": undo.Restore}; !maps.Equal(got, want) {
		t.Fatalf("undo did %v, want %v", got, want)
	}
	if st, err := os.Stat(filepath.Join(f.w.Dir(), "tool.sh")); err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("tool.sh after undo: %v %v, want its earlier 0755", st.Mode(), err)
	}
	if _, err := f.keep.Redo(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"run.sh": 0o755, "tool.sh": 0o700} {
		st, err := os.Stat(filepath.Join(f.w.Dir(), name))
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s after the redo: %v %v, want %v", name, st.Mode().Perm(), err, want)
		}
	}
}

// TestWrittenAsItWas: a write of what the file already holds (a model
// writing back what it read) changes nothing: it is not recorded as a
// change of the run (which would be said to have changed a file, and
// whose undo would find nothing to do) and nothing is kept for it; a
// later real change of the file in the run is recorded as usual.
func TestWrittenAsItWas(t *testing.T) {
	f := newFixture(t)
	f.file("notes.txt", "buy shrimp\n", 0o644)
	f.call("fs.write", map[string]any{"path": "notes.txt", "content": "buy shrimp\n"})
	ctx := context.Background()
	if runs, err := f.keep.Changes.Runs(ctx, "s1"); err != nil || len(runs) != 0 {
		t.Fatalf("a write of the same content recorded: %v %v", runs, err)
	}
	if kept := f.kept(); len(kept) != 0 {
		t.Errorf("kept for a write that changed nothing: %v", kept)
	}
	f.call("fs.write", map[string]any{"path": "notes.txt", "content": "buy prawns\n"}) // as long, not the same
	if runs, err := f.keep.Changes.Runs(ctx, "s1"); err != nil || runs[1] != 1 {
		t.Fatalf("a real change of the file not recorded: %v %v", runs, err)
	}
	if _, err := f.keep.Undo(ctx, "s1", 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read("notes.txt"); got != "buy shrimp\n" {
		t.Errorf("notes.txt after undo: %q", got)
	}
}

// TestUndoOtherEncodings: a file Windows wrote in UTF-16 or Windows-1252,
// changed by the file tools (which keep its encoding), is diffed as the
// text it is and put back byte for byte.
func TestUndoOtherEncodings(t *testing.T) {
	f := newFixture(t)
	utf16 := "\xff\xfel\x00i\x00s\x00t\x00e\x00\r\x00\n\x00" // "liste\r\n"
	f.file("list.txt", utf16, 0o644)
	f.file("menu.csv", "caf\xe9;3\r\n", 0o644)
	f.call("fs.edit", map[string]any{"path": "list.txt", "old": "liste", "new": "été"})
	f.call("fs.edit", map[string]any{"path": "menu.csv", "old": "café;3", "new": "crème;4"})
	if got, _ := f.read("list.txt"); got != "\xff\xfe\xe9\x00t\x00\xe9\x00\r\x00\n\x00" {
		t.Fatalf("fs.edit wrote % x", got)
	}
	for path, want := range map[string]string{"list.txt": "-été\r\n+liste\r\n", "menu.csv": "-crème;4\r\n+café;3\r\n"} {
		got, err := f.keep.Diff(context.Background(), "s1", 1, f.w.Dir(), path)
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("diff of %s: %q, %v; want it to hold %q", path, got, err, want)
		}
	}
	if _, err := f.keep.Undo(context.Background(), "s1", 1); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"list.txt": utf16, "menu.csv": "caf\xe9;3\r\n"} {
		if got, _ := f.read(path); got != want {
			t.Errorf("%s after undo: % x, want % x", path, got, want)
		}
	}
}
