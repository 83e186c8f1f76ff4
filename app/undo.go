package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/tool/files"
	"github.com/shrimp-harness/shrimp/backend/undo"
)

// TypeFilesRestored is published in a session when the user undid the
// file changes of its runs, or took back such an undo (data: [UndoPlan],
// what was done file by file; its redo is true for the latter).
const TypeFilesRestored agent.Type = "files:restored"

// FileHistoryDir is the folder, inside the data folder, where the earlier
// contents of the files runs changed are kept (package undo).
const FileHistoryDir = "file-history"

// UndoShellEnv, set to "off", stops watching what shell commands and MCP
// tools change (in a git work tree two `git status` a call, which a very
// large repository makes slow; elsewhere two walks of the workspace); the
// file tools' changes are still kept.
const UndoShellEnv = "SHRIMP_UNDO_SHELL"

// KeepChangesFor is how long the earlier contents of changed files are
// kept: older changes can no longer be undone.
const KeepChangesFor = 30 * 24 * time.Hour

// UndoPlan is what undoing a session's runs from one on would do: each
// file the file tools changed, and the calls that ran whose changes are
// not known (shell commands and MCP tools where they are not watched),
// which undo does not touch.
type UndoPlan struct {
	undo.Plan
	Untracked []string `json:"untracked"` // the tools of those calls, one entry a call
	// Elsewhere are the tools of the MCP calls that ran, one entry a
	// call: what they changed in the workspace was watched and is among
	// the files, but a server may also act elsewhere (another folder, a
	// service), which undo cannot know or take back.
	Elsewhere []string `json:"elsewhere"`
	// Taught are the procedures those requests taught: a request whose
	// changes are undone may have taught a method that does not work (the
	// user may forget them; undo does not).
	Taught []agentmem.Summary `json:"taught"`
}

// UndoPlan says what undoing the file changes of session's runs from run
// on (the seq of a run's agent:run-started; 0 for the last run with
// changes) would do. It changes nothing.
func (a *App) UndoPlan(ctx context.Context, session string, run int64) (UndoPlan, error) {
	run, err := a.undoFrom(ctx, session, run)
	if err != nil {
		return UndoPlan{}, err
	}
	plan, err := a.Undo.Plan(ctx, session, run)
	if err != nil {
		return UndoPlan{}, err
	}
	return a.annotate(ctx, plan)
}

// UndoFiles undoes the file changes of session id's runs from run on (0: the
// last run with changes), but for the files keep names, while no request
// runs in the session (session.ErrBusy otherwise), and returns what it
// did. The session records it (files:restored, in the timeline) and the
// model's history says so, so the next request knows the files are back.
func (a *App) UndoFiles(ctx context.Context, id string, run int64, keep ...undo.Ref) (UndoPlan, error) {
	var out UndoPlan
	err := a.Runner.Locked(ctx, id, func(ctx context.Context) (err error) {
		out, err = a.undoHeld(ctx, id, run, keep...)
		return err
	})
	if errors.Is(err, session.ErrBusy) {
		return out, fmt.Errorf("%w (%s): undo once it has ended, or stop it first; nothing was changed", session.ErrBusy, id)
	}
	return out, err
}

// undoHeld is UndoFiles while the session is held.
func (a *App) undoHeld(ctx context.Context, id string, run int64, keep ...undo.Ref) (UndoPlan, error) {
	run, err := a.undoFrom(ctx, id, run)
	if err != nil {
		return UndoPlan{}, err
	}
	plan, err := a.Undo.Undo(ctx, id, run, keep...)
	if err != nil {
		return UndoPlan{}, err
	}
	out, err := a.annotate(ctx, plan)
	if err != nil || !plan.Changes() {
		return out, err // every file left as it is: nothing to tell
	}
	return out, a.tellRestored(ctx, id, out)
}

// RedoPlan says what taking back the session's last undo would do. It
// changes nothing; a plan without files means there is nothing to redo.
func (a *App) RedoPlan(ctx context.Context, session string) (UndoPlan, error) {
	if _, err := a.Store.Session(ctx, session); err != nil {
		return UndoPlan{}, err
	}
	plan, err := a.Undo.RedoPlan(ctx, session)
	if err != nil {
		return UndoPlan{}, err
	}
	return redoView(plan), nil
}

// RedoFiles takes back the session's last undo, but for the files keep
// names, while no request runs in the session, and returns what it did;
// the session records it (files:restored, redo) and the model is told.
func (a *App) RedoFiles(ctx context.Context, id string, keep ...undo.Ref) (UndoPlan, error) {
	var out UndoPlan
	err := a.Runner.Locked(ctx, id, func(ctx context.Context) error {
		if _, err := a.Store.Session(ctx, id); err != nil {
			return err
		}
		plan, err := a.Undo.Redo(ctx, id, keep...)
		if err != nil {
			return err
		}
		if out = redoView(plan); !plan.Changes() {
			return nil
		}
		return a.tellRestored(ctx, id, out)
	})
	if errors.Is(err, session.ErrBusy) {
		return out, fmt.Errorf("%w (%s): redo once it has ended, or stop it first; nothing was changed", session.ErrBusy, id)
	}
	return out, err
}

// RedoDiff is the unified diff taking back the session's last undo would
// make to the file at path of workspace.
func (a *App) RedoDiff(ctx context.Context, session, workspace, path string) (string, error) {
	return a.Undo.RedoDiff(ctx, session, workspace, path)
}

// redoView is a redo plan as the callers of UndoPlan see one.
func redoView(p undo.Plan) UndoPlan {
	if p.Files == nil {
		p.Files = []undo.File{}
	}
	return UndoPlan{Plan: p, Untracked: []string{}, Elsewhere: []string{}, Taught: []agentmem.Summary{}}
}

// sessionKnown calls fn with each record of what the session's file
// tools read (one per workspace: App.known); a nil fn drops them.
func (a *App) sessionKnown(id string, fn func(*files.Known)) {
	a.known.Range(func(k, v any) bool {
		if strings.HasPrefix(k.(string), id+"|") {
			if fn == nil {
				a.known.Delete(k)
			} else {
				fn(v.(*files.Known))
			}
		}
		return true
	})
}

// tellRestored tells the model's history and the session what an undo
// or a redo did.
func (a *App) tellRestored(ctx context.Context, id string, out UndoPlan) error {
	// Shrimp put the files back, nobody else changed them: what the
	// session's file tools read or wrote is no longer what a later write
	// should be compared with (a retry writes again what its attempt did).
	a.sessionKnown(id, func(k *files.Known) { k.Forget() }) // a request under way holds it too
	if err := a.Store.AppendMessages(ctx, id, []api.Message{{Role: "user", Content: undoNote(out)}}); err != nil {
		return err
	}
	// Numbered after what another process (the window, a chat beside
	// it) stored in the session since this one last wrote to it.
	if err := a.Recorder.Resync(ctx, id); err != nil {
		return err
	}
	return a.Recorder.Emit(ctx, id, TypeFilesRestored, out)
}

// UndoDiff is the unified diff undoing session's runs from run on (0: the
// last run with changes) would make to the file at path of workspace ("":
// it would not change it).
func (a *App) UndoDiff(ctx context.Context, session string, run int64, workspace, path string) (string, error) {
	run, err := a.undoFrom(ctx, session, run)
	if err != nil {
		return "", err
	}
	return a.Undo.Diff(ctx, session, run, workspace, path)
}

// undoFrom returns run, or when it is 0 the last run of session that
// changed files (an error saying so when none did).
func (a *App) undoFrom(ctx context.Context, session string, run int64) (int64, error) {
	if _, err := a.Store.Session(ctx, session); err != nil {
		return 0, err
	}
	if run > 0 {
		return run, nil
	}
	runs, err := a.Store.FileChanges().Runs(ctx, session)
	if err != nil {
		return 0, err
	}
	for r := range runs {
		run = max(run, r)
	}
	if run == 0 {
		return 0, fmt.Errorf("nothing to undo in session %s: no request changed files Shrimp can put back (with fs.write, fs.edit, shell commands or MCP tools), or their changes are undone already", session)
	}
	return run, nil
}

// annotate adds to plan the calls of its runs that may have changed files
// unknown to it, and the procedures the runs taught.
func (a *App) annotate(ctx context.Context, plan undo.Plan) (UndoPlan, error) {
	out := UndoPlan{Plan: plan, Untracked: []string{}, Elsewhere: []string{}, Taught: []agentmem.Summary{}}
	events, err := a.Store.Events(ctx, plan.Session, max(plan.Run-1, 0))
	if err != nil {
		return out, err
	}
	// The shell's and MCP tools' changes are watched (undo.Watch) unless
	// turned off, in a git work tree or a folder small enough (as the
	// workspace is now).
	sess, err := a.Store.Session(ctx, plan.Session)
	if err != nil {
		return out, err
	}
	watched := a.shellWatched(ctx, sess.Workspace)
	for _, e := range events {
		raw, err := e.RawData()
		if err != nil {
			continue
		}
		switch e.Type {
		case agent.TypeToolResult:
			// A call that ran: one denied, or of a tool that does not
			// exist, changed nothing.
			var r agent.ToolResult
			if json.Unmarshal(raw, &r) != nil || r.Denied || r.Malformed {
				continue
			}
			switch {
			case untracked(r.Name, watched):
				out.Untracked = append(out.Untracked, r.Name)
			case strings.HasPrefix(r.Name, mcp.Prefix):
				out.Elsewhere = append(out.Elsewhere, r.Name)
			}
		case agentmem.TypeLearned:
			var p agentmem.Summary
			if json.Unmarshal(raw, &p) == nil && p.ID != "" {
				out.Taught = append(out.Taught, p)
			}
		}
	}
	if out.Files == nil {
		out.Files = []undo.File{}
	}
	return out, nil
}

// undoShellOn reports whether shell commands are watched for undo at all
// (UndoShellEnv not "off").
func undoShellOn() bool { return os.Getenv(UndoShellEnv) != "off" }

// shellWatched reports whether what shell commands and MCP tools change
// in dir is known to undo: the watch is on and covers the folder (as it
// is now).
func (a *App) shellWatched(ctx context.Context, dir string) bool {
	return undoShellOn() && a.Undo.Covered(ctx, dir)
}

// untracked reports whether a tool may change files without the
// journal knowing: shell commands and MCP tools unless watched.
func untracked(name string, watched bool) bool {
	return !watched && (strings.HasPrefix(name, "shell.") || strings.HasPrefix(name, mcp.Prefix))
}

// undoNote is what the model's history is told of an undo.
func undoNote(p UndoPlan) string {
	var b strings.Builder
	if p.Redo {
		b.WriteString("[Shrimp: the user took back their last undo: the files it put back hold what the requests had written again.")
	} else {
		b.WriteString("[Shrimp: the user undid the file changes of the earlier requests from this point on.")
	}
	for _, f := range p.Files {
		switch {
		case f.Action == undo.Restore && p.Redo:
			fmt.Fprintf(&b, " %s has what the requests wrote again.", f.Path)
		case f.Action == undo.Remove && p.Redo:
			fmt.Fprintf(&b, " %s was removed again.", f.Path)
		case f.Action == undo.Restore:
			fmt.Fprintf(&b, " %s has its earlier content again.", f.Path)
		case f.Action == undo.Remove:
			fmt.Fprintf(&b, " %s was removed (those requests created it).", f.Path)
		case f.Action == undo.Leave:
			fmt.Fprintf(&b, " %s was left as it is now.", f.Path)
		}
	}
	if len(p.Untracked) > 0 {
		b.WriteString(" What shell commands or MCP tools changed was not undone.")
	} else if len(p.Elsewhere) > 0 {
		b.WriteString(" What MCP tools changed outside the workspace was not undone.")
	}
	b.WriteString(" Read a file again before relying on its content.]")
	return b.String()
}

// runCalls follows a run's events for its file journal: the seq of the
// run's start and, by call id, of each call.
type runCalls struct {
	mu    sync.Mutex
	run   undo.Call
	calls map[string]undo.Call
}

// follow passes events on, noting the run's start and its calls first
// (a tool runs only once its call event is taken).
func (c *runCalls) follow(events iter.Seq2[agent.Event, error]) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		for e, err := range events {
			if err == nil {
				c.see(e)
			}
			if !yield(e, err) {
				return
			}
		}
	}
}

func (c *runCalls) see(e agent.Event) {
	switch e.Type {
	case agent.TypeRunStarted:
		c.mu.Lock()
		c.run = undo.Call{Session: e.Session, Run: e.Seq}
		c.mu.Unlock()
	case agent.TypeToolCall:
		var tc agent.ToolCall
		if raw, err := e.RawData(); err != nil || json.Unmarshal(raw, &tc) != nil {
			return
		}
		c.mu.Lock()
		if c.calls == nil {
			c.calls = map[string]undo.Call{}
		}
		call := c.run
		call.Call, call.Tool = e.Seq, tc.Name
		c.calls[tc.ID] = call
		c.mu.Unlock()
	}
}

// at is the call a tool writes for (the run alone when its id is unknown).
func (c *runCalls) at(ctx context.Context) undo.Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	if call, ok := c.calls[agent.CallID(ctx)]; ok {
		return call
	}
	return c.run
}
