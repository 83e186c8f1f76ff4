package fence

import "testing"

func TestFences(t *testing.T) {
	for _, tc := range []struct{ in, around, inline string }{
		{"plain", "```go\nplain\n```", "` plain `"},
		{"a ``` b", "````go\na ``` b\n````", "```` a ``` b ````"},
		{"x`<img src=\"y\">`", "```go\nx`<img src=\"y\">`\n```", "`` x`<img src=\"y\">` ``"},
		{"two\nlines", "```go\ntwo\nlines\n```", "` two lines `"},
	} {
		if got := Around("go", tc.in); got != tc.around {
			t.Errorf("Around(%q) = %q, want %q", tc.in, got, tc.around)
		}
		if got := Inline(tc.in); got != tc.inline {
			t.Errorf("Inline(%q) = %q, want %q", tc.in, got, tc.inline)
		}
	}
}
