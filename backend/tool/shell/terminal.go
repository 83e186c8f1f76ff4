package shell

import (
	"io"
	"unicode/utf8"
)

// Commands write for a terminal even when told TERM=dumb and NO_COLOR:
// colour codes (npm, cargo, pytest), progress bars redrawn with carriage
// returns (pip, curl, wget, docker pull: thousands of redraws, each a
// line's worth of tokens, that filled the output cap and pushed out the
// error at the end) and spinners drawn with backspaces. terminal passes on
// the text a terminal would show: escape sequences removed, a line
// redrawn after a carriage return kept as last drawn, a backspace taking
// back the character before it.

// maxLine is the most of one unfinished line held back, in bytes; past it
// the line is passed on as it stands.
const maxLine = 64 << 10

// terminal is a writer that passes on to next what a terminal would
// show of what is written to it; Flush passes on an unfinished last line.
type terminal struct {
	next io.Writer

	line    []byte // the current line, not passed on yet
	state   int    // where in an escape sequence the text is
	pending bool   // after a carriage return: what is drawn next replaces the line
}

const (
	plain   = iota
	escape  // after ESC
	csi     // in ESC [ … final byte
	osc     // in ESC ] … BEL or ESC \ (also DCS, SOS, PM, APC)
	oscEsc  // an ESC in a string sequence: \ ends it
	charset // after ESC ( ) * + and the like: one more byte
)

// Write takes output; it never fails but for next's error.
func (t *terminal) Write(p []byte) (int, error) {
	for _, c := range p {
		switch t.state {
		case escape:
			switch {
			case c == '[':
				t.state = csi
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				t.state = osc
			case c >= ' ' && c <= '/':
				t.state = charset
			default:
				t.state = plain // a two-byte sequence (ESC 7, ESC =, …)
			}
			continue
		case csi:
			if c >= '@' && c <= '~' {
				t.state = plain
			}
			continue
		case osc:
			switch c {
			case 0x07:
				t.state = plain
			case 0x1b:
				t.state = oscEsc
			}
			continue
		case oscEsc:
			t.state = osc
			if c == '\\' {
				t.state = plain
			}
			continue
		case charset:
			t.state = plain
			continue
		}
		switch c {
		case 0x1b:
			t.state = escape
		case '\r':
			t.pending = true
		case '\b':
			if len(t.line) > 0 && !t.pending {
				_, size := utf8.DecodeLastRune(t.line)
				t.line = t.line[:len(t.line)-size]
			}
		case '\n':
			t.pending = false
			t.line = append(t.line, '\n')
			if err := t.pass(); err != nil {
				return 0, err
			}
		default:
			if t.pending {
				t.pending = false
				t.line = t.line[:0] // the line is drawn again
			}
			t.line = append(t.line, c)
			if len(t.line) >= maxLine {
				if err := t.pass(); err != nil {
					return 0, err
				}
			}
		}
	}
	return len(p), nil
}

// pass hands the line on.
func (t *terminal) pass() error {
	_, err := t.next.Write(t.line)
	t.line = t.line[:0]
	return err
}

// Flush passes on the unfinished last line.
func (t *terminal) Flush() error {
	if len(t.line) == 0 {
		return nil
	}
	return t.pass()
}
