package instructions

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/shrimp-harness/shrimp/internal/depfolders"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// Subfolders of a project keep their own AGENTS.md (a monorepo's
// packages, a docs folder): the convention is that the nearest file
// applies, and Claude Code reads a subfolder's CLAUDE.md when it works on
// files there. Load reads the workspace and the folders above it; Nested
// hands a run the files of the folders below it as its tools reach into
// them.

// maxNested is the most of one subfolder's file handed out, in bytes: it
// goes into a tool's result, which is cut at 16 KiB.
const maxNested = 8 << 10

// Nested hands out, once per run, the instruction files of the
// workspace's subfolders that a run's tools reach into. Safe for
// concurrent use.
type Nested struct {
	workspace string // with links resolved

	mu    sync.Mutex
	seen  map[string]bool // folders already looked at, and rules given
	rules []rule          // the workspace's rules attached by their globs (Use)
}

// NewNested returns a Nested for a run in workspace.
func NewNested(workspace string) *Nested {
	ws, err := filepath.Abs(workspace)
	if err == nil {
		ws = resolved(ws)
	}
	return &Nested{workspace: ws, seen: map[string]bool{}}
}

// For returns the instruction files of the folders from the workspace
// (not included: its own file is in the system prompt) down to path (a
// file or folder a tool took, relative to the workspace or absolute
// inside it) that this run was not given yet, as a block to put before
// the tool's result ("" for none), with the files and any warnings.
func (n *Nested) For(path string) Loaded {
	var out Loaded
	if path == "" || n.workspace == "" {
		return out
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(n.workspace, path)
	}
	// The nearest folder there is: the path's own, a file's, or for a
	// file being written in folders not made yet, the nearest made.
	dir := filepath.Clean(path)
	for {
		if info, err := os.Stat(dir); (err == nil && info.IsDir()) || dir == filepath.Dir(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || real == n.workspace || !within(real, n.workspace) {
		return n.byGlobs(path)
	}
	rel, _ := filepath.Rel(n.workspace, real)
	n.mu.Lock()
	var b strings.Builder
	var requested []rule
	at := n.workspace
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if depfolders.Is(part) {
			break
		}
		at = filepath.Join(at, part)
		if n.seen[at] {
			continue
		}
		n.seen[at] = true
		own, why := folderRules(at, filepath.ToSlash(strings.TrimPrefix(at, n.workspace+string(filepath.Separator))))
		out.Warnings = append(out.Warnings, why...)
		for _, r := range own {
			switch r.kind() {
			case "always":
				text, used, warning := r.cut("a subfolder's rule")
				if warning != "" {
					out.Warnings = append(out.Warnings, warning)
				}
				out.Files = append(out.Files, r.file(used))
				b.WriteString(wrap(r.path, text))
			case "globs":
				n.rules = append(n.rules, r)
			case "requested":
				requested = append(requested, r)
			}
		}
		f, ok, warnings := readFolder(at, "subfolder", "")
		out.Warnings = append(out.Warnings, warnings...)
		if !ok {
			continue
		}
		if len(f.text) > maxNested {
			keep := textcut.Before(f.text, maxNested)
			f.text = f.text[:keep] + fmt.Sprintf("\n[cut: %d more bytes of %s]", len(f.text)-keep, f.file.Path)
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s cut to %d of %d bytes: a subfolder's instructions go with a tool's result; shorten it", f.file.Path, keep, f.file.Bytes))
			f.read = keep
		}
		f.file.Used = f.read
		out.Files = append(out.Files, f.file)
		b.WriteString(wrap(f.file.Path, f.text))
	}
	if b.Len() > 0 {
		out.Block = "Instructions the user keeps for the folder this tool reached into (AGENTS.md files below the workspace, and the rules kept there for other coding agents), for work on files there: follow them where they apply. They cannot change which tools need the user's approval.\n" + b.String()
	}
	if list := requestedBlock(requested, n.workspace); list != "" {
		out.Block = strings.TrimSpace(out.Block + "\n" + list)
		out.Files = append(out.Files, File{Path: filepath.Dir(requested[0].path), Bytes: len(list), Scope: "rules on request", Used: len(list)})
	}
	n.mu.Unlock()
	// Its rules attached by globs, the subfolders' just read among them.
	rules := n.byGlobs(path)
	out.Block = strings.TrimSpace(out.Block + "\n" + rules.Block)
	out.Files = append(out.Files, rules.Files...)
	out.Warnings = append(out.Warnings, rules.Warnings...)
	return out
}

// Use hands the run the workspace's rules attached by their globs that
// Load read for its request (l), so For gives them beside the results
// of the files they match: read, and their problems said, once.
func (n *Nested) Use(l Loaded) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.rules = l.globs
}

// byGlobs returns the workspace's rules whose globs match path
// (absolute) that this run was not given yet, as a block, cut at
// maxNested each. Called without n.mu.
func (n *Nested) byGlobs(path string) Loaded {
	var out Loaded
	n.mu.Lock()
	defer n.mu.Unlock()
	rel, err := filepath.Rel(n.workspace, filepath.Clean(path))
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return out
	}
	rel = filepath.ToSlash(rel)
	var b strings.Builder
	for _, r := range n.rules {
		if n.seen["rule:"+r.path] || !r.matches(rel) {
			continue
		}
		n.seen["rule:"+r.path] = true
		text, used, warning := r.cut("a rule attached to files")
		if warning != "" {
			out.Warnings = append(out.Warnings, warning)
		}
		out.Files = append(out.Files, r.file(used))
		b.WriteString(wrap(r.path, text))
	}
	if b.Len() > 0 {
		out.Block = "The project's rules for files like the one this tool reached (kept for other coding agents; their globs match it): follow them where they apply. They cannot change which tools need the user's approval.\n" + b.String()
	}
	return out
}

// cut is the rule's text as it goes with a tool's result: at most
// maxNested bytes, with a note of the rest; used, how much of it; and a
// warning naming what (a subfolder's rule, …) when it was cut.
func (r rule) cut(what string) (text string, used int, warning string) {
	if len(r.text) <= maxNested {
		return r.text, r.read, ""
	}
	keep := textcut.Before(r.text, maxNested)
	return r.text[:keep] + fmt.Sprintf("\n[cut: %d more bytes of %s]", len(r.text)-keep, r.path), keep,
		fmt.Sprintf("%s cut to %d of %d bytes: %s goes with a tool's result; shorten it", r.path, keep, r.size, what)
}
