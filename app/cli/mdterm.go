package cli

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/shrimp-harness/shrimp/internal/termsafe"
)

// escaped is s as a terminal may be given it to show: its control
// characters written out (termsafe). What the model wrote, a request
// brought back from the history file, a tool's name: none commands the
// terminal.
func escaped(s string) string { return string(termsafe.Escape([]byte(s))) }

// Terminal styles (SGR) the styler writes.
const (
	sgrReset = "\x1b[0m"
	sgrBold  = "\x1b[1m"
	sgrCode  = "\x1b[36m"  // inline code and fenced blocks: cyan
	sgrHead  = "\x1b[1;4m" // headings: bold, underlined
	sgrDim   = "\x1b[2m"   // a fence's own line
)

// styler shows a streamed Markdown answer on a terminal as it arrives:
// **bold** bold, `code` and fenced blocks in colour, headings bold and
// underlined, the marks themselves left out (a fence's line is dimmed),
// tables aligned in columns (mdtable.go).
// It sees the text in pieces of any size, so it holds back a piece's end
// that may be the start of a mark ("*", "`" or "#" at a line's start)
// until the next piece says what it is. The text itself goes through
// termsafe, as everything the model writes does; only the styles it adds
// reach the terminal as escapes. Styles end with each line, so a mark the
// model leaves open colours one line at most.
type styler struct {
	raw io.Writer // the terminal

	held      string // an end that may be the start of a mark
	lineStart bool
	// table keeps a table's rows as written, to draw it again aligned
	// when it ends (mdtable.go); termSize gives the terminal's columns
	// and lines (nil: not known, tables as written).
	table    *heldTable
	termSize func() (int, int)
	feeding  bool // a row is being written as it came
	// whole: the text comes at once (a stored session shown), so a table
	// is drawn once, aligned, rather than written and drawn again.
	whole   bool
	bold    bool
	code    bool
	heading bool
	fence   bool // inside a fenced block
	// fenceLen is the backticks that opened it: only a line of at least
	// as many, and nothing else, closes it (CommonMark), so a block that
	// shows a fenced block (````, then ```go … ```) is one block.
	fenceLen int
}

func newStyler(raw io.Writer) *styler {
	return &styler{raw: raw, lineStart: true}
}

// styled returns a styler for out when it is a terminal and the user
// has not asked for no colour (NO_COLOR, TERM=dumb), else nil.
func styled(out io.Writer) *styler {
	f := terminalFile(out)
	if f == nil || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return nil
	}
	s := newStyler(f)
	s.termSize = func() (int, int) {
		w, h, err := term.GetSize(int(f.Fd()))
		if err != nil {
			return 0, 0
		}
		return w, h
	}
	return s
}

// write shows the next piece of the answer.
func (s *styler) write(piece string) {
	t := s.held + piece
	s.held = ""
	var out strings.Builder
	s.feed(t, &out)
	_, _ = io.WriteString(s.raw, out.String())
}

// feed styles t into out, holding back in s.held an end it cannot tell yet.
func (s *styler) feed(t string, out *strings.Builder) {
	plain := func(x string) { out.WriteString(escaped(x)) }
	for i := 0; i < len(t); {
		rest := t[i:]
		if s.lineStart && !s.fence {
			if n := s.tableLine(rest, out); n < 0 {
				s.held = rest // a row's end not yet here
				break
			} else if n > 0 {
				i += n
				continue
			}
		}
		if s.lineStart {
			if n := s.lineMark(rest, out); n < 0 {
				s.held = rest // not yet known
				break
			} else if n > 0 {
				i += n
				continue
			}
		}
		c := rest[0]
		switch {
		case c == '\n':
			s.endLine(out)
			out.WriteByte('\n')
			s.lineStart = true
			i++
			continue
		case s.fence:
		case c == '*' && len(rest) == 1:
			s.held = rest
			i = len(t)
			continue
		case strings.HasPrefix(rest, "**"):
			s.bold = !s.bold
			s.restyle(out)
			i += 2
			s.lineStart = false
			continue
		case c == '`':
			s.code = !s.code
			s.restyle(out)
			i++
			s.lineStart = false
			continue
		}
		j := i + 1
		for j < len(t) && !strings.ContainsRune("\n*`", rune(t[j])) {
			j++
		}
		plain(t[i:j])
		s.lineStart = false
		i = j
	}
}

// lineMark handles what a line starts with: a fence (toggled, its line
// dimmed) or a heading's #s (left out, the line styled). It returns how
// much of rest it took, 0 for nothing, or -1 when rest is too short to
// tell.
func (s *styler) lineMark(rest string, out *strings.Builder) int {
	if strings.HasPrefix(rest, "```") || (len(rest) < 3 && strings.HasPrefix("```", rest)) {
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return -1 // the fence's line is written whole
		}
		line := rest[:nl]
		ticks := len(line) - len(strings.TrimLeft(line, "`"))
		switch {
		case !s.fence:
			s.fence, s.fenceLen = true, ticks
		case ticks >= s.fenceLen && strings.TrimSpace(line[ticks:]) == "":
			s.fence = false
		default:
			return 0 // a line of the block
		}
		out.WriteString(sgrReset + sgrDim + escaped(line) + sgrReset + "\n")
		if s.fence {
			out.WriteString(sgrCode)
		}
		return nl + 1
	}
	if s.fence || rest[0] != '#' {
		return 0
	}
	hashes := len(rest) - len(strings.TrimLeft(rest, "#"))
	switch {
	case hashes == len(rest):
		return -1
	case hashes <= 6 && rest[hashes] == ' ':
		s.heading = true
		s.lineStart = false
		out.WriteString(sgrHead)
		return hashes + 1
	}
	return 0
}

// restyle writes the styles in force after a mark.
func (s *styler) restyle(out *strings.Builder) {
	out.WriteString(sgrReset)
	if s.heading {
		out.WriteString(sgrHead)
	}
	if s.bold {
		out.WriteString(sgrBold)
	}
	if s.code || s.fence {
		out.WriteString(sgrCode)
	}
}

// endLine ends the line's styles; a fenced block's colour goes on.
func (s *styler) endLine(out *strings.Builder) {
	if !s.fence && (s.bold || s.code || s.heading) {
		out.WriteString(sgrReset)
	}
	s.bold, s.code, s.heading = false, false, false
}

// end writes what was held back and ends every style: the answer is over,
// or something else is about to be printed.
func (s *styler) end() {
	if s.table != nil {
		// A table that was the answer's end; a row cut short is its
		// last.
		var out strings.Builder
		if s.held != "" {
			s.feed(s.held+"\n", &out)
			s.held = ""
		}
		if s.table != nil {
			s.redrawTable(&out)
		}
		_, _ = io.WriteString(s.raw, strings.TrimSuffix(out.String(), "\n"))
	}
	if s.held != "" {
		_, _ = io.WriteString(s.raw, escaped(s.held))
		s.held = ""
	}
	if s.bold || s.code || s.heading || s.fence {
		_, _ = io.WriteString(s.raw, sgrReset)
	}
	s.bold, s.code, s.heading, s.fence, s.lineStart = false, false, false, false, true
}
