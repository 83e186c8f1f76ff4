// Package lineedit reads a line typed at a terminal in raw mode, as a
// shell's prompt does: editing keys (arrows, Home, End, Delete, Ctrl-A,
// B, D, E, F, K, L, U, W; Alt-B, Alt-F and Ctrl or Alt with an arrow by a
// word), the lines asked before (up and down, from a History), Tab
// completion and bracketed paste. It draws the line by the columns each
// character takes on the screen (East Asian wide characters and most
// emoji two, combining marks none), so a line of CJK text or emoji is
// edited where the cursor shows and wraps where the terminal wraps it;
// golang.org/x/term's editor counted every character as one column,
// which put the cursor and the erasing in the wrong place.
//
// Its contract: ReadLine reads keys from its Reader and keeps what it
// read past the line's end for the next ReadLine (hand it one line's keys
// at a time to leave the rest with someone else). It writes only to its
// Writer, only the prompt, the line and cursor movements every VT100
// descendant knows (CR, LF, cursor up, down and forward, erase below).
// Lines are not bounded in length. Write prints above a line being
// edited, from any goroutine.
package lineedit

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// ErrInterrupted is what ReadLine returns when Ctrl-C was pressed outside
// a paste; the line is dropped and ^C shown after it.
var ErrInterrupted = errors.New("interrupted by Ctrl-C")

// History is the lines asked before, for the up and down arrows.
type History interface {
	Len() int
	At(i int) string // 0 is the newest
}

// Editor reads lines from a terminal in raw mode. Set History and
// Complete before the first ReadLine.
type Editor struct {
	in  io.Reader
	out io.Writer

	// History, if not nil, gives the up and down arrows their lines.
	History History
	// Complete, if not nil, is called on Tab with the line and the
	// cursor's byte offset; it returns the new line and offset, and
	// whether to take them.
	Complete func(line string, pos int) (string, int, bool)

	mu       sync.Mutex
	prompt   string
	width    int
	line     []rune
	pos      int
	drawn    []rune // the line as on the screen
	at       int    // where the cursor is on the screen: before drawn[at]
	shownEnd spot   // where drawn ends on the screen, while shown
	shown    bool   // the prompt and drawn are on the screen
	hist     int    // the history entry shown, -1 for the line being typed
	typed    []rune // the line being typed, while an entry is shown
	paste    bool   // between the paste markers
	keys     []byte // read and not yet handled
	preset   []rune // the next ReadLine's line to start from
	buf      [256]byte
}

// Preset makes the next ReadLine start with s typed, the cursor at its
// end (a request brought back to be edited).
func (e *Editor) Preset(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.preset = []rune(s)
}

// New returns an editor reading keys from in and drawing on out, with
// prompt before each line and 80 columns until SetWidth says otherwise.
func New(in io.Reader, out io.Writer, prompt string) *Editor {
	return &Editor{in: in, out: out, prompt: prompt, width: 80, hist: -1}
}

// SetPrompt sets the prompt of the next ReadLine.
func (e *Editor) SetPrompt(p string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.prompt = p
}

// SetWidth tells the editor the terminal's columns; a line being edited
// is drawn again at the new width.
func (e *Editor) SetWidth(w int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w = max(w, 1)
	if w == e.width {
		return
	}
	e.width = w
	if e.shown {
		// The terminal rewrapped (or cut) what was drawn; where its
		// first row is now is a guess: the cursor's row at the new width.
		row, _ := e.place(e.drawn, e.at)
		e.write(e.draw(move(nil, row, 0, 0), true))
	}
}

// SetBracketedPaste turns the terminal's bracketed paste on or off: a
// paste comes between markers, so its lines are not taken as Enter.
func (e *Editor) SetBracketedPaste(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if on {
		e.write([]byte("\x1b[?2004h"))
	} else {
		e.write([]byte("\x1b[?2004l"))
	}
}

// Write prints p above the line being edited (the prompt and line are
// drawn again below it), or as it is when none is; line ends become CR LF.
func (e *Editor) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	text := strings.ReplaceAll(strings.ReplaceAll(string(p), "\r\n", "\n"), "\n", "\r\n")
	if !e.shown {
		return len(p), e.write([]byte(text))
	}
	row, _ := e.place(e.drawn, e.at)
	b := append(move(nil, row, 0, 0), "\x1b[J"...)
	b = append(b, text...)
	if !strings.HasSuffix(text, "\n") {
		b = append(b, "\r\n"...)
	}
	return len(p), e.write(e.draw(b, false))
}

// ReadLine reads a line: it ends with Enter (the cursor goes below it),
// and pasted reports whether Enter came inside a paste (the paste goes
// on in the next line). Ctrl-C returns ErrInterrupted, Ctrl-D on an empty
// line io.EOF; an error reading keys is returned as it is.
func (e *Editor) ReadLine() (line string, pasted bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.line, e.pos, e.hist, e.typed = e.preset, len(e.preset), -1, nil
	e.preset = nil
	e.write(e.draw(nil, false))
	for {
		for len(e.keys) > 0 {
			k, n := next(e.keys, e.paste)
			if n == 0 {
				break
			}
			e.keys = e.keys[n:]
			if k.op == opInsert {
				e.insert(k.r) // with the letters that follow it, at once
				continue
			}
			if k.op == opEnter && e.paste {
				pasted = true
			}
			if done, err := e.handle(k); done || err != nil {
				line = string(e.line)
				e.finish(err)
				if err != nil {
					return "", false, err
				}
				return line, pasted, nil
			}
		}
		if !e.paste {
			// A paste is drawn when it has come whole: drawn at each of
			// its reads in the middle of a line, the line's tail would be
			// written out again each time.
			e.write(e.render(nil))
		}
		e.mu.Unlock()
		n, err := e.in.Read(e.buf[:])
		e.mu.Lock()
		e.keys = append(e.keys, e.buf[:n]...)
		if err != nil && n == 0 {
			e.finish(nil)
			return "", false, err
		}
	}
}

// finish leaves the line: the cursor below it (after ^C when it was
// interrupted), nothing of it held.
func (e *Editor) finish(err error) {
	if errors.Is(err, io.EOF) {
		e.shown = false
		return
	}
	e.pos = len(e.line)
	b := e.render(nil)
	if _, col := e.place(e.line, len(e.line)); col > 0 || errors.Is(err, ErrInterrupted) {
		if errors.Is(err, ErrInterrupted) {
			b = append(b, "^C"...)
		}
		b = append(b, "\r\n"...) // else the line filled its last row: the cursor is below it
	}
	e.write(b)
	e.shown = false
}

// handle applies one key to the line; done when it ends the line.
func (e *Editor) handle(k key) (done bool, err error) {
	l, p := e.line, e.pos
	switch k.op {
	case opEnter:
		return true, nil
	case opPasteStart:
		e.paste = true
	case opPasteEnd:
		e.paste = false
	case opInterrupt:
		return false, ErrInterrupted
	case opEOF:
		if len(l) == 0 {
			return false, io.EOF
		}
		e.cut(p, e.right(p))
	case opBackspace:
		e.cut(e.left(p), p)
	case opDelete:
		e.cut(p, e.right(p))
	case opLeft:
		e.pos = e.left(p)
	case opRight:
		e.pos = e.right(p)
	case opWordLeft:
		e.pos = e.wordLeft(p)
	case opWordRight:
		for e.pos < len(l) && unicode.IsSpace(l[e.pos]) {
			e.pos++
		}
		for e.pos < len(l) && !unicode.IsSpace(l[e.pos]) {
			e.pos++
		}
	case opHome:
		e.pos = 0
	case opEnd:
		e.pos = len(l)
	case opKillEnd:
		e.cut(p, len(l))
	case opKillStart:
		e.cut(0, p)
	case opKillWord:
		e.cut(e.wordLeft(p), p)
	case opUp, opDown:
		e.browse(k.op == opUp)
	case opTab:
		if e.Complete != nil {
			if s, at, ok := e.Complete(string(l), len(string(l[:p]))); ok {
				e.line = []rune(s)
				e.pos = len([]rune(s[:min(max(at, 0), len(s))]))
			}
		}
	case opClear:
		e.write(e.draw([]byte("\x1b[H\x1b[2J"), false))
	}
	return false, nil
}

// insert puts r and the letters that follow it in the keys read at the
// cursor, in one move: a paste of a megabyte inserted a rune at a time
// into the middle of a line would copy the line's tail each time.
func (e *Editor) insert(r rune) {
	add := []rune{r}
	for {
		k, n := next(e.keys, e.paste)
		if n == 0 || k.op != opInsert {
			break
		}
		add = append(add, k.r)
		e.keys = e.keys[n:]
	}
	if e.pos == len(e.line) {
		e.line = append(e.line, add...)
	} else {
		e.line = slices.Insert(e.line, e.pos, add...)
	}
	e.pos += len(add)
}

// cut takes line[from:to] out, the cursor at from.
func (e *Editor) cut(from, to int) {
	e.line = append(e.line[:from:from], e.line[to:]...)
	e.pos = from
}

// left and right return the position one character from p, combining
// marks going with the character before them.
func (e *Editor) left(p int) int {
	for p > 0 {
		p--
		if !zero(e.line[p]) {
			break
		}
	}
	return p
}

func (e *Editor) right(p int) int {
	if p < len(e.line) {
		p++
	}
	for p < len(e.line) {
		if !zero(e.line[p]) {
			break
		}
		p++
	}
	return p
}

// wordLeft returns the start of the word before p (spaces first).
func (e *Editor) wordLeft(p int) int {
	for p > 0 && unicode.IsSpace(e.line[p-1]) {
		p--
	}
	for p > 0 && !unicode.IsSpace(e.line[p-1]) {
		p--
	}
	return p
}

// browse shows the history entry before (up) or after the one shown; past
// the newest, the line that was being typed.
func (e *Editor) browse(up bool) {
	if e.History == nil {
		return
	}
	i := e.hist - 1
	if up {
		i = e.hist + 1
	}
	if i >= e.History.Len() || i < -1 {
		return
	}
	if e.hist == -1 {
		e.typed = e.line
	}
	e.hist = i
	if i == -1 {
		e.line = e.typed
	} else {
		e.line = []rune(e.History.At(i))
	}
	e.pos = len(e.line)
}

// write sends b to the terminal; a terminal that fails is ReadLine's
// reader's to report.
func (e *Editor) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := e.out.Write(b)
	if err != nil {
		return fmt.Errorf("write to the terminal: %w", err)
	}
	return nil
}
