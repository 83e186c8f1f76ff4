package undo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// activity is one shell command's watch. The watch takes every change it
// finds in the workspace for the command's, so what other runs do there
// meanwhile (the window runs several chats at once, often in one
// workspace; `shrimp chat` may run beside it) would be undone with it.
// Each watch is recorded in the store (shell_watches) while it runs, so
// every process knows of the others'; once the command has ended, the
// watches and file-tool writes that overlapped it make its changes
// shared, and undo leaves those.
type activity struct {
	j     *Journal
	at    Call
	id    int64 // its row; 0 when it could not be recorded
	start time.Time

	once   sync.Once
	ended  bool
	shared bool            // another run's command ran in an overlapping workspace meanwhile (or that could not be known)
	wrote  map[string]bool // files (absolute paths) other runs' file tools wrote meanwhile
}

// begin records the start of a command's watch in j's workspace, before
// its first walk.
func (k *Keeper) begin(ctx context.Context, j *Journal) *activity {
	a := &activity{j: j, at: j.at(ctx), start: time.Now().UTC(), wrote: map[string]bool{}}
	id, err := k.Watches.Begin(context.WithoutCancel(ctx), j.workspace, os.Getpid(), a.start)
	if err != nil {
		k.log().Warn("the shell's watch is not recorded: another process's commands meanwhile are not known", "err", err)
	}
	a.id = id
	return a
}

// settle, once the command's changes are found (at the first one
// recorded), ends the watch and finds what else changed files in an
// overlapping workspace while it ran: a watch of another command (of
// this process or another one still running) or a write of another run's
// file tools.
func (k *Keeper) settle(ctx context.Context, a *activity) {
	a.once.Do(func() {
		end := k.end(ctx, a)
		watches, err := k.Watches.During(ctx, a.start, end, a.id)
		if err != nil {
			k.log().Warn("other commands' watches unknown: the command's changes are recorded as shared", "err", err)
			a.shared = true
		}
		for _, w := range watches {
			if (inside(w.Workspace, a.j.workspace) || inside(a.j.workspace, w.Workspace)) && (w.EndedAt != nil || alive(w.PID)) {
				a.shared = true
			}
		}
		rows, err := k.Changes.Between(ctx, a.start, end)
		if err != nil {
			k.log().Warn("other runs' writes unknown: the command's changes are recorded as shared", "err", err)
			a.shared = true
		}
		for _, r := range rows {
			if abs := filepath.Join(r.Workspace, filepath.FromSlash(r.Path)); (r.SessionID != a.at.Session || r.RunSeq != a.at.Run) && inside(a.j.workspace, abs) {
				a.wrote[abs] = true
			}
		}
	})
}

// end records the end of the watch (once) and returns when it ended.
func (k *Keeper) end(ctx context.Context, a *activity) time.Time {
	now := time.Now().UTC()
	if a.ended || a.id == 0 {
		return now
	}
	a.ended = true
	if err := k.Watches.End(context.WithoutCancel(ctx), a.id, now); err != nil {
		k.log().Warn("the end of a shell command's watch is not recorded", "err", err)
	}
	return now
}

// sharedPath reports whether a change the watch found at path p of its
// workspace may be another run's.
func (k *Keeper) sharedPath(ctx context.Context, a *activity, p string) bool {
	k.settle(ctx, a)
	return a.shared || a.wrote[filepath.Join(a.j.workspace, filepath.FromSlash(p))]
}

// sharedWhy is why undo leaves a change recorded as shared.
const sharedWhy = "another request was changing files in this workspace while the command ran, and Shrimp cannot tell whose change this is: undoing it could undo theirs"

// keepWatchesFor is how long ended watches are kept: longer than any
// command runs.
const keepWatchesFor = 24 * time.Hour

// alive reports whether the process pid still runs (a watch it left
// unended was cut short: the process was killed).
func alive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// inside reports whether the path p is dir or lies in it (both absolute
// and clean).
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
