package tail

import (
	"slices"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		want   []string
	}{
		{"nothing", nil, []string{}},
		{"split writes", []string{"hel", "lo\nwor", "ld\n"}, []string{"hello", "world"}},
		{"last three kept", []string{"a\nb\nc\nd\ne\n"}, []string{"c", "d", "e"}},
		{"unfinished line shown", []string{"done\nhalf"}, []string{"done", "half"}},
		{"blank lines and CR dropped", []string{"x\r\n\n\ny\n"}, []string{"x", "y"}},
		{"long line cut", []string{strings.Repeat("z", MaxLine+50) + "\n"}, []string{strings.Repeat("z", MaxLine)}},
	} {
		l := New(3)
		for _, w := range c.writes {
			if n, err := l.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("%s: Write = %d, %v", c.name, n, err)
			}
		}
		if got := l.Lines(); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestLast(t *testing.T) {
	for _, c := range []struct {
		lines []string
		n     int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"a"}, 3, "a"},
		{[]string{"a", "b", "c", "d"}, 3, "b | c | d"},
		{[]string{"a", "b"}, 0, ""},
	} {
		if got := Last(c.lines, c.n); got != c.want {
			t.Errorf("Last(%q, %d) = %q, want %q", c.lines, c.n, got, c.want)
		}
	}
}
