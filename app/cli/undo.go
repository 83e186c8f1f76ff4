package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/undo"
)

// undoFlags are the flags of `sessions undo`.
type undoFlags struct {
	request         int
	yes, json, diff bool
	keep            []string // files to leave as they are, as the plan names them
	redo            bool     // take back the last undo
	anyway          []string // shared files to undo all the same
}

// runUndo is `sessions undo ID [--request N | --redo] [--keep PATH]...
// [--diff] [--yes] [--json]`: what undoing the session's file changes (or
// taking back its last undo) would do, then, confirmed, done.
func runUndo(ctx context.Context, e *env, a *app.App, id string, fl undoFlags) error {
	yes, asJSON := fl.yes, fl.json
	verb, past := "undo", "undone"
	planOf := func() (app.UndoPlan, error) {
		run, err := requestRun(ctx, a, id, fl.request)
		if err != nil {
			return app.UndoPlan{}, err
		}
		return a.UndoPlan(ctx, id, run)
	}
	diff := func(p app.UndoPlan, f undo.File) (string, error) {
		return a.UndoDiff(ctx, id, p.Run, f.Workspace, f.Path)
	}
	do := func(p app.UndoPlan, keep []undo.Ref) (app.UndoPlan, error) {
		return a.UndoFiles(ctx, id, p.Run, keep...) // the requests the user was shown
	}
	if fl.redo {
		if fl.request != 0 {
			return fmt.Errorf("%w: --redo takes back the last undo: it takes no --request", errUsage)
		}
		verb, past = "redo", "redone"
		planOf = func() (app.UndoPlan, error) { return a.RedoPlan(ctx, id) }
		diff = func(_ app.UndoPlan, f undo.File) (string, error) { return a.RedoDiff(ctx, id, f.Workspace, f.Path) }
		do = func(_ app.UndoPlan, keep []undo.Ref) (app.UndoPlan, error) { return a.RedoFiles(ctx, id, keep...) }
	}
	plan, err := planOf()
	if err != nil {
		return err
	}
	if fl.redo && len(plan.Files) == 0 {
		return fmt.Errorf("nothing to redo in session %s: no undo of it is left to take back", id)
	}
	keep, err := keptFiles(plan, fl.keep)
	if err != nil {
		return err
	}
	anyway, err := sharedFiles(plan, fl.anyway)
	if err != nil {
		return err
	}
	keep = append(keep, anyway...)
	// Shown as it will be done: the kept files left, the shared ones named
	// undone.
	for i, f := range plan.Files {
		switch {
		case slices.Contains(keep, undo.Ref{Workspace: f.Workspace, Path: f.Path}):
			plan.Files[i].Action, plan.Files[i].Why = undo.Leave, undo.KeptWhy
		case slices.Contains(keep, undo.Ref{Workspace: f.Workspace, Path: f.Path, Anyway: true}):
			plan.Files[i].Action, plan.Files[i].Why, plan.Files[i].Shared = f.Would, "", false
		}
	}
	if !plan.Changes() {
		if asJSON {
			return e.jsonOut().Encode(plan)
		}
		printUndoPlan(e.stdout, plan, false)
		fmt.Fprintf(e.stdout, "Nothing to %s.\n", verb)
		return nil
	}
	if !yes && asJSON {
		return fmt.Errorf("%w: sessions undo --json needs --yes (it acts without asking)", errUsage)
	}
	if !asJSON {
		printUndoPlan(e.stdout, plan, false)
	}
	if fl.diff && !asJSON {
		for _, f := range plan.Files {
			if f.Action != undo.Restore && f.Action != undo.Remove {
				continue // left, kept: no diff
			}
			d, err := diff(plan, f)
			if err != nil {
				return err
			}
			fmt.Fprint(e.stdout, d)
		}
	}
	if !yes {
		ok, err := confirmed(ctx, e, fmt.Sprintf("%s%s these changes?", strings.ToUpper(verb[:1]), verb[1:]),
			fmt.Sprintf("nothing was %s: there is no terminal to ask at; run it again with --yes to %s these changes", past, verb))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(e.stdout, "Nothing was %s.\n", past)
			return nil
		}
	}
	done, err := do(plan, keep)
	if err != nil {
		return err
	}
	if asJSON {
		return e.jsonOut().Encode(done)
	}
	printUndoPlan(e.stdout, done, true)
	return nil
}

// sharedFiles returns, to be undone anyway, the shared files of plan that
// paths name, or a usage error for a path that names none.
func sharedFiles(plan app.UndoPlan, paths []string) ([]undo.Ref, error) {
	var refs []undo.Ref
	for _, p := range paths {
		p = path.Clean(filepath.ToSlash(p))
		i := slices.IndexFunc(plan.Files, func(f undo.File) bool { return f.Path == p && f.Shared })
		if i < 0 {
			return nil, fmt.Errorf("%w: --anyway %s: that file is not one left because another request may have changed it", errUsage, p)
		}
		refs = append(refs, undo.Ref{Workspace: plan.Files[i].Workspace, Path: p, Anyway: true})
	}
	return refs, nil
}

// keptFiles returns the files of plan that paths name (as the plan shows
// them; a path with ./ or a trailing / is the same), or a usage error for
// a path that names none of the files it would change.
func keptFiles(plan app.UndoPlan, paths []string) ([]undo.Ref, error) {
	var refs []undo.Ref
	for _, p := range paths {
		p = path.Clean(filepath.ToSlash(p))
		n := len(refs)
		for _, f := range plan.Files {
			if f.Path == p && f.Changes() {
				refs = append(refs, undo.Ref{Workspace: f.Workspace, Path: f.Path})
			}
		}
		if len(refs) == n {
			var names []string
			for _, f := range plan.Files {
				if f.Changes() {
					names = append(names, f.Path)
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("%w: --keep %s: no file would change", errUsage, p)
			}
			return nil, fmt.Errorf("%w: --keep %s: that file would not change (these would: %s)", errUsage, p, strings.Join(names, ", "))
		}
	}
	return refs, nil
}

// requestRun returns the run of a session's request number n (1 is its
// first), or 0 for n 0: the last request that changed files.
func requestRun(ctx context.Context, a *app.App, id string, n int) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	if n < 0 {
		return 0, fmt.Errorf("%w: --request counts from 1, the session's first request", errUsage)
	}
	events, err := a.Store.Events(ctx, id, 0)
	if err != nil {
		return 0, err
	}
	seen := 0
	for _, ev := range events {
		if ev.Type == agent.TypeRunStarted {
			if seen++; seen == n {
				return ev.Seq, nil
			}
		}
	}
	return 0, fmt.Errorf("session %s has %d requests, not %d (shrimp sessions show %s lists them)", id, seen, n, id)
}

// undoVerbs say what undo does or did to a file.
var undoVerbs = map[string][2]string{
	undo.Restore: {"restore", "restored"},
	undo.Remove:  {"remove", "removed"},
	undo.Same:    {"as before", "as before"},
	undo.Leave:   {"leave", "left"},
}

// printUndoPlan writes a plan, file by file, in the future tense or, done,
// the past.
func printUndoPlan(w io.Writer, p app.UndoPlan, done bool) {
	tense := 0
	if done {
		tense = 1
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range p.Files {
		why := f.Why
		if f.Action == undo.Remove && why == "" {
			why = "Shrimp created it"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", undoVerbs[f.Action][tense], f.Path, why)
	}
	_ = tw.Flush()
	if n := len(p.Untracked); n > 0 {
		fmt.Fprintf(w, "Not undone: what %s changed is not known to Shrimp.\n", callsOf(p.Untracked))
	}
	if n := len(p.Elsewhere); n > 0 {
		fmt.Fprintf(w, "Not undone: what %s changed outside the workspace (another folder, a service) is not known to Shrimp.\n", callsOf(p.Elsewhere))
	}
	for _, t := range p.Taught {
		fmt.Fprintf(w, "It taught procedure %s (%s): shrimp procedures forget %s drops it if its method is wrong.\n", t.ID, t.Chain, t.ID)
	}
}

// callsOf names calls by tool: "2 calls of shell.run and 1 of mcp.git.commit".
func callsOf(tools []string) string {
	var names []string
	count := map[string]int{}
	for _, t := range tools {
		if count[t]++; count[t] == 1 {
			names = append(names, t)
		}
	}
	parts := make([]string, len(names))
	for i, n := range names {
		word := "calls"
		if count[n] == 1 {
			word = "call"
		}
		if i == 0 {
			parts[i] = fmt.Sprintf("%d %s of %s", count[n], word, n)
		} else {
			parts[i] = fmt.Sprintf("%d of %s", count[n], n)
		}
	}
	return strings.Join(parts, " and ")
}

// undo is the conversation's /undo (redo: its /redo): what undoing the
// last request of session that changed files (or taking back the last
// undo) would do, then, confirmed, done.
func (c *chatter) undo(ctx context.Context, session string, redo bool) {
	out := c.e.stderr
	verb, past, plan, err := "undo", "undone", app.UndoPlan{}, error(nil)
	if redo {
		verb, past = "redo", "redone"
	}
	if session == "" {
		fmt.Fprintf(out, "No session yet: nothing to %s.\n", verb)
		return
	}
	if redo {
		plan, err = c.a.RedoPlan(ctx, session)
	} else {
		plan, err = c.a.UndoPlan(ctx, session, 0)
	}
	if err != nil {
		fmt.Fprintf(out, "shrimp: %s\n", oneLine(err))
		return
	}
	printUndoPlan(out, plan, false)
	if !plan.Changes() {
		fmt.Fprintf(out, "Nothing to %s.\n", verb)
		return
	}
	pctx, done := promptContext(ctx)
	c.t.mu.Lock()
	answer, err := c.t.line(pctx, fmt.Sprintf("%s%s these changes? [y/N] ", strings.ToUpper(verb[:1]), verb[1:]))
	c.t.mu.Unlock()
	done()
	if a := strings.ToLower(strings.TrimSpace(answer)); err != nil || (a != "y" && a != "yes") {
		fmt.Fprintf(out, "Nothing was %s.\n", past)
		return
	}
	if redo {
		plan, err = c.a.RedoFiles(ctx, session)
	} else {
		plan, err = c.a.UndoFiles(ctx, session, plan.Run)
	}
	if err != nil {
		fmt.Fprintf(out, "shrimp: %s\n", oneLine(err))
		return
	}
	printUndoPlan(out, plan, true)
}

// sayUndo tells, in plain mode, how many files the run changed that undo
// can put back, and how.
func (c *chatter) sayUndo(ctx context.Context, session string, run int64) {
	if c.p.json || run == 0 {
		return
	}
	runs, err := c.a.Store.FileChanges().Runs(ctx, session)
	if err != nil || runs[run] == 0 {
		return
	}
	how := "shrimp sessions undo " + session
	if c.conversing {
		how = "/undo"
	}
	files, them := "files", "them"
	if runs[run] == 1 {
		files, them = "file", "it"
	}
	fmt.Fprintf(c.p.errw, "shrimp: this request changed %d %s (%s puts %s back)\n", runs[run], files, how, them)
}

// confirmed asks question at the terminal, y or n (no by default). With
// no terminal to ask at it fails with noTerminal, which says how to go on
// without asking.
func confirmed(ctx context.Context, e *env, question, noTerminal string) (bool, error) {
	t := terminalFile(e.stdin)
	if t == nil || terminalFile(e.stderr) == nil {
		return false, errors.New(noTerminal)
	}
	term := newTerminal(t, e.stderr, nil)
	term.mu.Lock()
	answer, err := term.line(ctx, question+" [y/N] ")
	term.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("read the answer: %w", err)
	}
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes", nil
}
