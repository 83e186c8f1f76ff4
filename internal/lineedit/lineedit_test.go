package lineedit

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// keyboard hands the editor one chunk of keys per Read, and before each
// next chunk runs the check of the one before (the editor has drawn it
// by then); after the last, io.EOF.
type keyboard struct {
	t       *testing.T
	steps   []step
	i       int
	checked bool // the check of the step before i has run
}

type step struct {
	keys  string
	check func(t *testing.T)
}

func (k *keyboard) Read(p []byte) (int, error) {
	if k.i > 0 && k.steps[k.i-1].check != nil && !k.checked {
		k.steps[k.i-1].check(k.t)
		k.checked = true
	}
	if k.i >= len(k.steps) {
		return 0, io.EOF
	}
	n := copy(p, k.steps[k.i].keys)
	if k.steps[k.i].keys = k.steps[k.i].keys[n:]; k.steps[k.i].keys == "" {
		k.i++
		k.checked = false
	}
	return n, nil
}

// shows checks the screen's rows and the cursor.
func shows(s *screen, rows []string, row, col int) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if got := s.lines(); !slices.Equal(got, rows) {
			t.Errorf("screen\n%q\nwant\n%q", got, rows)
		}
		if r, c := s.cursor(); r != row || c != col {
			t.Errorf("cursor at row %d column %d, want %d, %d (screen %q)", r, c, row, col, s.lines())
		}
		if len(s.bad) > 0 {
			t.Errorf("sequences the screen does not know: %q", s.bad)
		}
	}
}

type hist []string

func (h hist) Len() int        { return len(h) }
func (h hist) At(i int) string { return h[len(h)-1-i] }

// TestWideCharacters: lines of CJK text, emoji and combining marks, on a
// terminal 10 columns wide (the prompt takes two), are drawn and edited
// where the terminal shows them: wrapped as it wraps, the cursor on the
// character being edited, nothing left behind by what was erased.
func TestWideCharacters(t *testing.T) {
	cases := []struct {
		name  string
		steps func(s *screen) []step
		want  string
	}{
		{"typed to the row's end and past it", func(s *screen) []step {
			return []step{
				{"你好世界", shows(s, []string{"› 你好世界"}, 1, 0)},
				{"abc", shows(s, []string{"› 你好世界", "abc"}, 1, 3)},
				{"\x01", shows(s, []string{"› 你好世界", "abc"}, 0, 2)}, // Ctrl-A
				{"\x05", shows(s, []string{"› 你好世界", "abc"}, 1, 3)}, // Ctrl-E
				{"\r", nil},
			}
		}, "你好世界abc"},
		{"a mark after a row filled to its end goes on the last character", func(s *screen) []step {
			return []step{
				{"你好世界", shows(s, []string{"› 你好世界"}, 1, 0)},
				{"\u0301", shows(s, []string{"› 你好世界\u0301"}, 1, 0)},
				{"\r", nil},
			}
		}, "你好世界\u0301"},
		{"a control character is drawn as ^X, split by the row's end as the terminal splits it", func(s *screen) []step {
			return []step{
				{"abcdefg\x1b[200~\x1b\x1b[201~", shows(s, []string{"› abcdefg^", "["}, 1, 1)},
				{"\r", nil},
			}
		}, "abcdefg\x1b"},
		{"a letter put between two wide ones", func(s *screen) []step {
			return []step{
				{"你好", shows(s, []string{"› 你好"}, 0, 6)},
				{"\x1b[D", shows(s, []string{"› 你好"}, 0, 4)},
				{"x", shows(s, []string{"› 你x好"}, 0, 5)},
				{"\x7f\x7f", shows(s, []string{"› 好"}, 0, 2)},
				{"\r", nil},
			}
		}, "好"},
		{"a wide character that does not fit starts the next row", func(s *screen) []step {
			return []step{
				{"abcdefg", shows(s, []string{"› abcdefg"}, 0, 9)},
				{"你", shows(s, []string{"› abcdefg", "你"}, 1, 2)},
				{"\x1b[D", shows(s, []string{"› abcdefg", "你"}, 0, 9)}, // after g
				{"\x1b[D", shows(s, []string{"› abcdefg", "你"}, 0, 8)},
				{"\x1b[3~", shows(s, []string{"› abcdef你"}, 0, 8)}, // Delete: 你 now fits
				{"\x1b[F\x7f", shows(s, []string{"› abcdef"}, 0, 8)},
				{"\r", nil},
			}
		}, "abcdef"},
		{"emoji and a combining mark", func(s *screen) []step {
			return []step{
				{"e\u0301😀!", shows(s, []string{"› e\u0301😀!"}, 0, 6)},
				{"\x1b[D\x1b[D", shows(s, []string{"› e\u0301😀!"}, 0, 3)},
				{"\x7f", shows(s, []string{"› 😀!"}, 0, 2)}, // the e and its accent
				{"\r", nil},
			}
		}, "😀!"},
		{"Ctrl-U and Ctrl-K over two rows", func(s *screen) []step {
			return []step{
				{"一二三四五六", shows(s, []string{"› 一二三四", "五六"}, 1, 4)},
				{"\x1b[D\x1b[D\x1b[D", shows(s, []string{"› 一二三四", "五六"}, 0, 8)},
				{"\x0b", shows(s, []string{"› 一二三"}, 0, 8)},
				{"\x15", shows(s, []string{"›"}, 0, 2)},
				{"\r", nil},
			}
		}, ""},
		{"the history's wide line, and back to the typed one", func(s *screen) []step {
			return []step{
				{"ab", shows(s, []string{"› ab"}, 0, 4)},
				{"\x1b[A", shows(s, []string{"› 東京の天", "気"}, 1, 2)},
				{"\x1b[B", shows(s, []string{"› ab"}, 0, 4)},
				{"\x1b[A\r", nil},
			}
		}, "東京の天気"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newScreen(10)
			kb := &keyboard{t: t}
			e := New(kb, s, "› ")
			e.SetWidth(10)
			e.History = hist{"東京の天気"}
			kb.steps = c.steps(s)
			got, pasted, err := e.ReadLine()
			if err != nil || pasted || got != c.want {
				t.Fatalf("%q, %v, %v; want %q", got, pasted, err, c.want)
			}
			if r, col := s.cursor(); col != 0 || r != len(s.lines()) && r != len(s.lines())-1 {
				t.Errorf("after Enter the cursor is at row %d column %d of %q, want a new line", r, col, s.lines())
			}
		})
	}
}

// TestWriteAboveTheLine: what is printed while a line is typed goes above
// it, and the line is drawn again below, the cursor where it was.
func TestWriteAboveTheLine(t *testing.T) {
	s := newScreen(10)
	kb := &keyboard{t: t}
	e := New(kb, s, "› ")
	e.SetWidth(10)
	kb.steps = []step{
		{"你好世界ab\x1b[D", func(t *testing.T) {
			if _, err := e.Write([]byte("note\n")); err != nil {
				t.Fatal(err)
			}
			shows(s, []string{"note", "› 你好世界", "ab"}, 2, 1)(t)
		}},
		{"\r", nil},
	}
	if got, _, err := e.ReadLine(); err != nil || got != "你好世界ab" {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestResize: a narrower terminal draws the line again at its width.
func TestResize(t *testing.T) {
	s := newScreen(10)
	kb := &keyboard{t: t}
	e := New(kb, s, "› ")
	e.SetWidth(10)
	kb.steps = []step{
		{"abcdef", func(t *testing.T) {
			s.mu.Lock()
			s.w, s.rows, s.row, s.col = 6, nil, 0, 0 // a terminal that cut its screen
			s.mu.Unlock()
			e.SetWidth(6)
			shows(s, []string{"› abcd", "ef"}, 1, 2)(t)
		}},
		{"\r", nil},
	}
	if got, _, err := e.ReadLine(); err != nil || got != "abcdef" {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestKeys: what each key does to the line, as terminals send them.
func TestKeys(t *testing.T) {
	cases := []struct {
		keys   string
		want   string
		pasted bool
		err    error
	}{
		{"hello\r", "hello", false, nil},
		{"hello\n", "hello", false, nil},
		{"ab\x1b[Dx\r", "axb", false, nil},
		{"ab\x1bOD\x1bODx\r", "xab", false, nil}, // application cursor keys
		{"world\x1b[Hhello \x1b[F!\r", "hello world!", false, nil},
		{"one two\x1b[1;5Dx\r", "one xtwo", false, nil},    // Ctrl-Left
		{"one two\x1bbx\x1bf!\r", "one xtwo!", false, nil}, // Alt-B, Alt-F
		{"one two\x1b\x7f\r", "one ", false, nil},          // Alt-Backspace
		{"list the filse\x17files\r", "list the files", false, nil},
		{"abc\x01\x04\r", "bc", false, nil},
		{"abc\x02\x02\x06x\r", "abxc", false, nil},
		{"a\x1b[5~b\r", "ab", false, nil}, // Page Up: nothing
		{"\x1b[200~a\x03b\x1b[201~\r", "a\x03b", false, nil},
		{"\x1b[200~first\r", "first", true, nil},
		{"half\x03", "", false, ErrInterrupted},
		{"\x04", "", false, io.EOF},
		{strings.Repeat("x", 5000) + "\r", strings.Repeat("x", 5000), false, nil}, // no length limit
		{"caf\xc3", "", false, io.EOF},                                            // a rune cut by the end of the keys
	}
	for _, c := range cases {
		s := newScreen(80)
		kb := &keyboard{t: t, steps: []step{{keys: c.keys}}}
		got, pasted, err := New(kb, s, "› ").ReadLine()
		if !errors.Is(err, c.err) || got != c.want || pasted != c.pasted {
			t.Errorf("%q: %q, pasted %v, %v; want %q, %v, %v", c.keys, got, pasted, err, c.want, c.pasted, c.err)
		}
		if len(s.bad) > 0 {
			t.Errorf("%q: sequences the screen does not know: %q", c.keys, s.bad)
		}
	}
}

// TestInterruptShown: Ctrl-C shows ^C after the line and leaves it.
func TestInterruptShown(t *testing.T) {
	s := newScreen(20)
	kb := &keyboard{t: t, steps: []step{{keys: "half typed\x03"}}}
	if _, _, err := New(kb, s, "› ").ReadLine(); !errors.Is(err, ErrInterrupted) {
		t.Fatal(err)
	}
	if got := s.lines(); !slices.Equal(got, []string{"› half typed^C"}) {
		t.Errorf("screen %q", got)
	}
	if r, c := s.cursor(); r != 1 || c != 0 {
		t.Errorf("cursor at %d, %d; want the next line", r, c)
	}
}

// TestCell: the columns characters take.
func TestCell(t *testing.T) {
	for _, c := range []struct {
		r    rune
		draw string
		w    int
	}{
		{'a', "a", 1}, {'你', "你", 2}, {'😀', "😀", 2}, {'\u0301', "\u0301", 0},
		{'›', "›", 1}, {'\x03', "^C", 2}, {'\t', "^I", 2}, {'\u202e', "\ufffd", 1},
		{'\u200d', "\u200d", 0}, {'Ｗ', "Ｗ", 2}, {'한', "한", 2}, {' ', " ", 1},
	} {
		if d, w := cell(c.r); d != c.draw || w != c.w {
			t.Errorf("cell(%U) = %q, %d; want %q, %d", c.r, d, w, c.draw, c.w)
		}
	}
}

// tokens are the keys FuzzEdit types, one per input byte: letters, a
// space, wide characters, a combining mark, editing keys and a paste's
// markers.
var tokens = []string{
	"a", "b", " ", "你", "😀", "\u0301", "\x1b[D", "\x1b[C", "\x7f", "\x1b[3~",
	"\x01", "\x05", "\x0b", "\x15", "\x17", "\x1b[A", "\x1b[B", "\x1bb", "\x1bf", "\x04",
	"\x1b[200~", "\x1b[201~",
}

// FuzzEdit types any run of keys on a terminal 7 columns wide and checks,
// after each, that the screen shows the prompt and the line as a terminal
// draws them afresh (nothing left over, nothing missing) with the cursor
// where a terminal puts it after the line's first pos characters.
func FuzzEdit(f *testing.F) {
	f.Add([]byte{3, 3, 3, 6, 0})
	f.Add([]byte{0, 1, 3, 4, 5, 6, 6, 6, 8, 0, 3, 15, 7, 7})
	f.Add([]byte{3, 3, 3, 3, 3, 10, 10, 12, 13, 14})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 64 {
			in = in[:64]
		}
		s := newScreen(7)
		kb := &keyboard{t: t}
		e := New(kb, s, "› ")
		e.SetWidth(7)
		e.History = hist{"東京の天気", "ab"}
		for _, b := range in {
			tok := tokens[int(b)%len(tokens)]
			if tok == "\x04" {
				continue // Ctrl-D on an empty line ends the read
			}
			kb.steps = append(kb.steps, step{keys: tok, check: func(t *testing.T) {
				if e.paste {
					return // a paste is drawn once it has come whole
				}
				want := newScreen(7)
				drawn, _ := text([]byte("› "), e.line)
				_, _ = want.Write(drawn)
				cur := newScreen(7)
				upto, _ := text([]byte("› "), e.line[:e.pos])
				_, _ = cur.Write(upto)
				row, col := cur.cursor()
				if cur.held {
					row, col = row+1, 0
				}
				shows(s, want.lines(), row, col)(t)
			}})
		}
		kb.steps = append(kb.steps, step{keys: "\x1b[201~\r"})
		if _, _, err := e.ReadLine(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLongPaste: a pasted line of a quarter of a million characters, in
// the terminal's 256-byte reads, in the middle of a typed line too, comes
// through whole. Inserted and laid out a character or a read at a time
// from the line's start, it took minutes.
func TestLongPaste(t *testing.T) {
	long := strings.Repeat("abcdefgh你", 1<<15)
	for _, c := range []struct{ keys, want string }{
		{"\x1b[200~" + long + "\x1b[201~\r", long},
		{"[]\x1b[D\x1b[200~" + long + "\x1b[201~\r", "[" + long + "]"},
	} {
		kb := &keyboard{t: t, steps: []step{{keys: c.keys}}}
		got, _, err := New(kb, io.Discard, "› ").ReadLine()
		if err != nil || got != c.want {
			t.Fatalf("%d characters back (%v), want %d", len([]rune(got)), err, len([]rune(c.want)))
		}
	}
}

// BenchmarkPaste pastes a line of 64 KiB in 256-byte reads.
func BenchmarkPaste(b *testing.B) {
	keys := "\x1b[200~" + strings.Repeat("x", 64<<10) + "\x1b[201~\r"
	for b.Loop() {
		kb := &keyboard{steps: []step{{keys: keys}}}
		if _, _, err := New(kb, io.Discard, "› ").ReadLine(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPreset: a preset line is drawn at once and edited like a typed
// one, the cursor at its end; the read after it starts empty.
func TestPreset(t *testing.T) {
	s := newScreen(40)
	kb := &keyboard{t: t, steps: []step{
		// Ctrl-W takes the word before the cursor: the preset's last.
		{keys: "\x17", check: shows(s, []string{"› summarise"}, 0, 12)},
		{keys: "todo.md\r"},
		{keys: "next\r"},
	}}
	e := New(kb, s, "› ")
	e.Preset("summarise notes.txt")
	got, _, err := e.ReadLine()
	if err != nil || got != "summarise todo.md" {
		t.Fatalf("the preset line, edited: %q, %v", got, err)
	}
	if got, _, err := e.ReadLine(); err != nil || got != "next" {
		t.Errorf("the read after it: %q, %v", got, err)
	}
}
