package app

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/undo"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestUndoARequest: a careless model rewrites a file, edits another,
// creates a third and runs a command; undoing its request puts the files
// back, says the command's changes are not undone, is recorded in the
// session, and the next request's model is told. The request before it
// keeps its change.
func TestUndoARequest(t *testing.T) {
	ws := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if errors.Is(err, os.ErrNotExist) {
			return "<none>"
		}
		return string(b)
	}
	write("README.md", "# My project\n\nHand-written.\n")
	write("main.go", "package main\n\nconst n = 1\n")
	write("old.log", "a log the user keeps\n")
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		// The first request: one change, kept.
		ollamatest.Tools(ollamatest.Call{Name: "fs.edit", Args: map[string]any{"path": "main.go", "old": "const n = 1", "new": "const n = 2"}}),
		ollamatest.Text("n is 2"),
		// The second: the careless one.
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "README.md", "content": "oops\n"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.edit", Args: map[string]any{"path": "main.go", "old": "const n = 2", "new": "const n = 3"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "docs/new.md", "content": "new\n"}}),
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "rm old.log"}}),
		ollamatest.Text("done"),
		// The third, after the undo.
		ollamatest.Text("ok"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "set n to 2", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Workspace: ws, Text: "tidy the project", Approve: approval.ModeAll}); err != nil {
		t.Fatal(err)
	}
	if read("README.md") != "oops\n" || read("main.go") != "package main\n\nconst n = 3\n" || read("docs/new.md") != "new\n" || read("old.log") != "<none>" {
		t.Fatal("the careless request did not run as scripted")
	}

	if err := a.Settle(ctx); err != nil { // the learner has taken the run in
		t.Fatal(err)
	}
	plan, err := a.UndoPlan(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Four calls: the careless request taught a procedure, which the plan
	// names for the user to judge.
	if len(plan.Taught) != 1 || plan.Taught[0].Chain != "fs.write → fs.edit → fs.write → shell.run" {
		t.Errorf("the procedures the request taught: %+v", plan.Taught)
	}
	got := map[string]string{}
	for _, f := range plan.Files {
		got[f.Path] = f.Action
	}
	want := map[string]string{"README.md": undo.Restore, "main.go": undo.Restore, "docs/new.md": undo.Remove, "old.log": undo.Restore}
	if !maps.Equal(got, want) {
		t.Fatalf("the plan for the last request: %v", got)
	}
	// The shell command's changes are known: the workspace is watched.
	if len(plan.Untracked) != 0 {
		t.Errorf("the calls undo cannot know of: %v", plan.Untracked)
	}
	if read("README.md") != "oops\n" {
		t.Fatal("planning changed a file")
	}

	done, err := a.UndoFiles(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Files) != 4 || read("old.log") != "a log the user keeps\n" {
		t.Errorf("undo did: %+v", done.Files)
	}
	if read("README.md") != "# My project\n\nHand-written.\n" {
		t.Errorf("README.md after undo: %q", read("README.md"))
	}
	if read("main.go") != "package main\n\nconst n = 2\n" {
		t.Errorf("main.go after undo: %q (the first request's change must stay)", read("main.go"))
	}
	if read("docs/new.md") != "<none>" {
		t.Errorf("docs/new.md after undo: %q", read("docs/new.md"))
	}

	// Recorded in the session, for the timeline and the chat.
	var restored []agent.Event
	for _, e := range storedEvents(t, a, id) {
		if e.Type == TypeFilesRestored {
			restored = append(restored, e)
		}
	}
	if len(restored) != 1 {
		t.Fatalf("files:restored events stored: %d", len(restored))
	}
	raw, _ := restored[0].RawData()
	if !strings.Contains(string(raw), `"path":"README.md","action":"restore"`) {
		t.Errorf("the event: %s", raw)
	}

	// The session's export says which files each request changed, and
	// which changes are undone.
	exp, err := session.Load(ctx, a.Store, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Runs) != 2 || len(exp.Runs[0].Files) != 1 || exp.Runs[0].Files[0] != (session.ExportFile{Path: "main.go"}) ||
		len(exp.Runs[1].Files) != 4 || exp.Runs[1].Files[2] != (session.ExportFile{Path: "docs/new.md", Created: true, Undone: true}) {
		t.Errorf("the export's files: %+v", exp.Runs)
	}
	if md := exp.Markdown(); !strings.Contains(md, "Files changed by \"tidy the project\":\n\n- README.md (undone)\n- main.go (undone)\n- docs/new.md (created; undone)\n- old.log (undone)\n") {
		t.Errorf("the Markdown export:\n%s", md)
	}

	// The next request's model is told.
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Workspace: ws, Text: "what now?", Approve: approval.ModeAll}); err != nil {
		t.Fatal(err)
	}
	if !told(srv, "the user undid the file changes", "docs/new.md was removed") {
		t.Error("the next request's history does not tell of the undo")
	}

	// Undoing the earlier request now takes main.go back to its start.
	if _, err := a.UndoFiles(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	if read("main.go") != "package main\n\nconst n = 1\n" {
		t.Errorf("main.go after undoing the first request: %q", read("main.go"))
	}
	if _, err := a.UndoFiles(ctx, id, 0); err == nil || !strings.Contains(err.Error(), "nothing to undo in session") {
		t.Errorf("undo with nothing left: %v", err)
	}
}

// TestUndoWaitsForTheRun: a session whose request is running cannot be
// undone under it (session.ErrBusy); an unknown session is an error.
func TestUndoWaitsForTheRun(t *testing.T) {
	ws := t.TempDir()
	release := make(chan struct{})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == "tool" {
			return ollamatest.Text("done")
		}
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "wait") {
			<-release
		}
		return ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "a.txt", "content": "x"}})
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "write a", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	_, events, done, err := a.Chat(context.Background(), ChatOptions{SessionID: id, Workspace: ws, Text: "wait, then write", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	started := make(chan struct{})
	go func() {
		defer close(ended)
		defer done()
		for e := range events {
			if e.Type == agent.TypeRunStarted {
				close(started)
			}
		}
	}()
	<-started
	if _, err := a.UndoFiles(context.Background(), id, 0); !errors.Is(err, session.ErrBusy) || !strings.Contains(err.Error(), "undo once it has ended") {
		t.Errorf("undo during a run: %v", err)
	}
	close(release)
	<-ended
	if _, err := a.UndoFiles(context.Background(), "no-such-session", 0); err == nil {
		t.Error("undo of an unknown session succeeded")
	}
}

// TestUndoAfterAnotherProcess: a session the window wrote in, then
// continued by `shrimp chat --session` (another process), is undone from
// the window: its files:restored is numbered after the other's events,
// not refused for a seq already used.
func TestUndoAfterAnotherProcess(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "a.txt", "content": "window\n"}}),
		ollamatest.Text("one"),
		ollamatest.Text("two"),
	}})
	data, ws := t.TempDir(), t.TempDir()
	window, cli := openApp(t, data, srv.URL), openApp(t, data, srv.URL)
	ctx := context.Background()
	id, _, err := ask(t, window, ChatOptions{Workspace: ws, Text: "write a", Approve: approval.ModeAll, NoMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := window.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ask(t, cli, ChatOptions{SessionID: id, Workspace: ws, Text: "talk", Approve: approval.ModeAll, NoMemory: true}); err != nil {
		t.Fatal(err)
	}
	if err := cli.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := window.UndoFiles(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	events := storedEvents(t, window, id)
	for i, e := range events {
		if i > 0 && e.Seq != events[i-1].Seq+1 {
			t.Errorf("seq %d after %d", e.Seq, events[i-1].Seq)
		}
	}
	if last := events[len(events)-1]; last.Type != TypeFilesRestored {
		t.Errorf("the last event stored is %s, want %s", last.Type, TypeFilesRestored)
	}
}

// TestOverwrittenSecretsStayInFileHistory: a model that overwrites a
// file holding a token leaves that token in no record (database, WAL,
// index, log): the change is recorded by hashes. Only file-history holds
// the earlier content, as SECURITY.md says, so the file can be put back.
func TestOverwrittenSecretsStayInFileHistory(t *testing.T) {
	token := "ghp_" + strings.Repeat("Qw3", 12) // built here, so this file holds no token
	ws, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("GITHUB_TOKEN="+token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": ".env", "content": "GITHUB_TOKEN=\n"}}),
		ollamatest.Text("cleared"),
	}})
	a := openApp(t, data, srv.URL)
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "clear the token in .env", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	inHistory := false
	err = filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), token) {
			if rel, _ := filepath.Rel(data, p); strings.HasPrefix(rel, FileHistoryDir+string(filepath.Separator)) {
				inHistory = true
			} else {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !inHistory {
		t.Error("file-history does not hold the earlier .env: it could not be put back")
	}
	a = openApp(t, data, srv.URL)
	if _, err := a.UndoFiles(context.Background(), id, 0); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".env")); string(b) != "GITHUB_TOKEN="+token+"\n" {
		t.Errorf(".env after undo: %q", b)
	}
}

// TestUntrackedCallsThatRan: the plan names the shell commands that ran,
// not one the user denied.
func TestUntrackedCallsThatRan(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "rm -rf build"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "a.txt", "content": "a\n"}}),
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "true"}}),
		ollamatest.Text("done"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	prompt := func(_ context.Context, r approval.Request, ready func()) (approval.Answer, error) {
		ready()
		return approval.Answer{Allow: !strings.Contains(string(r.Arguments), "rm -rf")}, nil
	}
	id, _, err := ask(t, a, ChatOptions{Workspace: t.TempDir(), Text: "tidy", Approve: approval.ModeAsk, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	// The workspace is a small folder: the shell's changes are watched.
	plan, err := a.UndoPlan(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Untracked) != 0 {
		t.Errorf("untracked calls: %v, want none: the shell is watched", plan.Untracked)
	}
	t.Setenv(UndoShellEnv, "off")
	if plan, err = a.UndoPlan(context.Background(), id, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.Untracked, []string{"shell.run"}) {
		t.Errorf("untracked calls with the watch off: %v, want the one shell.run that ran", plan.Untracked)
	}
}

// TestUndoACommandInAGitRepository: in a git work tree, a careless
// `git checkout -- .` through shell.run, which throws away work nobody
// committed, is undone like a file tool's write, and the plan does not
// call the command's changes unknown.
func TestUndoACommandInAGitRepository(t *testing.T) {
	ws := t.TempDir()
	run := func(command string) {
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", command, err, out)
		}
	}
	run("git init -q && echo committed > notes.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm first && echo 'an hour of work' >> notes.txt")
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "git checkout -- ."}}),
		ollamatest.Text("clean now"),
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "git checkout -- ."}}),
		ollamatest.Text("clean again"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "tidy the repository", Approve: approval.ModeAll})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "committed\n" {
		t.Fatalf("the command did not run as scripted: %q", b)
	}
	plan, err := a.UndoFiles(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || plan.Files[0].Action != undo.Restore || len(plan.Untracked) != 0 {
		t.Errorf("undo did %+v, untracked %v", plan.Files, plan.Untracked)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "committed\nan hour of work\n" {
		t.Errorf("notes.txt after undo: %q", b)
	}

	// With the shell's watch turned off, the same command is not kept.
	t.Setenv(UndoShellEnv, "off")
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Workspace: ws, Text: "tidy it again", Approve: approval.ModeAll}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "committed\n" {
		t.Fatalf("the second command did not run as scripted: %q", b)
	}
	if _, err := a.UndoPlan(context.Background(), id, 0); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("a command run unwatched was recorded: %v", err)
	}
}

// TestFileHistoryPrunedWhileOpen: an open app prunes the file history
// now and then, not only when it opens (a window stays open for weeks):
// a content nothing needs, over an hour old, goes while it is open.
func TestFileHistoryPrunedWhileOpen(t *testing.T) {
	old := PruneEvery
	PruneEvery = 10 * time.Millisecond
	defer func() { PruneEvery = old }()
	data := t.TempDir()
	a := openApp(t, data, "http://127.0.0.1:1")
	stale := filepath.Join(data, FileHistoryDir, "ab", "ab"+strings.Repeat("0", 62))
	if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("nothing needs me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(stale, then, then); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(stale); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stale content is still kept a minute later")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestUndoPastAFormatterHook: a post-tool-call hook that rewrites what
// fs.write wrote (a formatter) does not make undo leave the file as
// "changed since": its change is the call's, and undo takes the file back
// to what it held before the request (a file the request created goes).
// A hook on another tool changes nothing here.
func TestUndoPastAFormatterHook(t *testing.T) {
	format := `for f in *.txt; do tr a-z A-Z < "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done`
	undoPastHooks(t, []hooks.Hook{
		{Event: hooks.PostToolCall, Tool: "fs.write", Command: "/bin/sh", Args: []string{"-c", format}},
		{Event: hooks.PostToolCall, Tool: "shell.run", Command: "/bin/sh", Args: []string{"-c", "echo never > never.txt"}},
	}, []string{"made.txt"}, map[string]string{"notes.txt": "NEW WORDS\n", "made.txt": "MADE\n", "never.txt": "<none>"},
		map[string]string{"notes.txt": undo.Restore, "made.txt": undo.Remove})
}

// TestUndoPastACheckAtTheEnd: what a pre-run-end hook changes (a
// formatter run when the model answers, as Claude Code users put on
// Stop) is the run's change: undoing the request takes the file back to
// what it held before it, and removes the one it made.
func TestUndoPastACheckAtTheEnd(t *testing.T) {
	format := `tr a-z A-Z < notes.txt > notes.tmp && mv notes.tmp notes.txt && echo "formatted" >> CHANGES.md`
	undoPastHooks(t, []hooks.Hook{{Event: hooks.PreRunEnd, Command: "/bin/sh", Args: []string{"-c", format}}},
		nil, map[string]string{"notes.txt": "NEW WORDS\n", "CHANGES.md": "formatted\n"},
		map[string]string{"notes.txt": undo.Restore, "CHANGES.md": undo.Remove})
}

// undoPastHooks runs, with hs in force, a request whose model writes
// "new words" over notes.txt ("hello") and each of made (then answers);
// checks the files as the hooks left them (after: "<none>" for no
// file), undoes the request, and checks it did want, putting notes.txt
// back and removing the rest.
func undoPastHooks(t *testing.T, hs []hooks.Hook, made []string, after, want map[string]string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	replies := []ollamatest.Reply{ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "new words\n"}})}
	for _, f := range made {
		replies = append(replies, ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": f, "content": "made\n"}}))
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: append(replies, ollamatest.Text("written"))})
	a := openApp(t, t.TempDir(), srv.URL)
	cfg := hooks.Config{}
	for _, h := range hs {
		if _, err := cfg.Add(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Save(a.Hooks.File); err != nil {
		t.Fatal(err)
	}
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "write the notes", Approve: approval.ModeAll, NoMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			return "<none>"
		}
		return string(b)
	}
	for name, text := range after {
		if got := read(name); got != text {
			t.Fatalf("after the request %s holds %q, want %q: the hooks did not run as meant", name, got, text)
		}
	}
	done, err := a.UndoFiles(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range done.Files {
		got[f.Path] = f.Action
	}
	if !maps.Equal(got, want) {
		t.Errorf("undo did %v, want %v (%+v)", got, want, done.Files)
	}
	for name := range want {
		if text := read(name); name == "notes.txt" && text != "hello\n" || name != "notes.txt" && text != "<none>" {
			t.Errorf("after undo %s holds %q", name, text)
		}
	}
}

// TestRedoAnUndo: an undo can be taken back from the app: the files get
// what the request wrote again, the session records it (files:restored,
// redo), the next request's model is told, and the request's changes can
// be undone again; with no undo left, a redo changes nothing.
func TestRedoAnUndo(t *testing.T) {
	ws := t.TempDir()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "plan.md", "content": "# Plan\n"}}),
		ollamatest.Text("written"),
		ollamatest.Text("ok"),
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	id, _, err := ask(t, a, ChatOptions{Workspace: ws, Text: "write the plan", Approve: approval.ModeAll, NoMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.UndoFiles(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "plan.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("plan.md after undo: %v", err)
	}
	plan, err := a.RedoPlan(ctx, id)
	if err != nil || !plan.Redo || len(plan.Files) != 1 || plan.Files[0].Action != undo.Restore {
		t.Fatalf("the redo plan: %+v %v", plan, err)
	}
	done, err := a.RedoFiles(ctx, id)
	if err != nil || !done.Changes() {
		t.Fatalf("redo: %+v %v", done, err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "plan.md")); err != nil || string(b) != "# Plan\n" {
		t.Fatalf("plan.md after redo: %q %v", b, err)
	}
	var redone bool
	for _, e := range storedEvents(t, a, id) {
		raw, _ := e.RawData()
		redone = redone || e.Type == TypeFilesRestored && strings.Contains(string(raw), `"redo":true`)
	}
	if !redone {
		t.Error("no files:restored event for the redo")
	}
	if runs, err := a.Store.FileChanges().Runs(ctx, id); err != nil || len(runs) != 1 {
		t.Errorf("the request's changes after the redo: %v %v (want them undoable again)", runs, err)
	}
	if _, _, err := ask(t, a, ChatOptions{SessionID: id, Workspace: ws, Text: "and now?", Approve: approval.ModeAll, NoMemory: true}); err != nil {
		t.Fatal(err)
	}
	if !told(srv, "took back their last undo", "plan.md has what the requests wrote again") {
		t.Error("the next request's history does not tell of the redo")
	}
	again, err := a.RedoFiles(ctx, id)
	if err != nil || again.Changes() {
		t.Errorf("a second redo: %+v %v", again, err)
	}
}

// told reports whether the history of the last request srv answered holds
// a user message with every one of parts.
func told(srv *ollamatest.Server, parts ...string) bool {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return false
	}
	return slices.ContainsFunc(reqs[len(reqs)-1].Chat.Messages, func(m api.Message) bool {
		return m.Role == "user" && !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(m.Content, p) })
	})
}

// TestUndoAnMCPToolsChange: what an MCP server's tool writes in the
// workspace (the filesystem server's write_file, here a tool that writes
// a file while it says it only reads) is watched as a shell command's
// changes are, and undone with the request's other changes; the plan
// still says the call may have acted elsewhere. With the watch off the
// call is untracked, as before.
func TestUndoAnMCPToolsChange(t *testing.T) {
	for _, tc := range []struct {
		name, file, action string
		watch              bool
	}{
		{"replaced", "notes.txt", undo.Restore, true},
		{"created", "made.txt", undo.Remove, true},
		{"watch off", "notes.txt", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if !tc.watch {
				t.Setenv(UndoShellEnv, "off")
			}
			t.Setenv("SHRIMP_MCP_TEST_MARK", filepath.Join(ws, tc.file))
			a := mcpChatApp(t, "mcp.t.tidy")
			ctx := context.Background()
			id, events, err := ask(t, a, ChatOptions{Workspace: ws, Text: "tidy my notes", Approve: approval.ModeAll, NoMemory: true})
			if err != nil {
				t.Fatal(err)
			}
			if rs := toolResults(events); len(rs) != 1 || rs[0].Name != "mcp.t.tidy" || rs[0].Error != "" {
				t.Fatalf("results %+v, want the one tidy call", rs)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, tc.file)); string(b) != "tidied" {
				t.Fatalf("the server did not write %s: %q", tc.file, b)
			}
			plan, err := a.UndoPlan(ctx, id, 0)
			if !tc.watch {
				// Nothing the file tools or a watch recorded: no run to undo.
				if err == nil && len(plan.Files) > 0 {
					t.Errorf("with the watch off the plan has files %+v", plan.Files)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Files) != 1 || plan.Files[0].Path != tc.file || plan.Files[0].Action != tc.action {
				t.Fatalf("plan files %+v, want %s %s", plan.Files, tc.action, tc.file)
			}
			if len(plan.Untracked) != 0 || !slices.Equal(plan.Elsewhere, []string{"mcp.t.tidy"}) {
				t.Errorf("untracked %v, elsewhere %v: want none, and the tidy call", plan.Untracked, plan.Elsewhere)
			}
			if _, err := a.UndoFiles(ctx, id, 0); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(ws, tc.file))
			switch tc.action {
			case undo.Restore:
				if string(b) != "hello\n" {
					t.Errorf("after undo %s holds %q (%v)", tc.file, b, err)
				}
			case undo.Remove:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("after undo %s is still there (%q)", tc.file, b)
				}
			}
		})
	}
}
