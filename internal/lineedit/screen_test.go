package lineedit

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// screen is a small terminal for the tests: a grid that draws runes with
// autowrap (a wide character that does not fit starts the next row; the
// cursor is held at a row's end until the next character) and knows the
// sequences the editor may send. Its widths are its own, not cell's:
// CJK and the emoji used here two columns, combining marks none.
type screen struct {
	mu       sync.Mutex
	w        int
	rows     [][]string // each cell: a rune and its marks; "" after a wide one
	row, col int
	held     bool // at the row's end, waiting for the next character
	bad      []string
}

func newScreen(w int) *screen { return &screen{w: w} }

func termWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || r == 0x200d:
		return 0
	case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || (r >= 0x1f300 && r <= 0x1faff) || (r >= 0xac00 && r <= 0xd7a3):
		return 2
	}
	return 1
}

func (s *screen) ensure(row int) {
	for len(s.rows) <= row {
		row := make([]string, s.w)
		for i := range row {
			row[i] = " "
		}
		s.rows = append(s.rows, row)
	}
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\r':
			s.col, s.held = 0, false
			i++
		case c == '\n':
			s.row++
			s.held = false
			i++
		case c == 0x1b:
			j := i + 1
			if j < len(p) && p[j] == '[' {
				j++
				for j < len(p) && !(p[j] >= 0x40 && p[j] <= 0x7e) {
					j++
				}
				s.csi(string(p[i+2:j]), p[j])
				i = j + 1
				continue
			}
			s.bad = append(s.bad, strconv.Quote(string(p[i:min(i+4, len(p))])))
			i++
		default:
			r, n := utf8.DecodeRune(p[i:])
			s.put(r)
			i += n
		}
	}
	return len(p), nil
}

func (s *screen) put(r rune) {
	w := termWidth(r)
	if w == 0 {
		c := s.col - 1
		if s.held {
			c = s.w - 1
		}
		if c >= 0 {
			s.ensure(s.row)
			s.rows[s.row][c] += string(r)
		}
		return
	}
	if s.held || s.col+w > s.w {
		s.row++
		s.col = 0
		s.held = false
	}
	s.ensure(s.row)
	s.rows[s.row][s.col] = string(r)
	if w == 2 {
		s.rows[s.row][s.col+1] = ""
	}
	s.col += w
	if s.col >= s.w {
		s.col, s.held = s.w-1, true
	}
}

func (s *screen) csi(params string, final byte) {
	n := 1
	if v, err := strconv.Atoi(params); err == nil {
		n = v
	}
	s.held = false
	switch {
	case final == 'A':
		s.row = max(s.row-n, 0)
	case final == 'B':
		s.row += n
	case final == 'C':
		s.col = min(s.col+n, s.w-1)
	case final == 'J':
		s.ensure(s.row)
		for c := s.col; c < s.w; c++ {
			s.rows[s.row][c] = " "
		}
		s.rows = s.rows[:s.row+1]
	case final == 'H':
		s.row, s.col = 0, 0
	case final == 'h' || final == 'l':
	default:
		s.bad = append(s.bad, params+string(final))
	}
}

// lines returns the screen's rows, trailing blanks cut.
func (s *screen) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.rows {
		out = append(out, strings.TrimRight(strings.Join(r, ""), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// cursor returns where the cursor is.
func (s *screen) cursor() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.row, s.col
}
