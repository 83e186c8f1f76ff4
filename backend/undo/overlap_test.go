package undo_test

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/tool/files"
	"github.com/shrimp-harness/shrimp/backend/undo"
)

// TestOtherRequestsMeanwhile: while a command of session s1 runs, a
// request of session s2 (the window runs both at once, or `shrimp chat`
// beside it) writes a file or runs a command of its own in the same
// workspace, a folder in it, or elsewhere. Undoing s1 never undoes what s2 did: a change s1's watch
// found that may be s2's is left, saying why; what is surely s1's is put
// back; s2's own undo is unaffected.
func TestOtherRequestsMeanwhile(t *testing.T) {
	type want struct{ s1, s2 map[string]string }
	for _, kind := range []struct {
		name    string
		fixture func(*testing.T) *fixture
		process bool // s2 runs in another process (another keeper, another store handle)
	}{{"folder", folderFixture, false}, {"git", gitFixture, false}, {"folder, another process", folderFixture, true}, {"git, another process", gitFixture, true}} {
		for _, tt := range []struct {
			name string
			dir  string // s2's workspace in s1's ("": elsewhere)
			tool bool   // s2 writes with fs.write; else with a command
			path string // what s2 writes, in its workspace
			want want
		}{
			{"a file tool, same workspace", ".", true, "keep.txt",
				want{map[string]string{"a.txt": undo.Restore, "keep.txt": undo.Leave}, map[string]string{"keep.txt": undo.Restore}}},
			{"a file tool, a folder in it", "src", true, "new.txt",
				want{map[string]string{"a.txt": undo.Restore, "src/new.txt": undo.Leave}, map[string]string{"new.txt": undo.Remove}}},
			{"a file tool elsewhere", "", true, "keep.txt",
				want{map[string]string{"a.txt": undo.Restore}, map[string]string{"keep.txt": undo.Restore}}},
			{"a command, same workspace", ".", false, "b.txt",
				want{map[string]string{"a.txt": undo.Leave, "b.txt": undo.Leave}, map[string]string{"a.txt": undo.Leave, "b.txt": undo.Leave}}},
			{"a command, a folder in it", "src", false, "b.txt",
				want{map[string]string{"a.txt": undo.Leave, "src/b.txt": undo.Leave}, map[string]string{"b.txt": undo.Leave}}},
			{"a command elsewhere", "", false, "b.txt",
				want{map[string]string{"a.txt": undo.Restore}, map[string]string{"b.txt": undo.Remove}}},
		} {
			t.Run(kind.name+"/"+tt.name, func(t *testing.T) {
				f := kind.fixture(t)
				dir := t.TempDir()
				if tt.dir != "" {
					dir = filepath.Join(f.ws, tt.dir)
				}
				w2, err := files.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer w2.Close()
				if tt.dir == "" && tt.tool {
					f2 := &fixture{t: t, ws: dir}
					f2.file(tt.path, "theirs before\n", 0o644)
				}
				at2 := undo.Call{Session: "s2", Run: 1, Call: 1, Tool: "shell.run"}
				if tt.tool {
					at2.Tool = "fs.write"
				}
				keep2 := f.keep
				if kind.process {
					st2, err := store.Open(filepath.Dir(f.keep.Dir))
					if err != nil {
						t.Fatal(err)
					}
					defer st2.Close()
					keep2 = &undo.Keeper{Changes: st2.FileChanges(), Watches: st2.ShellWatches(), Dir: f.keep.Dir}
				}
				j2 := keep2.Journal(w2.Dir(), func(context.Context) undo.Call { return at2 })
				w2.Journal = j2
				ctx := context.Background()

				mine, _ := f.read("a.txt")
				f.at.Call++
				f.at.Tool = "shell.run"
				// The two interleave: both watches start, then both
				// commands run, then both watches end.
				after1 := f.w.Journal.(*undo.Journal).Watch(ctx)
				after2 := func() {}
				if !tt.tool {
					after2 = j2.Watch(ctx)
				}
				f.sh("echo mine >> a.txt")
				theirs := filepath.Join(dir, tt.path)
				if tt.tool {
					raw, _ := json.Marshal(map[string]any{"path": tt.path, "content": "theirs\n"})
					if _, err := toolNamed(t, w2, "fs.write").Run(ctx, raw); err != nil {
						t.Fatal(err)
					}
				} else {
					(&fixture{t: t, ws: dir}).sh("echo theirs > " + tt.path)
				}
				after1()
				after2()

				for s, w := range map[string]map[string]string{"s1": tt.want.s1, "s2": tt.want.s2} {
					plan, err := f.keep.Plan(ctx, s, 1)
					if err != nil {
						t.Fatal(err)
					}
					if got := actions(plan); !maps.Equal(got, w) {
						t.Errorf("%s's undo would do %v, want %v", s, got, w)
					}
					for _, file := range plan.Files {
						if file.Action == undo.Leave && file.Why == "" {
							t.Errorf("%s: %s left without a reason", s, file.Path)
						}
					}
				}
				if _, err := f.keep.Undo(ctx, "s1", 1); err != nil {
					t.Fatal(err)
				}
				if got, _ := (&fixture{t: t, ws: dir}).read(tt.path); got != "theirs\n" {
					t.Errorf("s2's %s after undoing s1: %q, want it kept", theirs, got)
				}
				if tt.want.s1["a.txt"] != undo.Restore {
					mine += "mine\n" // left as the command made it
				}
				if got, _ := f.read("a.txt"); got != mine {
					t.Errorf("a.txt after undoing s1: %q, want %q", got, mine)
				}
			})
		}
	}
}

// toolNamed returns w's tool called name.
func toolNamed(t *testing.T, w *files.Workspace, name string) interface {
	Run(context.Context, json.RawMessage) (string, error)
} {
	t.Helper()
	for _, tl := range w.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestWatchesOfGoneProcesses: a watch a killed process left unended does
// not make later commands' changes shared; one of a process still running
// does.
func TestWatchesOfGoneProcesses(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		pid  int
		want string
	}{
		{"a killed process", gone.Process.Pid, undo.Restore},
		{"a running process", 1, undo.Leave},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := folderFixture(t)
			if _, err := f.keep.Watches.Begin(context.Background(), f.ws, tt.pid, time.Now().Add(-time.Minute)); err != nil {
				t.Fatal(err)
			}
			f.watched("echo mine >> a.txt")
			plan, err := f.keep.Plan(context.Background(), "s1", 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(plan)["a.txt"]; got != tt.want {
				t.Errorf("a.txt: %s, want %s (%+v)", got, tt.want, plan.Files)
			}
		})
	}
}

// TestUndoASharedChangeAnyway: a change the plan leaves as shared says so
// (Shared), and is undone when the user names it Anyway; a Ref without
// Anyway does not undo it.
func TestUndoASharedChangeAnyway(t *testing.T) {
	f := folderFixture(t)
	ctx := context.Background()
	j2 := f.keep.Journal(f.w.Dir(), func(context.Context) undo.Call { return undo.Call{Session: "s2", Run: 1, Call: 1, Tool: "shell.run"} })
	f.at.Call++
	f.at.Tool = "shell.run"
	after1 := f.w.Journal.(*undo.Journal).Watch(ctx)
	after2 := j2.Watch(ctx)
	f.sh("echo mine >> a.txt && echo theirs > b.txt")
	after1()
	after2()
	plan, err := f.keep.Plan(ctx, "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range plan.Files {
		if file.Action != undo.Leave || !file.Shared {
			t.Errorf("%s: %s, shared %v: want left as shared", file.Path, file.Action, file.Shared)
		}
	}
	ws := f.w.Dir()
	done, err := f.keep.Undo(ctx, "s1", 1, undo.Ref{Workspace: ws, Path: "a.txt", Anyway: true}, undo.Ref{Workspace: ws, Path: "b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(done), map[string]string{"a.txt": undo.Restore, "b.txt": undo.Leave}; !maps.Equal(got, want) {
		t.Errorf("undo did %v, want %v", got, want)
	}
	if got, _ := f.read("a.txt"); got != "one\n" {
		t.Errorf("a.txt after undoing it anyway: %q", got)
	}
	if got, _ := f.read("b.txt"); got != "theirs\n" {
		t.Errorf("b.txt, shared and not named anyway: %q", got)
	}
}
