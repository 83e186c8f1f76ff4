package cli

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shrimp-harness/shrimp/internal/lineedit"
)

// TestStyler streams answers in pieces, marks split between them, and
// checks what the terminal is sent (styles shown as <b>, <c>, <h>, <d>
// and </> for the reset).
func TestStyler(t *testing.T) {
	readable := strings.NewReplacer(sgrReset, "</>", sgrBold, "<b>", sgrCode, "<c>", sgrHead, "<h>", sgrDim, "<d>")
	for _, c := range []struct {
		name   string
		pieces []string
		want   string
	}{
		{"bold and code", []string{"Hello **world** and `x`.\n"}, "Hello </><b>world</> and </><c>x</>.\n"},
		{"a mark split between pieces", []string{"a *", "*b*", "* c\n"}, "a </><b>b</> c\n"},
		{"a heading", []string{"#", "## Title\n", "text"}, "<h>Title</>\ntext"},
		{"a fence: its marks are text inside", []string{"``", "`go\nx := **1**\n```\n", "after"}, "</><d>```go</>\n<c>x := **1**\n</><d>```</>\nafter"},
		{"a mark left open ends with its line", []string{"**never closed\nnext"}, "</><b>never closed</>\nnext"},
		{"not marks", []string{"#hashtag and 2 * 3 and ####### seven\n"}, "#hashtag and 2 * 3 and ####### seven\n"},
		{"the model's escapes are text", []string{"a\x1b[31mred\n"}, `a\x1b[31mred` + "\n"},
		{"what is held is written at the end", []string{"**bold** then *"}, "</><b>bold</> then *"},
		{"an unfinished fence is written at the end", []string{"```"}, "```"},
		// A block that shows a fenced block (a session's tool output of a
		// Markdown file) is one block: only as many backticks, alone, close it.
		{"a fence inside a longer one", []string{"````\n```go\nx := **1**\n``", "`\n````\nafter **b**\n"}, "</><d>````</>\n<c>```go\nx := **1**\n```\n</><d>````</>\nafter </><b>b</>\n"},
		{"an info string does not close", []string{"```\na\n```sh\nb **c**\n```\n"}, "</><d>```</>\n<c>a\n```sh\nb **c**\n</><d>```</>\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			s := newStyler(&out)
			for _, p := range c.pieces {
				s.write(p)
			}
			s.end()
			if got := readable.Replace(out.String()); got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// screen is what a terminal width columns wide shows after out: lines
// wrapped at width (a wide character takes two columns), CR, LF (the tty
// adding CR), cursor up (ESC[nA) and erase below (ESC[J); styles dropped.
func screen(out string, width int) []string {
	var lines [][]rune
	row, col := 0, 0
	at := func() {
		for len(lines) <= row {
			lines = append(lines, nil)
		}
	}
	for i := 0; i < len(out); {
		if out[i] == '\x1b' {
			j := i + 2
			for j < len(out) && (out[j] >= '0' && out[j] <= '9' || out[j] == ';') {
				j++
			}
			n, _ := strconv.Atoi(cmp.Or(out[i+2:j], "1"))
			switch out[j] {
			case 'A':
				row = max(0, row-n)
			case 'J':
				at()
				lines = lines[:row+1]
				lines[row] = lines[row][:min(col, len(lines[row]))]
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		i += size
		switch r {
		case '\n':
			row, col = row+1, 0
			continue
		case '\r':
			col = 0
			continue
		}
		w := lineedit.Columns(string(r))
		if col+w > width {
			row, col = row+1, 0
		}
		at()
		for len(lines[row]) < col+w {
			lines[row] = append(lines[row], ' ')
		}
		lines[row][col] = r
		if w == 2 {
			lines[row][col+1] = 0
		}
		col += w
	}
	var shown []string
	for _, l := range lines {
		shown = append(shown, strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " "))
	}
	for len(shown) > 0 && shown[len(shown)-1] == "" {
		shown = shown[:len(shown)-1]
	}
	return shown
}

// TestStyledTables: a Markdown table is written as it streams and, once
// it ends, drawn again in place in aligned columns; what is no table, a
// table in a fence, one wider or taller than the terminal are left as
// they came. What the terminal shows is checked (screen), the line
// before the table and after it included.
func TestStyledTables(t *testing.T) {
	for _, c := range []struct {
		name          string
		pieces        []string
		width, height int
		want          []string
	}{
		{"aligned, streamed in pieces", []string{"Files:\n| Na", "me | Size |\n|---|--", "-:|\n| a.txt | 12 KB |\n| notes.md | 3 B |\n", "Done."}, 80, 24,
			[]string{"Files:", "Name     │  Size", "─────────┼──────", "a.txt    │ 12 KB", "notes.md │   3 B", "Done."}},
		{"centred, marks in cells, an escaped bar", []string{"| op | what |\n|:--:|:---|\n| `a\\|b` | **either** |\n| x | y |\n"}, 80, 24,
			[]string{"op  │ what", "────┼───────", "a|b │ either", " x  │ y"}},
		{"wide characters line up", []string{"| 名前 | n |\n| --- | --- |\n| 東京 | 1 |\n| ab | 2 |\n"}, 80, 24,
			[]string{"名前 │ n", "─────┼──", "東京 │ 1", "ab   │ 2"}},
		{"the answer ends inside it", []string{"x\n| a | b |\n|---|---|\n| 1 | 2 |"}, 80, 24,
			[]string{"x", "a │ b", "──┼──", "1 │ 2"}},
		{"missing and extra cells", []string{"| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |\n"}, 80, 24,
			[]string{"a │ b", "──┼──", "1 │", "1 │ 2"}},
		{"rows that wrapped are all drawn over", []string{"above\n| a                                  | b |\n|---|---|\n| 1 | 2 |\nbelow\n"}, 30, 24,
			[]string{"above", "a │ b", "──┼──", "1 │ 2", "below"}},
		{"no delimiter row: as written", []string{"| not | a table |\n| just | bars |\nnext\n"}, 80, 24,
			[]string{"| not | a table |", "| just | bars |", "next"}},
		{"in a fence: code", []string{"```\n| a | b |\n|---|---|\n```\n"}, 80, 24,
			[]string{"```", "| a | b |", "|---|---|", "```"}},
		{"wider than the terminal: as written", []string{"| a long header | another |\n|---|---|\n| x | y |\n"}, 20, 24,
			[]string{"| a long header | an", "other |", "|---|---|", "| x | y |"}},
		{"taller than the terminal: as written", []string{"top\n| a |\n|---|\n| 1 |\n| 2 |\n| 3 |\n| 4 |\nend\n"}, 80, 5,
			[]string{"top", "| a |", "|---|", "| 1 |", "| 2 |", "| 3 |", "| 4 |", "end"}},
		{"the model's escapes are text", []string{"| a\x1b[2J |\n|---|\n| b |\n"}, 80, 24,
			[]string{`a\x1b[2J`, "────────", "b"}},
		{"four spaces in: text", []string{"    | a |\n    |---|\n"}, 80, 24,
			[]string{"    | a |", "    |---|"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			s := newStyler(&out)
			s.termSize = func() (int, int) { return c.width, c.height }
			for _, p := range c.pieces {
				s.write(p)
			}
			s.end()
			if got := screen(out.String(), c.width); !slices.Equal(got, c.want) {
				t.Fatalf("the terminal shows\n%s\nwant\n%s\n(written %q)", strings.Join(got, "\n"), strings.Join(c.want, "\n"), out.String())
			}
		})
	}
}

// TestTableStyles: the header is bold, marks in cells styled; where the
// terminal's size is not known, a table is written as it came, nothing
// drawn again.
func TestTableStyles(t *testing.T) {
	var out strings.Builder
	s := newStyler(&out)
	s.termSize = func() (int, int) { return 80, 24 }
	s.write("| **k** | v |\n|---|---|\n| `x` | y |\n")
	s.end()
	want := "\x1b[3A\r\x1b[J" + sgrBold + "k" + sgrReset + " │ " + sgrBold + "v" + sgrReset + "\n──┼──\n" + sgrCode + "x" + sgrReset + " │ y"
	if got := out.String(); !strings.HasSuffix(got, want) {
		t.Fatalf("got  %q\nwant …%q", got, want)
	}
	out.Reset()
	s = newStyler(&out)
	raw := "| a | b |\n|---|---|\n| 1 | 2 |\n"
	s.write(raw)
	s.end()
	if out.String() != raw {
		t.Fatalf("no size known: %q, want it as written", out.String())
	}
}

// TestWholeTextTables: text that comes at once (a stored session shown)
// gets its tables drawn once, aligned, without moving the cursor back;
// one too wide is written as it came.
func TestWholeTextTables(t *testing.T) {
	for _, c := range []struct {
		name  string
		width int
		want  []string
	}{
		{"fits", 80, []string{"Files", "a   │  b", "────┼───", "one │ 22", "end"}},
		{"too wide", 7, []string{"Files", "| a | b", " |", "|---|--", ":|", "| one |", " 22 |", "end"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			s := newStyler(&out)
			s.whole = true
			s.termSize = func() (int, int) { return c.width, 3 } // shorter than the text: no matter
			s.write("Files\n| a | b |\n|---|--:|\n| one | 22 |\nend\n")
			s.end()
			if strings.Contains(out.String(), "\x1b[J") {
				t.Errorf("the cursor was moved back: %q", out.String())
			}
			if got := screen(out.String(), c.width); !slices.Equal(got, c.want) {
				t.Fatalf("the terminal shows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
