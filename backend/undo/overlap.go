package undo

import (
	"path/filepath"
	"strings"
)

// activity is one shell command's watch under way. The watch takes every
// change it finds in the workspace for the command's, so what other runs
// do there meanwhile (the window runs several sessions at once, often in
// one workspace) would be undone with it: the keeper notes it, and those
// changes are recorded as shared, which undo leaves.
type activity struct {
	j *Journal
	// shared: another run's command ran in an overlapping workspace
	// during this one, so none of the changes found is surely this one's.
	shared bool
	// wrote holds the files (absolute paths) another run's file tools
	// wrote during the command.
	wrote map[string]bool
}

// begin registers a command's watch in j's workspace, before its first
// walk: a command of another run in a workspace that holds or lies in
// this one makes both shared.
func (k *Keeper) begin(j *Journal) *activity {
	a := &activity{j: j, wrote: map[string]bool{}}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.active == nil {
		k.active = map[*activity]bool{}
	}
	for o := range k.active {
		if o.j != j && (inside(o.j.workspace, j.workspace) || inside(j.workspace, o.j.workspace)) {
			o.shared, a.shared = true, true
		}
	}
	k.active[a] = true
	return a
}

// end unregisters a watch once its changes are recorded.
func (k *Keeper) end(a *activity) {
	k.mu.Lock()
	delete(k.active, a)
	k.mu.Unlock()
}

// wrote tells the watches under way that j's file tools wrote the file at
// abs (absolute).
func (k *Keeper) wrote(j *Journal, abs string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for a := range k.active {
		if a.j != j && inside(a.j.workspace, abs) {
			a.wrote[abs] = true
		}
	}
}

// sharedPath reports whether a change the watch found at path p of its
// workspace may be another run's.
func (k *Keeper) sharedPath(a *activity, p string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return a.shared || a.wrote[filepath.Join(a.j.workspace, filepath.FromSlash(p))]
}

// sharedWhy is why undo leaves a change recorded as shared.
const sharedWhy = "another request was changing files in this workspace while the command ran, and Shrimp cannot tell whose change this is: undoing it could undo theirs"

// inside reports whether the path p is dir or lies in it (both absolute
// and clean).
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
