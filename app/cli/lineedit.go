package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/internal/lineedit"
)

// editor reads a conversation's requests at a terminal whose keys and
// screen are both the user's: one line at a time in raw mode, with line
// editing (package lineedit: arrows, Home and End, Ctrl-A, E, K, U, W,
// words with Alt; drawn by the columns wide characters take), the
// requests asked before (up and down arrows, kept in history) and
// bracketed paste, so lines pasted together are one request however fast
// they come. It reads through the terminal's reader, which the approval
// questions share, and hands every byte after a line's end back to it: a
// question asked during the next run sees what was typed for it, and
// nothing is lost between the two.
type editor struct {
	t       *terminal
	in, out *os.File
	vt      *lineedit.Editor
	hist    *history
	pending chan typed // a request still being read, if any
	early   chan typed // an approval's read, left waiting, whose line comes first
	rest    []byte     // what early brought and vt has not read yet
}

// errStopped is what a request read ended by Ctrl-C returns.
var errStopped = errors.New("stopped at the prompt")

// prompts: the first line's, and the lines that come with it.
const (
	promptFirst = "› "
	promptMore  = "  "
)

func newEditor(t *terminal, in, out *os.File, hist *history) *editor {
	e := &editor{t: t, in: in, out: out, hist: hist}
	e.vt = lineedit.New(e, out, promptFirst)
	e.vt.History = hist
	e.vt.Complete = complete
	return e
}

// completions are what Tab completes at the prompt: the conversation's
// commands, and the approval modes after /approve.
var completions = []string{"/new", "/session", "/undo", "/redo", "/retry", "/edit", "/model ", "/approve ", "/think ", "/image ", "/help", "/exit",
	"/approve ask", "/approve read", "/approve all", "/approve none"}

// complete completes the line with Tab, the caret at its end, as far as
// the completions that start with it agree (as a shell does).
func complete(line string, pos int) (string, int, bool) {
	if pos != len(line) || !strings.HasPrefix(line, "/") {
		return "", 0, false
	}
	if arg, ok := strings.CutPrefix(line, "/image "); ok {
		if done, ok := completePath(arg); ok {
			return "/image " + done, len("/image " + done), true
		}
		return "", 0, false
	}
	common := ""
	for _, c := range completions {
		switch {
		case !strings.HasPrefix(c, line):
		case common == "":
			common = c
		default:
			n := 0
			for n < len(common) && n < len(c) && common[n] == c[n] {
				n++
			}
			common = common[:n]
		}
	}
	if len(common) <= len(line) {
		return "", 0, false
	}
	return common, len(common), true
}

// completePath completes a path typed after /image as far as the
// entries of its folder that start with it agree (a folder's with its
// "/"); "~/" stays as typed. Hidden entries only when asked for.
func completePath(typed string) (string, bool) {
	dir, base := filepath.Split(typed)
	look := app.HomePath(dir)
	if look == "" {
		look = "."
	}
	entries, err := os.ReadDir(look)
	if err != nil {
		return "", false
	}
	common, found := "", false
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(look, name)); err == nil && fi.IsDir() {
			name += "/"
		}
		if !found {
			common, found = name, true
			continue
		}
		n := 0
		for n < len(common) && n < len(name) && common[n] == name[n] {
			n++
		}
		common = common[:n]
	}
	if !found || len(common) <= len(base) {
		return "", false
	}
	return dir + common, true
}

// editable returns an editor when both in and out are the same user's
// terminal (keys typed and echo shown) and it moves a cursor, else nil:
// TERM=dumb (Emacs's shell buffer, which edits the line itself and sends
// it whole) would show the editor's escape sequences as text.
func editable(t *terminal, in *os.File, out any, hist *history) *editor {
	f := terminalFile(out)
	if f == nil || terminalFile(in) == nil || os.Getenv("TERM") == "dumb" {
		return nil
	}
	return newEditor(t, in, f, hist)
}

// ask reads the next request: raw mode and bracketed paste while the
// prompt waits, the terminal as it was once it returns. Ctrl-C (the key,
// or SIGINT from elsewhere) ends it with context.Canceled; Ctrl-D on an
// empty line with io.EOF.
func (e *editor) ask(ctx context.Context) (string, error) {
	pctx, done := promptContext(ctx)
	defer done()
	e.t.mu.Lock()
	defer e.t.mu.Unlock()
	fd := int(e.in.Fd())
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	defer func() { _ = term.Restore(fd, saved) }()
	e.vt.SetBracketedPaste(true)
	defer e.vt.SetBracketedPaste(false)
	e.fitSize()
	defer onResize(e.fitSize)() // the window resized while the prompt waits
	if e.pending == nil {
		// A new read: a question's read left waiting gives it its first line.
		e.early, e.t.pending = e.t.pending, nil
	}
	r, err := awaitRead(pctx, &e.pending, e.read)
	switch {
	case err != nil:
		return "", err
	case errors.Is(r.err, errStopped):
		return "", context.Canceled
	}
	return r.s, r.err
}

// fitSize tells the line editor the terminal's width, by which it wraps
// and redraws the line.
func (e *editor) fitSize() {
	if w, _, err := term.GetSize(int(e.out.Fd())); err == nil && w > 0 {
		e.vt.SetWidth(w) // else 80 columns: a serial line or a new pty says 0
	}
}

// read reads one request: a line, and the lines pasted with it (between
// paste markers, or, where the terminal sends none, coming within
// pasteGap of each other) or typed after a line ending in a backslash. A
// single line joins the history.
func (e *editor) read() (string, error) {
	defer e.vt.SetPrompt(promptFirst)
	var lines []string
	for {
		l, pasted, err := e.vt.ReadLine()
		switch {
		case errors.Is(err, lineedit.ErrInterrupted):
			return "", errStopped
		case err != nil:
			return "", err
		}
		more := pasted || len(e.rest) > 0 || e.t.more()
		l, goesOn := continued(l, more)
		lines = append(lines, l)
		if !goesOn && !more {
			break
		}
		e.vt.SetPrompt(promptMore)
	}
	s := strings.TrimRight(strings.Join(lines, "\n"), "\n")
	if len(lines) == 1 {
		e.hist.keep(s)
	}
	return s, nil
}

// Read hands the line editor at most one line's keys at a time, so that
// what follows a line's end stays in the terminal's reader.
func (e *editor) Read(p []byte) (int, error) {
	if e.early != nil && len(e.rest) == 0 {
		l := <-e.early
		e.early = nil
		if l.err != nil && l.s == "" {
			return 0, l.err
		}
		e.rest = []byte(l.s)
	}
	var b []byte
	if len(e.rest) > 0 {
		b = e.rest
	} else {
		if _, err := e.t.r.Peek(1); err != nil {
			return 0, err
		}
		b, _ = e.t.r.Peek(e.t.r.Buffered())
	}
	n := e.cut(b, len(p))
	copy(p, b[:n])
	if len(e.rest) > 0 {
		e.rest = e.rest[n:]
	} else {
		_, _ = e.t.r.Discard(n)
	}
	return n, nil
}

// say writes msg on its own line: above the prompt when a read still
// waits for its line (the editor draws the prompt again below it).
func (e *editor) say(msg string) {
	if e.pending != nil {
		_, _ = e.vt.Write([]byte(msg + "\n"))
		return
	}
	fmt.Fprintln(e.out, msg)
}

// cut returns how much of b to hand on (at most room): up to its first
// line end (CR LF as one). Ctrl-C and paste markers are the line
// editor's: what it reads past a Ctrl-C it keeps for the prompt's next
// read, which is the next to read after one.
func (e *editor) cut(b []byte, room int) int {
	for i := 0; i < len(b) && i < room; i++ {
		switch {
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			return min(i+2, room)
		case b[i] == '\r' || b[i] == '\n':
			return i + 1
		}
	}
	return min(len(b), room)
}

// continued returns a typed line without the backslash it ends with, and
// whether it had one: the request goes on in the next line, as a shell's
// does. A line with more after it (pasted: a shell command's own
// continuations, say) is taken as it is.
func continued(l string, pasted bool) (string, bool) {
	if pasted {
		return l, false
	}
	return strings.CutSuffix(l, `\`)
}
