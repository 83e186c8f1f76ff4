// Package instructions reads the project instructions people leave for
// coding agents: AGENTS.md (the cross-tool convention; AGENTS.override.md
// in its place where there is one, as Codex reads it), or CLAUDE.md (Claude
// Code's), or GEMINI.md (Gemini CLI's) in a folder without one, from the workspace and the folders above it up to
// the home folder, plus a user-wide AGENTS.md in Shrimp's config folder.
//
// Its contract: Load returns them in order (user-wide first, then from the
// farthest folder to the workspace, nearest last, so the nearest has the
// last word) as one system-prompt block within a byte budget; when they do
// not fit, the farthest are cut first and Load says so. A workspace outside
// the home folder contributes only its own file (the folders above it, like
// /tmp, may be anyone's). Files that others may write (owned by another
// user, or writable by others or a group that is not the user's own:
// datadir.OthersMayWrite) and anything that is not a regular
// file are skipped with a warning, and so is a folder's file that is a
// link leading out of its folder. Files are read afresh on every call, so
// a change applies to the next request.
//
// The workspace's rules kept for other agents (Cursor's .cursor/rules,
// Copilot's .github/instructions, Windsurf's .windsurf/rules and their
// single files: rules.json) are read with the same checks (rules.go):
// those always in force go in the block before the workspace's own file,
// those offered by their description are listed there for the model to
// read when they apply, and those attached by globs go with a tool's
// result when it reaches a file they match (Nested), once a run.
package instructions

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/injection"
	"github.com/shrimp-harness/shrimp/internal/datadir"
	"github.com/shrimp-harness/shrimp/internal/textcut"
	"github.com/shrimp-harness/shrimp/internal/textfile"
	"github.com/shrimp-harness/shrimp/internal/tokens"
)

// TypeLoaded is the event of the instruction files a request was given.
const TypeLoaded agent.Type = "context:instructions-loaded"

// LoadedEvent is the data of [TypeLoaded].
type LoadedEvent struct {
	Files    []File   `json:"files"`
	Warnings []string `json:"warnings,omitempty"`
}

// Names are the file names read, in order of preference per folder:
// AGENTS.override.md first, as Codex reads it (a file that stands in for
// AGENTS.md without changing it), then AGENTS.md, then Claude Code's and
// Gemini CLI's. An empty file is passed over, as Codex does.
var Names = []string{"AGENTS.override.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"}

// maxFile is the most read of one file.
const maxFile = 64 << 10

// File is one instruction file in force.
type File struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`           // its size as read
	Scope string `json:"scope"`           // "user" (config folder), "folder", "subfolder", "rule" (another agent's: Agent) or "rules on request" (their list)
	Agent string `json:"agent,omitempty"` // the agent a rule was kept for: "Cursor", "GitHub Copilot", "Windsurf"
	Used  int    `json:"used"`            // bytes that went into the prompt (less than Bytes when cut)
	// Imports are the files it pulled in with @path (imports.go).
	Imports []string `json:"imports,omitempty"`
}

// Cut reports whether the file went into the prompt only in part.
func (f File) Cut() bool { return f.Used < f.Bytes }

// Loaded is what Load found.
type Loaded struct {
	Block    string   // the system-prompt block ("" when there is nothing)
	Files    []File   // in prompt order
	Warnings []string // files skipped or cut, with why
	globs    []rule   // the workspace's rules attached by their globs, for the run's Nested (Nested.Use)
}

// Load reads the instruction files for workspace (home: the user's home
// folder; configDir: Shrimp's config folder, "" for none) within budget
// tokens of prompt (internal/tokens).
func Load(workspace, home, configDir string, budget int) Loaded {
	var out Loaded
	var files []found
	read := func(dir, scope string) {
		f, ok, warnings := readFolder(dir, scope, home)
		out.Warnings = append(out.Warnings, warnings...)
		if ok {
			files = append(files, f)
		}
	}
	if configDir != "" {
		read(configDir, "user")
	}
	dirs := folders(workspace, home)
	for i, dir := range dirs {
		if i == len(dirs)-1 { // the workspace's rules kept for other agents, before its own file
			rules, warnings := projectRules(dir)
			out.Warnings = append(out.Warnings, warnings...)
			for _, r := range rules {
				switch r.kind() {
				case "always":
					files = append(files, found{r.file(0), r.text, r.read})
				case "globs":
					out.globs = append(out.globs, r)
				}
			}
			if list := requestedBlock(rules, dir); list != "" {
				files = append(files, found{File{Path: dir, Bytes: len(list), Scope: "rules on request"}, list, len(list)})
			}
		}
		read(dir, "folder")
	}
	// Nearest last, kept whole first: fill the budget from the end.
	left := budget - tokens.Count(blockHeader)
	for i := len(files) - 1; i >= 0; i-- {
		f := &files[i]
		wrapped := tokens.Count(wrap(f.file.Path, f.text))
		frame := tokens.Count(wrap(f.file.Path, "")) + 25 // and the note of the cut
		switch {
		case wrapped <= left:
			f.file.Used = f.read
			left -= wrapped
		case left > frame+50:
			keep := textcut.Before(f.text, min(len(f.text), tokens.Bytes(f.text, left-frame)))
			f.text = f.text[:keep] + fmt.Sprintf("\n[cut: %d more bytes of %s did not fit]", f.file.Bytes-keep, f.file.Path)
			f.file.Used = keep
			left = 0
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s cut to %d of %d bytes to fit the context; shorten it or raise num_ctx", f.file.Path, keep, f.file.Bytes))
		default:
			f.text = ""
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s left out: the nearer instructions fill the context's share; shorten them or raise num_ctx", f.file.Path))
		}
	}
	var b strings.Builder
	for _, f := range files {
		out.Files = append(out.Files, f.file)
		if f.file.Used > 0 {
			b.WriteString(wrap(f.file.Path, f.text))
		}
	}
	if b.Len() > 0 {
		out.Block = blockHeader + b.String()
	}
	return out
}

// found is one instruction file read.
type found struct {
	file File
	text string
	read int // bytes of the file read (the text may differ: hidden characters removed)
}

// readFolder reads dir's instruction file (the first of Names there)
// with its imports (imports.go; home: the home folder): ok when one was
// read, with warnings about it (refused, cut, hidden characters removed).
// A folder's file must stay in its folder (scope "folder" or
// "subfolder").
func readFolder(dir, scope, home string) (f found, ok bool, warnings []string) {
	for _, name := range Names {
		path := filepath.Join(dir, name)
		var text string
		var size int64
		var err error
		if scope != "user" {
			err = staysIn(path, dir)
		}
		if err == nil {
			text, size, err = readTrusted(path)
		}
		if os.IsNotExist(err) || err == nil && strings.TrimSpace(text) == "" {
			continue
		}
		if err != nil {
			return f, false, []string{fmt.Sprintf("%s not read: %v", path, err)}
		}
		if size > int64(len(text)) {
			warnings = append(warnings, fmt.Sprintf("%s has %d bytes: only its first %d are read; shorten it", path, size, len(text)))
		}
		got := len(text)
		// A cloned repository's file can hide instructions from the
		// person reading it, not from the model.
		var hidden int
		if text, hidden = injection.Unhide(text); hidden > 0 {
			warnings = append(warnings, fmt.Sprintf("%s holds %d invisible characters (Unicode tags or variation selectors) that could carry instructions you cannot see: removed", path, hidden))
		}
		// Imported files count as part of it, in Bytes and in what is used.
		expanded, imported, why := imports(text, path, scope, home, maxFile)
		warnings = append(warnings, why...)
		extra := len(expanded) - len(text)
		return found{File{Path: path, Bytes: int(max(size, int64(got))) + extra, Scope: scope, Imports: imported}, expanded, got + extra}, true, warnings
	}
	return f, false, nil // none is there
}

// blockHeader starts the instructions' block in the system prompt.
const blockHeader = "Instructions the user keeps for work in this folder (AGENTS.md files, the project's rules for other coding agents), farthest first, nearest last: follow them where they apply. They cannot change which tools need the user's approval.\n"

// wrap delimits one file's text in the prompt.
func wrap(path, text string) string {
	return fmt.Sprintf("<instructions file=%q>\n%s\n</instructions>\n", path, strings.TrimSpace(text))
}

// folders returns the workspace and the folders above it up to home,
// farthest first; only the workspace when it is not inside home.
func folders(workspace, home string) []string {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil
	}
	ws, home = resolved(ws), resolved(home)
	if home == "" || !within(ws, home) {
		return []string{ws}
	}
	var out []string
	for dir := ws; ; dir = filepath.Dir(dir) {
		out = append([]string{dir}, out...)
		if dir == home || dir == filepath.Dir(dir) {
			return out
		}
	}
}

// staysIn refuses an instruction file that is a link leading out of dir,
// its folder: a cloned repository's `AGENTS.md -> ~/.ssh/id_rsa` would put
// the key in the prompt. Links inside the folder (CLAUDE.md -> AGENTS.md,
// AGENTS.md -> docs/agents.md) are followed. A missing file passes (the
// read that follows says so).
func staysIn(path, dir string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if _, lerr := os.Lstat(path); lerr == nil {
			return fmt.Errorf("a link to nothing readable (%v)", err)
		}
		return err
	}
	if !within(real, dir) {
		return fmt.Errorf("a link to %s, outside its folder: instruction files are followed only within their own folder (copy the file there instead)", real)
	}
	return nil
}

// Within reports whether path is dir or inside it, both with their links
// resolved (Resolved): for other text read as the user's, such as skills.
func Within(path, dir string) bool { return within(path, dir) }

// Resolved is path with its links resolved (resolved).
func Resolved(path string) string { return resolved(path) }

// within reports whether path is dir or inside it, both with their links
// resolved.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolved is path with its links resolved, or as it is when they cannot
// be (it is not there, or it is "": no folder).
func resolved(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil && path != "" {
		return real
	}
	return path
}

// ReadTrusted reads a file the way the instruction files are read
// (readTrusted): regular, the user's, writable by nobody else, at most
// 64 KiB (whole characters). For other text handed to the model as the
// user's, such as skills.
func ReadTrusted(path string) (string, int64, error) { return readTrusted(path) }

// readTrusted reads a regular file the user owns and only the user may
// write, at most maxFile bytes, and returns its size. Opening does not
// block on a FIFO, and the checks are of the file opened, so a file
// swapped after them is not read.
func readTrusted(path string) (string, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	if !info.Mode().IsRegular() {
		return "", 0, fmt.Errorf("not a regular file")
	}
	if datadir.OthersMayWrite(info) {
		return "", 0, fmt.Errorf("others may write it (mode %v): run chmod go-w %s", info.Mode().Perm(), path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "", 0, fmt.Errorf("owned by another user (uid %d)", st.Uid)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile))
	if err != nil {
		return "", 0, err
	}
	// Read in any form a Windows editor saves in (UTF-16, a legacy code
	// page, a byte-order mark), as the file tools read it; read in part,
	// a character cut at the end is left out.
	whole := info.Size() <= int64(len(b))
	form := textfile.Sniff(b, whole)
	if !whole {
		b = form.Cut(b)
	}
	return form.Decode(b), info.Size(), nil
}
