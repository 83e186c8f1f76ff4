// Package termsafe keeps text printed on a terminal from commanding it.
//
// A model's answer, a file, a web page, a tool's output or an MCP server's
// description can hold escape sequences, and a terminal obeys them: hide
// what follows (SGR 8, the approval question included), erase or rewrite
// lines already shown, set the clipboard (OSC 52), retitle the window, or
// make the terminal type a reply into the program's input.
//
// Its contract: what a [Writer] passes on holds no C0 control character
// except newline and tab (a carriage return only right before a newline),
// no DEL, no C1 control (U+0080–U+009F) and no bidirectional override or
// isolate (which reorder what is shown). Each is written as an escape a
// person can read instead: `\x1b` for ASCII controls, `\u009b` for the
// others, which is also a valid JSON escape of the same character, so JSON
// output stays the same JSON. Bytes that are not UTF-8 are written as
// `\xNN`. Everything else passes unchanged, in order; a character split
// between two writes is held until it is whole, and [Writer.Flush] writes
// what is held at the end.
package termsafe

import (
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// Writer escapes what it passes to the writer under it. It is safe for
// concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte // an unfinished character, or a carriage return, from the last write
}

// New returns a Writer over w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it on. It reports len(p) written when the
// writer under it took everything.
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buf := p
	if len(t.held) > 0 {
		buf = append(t.held, p...)
		t.held = nil
	}
	cut := len(buf) - unfinished(buf)
	if cut < len(buf) {
		t.held = append([]byte(nil), buf[cut:]...)
	}
	if cut == 0 {
		return len(p), nil
	}
	if _, err := t.w.Write(Escape(buf[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back (an unfinished character at the end of
// the output is written as its bytes' escapes).
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.held) == 0 {
		return nil
	}
	held := t.held
	t.held = nil
	_, err := t.w.Write(Escape(held))
	return err
}

// unfinished is how many bytes at the end of b may still become something
// else with the next write: a carriage return (a newline may follow), or
// the start of a UTF-8 character.
func unfinished(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	if b[len(b)-1] == '\r' {
		return 1
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= utf8.RuneSelf && !utf8.FullRune(b[i:]) {
				return len(b) - i
			}
			return 0
		}
	}
	return 0
}

// Escape returns b with every character a terminal would obey written as
// a readable escape (see the package doc). It returns b itself when
// nothing needs escaping.
func Escape(b []byte) []byte {
	i := 0
	for i < len(b) && safeASCII(b, i) {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if safeASCII(b, i) {
				out = append(out, c)
			} else {
				out = fmt.Appendf(out, `\x%02x`, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = fmt.Appendf(out, `\x%02x`, c)
		case obeyed(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// safeASCII reports whether b[i] is a printable ASCII character, a
// newline, a tab, or a carriage return right before a newline.
func safeASCII(b []byte, i int) bool {
	switch c := b[i]; {
	case c >= utf8.RuneSelf:
		return false
	case c == '\n' || c == '\t':
		return true
	case c == '\r':
		return i+1 < len(b) && b[i+1] == '\n'
	default:
		return c >= 0x20 && c != 0x7f
	}
}

// obeyed reports whether a terminal (or its text layout) acts on r rather
// than showing it: C1 controls, and the bidirectional marks, embeddings,
// overrides and isolates.
func obeyed(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
