// Package protected says which writes in a workspace must always be asked
// about: files that run commands later or steer later runs (git's hooks
// and config, editor tasks, CI workflows, shell startup files, AGENTS.md,
// Shrimp's own settings). Writing one turns "may write files" into "may
// run commands" or "may instruct every later request", so no stored
// "always" answer covers it.
//
// Its contract: [Check] names the reason a path is protected, or "";
// [Holds] says whether a workspace holds (or lies in) one of the extra
// folders; [Guard] records the protected files of a workspace (top level
// and subfolders, outside other projects' folders) before a call that may
// write anywhere in it (a shell command), and
// [Guarded.Changed] and [Guarded.Restore] find and put back what the call
// did to them. A
// path is protected when the components of a listed path (protected.json,
// compared without regard to case) appear in it in a row, anywhere (so
// sub/.git/config is git's too), or when it lies in one of the extra
// folders given (Shrimp's data and config folders, wherever they are).
package protected

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

//go:embed protected.json
var listJSON []byte

// entry is one protected path.
type entry struct {
	Path string `json:"path"` // slash-separated, relative
	Why  string `json:"why"`
	// Git marks a repository's folder: Guard records its config, hooks
	// and attributes (not its objects), and those of the submodules in
	// it, and tells what git makes apart from a change.
	Git bool `json:"git,omitempty"`
	// Unguarded leaves Path out of Guard: a program the user runs writes
	// there on its own while a command runs (an IDE's state, gpg-agent's
	// random seed and trust database), and putting its writes back would
	// undo them.
	Unguarded bool `json:"unguarded,omitempty"`
	comp      []string
}

var list = mustLoad(listJSON)

func mustLoad(b []byte) []entry {
	var out []entry
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("protected.json: %v", err))
	}
	for i := range out {
		out[i].comp = strings.Split(strings.ToLower(out[i].Path), "/")
	}
	return out
}

// Folder is a folder outside the list whose files are protected.
type Folder struct {
	Dir string
	Why string
}

// Check says why writing path (relative to workspace, or absolute) needs
// the user's answer every time, or "" when it does not. The path is judged
// as written and as it resolves (a link inside the workspace may lead to
// .git).
func Check(workspace, path string, extra ...Folder) string {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workspace, path)
	}
	abs = filepath.Clean(abs)
	if why := check(filepath.Clean(workspace), abs, extra); why != "" {
		return why
	}
	return check(resolve(filepath.Clean(workspace)), resolve(abs), extra)
}

// Holds returns the first of the extra folders that workspace holds or
// lies in (as written or as the links resolve), and false when there is
// none: a shell command the sandbox confines to the workspace may still
// write there.
func Holds(workspace string, extra ...Folder) (Folder, bool) {
	ws := filepath.Clean(workspace)
	for _, f := range extra {
		if f.Dir == "" {
			continue
		}
		dir := filepath.Clean(f.Dir)
		if within(ws, dir) || within(dir, ws) || within(resolve(ws), resolve(dir)) || within(resolve(dir), resolve(ws)) {
			return f, true
		}
	}
	return Folder{}, false
}

// resolve follows the links of the longest part of path that exists.
func resolve(path string) string {
	rest := ""
	for dir := path; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

func check(workspace, abs string, extra []Folder) string {
	for _, f := range extra {
		if f.Dir != "" && (within(filepath.Clean(f.Dir), abs) || within(resolve(filepath.Clean(f.Dir)), abs)) {
			return f.Why
		}
	}
	rel, err := filepath.Rel(workspace, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return "" // outside the workspace: the file tools refuse it anyway
	}
	comps := strings.Split(strings.ToLower(filepath.ToSlash(rel)), "/")
	for _, e := range list {
		for i := 0; i+len(e.comp) <= len(comps); i++ {
			if equal(comps[i:i+len(e.comp)], e.comp) {
				return e.Why
			}
		}
	}
	return ""
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (filepath.IsLocal(rel) || rel == ".")
}
