package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCuts: at every offset of text in 1- to 4-byte characters, the
// pieces either side of a cut are valid UTF-8, and the cut moves by less
// than a character.
func TestCuts(t *testing.T) {
	s := strings.Repeat("aé中😀", 5)
	for i := 0; i <= len(s); i++ {
		b, a := Before(s, i), After(s, i)
		if b > i || i-b >= utf8.UTFMax || a < i || a-i >= utf8.UTFMax {
			t.Fatalf("offset %d: before %d, after %d", i, b, a)
		}
		if !utf8.ValidString(s[:b]) || !utf8.ValidString(s[b:]) || !utf8.ValidString(s[:a]) || !utf8.ValidString(s[a:]) {
			t.Fatalf("offset %d: a cut splits a character (before %d, after %d)", i, b, a)
		}
		if Before([]byte(s), i) != b || After([]byte(s), i) != a {
			t.Fatalf("offset %d: bytes and string disagree", i)
		}
	}
	for _, i := range []int{-1, len(s) + 1} {
		if Before(s, i) != i || After(s, i) != i {
			t.Errorf("offset %d outside the text was moved", i)
		}
	}
}

func TestLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"  one\n\ttwo  three\r\n", 20, "one two three"},
		{"héllo wörld", 5, "héllo…"},
		{"abc", 3, "abc"},
	} {
		if got := Line(c.in, c.n); got != c.want {
			t.Errorf("Line(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
