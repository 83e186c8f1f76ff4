package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSessionsUndo: `sessions undo` shows what it would put back, refuses
// to act unasked without a terminal, and with --yes puts the files back;
// --request names a request by its place in the session; a session with
// nothing left to undo says so.
func TestSessionsUndo(t *testing.T) {
	// The shell's watch off: the plan names a call whose changes it
	// cannot know.
	t.Setenv(app.UndoShellEnv, "off")
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "todo.txt"), []byte("milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "todo.txt", "content": "milk\neggs\n"}}),
		ollamatest.Text("added eggs"),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "todo.txt", "content": ""}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "done.txt", "content": "everything\n"}}),
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "true"}}),
		ollamatest.Text("cleared"),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "todo.txt", "content": "bread\n"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "more.txt", "content": "jam\n"}}),
		ollamatest.Text("added"),
	}})
	data := t.TempDir()
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "add eggs")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := r.lines[0].Session
	if r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "--session", id, "clear the list"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			return "<none>"
		}
		return string(b)
	}
	shrimp := func(args ...string) (int, string, string) {
		return run(append([]string{"--data-dir", data, "--ollama", srv.URL}, args...)...)
	}

	code, out, errOut := shrimp("sessions", "undo", id, "--diff")
	if code == 0 || !strings.Contains(out, "-everything\n") || !strings.Contains(out, "+milk\n+eggs\n") || !strings.Contains(errOut, "nothing was undone") {
		t.Errorf("undo --diff without a terminal: exit %d, %s\n%s", code, out, errOut)
	}
	code, out, errOut = shrimp("sessions", "undo", id)
	if code == 0 || !strings.Contains(errOut, "run it again with --yes") {
		t.Errorf("undo without a terminal or --yes: exit %d, %s", code, errOut)
	}
	for _, want := range []string{"restore  todo.txt", "remove   done.txt", "Shrimp created it", "Not undone: what 1 call of shell.run changed is not known to Shrimp.",
		"It taught procedure p-", "(fs.write ×2 → shell.run): shrimp procedures forget p-"} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
	if read("todo.txt") != "" || read("done.txt") != "everything\n" {
		t.Fatal("undo without --yes changed files")
	}

	code, out, errOut = shrimp("sessions", "undo", id, "--yes")
	if code != 0 {
		t.Fatalf("undo --yes: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "restored  todo.txt") || !strings.Contains(out, "removed   done.txt") {
		t.Errorf("undo --yes says:\n%s", out)
	}
	if read("todo.txt") != "milk\neggs\n" || read("done.txt") != "<none>" {
		t.Errorf("after undo: todo.txt %q, done.txt %q", read("todo.txt"), read("done.txt"))
	}

	// The first request, by number, as JSON.
	code, out, errOut = shrimp("sessions", "undo", id, "--request", "1", "--yes", "--json")
	if code != 0 {
		t.Fatalf("undo --request 1: exit %d: %s", code, errOut)
	}
	var plan struct {
		Files []struct{ Path, Action string }
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || len(plan.Files) != 1 || plan.Files[0].Path != "todo.txt" || plan.Files[0].Action != "restore" {
		t.Errorf("undo --json: %s (%v)", out, err)
	}
	if read("todo.txt") != "milk\n" {
		t.Errorf("todo.txt after undoing the first request: %q", read("todo.txt"))
	}

	code, _, errOut = shrimp("sessions", "undo", id, "--yes")
	if code == 0 || !strings.Contains(errOut, "nothing to undo in session") {
		t.Errorf("undo with nothing left: exit %d, %s", code, errOut)
	}
	code, _, errOut = shrimp("sessions", "undo", id, "--request", "7")
	if code == 0 || !strings.Contains(errOut, "has 2 requests, not 7") {
		t.Errorf("undo of a request that is not there: exit %d, %s", code, errOut)
	}

	// A request run in plain mode says how to undo what it changed.
	code, _, errOut = shrimp("chat", "--model", "m", "--approve", "all", "--session", id, "add bread and jam")
	if code != 0 || !strings.Contains(errOut, "shrimp: this request changed 2 files (shrimp sessions undo "+id+" puts them back)") {
		t.Errorf("a plain request that changed files: exit %d, stderr:\n%s", code, errOut)
	}

	// --keep leaves a file as it is; one undo would not change is refused,
	// naming those it would.
	code, _, errOut = shrimp("sessions", "undo", id, "--keep", "jam.txt", "--yes")
	if code == 0 || !strings.Contains(errOut, "--keep jam.txt: that file would not change (these would: todo.txt, more.txt)") {
		t.Errorf("--keep of another file: exit %d, %s", code, errOut)
	}
	code, _, errOut = shrimp("sessions", "undo", id, "--anyway", "todo.txt", "--yes")
	if code == 0 || !strings.Contains(errOut, "--anyway todo.txt: that file is not one left because another request may have changed it") {
		t.Errorf("--anyway of a file not shared: exit %d, %s", code, errOut)
	}
	code, out, errOut = shrimp("sessions", "undo", id, "--keep", "./todo.txt", "--yes")
	if code != 0 || !strings.Contains(out, "left     todo.txt") || !strings.Contains(out, "you chose to keep it") || !strings.Contains(out, "removed  more.txt") {
		t.Errorf("undo --keep: exit %d: %s\n%s", code, out, errOut)
	}
	if read("todo.txt") != "bread\n" || read("more.txt") != "<none>" {
		t.Errorf("after undo --keep: todo.txt %q, more.txt %q", read("todo.txt"), read("more.txt"))
	}
	// The kept file's change can still be undone.
	if code, _, errOut = shrimp("sessions", "undo", id, "--yes"); code != 0 || read("todo.txt") != "milk\n" {
		t.Errorf("undo after --keep: exit %d (%s), todo.txt %q", code, errOut, read("todo.txt"))
	}

	// --redo takes that undo back; then the one before it (more.txt).
	code, out, errOut = shrimp("sessions", "undo", id, "--redo", "--diff")
	if code == 0 || !strings.Contains(out, "restore  todo.txt") || !strings.Contains(out, "+bread\n") || !strings.Contains(errOut, "nothing was redone") {
		t.Errorf("redo --diff without a terminal: exit %d, %s\n%s", code, out, errOut)
	}
	if code, out, errOut = shrimp("sessions", "undo", id, "--redo", "--yes"); code != 0 || !strings.Contains(out, "restored  todo.txt") || read("todo.txt") != "bread\n" {
		t.Errorf("redo: exit %d: %s %s; todo.txt %q", code, out, errOut, read("todo.txt"))
	}
	if code, _, errOut = shrimp("sessions", "undo", id, "--redo", "--yes"); code != 0 || read("more.txt") != "jam\n" {
		t.Errorf("the second redo: exit %d (%s), more.txt %q", code, errOut, read("more.txt"))
	}
	if code, _, errOut = shrimp("sessions", "undo", id, "--redo", "--request", "2"); code != 2 || !strings.Contains(errOut, "takes no --request") {
		t.Errorf("--redo with --request: exit %d, %s", code, errOut)
	}
}

// TestChatNotesTheWorkspace: a new chat in a folder too large to watch
// says, before its request, that what commands change there cannot be
// undone; a small folder gets no note, and neither does --json.
func TestChatNotesTheWorkspace(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("hi"), ollamatest.Text("hi"), ollamatest.Text("hi")}})
	data, ws := t.TempDir(), t.TempDir()
	chatIn := func(args ...string) string {
		t.Helper()
		code, _, errOut := run(append([]string{"--data-dir", data, "--ollama", srv.URL, "chat", "--model", "m", "--workspace", ws}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return errOut
	}
	if errOut := chatIn("hello"); strings.Contains(errOut, "note:") {
		t.Errorf("a small folder: %s", errOut)
	}
	for i := range 2001 {
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("%04d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if errOut := chatIn("hello"); !strings.Contains(errOut, "note: What shell commands change in this folder cannot be undone") {
		t.Errorf("a folder of 2,001 files: %s", errOut)
	}
	if errOut := chatIn("--json", "hello"); strings.Contains(errOut, "note:") {
		t.Errorf("--json: %s", errOut)
	}
}
