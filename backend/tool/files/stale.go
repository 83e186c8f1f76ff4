package files

import (
	"fmt"
	"io/fs"
	"sync"
	"time"
)

// A local model can take minutes between reading a file and writing it
// back; the user may save the same file in an editor meanwhile, or the
// model's own command (a formatter, a code generator) change it. fs.write
// of what the model read then throws that change away. So the file tools
// note each file's size and time as a call reads or writes it (Known),
// and a write over a file that changed since is refused once, saying so (the
// model reads it again; made again, the call is done). fs.edit needs no
// such care: it changes the text the file holds when it runs.

// stamp is what a file was when a file tool last read or wrote it.
type stamp struct {
	size int64
	mod  time.Time
	seq  uint64 // when it was noted: Known's count of notes then
}

// maxKnown is how many files a Known holds: past it, the half noted
// longest ago is dropped (a write over one of them is no longer doubted).
// A session reading a project's every file for weeks stays a few MB.
const maxKnown = 20_000

// Known records, per workspace path, each file as a file tool last read
// or wrote it. A Workspace keeps its own; one shared by the requests of a
// session ([Workspace.Known]) also catches a file the model read in an
// earlier request and the user changed since. The zero value is ready.
type Known struct {
	mu    sync.Mutex
	files map[string]stamp
	seq   uint64 // notes made
}

// note records p as info says it is now.
func (s *Known) note(p string, info fs.FileInfo) {
	if info == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]stamp{}
	}
	s.seq++
	s.files[p] = stamp{info.Size(), info.ModTime(), s.seq}
	if len(s.files) > maxKnown {
		for k, st := range s.files {
			if st.seq <= s.seq-maxKnown/2 {
				delete(s.files, k)
			}
		}
	}
}

// Forget forgets every file: what the tools read or wrote is no longer
// what a write should be compared with (Shrimp's undo put files back).
func (s *Known) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = nil
}

// changed reports whether p, as info says it is now, is not what a file
// tool last saw: false for a file no tool saw.
func (s *Known) changed(p string, info fs.FileInfo) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	was, ok := s.files[p]
	return ok && info != nil && (was.size != info.Size() || !was.mod.Equal(info.ModTime()))
}

// staleDoubt is the doubt about fs.write over the file p when it changed
// after a file tool last read or wrote it (this request's, or the
// session's: Known); nil when it did not.
func (w *Workspace) staleDoubt(p string) *doubt {
	st, err := w.root.Lstat(p)
	if err != nil || !w.Known.changed(p, st) {
		return nil
	}
	return &doubt{
		why:    fmt.Sprintf("it changed after it was last read (it was saved at %s): an editor or a command changed it since, and writing it whole would undo that change", st.ModTime().Format("15:04:05")),
		advice: "Read it again and write it with the change kept (or change part of it with fs.edit)",
	}
}
