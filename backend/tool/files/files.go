// Package files provides the file tools (fs.list, fs.read, fs.write,
// fs.search, fs.edit), jailed to one workspace directory with os.Root: no "..", no
// absolute path outside the workspace, no symlink that leads out, and no
// tool that creates links. Every refusal names the workspace.
//
// Only regular files and directories are read or written: a FIFO, socket
// or device is refused without being waited on (files are opened
// non-blocking and checked before use). fs.write (and fs.edit) replaces a file
// atomically through a uniquely named temporary file that never outlives
// the call, writes through a symlink that stays inside the workspace, and
// refuses a file with more than one hard link (the other names may be
// outside the workspace). With a [Journal], each write first tells it what
// the file held, and is refused when the journal cannot keep it.
//
// A text file is read, searched and previewed as the text it holds in any
// form package textfile reads (UTF-16, Windows-1252, a byte-order mark),
// and fs.write and fs.edit write an existing file back in its form:
// encoding, byte-order mark and CRLF line endings kept, a character its
// encoding has not refused by name. New files are UTF-8.
package files

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/samber/lo"
	"golang.org/x/text/unicode/norm"

	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/backend/tool/shell"
	"github.com/shrimp-harness/shrimp/internal/depfolders"
	"github.com/shrimp-harness/shrimp/internal/gitignore"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/sniff"
	"github.com/shrimp-harness/shrimp/internal/textcut"
	"github.com/shrimp-harness/shrimp/internal/textfile"
)

// Workspace is an opened workspace directory.
type Workspace struct {
	dir  string
	root *os.Root
	// Known is each file as a file tool last read or wrote it (stale.go):
	// the workspace's own from Open; one shared by a session's requests
	// may be set before the tools run.
	Known *Known
	// writing is held through a write or an edit, so that what one checks
	// (a change since a read) is not another's write landing.
	writing sync.Mutex
	// refusedOnce are the calls refused until made again: a placeholder
	// for a file's text (elided.go), a folder named as the workspace
	// (suggest.go).
	refusedOnce confirmed
	// Journal, when set, is told of every file fs.write and fs.edit are
	// about to replace or create, before they do.
	Journal Journal
}

// Journal keeps what a file held before a file tool replaces it, so the
// change can be undone (package undo).
type Journal interface {
	// Keep is called before a file is replaced or created as c says. The
	// write goes ahead only when Keep returns no error, and then calls
	// done, saying whether the file was written.
	Keep(ctx context.Context, c Change) (done func(written bool), err error)
}

// Change is a write a file tool is about to make.
type Change struct {
	Path    string      // relative to the workspace, slash-separated
	Old     io.Reader   // what the file holds now; nil when there is no such file
	Size    int64       // Old's length
	Mode    fs.FileMode // Old's permissions
	Content string      // what it will hold
	// Folders are the folders the write made for a new file (they did
	// not exist), outermost first.
	Folders []string
}

// Open opens dir as the jail for the file tools.
func Open(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w (choose an existing folder: --workspace DIR, or Choose… in the window)", abs, err)
	}
	return &Workspace{dir: abs, root: root, Known: &Known{}}, nil
}

// Dir returns the workspace's absolute path.
func (w *Workspace) Dir() string { return w.dir }

// Close releases the workspace.
func (w *Workspace) Close() error { return w.root.Close() }

// rel turns a path the model gave into one relative to the workspace, or
// refuses it.
func (w *Workspace) rel(p string) (string, error) {
	if p == "" {
		p = "."
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		// Taken as written, it would make a folder named ~ (which a later
		// `rm -rf ~` meant for it would take for the home folder).
		return "", fmt.Errorf("path %q starts with ~, which file tools do not expand: give a path relative to the workspace %s (the shell's ~ is the workspace)", p, w.dir)
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(w.dir, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return "", w.outside(p)
		}
		p = r
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", w.outside(p)
	}
	return w.composed(clean), nil
}

// composed returns the workspace path p as the names on disk spell it
// where p spells a letter otherwise: a name made on a Mac keeps é as e
// and a combining accent (NFD), a model writes é (NFC), and the two look
// the same in every listing. A name is taken when exactly one entry of
// its folder has the same letters; a path of ASCII, or one that is
// there, is returned as it is.
func (w *Workspace) composed(p string) string {
	if isASCII(p) || p == "." {
		return p
	}
	if _, err := w.root.Lstat(p); err == nil {
		return p
	}
	parts := strings.Split(p, "/")
	at := "."
	for i, name := range parts {
		next := path.Join(at, name)
		if _, err := w.root.Lstat(next); err == nil || isASCII(name) {
			at = next
			continue
		}
		entries, err := fs.ReadDir(w.root.FS(), at)
		if err != nil {
			return path.Join(append([]string{at}, parts[i:]...)...)
		}
		want, found := norm.NFC.String(name), ""
		for _, e := range entries {
			if norm.NFC.String(e.Name()) == want {
				if found != "" {
					found = "" // two: neither is plainly meant
					break
				}
				found = e.Name()
			}
		}
		if found == "" {
			return path.Join(append([]string{at}, parts[i:]...)...)
		}
		at = path.Join(at, found)
	}
	return at
}

// isASCII reports whether s is all ASCII (one way to spell each letter).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (w *Workspace) outside(p string) error {
	hint := ""
	if r := strings.TrimLeft(filepath.ToSlash(p), "/"); filepath.IsAbs(p) && r != "" && !strings.HasPrefix(path.Clean(r), "../") {
		if _, err := fs.Stat(w.root.FS(), path.Clean(r)); err == nil {
			hint = fmt.Sprintf(" (%s is in the workspace: give paths relative to it, without the leading /)", path.Clean(r))
		}
	}
	return fmt.Errorf("path %q is outside the workspace %s; use a path inside it%s", p, w.dir, hint)
}

// explain rewrites os.Root's escape errors to name the workspace.
func (w *Workspace) explain(p string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes") {
		return fmt.Errorf("path %q leads outside the workspace %s (through a symlink or ..); use a path inside it", p, w.dir)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &notThere{path: p, msg: fmt.Sprintf("%s does not exist in the workspace %s", p, w.dir)}
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%s is a file, not a folder (or a folder on its path is a file); fs.read reads a file", p)
	}
	return fmt.Errorf("%s: %w", p, err)
}

// notThere is explain's error for a path that does not exist.
type notThere struct{ path, msg string }

// Error says so.
func (e *notThere) Error() string { return e.msg }

// Unwrap is fs.ErrNotExist.
func (e *notThere) Unwrap() error { return fs.ErrNotExist }

// hinted adds to a path the model gave that does not exist the one it
// probably meant (suggest); other errors are returned as they are. Only
// for the path a call names: suggest may look through the workspace.
func (w *Workspace) hinted(err error) error {
	var nt *notThere
	if !errors.As(err, &nt) {
		return err
	}
	r, rerr := w.rel(nt.path)
	if rerr != nil {
		return err
	}
	return &notThere{path: nt.path, msg: nt.msg + w.suggest(r)}
}

// maxRead caps what fs.read returns; the loop cuts further for the model.
const maxRead = 1 << 20

// sniffed is how much of a file's start tells its form (textfile.Of) when
// it is not read whole.
const sniffed = 64 << 10

// ListArgs are fs.list's arguments.
type ListArgs struct {
	Path    string `json:"path,omitempty" jsonschema_description:"directory to list, relative to the workspace (default: the workspace itself)"`
	Pattern string `json:"pattern,omitempty" jsonschema_description:"only the names that match this pattern, such as *.go or test_* (default: all)"`
}

// ReadArgs are fs.read's arguments.
type ReadArgs struct {
	Path   string `json:"path" jsonschema_description:"file to read, relative to the workspace"`
	Offset int    `json:"offset,omitempty" jsonschema_description:"line to start at (1 is the first); negative counts from the end (-50 reads the last 50 lines)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=0" jsonschema_description:"most lines to read (default: to the end)"`
}

// WriteArgs are fs.write's arguments.
type WriteArgs struct {
	Path    string `json:"path" jsonschema_description:"file to write, relative to the workspace; parent directories are created"`
	Content string `json:"content" jsonschema_description:"the complete new content of the file"`
}

// SearchArgs are fs.search's arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema_description:"text to look for (case-insensitive)"`
	Path  string `json:"path,omitempty" jsonschema_description:"directory to search in, relative to the workspace (default: all of it but what .gitignore, hidden and dependency folders hold)"`
}

// Tools returns the file tools for w. A call naming a path that is
// outside the workspace as written (.., an absolute path elsewhere, ~) is
// refused by Vet, before the user is asked about it; one that leads out
// through a link is refused when it runs.
func (w *Workspace) Tools() []tool.Tool {
	return lo.Map([]tool.Tool{
		tool.Define("fs.list", "List the files and directories at a path in the workspace.", true, w.list),
		tool.Define("fs.read", "Read a text file in the workspace, whole or by lines (offset, limit; a negative offset reads its last lines); a picture (PNG, JPEG, GIF, WebP) is shown to a model that can see.", true, w.read),
		tool.Define("fs.write", "Create or overwrite a file in the workspace with the given content.", false, w.write),
		tool.Define("fs.search", "Search the workspace's files for lines containing a text.", true, w.search),
		tool.Define("fs.edit", "Change part of a file in the workspace: replace an exact text with another.", false, w.edit),
	}, func(t tool.Tool, _ int) tool.Tool { return tool.Vetted(t, w.vet) })
}

// vet refuses a call whose path is outside the workspace as written.
func (w *Workspace) vet(args json.RawMessage) error {
	var in struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &in) != nil {
		return nil // the tool says what is wrong when it runs
	}
	_, err := w.rel(in.Path)
	return err
}

func (w *Workspace) list(_ context.Context, in ListArgs) (string, error) {
	p, err := w.rel(in.Path)
	if err != nil {
		return "", err
	}
	if _, err := path.Match(in.Pattern, ""); err != nil {
		return "", fmt.Errorf("pattern %q is not a name pattern (%v): use * for any characters, ? for one, [abc] for one of them, as in *.go", in.Pattern, err)
	}
	entries, err := fs.ReadDir(w.root.FS(), p)
	if err != nil {
		return "", w.hinted(w.explain(in.Path, err))
	}
	var b strings.Builder
	shown, matched, folders := 0, 0, 0
	for _, e := range entries {
		if in.Pattern != "" {
			if ok, _ := path.Match(in.Pattern, e.Name()); !ok {
				continue
			}
		}
		matched++
		if e.IsDir() {
			folders++
		}
		if shown == maxListed {
			continue
		}
		shown++
		switch {
		case e.IsDir():
			fmt.Fprintf(&b, "%s/\n", e.Name())
		case e.Type()&fs.ModeSymlink != 0:
			fmt.Fprintf(&b, "%s@\n", e.Name())
		default:
			size := int64(-1)
			if info, err := e.Info(); err == nil {
				size = info.Size()
			}
			fmt.Fprintf(&b, "%s (%d bytes)\n", e.Name(), size)
		}
	}
	switch {
	case matched > shown:
		fmt.Fprintf(&b, "[the first %d of %d entries (%s, %s), by name; give a pattern such as *.json, or list a folder, to see others]", shown, matched, plural.N(folders, "folder", "folders"), plural.N(matched-folders, "file", "files"))
	case b.Len() == 0 && in.Pattern != "":
		return fmt.Sprintf("(no names match %q among %s)", in.Pattern, plural.N(len(entries), "entry", "entries")), nil
	case b.Len() == 0:
		return "(empty directory)", nil
	}
	return b.String(), nil
}

// maxListed caps fs.list's entries: a folder of 100,000 files listed whole
// was 2.7 MB of output no model reads.
const maxListed = 1000

// openRegular opens a regular file for reading without waiting on it: the
// open is non-blocking (a FIFO with no writer would otherwise hold it
// forever) and anything but a regular file is refused.
func (w *Workspace) openRegular(shown, p string) (*os.File, error) {
	// Stat first for a clear refusal (opening a socket fails with ENXIO),
	// and check the opened file again, since the path may have changed.
	if st, err := w.root.Stat(p); err == nil {
		if err := notRegular(shown, st); err != nil {
			return nil, err
		}
	}
	f, err := w.root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, w.explain(shown, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, w.explain(shown, err)
	}
	if err := notRegular(shown, st); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// notRegular refuses what is not a regular file, saying what it is.
func notRegular(shown string, st os.FileInfo) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s is a directory; use fs.list", shown)
	case m&os.ModeNamedPipe != 0:
		return fmt.Errorf("%s is a named pipe (FIFO), not a file: the file tools only read and write regular files", shown)
	case m&os.ModeSocket != 0:
		return fmt.Errorf("%s is a socket, not a file: the file tools only read and write regular files", shown)
	case m&os.ModeDevice != 0:
		return fmt.Errorf("%s is a device, not a file: the file tools only read and write regular files", shown)
	}
	return fmt.Errorf("%s is not a regular file (%v): the file tools only read and write regular files", shown, m.Type())
}

// readAll reads up to limit+1 bytes, stopping when ctx ends.
func readAll(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	var b []byte
	buf := make([]byte, 64<<10)
	for int64(len(b)) <= limit {
		if err := ctx.Err(); err != nil {
			return b, err
		}
		n, err := r.Read(buf[:min(int64(len(buf)), limit+1-int64(len(b)))])
		b = append(b, buf[:n]...)
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

func (w *Workspace) read(ctx context.Context, in ReadArgs) (string, error) {
	p, err := w.rel(in.Path)
	if err != nil {
		return "", err
	}
	f, err := w.openRegular(in.Path, p)
	if err != nil {
		return "", w.hinted(err)
	}
	defer f.Close()
	if tp, _, err := w.target(in.Path, p); err == nil {
		if info, err := f.Stat(); err == nil {
			w.Known.note(tp, info) // as it is read: a change after this is someone else's
		}
	}
	if in.Offset != 0 || in.Limit != 0 {
		head := make([]byte, sniffed)
		n, err := f.ReadAt(head, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", w.explain(in.Path, err)
		}
		text, err := readLines(ctx, f, textfile.Sniff(head[:n], n < sniffed), in.Offset, in.Limit)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", in.Path, err)
		}
		if kind := sniff.Binary([]byte(text)); kind != "" {
			return "", fmt.Errorf("%s is not a text file (%s): fs.read reads text; to look into it, ask for a shell command such as `file` or `xxd | head`", in.Path, kind)
		}
		return text, nil
	}
	b, err := readAll(ctx, f, maxRead)
	if err != nil {
		return "", w.explain(in.Path, err)
	}
	if kind := sniff.Binary(b); kind != "" {
		if out, ok, err := w.showImage(ctx, f, in.Path, b); ok {
			return out, err
		}
		return "", fmt.Errorf("%s is not a text file (%s, %d bytes): fs.read reads text; to look into it, ask for a shell command such as `file` or `xxd | head`", in.Path, kind, len(b))
	}
	form := textfile.Sniff(b, len(b) <= maxRead)
	if len(b) > maxRead {
		text := form.Decode(form.Cut(b[:maxRead]))
		return text[:textcut.Before(text, min(len(text), maxRead))], fmt.Errorf("%s is larger than %d bytes; only the start was read: read on by lines with offset and limit, or its end with offset -100", in.Path, maxRead)
	}
	return form.Decode(b), nil
}

// showImage shows the model the picture fs.read was asked to read (head
// is its start, f the open file) when the model can see (attach.CanShow):
// ok reports whether it was a picture the call could show.
func (w *Workspace) showImage(ctx context.Context, f *os.File, shown string, head []byte) (out string, ok bool, err error) {
	if !attach.CanShow(ctx) || !attach.Sniffed(head) {
		return "", false, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", false, nil
	}
	b, err := readAll(ctx, f, attach.MaxBytes)
	if err != nil {
		return "", true, w.explain(shown, err)
	}
	img, err := attach.Parse(shown, b)
	if err != nil {
		return "", true, err
	}
	if err := attach.Show(ctx, img); err != nil {
		return "", true, err
	}
	return fmt.Sprintf("[the image %s (%s, %d×%d) is attached to this result]", shown, img.Type, img.Width, img.Height), true, nil
}

// user is who a process runs as, for writable.
type user struct {
	uid    int
	groups []int // its group and its supplementary groups
}

// processUser is the user this process runs as, looked up once (every
// write, preview and doubt asks).
var processUser = sync.OnceValue(func() user {
	groups, _ := os.Getgroups()
	return user{uid: os.Getuid(), groups: append(groups, os.Getgid())}
})

// writable refuses a file u could not write in place: one marked
// read-only (its owner may not write it: a file the user protected, a
// generated file, a Perforce file before p4 edit, Go's module cache), or
// another user's file whose permissions keep u from writing it. fs.write
// and fs.edit replace a file by renaming a new one over it, which the
// folder's permissions allow whatever the file's: without this they
// changed files an editor refuses to save (and gave another user's file
// to this one). Root is refused a read-only file too: the mark says what
// its owner wants, whoever runs Shrimp.
func writable(shown string, st fs.FileInfo, u user) error {
	perm := st.Mode().Perm()
	if perm&0o200 == 0 {
		return fmt.Errorf("%s is read-only (mode %04o), which is usually meant: a generated file, a file under Perforce not yet opened with p4 edit, a file the user protected; tell the user, or if it is meant to change, make it writable first (chmod u+w %s) and then write it", shown, perm, shell.Quote(shown))
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || u.uid == 0 || int(sys.Uid) == u.uid {
		return nil
	}
	bit := fs.FileMode(0o002)
	if lo.Contains(u.groups, int(sys.Gid)) {
		bit = 0o020
	}
	if perm&bit == 0 {
		return fmt.Errorf("%s belongs to another user (uid %d), whose permissions (mode %04o) do not let this user write it; writing it would make it this user's: tell the user", shown, sys.Uid, perm)
	}
	return nil
}

// maxLinks is how many symlinks fs.write follows to find the file to write.
const maxLinks = 40

// target resolves the file fs.write writes: through symlinks that stay
// inside the workspace, refusing anything but a regular file with one
// link. It returns the path to write (relative to the workspace) and the
// file's information (nil when it does not exist yet).
func (w *Workspace) target(shown, p string) (string, os.FileInfo, error) {
	for range maxLinks {
		st, err := w.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, w.explain(shown, err)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			if err := notRegular(shown, st); err != nil {
				return "", nil, err
			}
			if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink > 1 {
				return "", nil, fmt.Errorf("%s has %d hard links, so writing it would change a file that may be outside the workspace %s; write a new file instead", shown, sys.Nlink, w.dir)
			}
			if err := writable(shown, st, processUser()); err != nil {
				return "", nil, err
			}
			return p, st, nil
		}
		dest, err := w.root.Readlink(p)
		if err != nil {
			return "", nil, w.explain(shown, err)
		}
		if !filepath.IsAbs(dest) {
			dest = path.Join(path.Dir(p), filepath.ToSlash(dest))
		}
		next, err := w.rel(dest)
		if err != nil || next == "." {
			return "", nil, fmt.Errorf("%s is a symlink that leads outside the workspace %s; write a path inside it", shown, w.dir)
		}
		p = next
	}
	return "", nil, fmt.Errorf("%s goes through more than %d symlinks", shown, maxLinks)
}

func (w *Workspace) write(ctx context.Context, in WriteArgs) (string, error) {
	w.writing.Lock()
	defer w.writing.Unlock()
	pl, err := w.planWrite(ctx, in)
	if err != nil {
		return "", err
	}
	if err := w.once(ctx, "fs.write", pl.path, in.Content).refuse("fs.write", pl.path, w.writeDoubts(pl, in.Content)); err != nil {
		return "", err
	}
	content, tabbed := pl.given(in.Content)
	text, b, err := spelt(pl.form, content)
	if err != nil {
		return "", unwritable(in.Path, pl.form, err)
	}
	if pl.st != nil && pl.old != "" && text == pl.old {
		return fmt.Sprintf("%s already holds exactly this content: nothing changed", pl.target), nil
	}
	var made []string // only now: a refused write makes no folder
	if dir := path.Dir(pl.path); dir != "." {
		made = w.missing(dir)
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return "", w.explain(in.Path, err)
		}
	}
	if err := w.put(ctx, in.Path, pl.target, pl.st, string(b), made...); err != nil {
		return "", err
	}
	kept := ""
	if !pl.form.Plain() || pl.form.CRLF {
		kept = fmt.Sprintf(" (%s, as the file was)", pl.form)
	}
	kept += tabbedNote(tabbed)
	return fmt.Sprintf("wrote %s to %s%s", plural.N(len(b), "byte", "bytes"), pl.target, kept), nil
}

// writePlan is an fs.write resolved: the file it writes and what that
// holds now. The write, its preview and its doubts start from one.
type writePlan struct {
	path   string      // the workspace path the call names
	target string      // the file written: path, through links
	st     fs.FileInfo // the file there now; nil for a new one
	old    string      // its text ("" when new, or when why says it has none)
	why    string      // why the file there has no text (current)
	form   textfile.Form
}

// given is what a write of content writes: a makefile's recipe lines
// given their tab (makefile.go), and the line break that ended the file's
// last line when content lacks one: models drop it (a JSON string's last
// "\n"), and diffs then show the last line changed ("\ No newline at end
// of file"). tabbed is how many recipe lines were given a tab.
func (pl writePlan) given(content string) (string, int) {
	content, tabbed := recipeTabs(pl.path, content)
	if strings.HasSuffix(pl.old, "\n") && content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	return content, tabbed
}

// planWrite resolves an fs.write: an error when it cannot be made (a path
// outside the workspace or the workspace itself, a new name with an
// invisible character, a link out, a file that cannot be read).
func (w *Workspace) planWrite(ctx context.Context, in WriteArgs) (writePlan, error) {
	var pl writePlan
	p, err := w.rel(in.Path)
	if err != nil {
		return pl, err
	}
	if p == "." {
		return pl, fmt.Errorf("fs.write needs a file path, not the workspace itself")
	}
	if err := w.plainNames(in.Path, p); err != nil {
		return pl, err
	}
	pl.path = p
	if pl.target, pl.st, err = w.target(in.Path, p); err != nil {
		return pl, err
	}
	if pl.st != nil {
		if pl.old, pl.form, pl.why, err = w.current(ctx, in.Path, pl.target); err != nil {
			return pl, err
		}
	}
	return pl, nil
}

// plainNames refuses a path whose names to be made (those not there yet;
// one that is there may be written) are not plain (plainName).
func (w *Workspace) plainNames(shown, p string) error {
	if _, err := w.root.Lstat(p); err == nil {
		return nil
	}
	if inner, ok := unquoted(shown); ok && len(shown) > 2 {
		return fmt.Errorf("path %q is wrapped in quotes: they would be part of the file's name; write the path without them (%q)", shown, inner)
	}
	parts := strings.Split(p, "/")
	i := 0
	for i < len(parts)-1 { // the folders that are there
		if _, err := w.root.Lstat(path.Join(parts[:i+1]...)); err != nil {
			break
		}
		i++
	}
	for _, name := range parts[i:] {
		if err := plainName(shown, name); err != nil {
			return err
		}
	}
	return nil
}

// quotes are the marks a model wraps a name in when it writes it as it
// would in prose or Markdown.
const quotes = "'\"`"

// unquoted reports whether s is wrapped in one kind of quotes, and what
// they wrap, blanks around it trimmed.
func unquoted(s string) (string, bool) {
	if len(s) < 2 || strings.IndexByte(quotes, s[0]) < 0 || s[len(s)-1] != s[0] {
		return "", false
	}
	return strings.TrimSpace(s[1 : len(s)-1]), true
}

// plainName refuses a name to be made that holds a control or invisible
// character (a name with a line break, an escape sequence or a bidi
// control reads as another name in a listing: notes\u202etxt.sh shows as
// notesht.txt; and breaks the scripts that read it), that starts or ends
// with a space, or that is wrapped in quotes or backquotes: a model's
// slip ("main.go " or "`main.go`" for main.go) that leaves a file nobody
// finds by its name. shown is the path as the call gave it.
func plainName(shown, name string) error {
	for i, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("path %q holds an invisible or control character (%U, byte %d of %q): a file name with one reads as another name in a listing and breaks scripts; choose a name of visible characters", shown, r, i, name)
		}
	}
	if trimmed := strings.TrimSpace(name); trimmed != name {
		return fmt.Errorf("path %q has a name that starts or ends with a space (%q): write the path without it (%q), or choose another name", shown, name, trimmed)
	}
	if inner, ok := unquoted(name); ok {
		return fmt.Errorf("path %q has a name wrapped in quotes (%s): the quotes would be part of the file's name; write the path without them (%q)", shown, name, inner)
	}
	return nil
}

// current reads the workspace file p (named as the model gave it: shown)
// for fs.write: its text and its form, which the write keeps (encoding,
// byte-order mark, line endings). A file that is not text (written as
// given), or larger than maxRead, has no text: why says which ("" when it
// has).
func (w *Workspace) current(ctx context.Context, shown, p string) (text string, form textfile.Form, why string, err error) {
	f, err := w.openRegular(shown, p)
	if err != nil {
		return "", form, "", err
	}
	defer f.Close()
	b, err := readAll(ctx, f, maxRead)
	if err != nil {
		return "", form, "", w.explain(shown, err)
	}
	if kind := sniff.Binary(b); kind != "" {
		return "", form, fmt.Sprintf("%s is not text (%s)", p, kind), nil
	}
	if len(b) > maxRead {
		return "", textfile.Of(b[:sniffed], false), fmt.Sprintf("%s is larger than %d bytes", p, maxRead), nil
	}
	text, form = textfile.Read(b)
	return text, form, "", nil
}

// spelt is what fs.write writes of content over a file of the given
// form: the text with the file's line endings, and its bytes (an error
// when the encoding cannot hold it). A byte-order mark the content starts
// with goes when the form writes one: it would be a second.
func spelt(form textfile.Form, content string) (string, []byte, error) {
	if form.BOM {
		content = strings.TrimPrefix(content, "\ufeff")
	}
	text := form.Text(content)
	b, err := form.Encode(text)
	return text, b, err
}

// unwritable is the refusal of text the file's encoding cannot hold (err
// from textfile's Encode), saying what the model can do instead.
func unwritable(shown string, form textfile.Form, err error) error {
	return fmt.Errorf("%s was not written: the file is not UTF-8 but read as %s, and %w; leave those characters out or spell them otherwise, or, if it should be UTF-8, first convert the file (iconv -f %s -t UTF-8)", shown, form.Encoding, err, strings.ToUpper(form.Encoding.String()))
}

// put writes content to the workspace file p (named as the model gave
// it: given), keeping the mode of the file it replaces (st, nil for a new
// file). It writes a uniquely named temporary file and renames it over the
// target, so a crash never leaves half a file and two writes never share
// one.
func (w *Workspace) put(ctx context.Context, given, p string, st fs.FileInfo, content string, made ...string) error {
	mode := fs.FileMode(0o644)
	if st != nil {
		mode = st.Mode().Perm()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	kept, err := w.keep(ctx, given, p, st, content, made)
	if err != nil {
		return err
	}
	done := false
	defer func() { kept(done) }()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := fmt.Sprintf("%s.%x.shrimp-tmp", p, rnd)
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return w.explain(given, err)
	}
	defer func() {
		if !done {
			_ = w.root.Remove(tmp)
		}
	}()
	if _, err := io.WriteString(f, content); err != nil {
		f.Close()
		return w.explain(given, err)
	}
	if err := f.Close(); err != nil {
		return w.explain(given, err)
	}
	if err := w.root.Rename(tmp, p); err != nil {
		return w.explain(given, err)
	}
	done = true
	if info, err := w.root.Lstat(p); err == nil {
		w.Known.note(p, info)
	}
	return nil
}

// keep tells the journal what p holds before it is replaced with
// content (st: its information, nil when it does not exist; made: the
// folders made for it) and returns what to call once the write is over,
// saying whether it was done.
func (w *Workspace) keep(ctx context.Context, given, p string, st fs.FileInfo, content string, made []string) (func(bool), error) {
	if w.Journal == nil {
		return func(bool) {}, nil
	}
	c := Change{Path: p, Content: content, Folders: made}
	if st != nil {
		f, err := w.openRegular(given, p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		c.Old, c.Size, c.Mode = f, st.Size(), st.Mode().Perm()
	}
	done, err := w.Journal.Keep(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%s was not written: its earlier content could not be kept for undo: %w", given, err)
	}
	return done, nil
}

// missing returns dir and those of its parents that do not exist in the
// workspace, outermost first.
func (w *Workspace) missing(dir string) []string {
	var out []string
	for ; dir != "."; dir = path.Dir(dir) {
		if _, err := w.root.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		out = append([]string{dir}, out...)
	}
	return out
}

// maxMatches caps fs.search's output, maxLine each line it shows: a
// matching line of minified code or data can run to a megabyte, and 200 of
// them were all kept (behind an output handle) for one call.
const (
	maxMatches = 200
	maxLine    = 300
	// maxSkipped is how many skipped folders fs.search names.
	maxSkipped = 5
)

// shown is line as fs.search shows it: whole when short, else maxLine bytes
// around the match at i, marked where cut.
func shown(line string, i int) string {
	trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
	line, i = strings.TrimRightFunc(trimmed, unicode.IsSpace), i-(len(line)-len(trimmed))
	if len(line) <= maxLine {
		return line
	}
	start := max(0, min(i-maxLine/3, len(line)-maxLine))
	out := strings.ToValidUTF8(line[start:start+maxLine], "")
	if start > 0 {
		out = "…" + out
	}
	if start+maxLine < len(line) {
		out += "…"
	}
	return out
}

// folder finds a lower-cased query in lines, by offsets in the line as
// written: lower case can be shorter or longer than the text (İ is two
// bytes, its i one; the Kelvin sign K three, k one), so an offset in
// strings.ToLower(line) points elsewhere in line, and on a long line the
// part shown could miss the match. Its buffers are reused line to line.
type folder struct {
	lower []byte
	from  []int // for each byte of lower, the offset in line it came from
}

// index returns the offset in line where q (lower case) starts when line
// is lower-cased, or -1. Invalid UTF-8 is matched byte for byte.
func (f *folder) index(line, q string) int {
	f.lower, f.from = f.lower[:0], f.from[:0]
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		n := len(f.lower)
		if r == utf8.RuneError && size == 1 {
			f.lower = append(f.lower, line[i])
		} else {
			f.lower = utf8.AppendRune(f.lower, unicode.ToLower(r))
		}
		for range len(f.lower) - n {
			f.from = append(f.from, i)
		}
		i += size
	}
	j := bytes.Index(f.lower, []byte(q))
	if j < 0 {
		return -1
	}
	return f.from[j]
}

// maxSearchLine is how much of one line fs.search reads: the first MiB of a
// longer one (a bundle, a data dump) is searched, the rest skipped, and the
// lines after it are searched as usual (a bufio.Scanner stopped at such a
// line and left the rest of the file unsearched, without a word).
const maxSearchLine = 1 << 20

// readLine reads the next line into buf without its line ending, keeping
// its first maxSearchLine bytes; ok is false at the end of the file or on
// a read error.
func readLine(r *bufio.Reader, buf []byte) ([]byte, bool) {
	for {
		part, isPrefix, err := r.ReadLine()
		if err != nil { // ReadLine returns data or an error, never both
			return buf, len(buf) > 0
		}
		if room := maxSearchLine - len(buf); room > 0 {
			buf = append(buf, part[:min(len(part), room)]...)
		}
		if !isPrefix {
			return buf, true
		}
	}
}

func (w *Workspace) search(ctx context.Context, in SearchArgs) (string, error) {
	p, err := w.rel(in.Path)
	if err != nil {
		return "", err
	}
	q := strings.ToLower(in.Query)
	if q == "" {
		return "", errors.New("query is empty")
	}
	var fold folder
	f, err := w.find(ctx, p, func(line string) int { return fold.index(line, q) })
	if err != nil {
		return "", w.hinted(w.explain(in.Path, err))
	}
	head := ""
	if len(f.matches) == 0 && strings.ContainsAny(in.Query, `|\^$[](){}*+?`) {
		// Written for a grep that reads regular expressions (TODO|FIXME,
		// func\s+main): read so when it is found nowhere as written. RE2
		// takes time in proportion to the text, whatever the expression.
		if re, err := regexp.Compile("(?i)" + in.Query); err == nil {
			g, err := w.find(ctx, p, func(line string) int {
				if m := re.FindStringIndex(line); m != nil {
					return m[0]
				}
				return -1
			})
			if err == nil && len(g.matches) > 0 {
				f, head = g, fmt.Sprintf("[no line holds %q as written; read as a regular expression, it matches:]\n", in.Query)
			}
		}
	}
	var out string
	if len(f.matches) == 0 {
		out = fmt.Sprintf("no lines contain %q", in.Query)
	} else {
		sort.Strings(f.matches)
		out = head + strings.Join(f.matches, "\n")
	}
	if f.more {
		out += fmt.Sprintf("\n[stopped after %d matches; narrow the query or the path]", maxMatches)
	}
	return out + notSearched(f.skipped, f.ignored), nil
}

// found is what a search found, and where it did not look.
type found struct {
	matches []string
	skipped []string // hidden and dependencies' folders, named in the output
	ignored []string // what .gitignore leaves out, named too
	more    bool     // stopped at maxMatches
}

// find looks through the workspace folder (or file) p for lines that
// match (match returns where in the line, -1 for nowhere).
func (w *Workspace) find(ctx context.Context, p string, match func(string) int) (found, error) {
	var res found
	var buf []byte // reused for every line
	rules := w.ignoreRules(p)
	err := w.walk(p, rules, func(name string, d fs.DirEntry) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if name != p && rules.Ignored(name, d.IsDir()) && d.Name() != ".git" {
			res.ignored = append(res.ignored, name)
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if name != p && (strings.HasPrefix(d.Name(), ".") || depfolders.Is(d.Name())) {
				if d.Name() != ".git" { // git's own files: never what is asked for
					res.skipped = append(res.skipped, name)
				}
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := w.openRegular(name, name)
		if err != nil {
			return nil
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 64<<10)
		head, _ := r.Peek(8 << 10)
		kind := sniff.Binary(head) // like grep: a binary file's match is named, not shown
		if form := textfile.Sniff(head, len(head) < 8<<10); kind == "" && !form.Plain() {
			r = bufio.NewReaderSize(form.Reader(r), 64<<10) // UTF-16 or Windows-1252 searched as the text it is
		}
		for line := 1; ; line++ {
			if line%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			text, ok := readLine(r, buf)
			if !ok {
				return nil
			}
			buf = text[:0]
			str := string(text)
			if i := match(str); i >= 0 {
				if len(res.matches) == maxMatches {
					res.more = true
					return fs.SkipAll
				}
				if kind != "" {
					res.matches = append(res.matches, fmt.Sprintf("%s: holds it (%s, not shown)", name, kind))
					return nil
				}
				res.matches = append(res.matches, fmt.Sprintf("%s:%d: %s", name, line, shown(str, i)))
			}
		}
	})
	return res, err
}

// walk calls fn for root and, in name order, for what is below it, as
// fs.WalkDir does (fs.SkipDir, fs.SkipAll; unreadable entries are
// skipped), adding each folder's .gitignore to rules before its entries
// are visited: found among the entries it reads anyway, where asking for
// one in every folder doubled a search's time.
func (w *Workspace) walk(root string, rules *gitignore.Rules, fn func(name string, d fs.DirEntry) error) error {
	fsys := w.root.FS()
	info, err := fs.Stat(fsys, root)
	if err != nil {
		return err
	}
	err = w.walkDir(fsys, root, fs.FileInfoToDirEntry(info), rules, fn)
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func (w *Workspace) walkDir(fsys fs.FS, name string, d fs.DirEntry, rules *gitignore.Rules, fn func(string, fs.DirEntry) error) error {
	if err := fn(name, d); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			err = nil
		}
		return err
	}
	entries, err := fs.ReadDir(fsys, name)
	if err != nil {
		return nil // unreadable: skipped
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			w.addIgnores(rules, name)
		}
	}
	for _, e := range entries {
		if err := w.walkDir(fsys, path.Join(name, e.Name()), e, rules, fn); err != nil {
			if errors.Is(err, fs.SkipDir) {
				break
			}
			return err
		}
	}
	return nil
}

// ignoreRules returns the ignore rules that hold for a search of the
// workspace folder dir: what holds from outside the workspace
// (gitignore.Outside: the user's global excludes, the repository's
// info/exclude, and the .gitignore files above the workspace when it is
// a package of a larger repository), then the .gitignore files of the
// workspace's folders above dir. dir's own, and those below, are added as
// the walk enters them.
func (w *Workspace) ignoreRules(dir string) *gitignore.Rules {
	rules := gitignore.Outside(w.dir, gitignore.CurrentUser())
	var above []string
	for d := dir; d != "."; {
		d = path.Dir(d)
		above = append([]string{d}, above...)
	}
	for _, d := range above {
		w.addIgnores(rules, d)
	}
	return rules
}

// addIgnores adds the patterns of the workspace folder dir's .gitignore,
// if it has one.
func (w *Workspace) addIgnores(rules *gitignore.Rules, dir string) {
	if b, err := w.readSmall(path.Join(dir, ".gitignore")); err == nil {
		rules.Add(dir, b)
	}
}

// readSmall reads a regular workspace file of at most gitignore.MaxFile
// bytes (a link leading out of the workspace is not followed).
func (w *Workspace) readSmall(p string) ([]byte, error) {
	f, err := w.openRegular(p, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, gitignore.MaxFile+1))
	if err != nil || len(b) > gitignore.MaxFile {
		return nil, fmt.Errorf("%s: unreadable or over %d bytes", p, gitignore.MaxFile)
	}
	return b, nil
}

// notSearched says which folders fs.search skipped and what .gitignore
// left out ("" for none): without it, "no lines contain" read as "not in
// the project" when the answer was in .github/workflows or a dependency.
func notSearched(skipped, ignored []string) string {
	if len(skipped) == 0 && len(ignored) == 0 {
		return ""
	}
	var parts []string
	if len(skipped) > 0 {
		parts = append(parts, named(skipped)+" (hidden folders and dependencies)")
	}
	if len(ignored) > 0 {
		parts = append(parts, named(ignored)+" (.gitignore leaves out)")
	}
	return fmt.Sprintf("\n[not searched: %s; give one as path to search it]", strings.Join(parts, "; "))
}

// named names paths, maxSkipped at most, and how many more there are.
func named(paths []string) string {
	names := paths[:min(len(paths), maxSkipped)]
	more := ""
	if n := len(paths) - len(names); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return strings.Join(names, ", ") + more
}

// WritePreview returns a unified diff of what fs.write with these
// arguments would change, for the approval dialog ("" when the arguments
// do not parse or the path is refused). It never waits on a FIFO or a
// device, and stops when ctx ends.
func (w *Workspace) WritePreview(ctx context.Context, args []byte) string {
	var in WriteArgs
	if json.Unmarshal(args, &in) != nil {
		return ""
	}
	if _, err := w.rel(in.Path); err != nil {
		return "" // refused before anyone is asked
	}
	pl, err := w.planWrite(ctx, in)
	if err != nil {
		return "(no preview: " + err.Error() + ")"
	}
	given, _ := pl.given(in.Content)
	switch {
	case pl.st == nil:
		return UnifiedDiff(pl.target, "", given)
	case pl.why != "":
		return "(no preview: " + pl.why + ")"
	}
	content, _, err := spelt(pl.form, given)
	if err != nil {
		return "(no preview: " + unwritable(in.Path, pl.form, err).Error() + ")"
	}
	return UnifiedDiff(pl.target, pl.old, content)
}

// diffLines splits text into lines for a diff, each ending in a newline.
// (difflib's SplitLines adds an empty line after a text's last newline,
// and gives an empty text one line, so a new file's diff took a line
// away and added a blank one.)
func diffLines(text string) []string {
	out := strings.SplitAfter(text, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	} else {
		out[len(out)-1] += "\n"
	}
	return out
}

// UnifiedDiff is the unified diff that turns old into content in the
// workspace file p ("" for a new one), or says there is no change.
func UnifiedDiff(p, old, content string) string {
	from := "a/" + p
	if old == "" {
		from = "/dev/null"
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: diffLines(old), B: diffLines(content),
		FromFile: from, ToFile: "b/" + p, Context: 3,
	})
	if err != nil {
		return ""
	}
	if diff == "" {
		return "(no change: the file already has this content)"
	}
	return diff
}
