// Package undo keeps what the file tools change, so the changes a request
// made to files can be undone.
//
// Its contract: before fs.write or fs.edit replaces a file, [Keeper]'s
// journal keeps what the file held (its bytes in a folder of contents
// named by their SHA-256, outside the database, readable by the user
// alone; larger than [Keeper.Max], only its hash) and records the change
// (store.FileChange: the run and call, the workspace and path, the hashes
// before and after), taken back if the write then fails. [Keeper.Plan] says
// what undoing the runs of a session from one on would do, file by file;
// [Keeper.Undo] does it. Undo never touches what it did not write: a file
// that no longer holds what the last of those runs wrote (the user edited
// it, a shell command or a later request changed it) is left as it is and
// said to be; a file the runs created is removed, one they replaced gets
// its earlier content and permissions back, and the folders a file tool
// made for a file it created go with it when nothing else is in them.
// Writes stay inside the workspace (os.Root) and replace files atomically.
// What shell commands change is watched ([Journal.Watch]: in a git work
// tree by git, elsewhere by walking the workspace); a change another run
// (of this process or another one) may have made while the command ran is
// recorded as shared, and left. The app watches MCP tools' calls the same
// way; what a call changes outside the workspace is not known. An undo
// keeps what it replaces, so [Keeper.Redo] can take the session's last
// undo back.
package undo

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/tool/files"
	"github.com/shrimp-harness/shrimp/internal/sniff"
	"github.com/shrimp-harness/shrimp/internal/textfile"
)

// DefaultMax is the largest earlier content kept by default: 16 MiB.
const DefaultMax = 16 << 20

// Keeper keeps earlier contents and plans and performs undos.
type Keeper struct {
	Changes store.FileChangeRepo
	Dir     string // the folder earlier contents are kept in
	Max     int64  // the largest content kept (0: DefaultMax)
	Log     *slog.Logger
	// Skip are folders (absolute) whose files the shell's watch never
	// keeps or records, beside Dir: Shrimp's data folder, which a
	// workspace may hold (its database changes while a command runs, and
	// undo must never write it back).
	Skip []string

	// Watches records the shell's watches, so a change found while
	// another run changed files in the workspace is told apart.
	Watches store.ShellWatchRepo

	mu    sync.Mutex
	files map[string]stamped // what the shell's watch read of each file (outside git), by absolute path
}

// skipped reports whether the file or folder at path p of workspace is
// in Dir or a Skip folder.
func (k *Keeper) skipped(workspace, p string) bool {
	abs := filepath.Join(workspace, filepath.FromSlash(p))
	for _, d := range append([]string{k.Dir}, k.Skip...) {
		if inside(d, abs) {
			return true
		}
	}
	return false
}

// Call says which call of which run is writing: the journal asks it at
// each write, with the context the tool ran with.
type Call struct {
	Session string
	Run     int64 // seq of the run's agent:run-started
	Call    int64 // seq of the call's agent:tool-call
	Tool    string
}

// Journal returns what the file tools of one run in workspace (absolute)
// tell of their writes (files.Journal); at says which call writes.
func (k *Keeper) Journal(workspace string, at func(context.Context) Call) *Journal {
	return &Journal{k: k, workspace: workspace, at: at}
}

// Journal is one run's files.Journal.
type Journal struct {
	k         *Keeper
	workspace string
	at        func(context.Context) Call

	mu   sync.Mutex
	seen map[string]bool // paths this run's file tools have changed
}

// Keep keeps what the file held (c.Old; nil: there was no file) and
// records the change before the file is replaced with c.Content: a process
// killed between the two leaves a record whose file still holds its
// earlier content, which undo finds as it was ([Same]), never a replaced
// file without a record. done takes the record back when the write did not
// happen. A file the run changed before is only hashed: undo puts a file
// back as it was before a run, never between two writes of one, so a model
// rewriting a file in a loop keeps one copy.
func (j *Journal) Keep(ctx context.Context, ch files.Change) (func(bool), error) {
	at := j.at(ctx)
	path := ch.Path
	c := store.FileChange{SessionID: at.Session, RunSeq: at.Run, CallSeq: at.Call, Tool: at.Tool,
		Workspace: j.workspace, Path: path, Mode: uint32(ch.Mode.Perm()), After: hashOf(ch.Content),
		Folders: strings.Join(ch.Folders, "\n"), CreatedAt: time.Now().UTC()}
	j.mu.Lock()
	again := j.seen[path]
	j.mu.Unlock()
	if ch.Old != nil && ch.Size == int64(len(ch.Content)) && ch.Size <= j.k.max() {
		// As long as what it writes: perhaps the very same (a model
		// writing back what it read), which changes nothing to undo.
		old, err := io.ReadAll(ch.Old)
		if err != nil {
			return nil, fmt.Errorf("read the file: %w", err)
		}
		if string(old) == ch.Content {
			return func(bool) {}, nil
		}
		ch.Old = bytes.NewReader(old)
	}
	if ch.Old != nil {
		var err error
		if again {
			c.Before, err = hashReader(ch.Old)
		} else {
			c.Before, c.Kept, err = j.k.put(ch.Old, ch.Size)
		}
		if err != nil {
			return nil, err
		}
	}
	id, err := j.k.Changes.Add(ctx, c)
	if err != nil {
		return nil, err
	}
	return func(written bool) {
		if !written {
			if err := j.k.Changes.Delete(context.WithoutCancel(ctx), id); err != nil {
				j.k.log().Warn("take back the record of a write that did not happen", "path", path, "err", err)
			}
			return
		}
		j.mu.Lock()
		if j.seen == nil {
			j.seen = map[string]bool{}
		}
		j.seen[path] = true
		j.mu.Unlock()
	}, nil
}

func (k *Keeper) log() *slog.Logger {
	if k.Log != nil {
		return k.Log
	}
	return slog.Default()
}

func (k *Keeper) max() int64 {
	if k.Max > 0 {
		return k.Max
	}
	return DefaultMax
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// object is where the content with hash h is kept.
func (k *Keeper) object(h string) string { return filepath.Join(k.Dir, h[:2], h) }

// has reports whether content with hash h is kept.
func (k *Keeper) has(h string) bool {
	st, err := os.Lstat(k.object(h))
	return err == nil && st.Mode().IsRegular()
}

// put keeps what r holds (size bytes) and returns its hash; one larger
// than Max is only hashed (kept false). A content kept already is not
// written again.
func (k *Keeper) put(r io.Reader, size int64) (h string, kept bool, err error) {
	sum := sha256.New()
	if size > k.max() {
		if _, err := io.Copy(sum, r); err != nil {
			return "", false, fmt.Errorf("read the file: %w", err)
		}
		return hex.EncodeToString(sum.Sum(nil)), false, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, k.max()+1))
	if err != nil {
		return "", false, fmt.Errorf("read the file: %w", err)
	}
	sum.Write(b)
	if int64(len(b)) > k.max() { // it grew past Max since its size was taken: hashed whole, not kept
		if _, err := io.Copy(sum, r); err != nil {
			return "", false, fmt.Errorf("read the file: %w", err)
		}
		return hex.EncodeToString(sum.Sum(nil)), false, nil
	}
	h = hex.EncodeToString(sum.Sum(nil))
	dest := k.object(h)
	if st, err := os.Lstat(dest); err == nil && st.Mode().IsRegular() && st.Size() == int64(len(b)) {
		// Kept already (written whole: a temporary file fsynced and
		// renamed). Damage since is found when it is put back (check).
		// Its time is set to now: Prune leaves what is less than an hour
		// old, and this may be recorded once the command under way ends.
		now := time.Now()
		_ = os.Chtimes(dest, now, now)
		return h, true, nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return "", false, fmt.Errorf("keep in %s: %w", k.Dir, err)
	}
	tmp, err := os.CreateTemp(k.Dir, "keep-*")
	if err != nil {
		return "", false, fmt.Errorf("keep in %s: %w", k.Dir, err)
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if _, err := copyClose(tmp, bytes.NewReader(b)); err != nil {
		return "", false, fmt.Errorf("keep in %s: %w", k.Dir, err)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return "", false, fmt.Errorf("keep in %s: %w", k.Dir, err)
	}
	return h, true, nil
}

// copyClose copies r to f, syncs and closes it, and returns how many
// bytes it copied.
func copyClose(f *os.File, r io.Reader) (int64, error) {
	n, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	return n, errors.Join(err, f.Close())
}

// Actions a plan takes for a file.
const (
	Restore = "restore" // its earlier content and permissions are put back
	Remove  = "remove"  // the runs created it: it is removed
	Same    = "same"    // it holds its earlier content already: nothing to do
	Leave   = "leave"   // it is left as it is (Why says why)
)

// File is what undoing does to one file.
type File struct {
	Workspace string `json:"workspace"`
	Path      string `json:"path"` // relative to the workspace
	Action    string `json:"action"`
	Why       string `json:"why,omitempty"` // for Leave
	// Shared: left because another run may have made the change; undoing
	// it anyway (Ref.Anyway) would do Would (Restore or Remove).
	Shared  bool   `json:"shared,omitempty"`
	Would   string `json:"would,omitempty"`
	ids     []int64
	before  string      // what it gets: the hash of its content ("": no file)
	expect  string      // what it must hold for that: the hash of what the runs (or the undo) wrote
	mode    fs.FileMode // the permissions it gets
	folders []string    // made for it by the runs, outermost first
	// had: its permissions when an undo or a redo replaced or removed
	// it (0: it did not, or they are unknown).
	had fs.FileMode
}

// Plan is what undoing a session's runs from Run on would do, or, for a
// redo, what putting back the changes its last undo took back would do.
type Plan struct {
	Session string `json:"session"`
	Run     int64  `json:"run"`
	Redo    bool   `json:"redo,omitempty"`
	Files   []File `json:"files"`
}

// Changes reports whether undoing would change any file.
func (p Plan) Changes() bool {
	return slices.ContainsFunc(p.Files, File.Changes)
}

// Changes reports whether the plan changes f: puts it back or removes it.
func (f File) Changes() bool { return f.Action == Restore || f.Action == Remove }

// Plan says what undoing the changes of session's runs from run on (the
// seq of a run's agent:run-started) would do to each file they changed,
// in the order the files were first changed.
func (k *Keeper) Plan(ctx context.Context, session string, run int64) (Plan, error) {
	rows, err := k.Changes.Since(ctx, session, run)
	if err != nil {
		return Plan{}, err
	}
	return k.plan(Plan{Session: session, Run: run}, rows), nil
}

// RedoPlan says what redoing the session's last undo would do: each file
// it took back gets what the runs had written again, unless it changed
// since the undo.
func (k *Keeper) RedoPlan(ctx context.Context, session string) (Plan, error) {
	rows, err := k.Changes.LastUndone(ctx, session)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Session: session, Redo: true}
	if len(rows) > 0 {
		p.Run = rows[0].RunSeq
	}
	return k.plan(p, rows), nil
}

// plan fills p with what undoing (or redoing) rows would do to each file,
// in the order the files were first changed. Undo takes a file back to
// what it held before its first change, if it still holds what the last
// one wrote; redo the other way round.
func (k *Keeper) plan(p Plan, rows []store.FileChange) Plan {
	at := map[string]int{}
	var first, last []string // per file: what it held before the first change, what the last wrote
	for _, r := range rows {
		key := r.Workspace + "\x00" + r.Path
		i, ok := at[key]
		if !ok {
			i = len(p.Files)
			at[key] = i
			p.Files = append(p.Files, File{Workspace: r.Workspace, Path: r.Path, mode: fs.FileMode(r.Mode)})
			if r.Folders != "" && !p.Redo {
				p.Files[i].folders = strings.Split(r.Folders, "\n")
			}
			first, last = append(first, r.Before), append(last, "")
			if r.Before != "" && !r.Kept && !p.Redo {
				p.Files[i].Action, p.Files[i].Why = Leave, fmt.Sprintf("its earlier content was larger than the %d MiB Shrimp keeps", k.max()>>20)
			}
		}
		p.Files[i].Shared = p.Files[i].Shared || r.Shared && !p.Redo
		p.Files[i].ids = append(p.Files[i].ids, r.ID)
		last[i] = r.After
		if p.Redo {
			p.Files[i].had = fs.FileMode(r.RedoMode)
		}
	}
	for i := range p.Files {
		f := &p.Files[i]
		if f.Action != "" {
			continue
		}
		f.before, f.expect = first[i], last[i]
		changed := "it changed after Shrimp wrote it (your edit, a command or a later request): undoing would lose that"
		if p.Redo {
			f.before, f.expect = last[i], first[i]
			changed = "it changed after the undo: redoing would lose that"
			// The permissions the file had when the undo took it back
			// (recorded since migration 25), else those it has now.
			if f.mode = 0o644; f.had != 0 {
				f.mode = f.had
			} else if f.expect != "" {
				if st, err := os.Lstat(filepath.Join(f.Workspace, filepath.FromSlash(f.Path))); err == nil {
					f.mode = st.Mode().Perm()
				}
			}
		}
		now, err := current(f.Workspace, f.Path)
		switch {
		case err != nil:
			f.Action, f.Why = Leave, err.Error()
		case now == f.before:
			f.Action = Same
		case now != f.expect:
			f.Action, f.Why = Leave, changed
			if now == "" {
				f.Why = "it was removed after Shrimp wrote it"
				if p.Redo {
					f.Why = "it was removed after the undo"
				}
			}
		case f.before == "":
			f.Action = Remove
		default:
			f.Action = Restore
			if why := k.check(f.before); why != "" {
				f.Action, f.Why = Leave, why
			}
		}
		if f.Shared && (f.Action == Restore || f.Action == Remove) {
			f.Would, f.Action, f.Why = f.Action, Leave, sharedWhy
		} else {
			f.Shared = false
		}
	}
	return p
}

// check says why the content kept under hash h cannot be put back ("" when
// it can): gone, or not what was kept (a disk that lost it in a crash).
func (k *Keeper) check(h string) string {
	f, err := os.Open(k.object(h))
	if err != nil {
		return fmt.Sprintf("the content it would get is no longer kept in %s", k.Dir)
	}
	defer f.Close()
	if got, err := hashReader(f); err != nil || got != h {
		return fmt.Sprintf("the content it would get, kept in %s, is damaged", k.Dir)
	}
	return ""
}

// current returns the hash of what path holds in workspace ("" when there
// is no file); an error says why it cannot be undone (a folder now, a
// link, the workspace gone).
func current(workspace, path string) (string, error) {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return "", fmt.Errorf("its workspace cannot be opened: %w", err)
	}
	defer root.Close()
	f, err := openRegular(root, path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	return hashReader(f)
}

// openRegular opens path in root for reading when it is a regular file,
// without following a last link and without waiting on a FIFO.
func openRegular(root *os.Root, path string) (*os.File, error) {
	if st, err := root.Lstat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("it cannot be read: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, errors.New("it is no longer a regular file")
	}
	f, err := root.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("it cannot be read: %w", err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, errors.New("it is no longer a regular file")
	}
	return f, nil
}

func hashReader(r io.Reader) (string, error) {
	var sum hash.Hash = sha256.New()
	if _, err := io.Copy(sum, r); err != nil {
		return "", fmt.Errorf("it cannot be read: %w", err)
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// Ref names a file of a plan (its workspace and its path there) and what
// the user chose for it: to keep it as it is, or, Anyway, to undo a
// shared change the plan leaves (the user knows it is theirs).
type Ref struct {
	Workspace string `json:"workspace"`
	Path      string `json:"path"`
	Anyway    bool   `json:"anyway,omitempty"`
}

// KeptWhy is why undo left a file the user chose to keep.
const KeptWhy = "you chose to keep it as it is"

// Undo undoes the changes of session's runs from run on, as Plan says at
// the moment it is called, but for the files keep names (the user keeps
// them as they are: an edit of theirs made while a command ran, which the
// command's watch took for its own) and with the shared ones keep names
// Anyway, and returns that plan with what was
// done: the files restored or removed, and those left with why (one that
// could not be written says so in Why). Changes undone are marked so;
// those of files left stay, so a later undo (after the user sorted a file
// out) takes them again.
func (k *Keeper) Undo(ctx context.Context, session string, run int64, keep ...Ref) (Plan, error) {
	plan, err := k.Plan(ctx, session, run)
	if err != nil {
		return Plan{}, err
	}
	changed, same := k.apply(&plan, keep)
	now := time.Now().UTC()
	if err := k.Changes.MarkUndone(ctx, changed, now, true); err != nil {
		return plan, err
	}
	for _, f := range plan.Files {
		if (f.Action == Restore || f.Action == Remove) && f.had != 0 {
			if err := k.Changes.SetRedoMode(ctx, f.ids, uint32(f.had.Perm())); err != nil {
				return plan, err
			}
		}
	}
	return plan, k.Changes.MarkUndone(ctx, same, now, false)
}

// Redo puts back what the session's last undo took back, as RedoPlan says
// at the moment it is called, but for the files keep names, and returns
// that plan with what was done; the changes of the files put back are
// no longer undone (the requests' undo takes them again), those of the
// files left stay undone for good, and the undo before it, if any, is the
// next to redo.
func (k *Keeper) Redo(ctx context.Context, session string, keep ...Ref) (Plan, error) {
	plan, err := k.RedoPlan(ctx, session)
	if err != nil {
		return Plan{}, err
	}
	changed, same := k.apply(&plan, keep)
	if err := k.Changes.MarkDone(ctx, append(changed, same...)); err != nil {
		return plan, err
	}
	var left []int64
	for _, f := range plan.Files {
		if f.Action == Leave {
			left = append(left, f.ids...)
		}
	}
	return plan, k.Changes.NotRedoable(ctx, left)
}

// apply does what plan says to each file but those keep names (left, the
// plan says why) and returns the changes of the files it changed, and of
// those it found so already. What a file held is kept first, so a redo
// can put it back.
func (k *Keeper) apply(plan *Plan, keep []Ref) (changed, same []int64) {
	for i := range plan.Files {
		f := &plan.Files[i]
		switch {
		case slices.Contains(keep, Ref{f.Workspace, f.Path, false}) && (f.Action == Restore || f.Action == Remove):
			f.Action, f.Why = Leave, KeptWhy
			continue
		case slices.Contains(keep, Ref{f.Workspace, f.Path, true}) && f.Shared:
			f.Action, f.Why, f.Shared, f.Would = f.Would, "", false, ""
		}
		var err error
		switch f.Action {
		case Restore:
			k.keepCurrent(f)
			err = k.restore(f)
		case Remove:
			k.keepCurrent(f)
			err = remove(f)
		case Leave:
			continue
		}
		if err != nil {
			f.Action, f.Why = Leave, err.Error()
			continue
		}
		if f.Action == Same {
			same = append(same, f.ids...)
		} else {
			changed = append(changed, f.ids...)
		}
	}
	removeFolders(plan.Files)
	return changed, same
}

// keepCurrent keeps what f holds now, so what replaces it can be taken
// back; a failure only costs that (it is logged).
func (k *Keeper) keepCurrent(f *File) {
	root, err := os.OpenRoot(f.Workspace)
	if err != nil {
		return
	}
	defer root.Close()
	in, err := openRegular(root, f.Path)
	if err != nil {
		return
	}
	defer in.Close()
	st, err := in.Stat()
	if err == nil {
		f.had = st.Mode().Perm()
		_, _, err = k.put(in, st.Size())
	}
	if err != nil {
		k.log().Warn("keep a file before an undo or a redo replaces it: that cannot be taken back for it", "path", f.Path, "err", err)
	}
}

// restore puts f's earlier content back, atomically.
func (k *Keeper) restore(f *File) error {
	src, err := os.Open(k.object(f.before))
	if err != nil {
		return fmt.Errorf("its earlier content cannot be read: %w", err)
	}
	defer src.Close()
	root, err := os.OpenRoot(f.Workspace)
	if err != nil {
		return fmt.Errorf("its workspace cannot be opened: %w", err)
	}
	defer root.Close()
	// A command that removed the file's folder removed it too.
	if err := root.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return fmt.Errorf("its folder cannot be made again: %w", err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := fmt.Sprintf("%s.%x.shrimp-tmp", f.Path, rnd)
	out, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode.Perm()|0o200)
	if err != nil {
		return fmt.Errorf("it cannot be written: %w", err)
	}
	defer func() { _ = root.Remove(tmp) }() // gone once renamed
	if _, err := copyClose(out, src); err != nil {
		return fmt.Errorf("it cannot be written: %w", err)
	}
	if err := root.Chmod(tmp, f.mode.Perm()); err != nil {
		return fmt.Errorf("it cannot be written: %w", err)
	}
	if err := root.Rename(tmp, f.Path); err != nil {
		return fmt.Errorf("it cannot be written: %w", err)
	}
	return nil
}

// remove removes a file the runs created.
func remove(f *File) error {
	root, err := os.OpenRoot(f.Workspace)
	if err != nil {
		return fmt.Errorf("its workspace cannot be opened: %w", err)
	}
	defer root.Close()
	if err := root.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("it cannot be removed: %w", err)
	}
	return nil
}

// removeFolders removes the folders the runs made for the files undo
// removed, innermost first, when nothing else is in them (a folder that
// holds anything, a file of the user's or of a later request, stays).
func removeFolders(plan []File) {
	type folder struct{ workspace, path string }
	var all []folder
	for _, f := range plan {
		if f.Action == Remove {
			for _, d := range f.folders {
				all = append(all, folder{f.Workspace, d})
			}
		}
	}
	slices.SortFunc(all, func(a, b folder) int {
		return cmp.Or(strings.Compare(a.workspace, b.workspace), strings.Count(b.path, "/")-strings.Count(a.path, "/"), strings.Compare(a.path, b.path))
	})
	all = slices.Compact(all)
	for _, d := range all {
		root, err := os.OpenRoot(d.workspace)
		if err != nil {
			continue
		}
		if st, err := root.Lstat(d.path); err == nil && st.IsDir() {
			_ = root.Remove(d.path) // fails when not empty: left
		}
		root.Close()
	}
}

// maxDiff is the largest content Diff compares.
const maxDiff = 1 << 20

// Diff is the unified diff undoing would make to the file at path of
// workspace (one of the plan's for session's runs from run on): from what
// it holds now to its earlier content, or to nothing for a file undo
// removes. It is "" for a file undo leaves as it is, and a note in
// parentheses for one too large or not text.
func (k *Keeper) Diff(ctx context.Context, session string, run int64, workspace, path string) (string, error) {
	plan, err := k.Plan(ctx, session, run)
	if err != nil {
		return "", err
	}
	return k.diff(plan, workspace, path)
}

// RedoDiff is Diff for the session's redo plan.
func (k *Keeper) RedoDiff(ctx context.Context, session, workspace, path string) (string, error) {
	plan, err := k.RedoPlan(ctx, session)
	if err != nil {
		return "", err
	}
	return k.diff(plan, workspace, path)
}

// diff is the diff plan would make to the file at path of workspace.
func (k *Keeper) diff(plan Plan, workspace, path string) (string, error) {
	i := slices.IndexFunc(plan.Files, func(f File) bool { return f.Workspace == workspace && f.Path == path })
	if i < 0 {
		return "", fmt.Errorf("%s was not changed by these requests, or is undone already", path)
	}
	f := plan.Files[i]
	if f.Action != Restore && f.Action != Remove {
		return "", nil
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return "", fmt.Errorf("open the workspace %s: %w", workspace, err)
	}
	defer root.Close()
	now, err := readLimited(func() (io.ReadCloser, error) { return openRegular(root, path) })
	if errors.Is(err, fs.ErrNotExist) { // a command removed it: it comes back whole
		now, err = []byte{}, nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	before := []byte{}
	if f.Action == Restore {
		if before, err = readLimited(func() (io.ReadCloser, error) { return os.Open(k.object(f.before)) }); err != nil {
			return "", fmt.Errorf("read the earlier content of %s: %w", path, err)
		}
	}
	if now == nil || before == nil {
		return fmt.Sprintf("(larger than %d MB: no diff)", maxDiff>>20), nil
	}
	nowText, ok := text(now)
	beforeText, ok2 := text(before)
	if !ok || !ok2 {
		return "(not text: no diff)", nil
	}
	return files.UnifiedDiff(path, nowText, beforeText), nil
}

// readLimited reads what open opens, nil when it is over maxDiff bytes.
func readLimited(open func() (io.ReadCloser, error)) ([]byte, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxDiff+1))
	if err != nil || len(b) > maxDiff {
		return nil, err
	}
	return b, nil
}

// text returns b's text, and whether it is text: no binary data, and in
// one of the forms package textfile reads (a file the file tools kept in
// UTF-16 or Windows-1252 is diffed as they showed it).
func text(b []byte) (string, bool) {
	if sniff.Binary(b) != "" {
		return "", false
	}
	s, _ := textfile.Read(b) // UTF-16 or Windows-1252 shown as the text it is
	return s, utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// Prune forgets the changes made before t and removes the contents no
// change still needs (nor this keeper's shell watch, which reuses what it
// kept of a file that has not changed since, for the next command); it
// returns how many changes went.
func (k *Keeper) Prune(ctx context.Context, t time.Time) (int64, error) {
	n, err := k.Changes.DeleteBefore(ctx, t)
	if err != nil {
		return 0, err
	}
	if err := k.Watches.DeleteBefore(ctx, time.Now().Add(-keepWatchesFor)); err != nil {
		return n, err
	}
	kept, err := k.Changes.Kept(ctx)
	if err != nil {
		return n, err
	}
	k.mu.Lock()
	for _, s := range k.files {
		if s.e.kept {
			kept[s.e.hash] = true
		}
	}
	k.mu.Unlock()
	err = filepath.WalkDir(k.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		stale := strings.HasPrefix(name, "keep-") // a keep cut short
		if !stale && (len(name) != 64 || kept[name]) {
			return nil
		}
		// Only once an hour old: a content kept for a write under way is
		// recorded once the write is done.
		if info, err := d.Info(); err != nil || time.Since(info.ModTime()) < time.Hour {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("prune %s: %w", k.Dir, err)
	}
	return n, nil
}
