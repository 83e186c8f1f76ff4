package cli

import (
	"strings"
	"testing"
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
