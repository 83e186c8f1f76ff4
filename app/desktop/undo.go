package desktop

import (
	"cmp"
	"context"
	"slices"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/undo"
)

// UndoFile is what undoing does, or did, to one file.
type UndoFile struct {
	Workspace string `json:"workspace"`
	Path      string `json:"path"`   // relative to the workspace
	Action    string `json:"action"` // restore, remove, same or leave (undo's actions)
	Why       string `json:"why"`    // for leave: why the file is left as it is
	Shared    bool   `json:"shared"` // left because another chat may have made the change: the user may undo it anyway
	Would     string `json:"would"`  // for shared: what undoing it anyway does (restore or remove)
}

// UndoView is what undoing the file changes of a session's requests from
// one on would do (or did), as the window shows it before asking.
type UndoView struct {
	Run       int64      `json:"run"` // the seq of the first request's agent:run-started
	Files     []UndoFile `json:"files"`
	Untracked []string   `json:"untracked"` // tools of calls whose changes are not known (shell, MCP)
	Elsewhere []string   `json:"elsewhere"` // tools of MCP calls, which may have acted outside the workspace
	Changes   bool       `json:"changes"`   // whether any file would be restored or removed
	Taught    []Taught   `json:"taught"`    // procedures those requests taught
	Redo      bool       `json:"redo"`      // a redo's: the files get what the requests wrote again
}

// Taught is a procedure a request being undone taught.
type Taught struct {
	ID    string `json:"id"`
	Chain string `json:"chain"`
}

func undoView(p app.UndoPlan) UndoView {
	v := UndoView{Run: p.Run, Files: []UndoFile{}, Untracked: p.Untracked, Elsewhere: p.Elsewhere, Changes: p.Changes(), Taught: []Taught{}, Redo: p.Redo}
	for _, t := range p.Taught {
		v.Taught = append(v.Taught, Taught{ID: t.ID, Chain: t.Chain})
	}
	for _, f := range p.Files {
		v.Files = append(v.Files, UndoFile{Workspace: f.Workspace, Path: f.Path, Action: f.Action, Why: f.Why, Shared: f.Shared, Would: f.Would})
	}
	return v
}

// RunChanges says how many files a request's run changed that are not
// undone yet.
type RunChanges struct {
	Run   int64 `json:"run"` // the seq of its agent:run-started
	Files int   `json:"files"`
}

// ChangedRuns lists the requests of a session whose file changes can be
// undone, in order.
func (c *Chat) ChangedRuns(session string) ([]RunChanges, error) {
	runs, err := c.app.Store.FileChanges().Runs(context.Background(), session)
	if err != nil {
		return nil, err
	}
	out := []RunChanges{}
	for run, n := range runs {
		out = append(out, RunChanges{Run: run, Files: n})
	}
	slices.SortFunc(out, func(a, b RunChanges) int { return cmp.Compare(a.Run, b.Run) })
	return out, nil
}

// UndoPlan says what undoing the file changes of session's requests from
// run on would do (run 0: the last request that changed files). It
// changes nothing.
func (c *Chat) UndoPlan(session string, run int64) (UndoView, error) {
	p, err := c.app.UndoPlan(context.Background(), session, run)
	if err != nil {
		return UndoView{}, err
	}
	return undoView(p), nil
}

// UndoDiff is the unified diff undoing would make to one file of the plan
// ("" when it would leave it as it is).
func (c *Chat) UndoDiff(session string, run int64, workspace, path string) (string, error) {
	return c.app.UndoDiff(context.Background(), session, run, workspace, path)
}

// UndoRef names a file of the plan the user keeps as it is (unticked),
// or, Anyway, a shared one the user undoes all the same (ticked).
type UndoRef struct {
	Workspace string `json:"workspace"`
	Path      string `json:"path"`
	Anyway    bool   `json:"anyway"`
}

// Undo undoes them but for the files keep names (unticked in the dialog)
// and returns what was done; while a request of the session runs it is
// refused, saying so.
func (c *Chat) Undo(session string, run int64, keep []UndoRef) (UndoView, error) {
	p, err := c.app.UndoFiles(context.Background(), session, run, refs(keep)...)
	if err != nil {
		return UndoView{}, err
	}
	return undoView(p), nil
}

// RedoPlan says what taking back the session's last undo would do (no
// files: nothing to redo). It changes nothing.
func (c *Chat) RedoPlan(session string) (UndoView, error) {
	p, err := c.app.RedoPlan(context.Background(), session)
	if err != nil {
		return UndoView{}, err
	}
	return undoView(p), nil
}

// RedoDiff is the unified diff taking back the last undo would make to
// one file of its plan.
func (c *Chat) RedoDiff(session, workspace, path string) (string, error) {
	return c.app.RedoDiff(context.Background(), session, workspace, path)
}

// Redo takes back the session's last undo but for the files keep names,
// and returns what was done; refused while a request of the session runs.
func (c *Chat) Redo(session string, keep []UndoRef) (UndoView, error) {
	p, err := c.app.RedoFiles(context.Background(), session, refs(keep)...)
	if err != nil {
		return UndoView{}, err
	}
	return undoView(p), nil
}

// refs are the files of keep as undo names them.
func refs(keep []UndoRef) []undo.Ref {
	out := make([]undo.Ref, len(keep))
	for i, k := range keep {
		out[i] = undo.Ref(k)
	}
	return out
}
