package injection

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Hidden text: characters a person reading a page, a file or a timeline
// does not see, but a model's tokenizer reads, so instructions can ride
// in them past the reader ("ASCII smuggling"):
//   - Unicode tag characters (U+E0000–U+E007F), each an invisible copy of
//     an ASCII character; their one legitimate use, a subdivision flag
//     (🏴 and up to seven tags ending in U+E007F), is kept;
//   - runs of two or more variation selectors (U+FE00–U+FE0F,
//     U+E0100–U+E01EF), which can carry a byte each; a character takes at
//     most one.
//
// Unhide removes them: the first run is replaced by a visible note of
// what was removed there, and when there were more, one note at the end
// counts them (so the text never grows by more than two notes, however
// many runs it hides). It reports how many characters it removed in all;
// text without them is returned as it is.
func Unhide(s string) (string, int) {
	if !mayHide(s) {
		return s, 0
	}
	out, n := unhide(s)
	if n > 0 && !utf8.ValidString(s) {
		// Invalid bytes on both sides of a removed run would join into a
		// character, even a tag: read as JSON does (the model gets text
		// through JSON), as U+FFFD.
		out, n = unhide(strings.ToValidUTF8(s, "\uFFFD"))
	}
	return out, n
}

func unhide(s string) (string, int) {
	var b strings.Builder
	b.Grow(len(s))
	removed, runs, later := 0, 0, 0
	note := func(n int, what string) {
		if runs == 0 {
			fmt.Fprintf(&b, "[%d invisible %s removed]", n, what)
		} else {
			later += n
		}
		runs++
		removed += n
	}
	var prev rune
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isTag(r) && prev == '🏴' && flagTags(s[i:]) > 0:
			end := flagTags(s[i:])
			b.WriteString(s[i : i+end])
			i += end
			prev = 0
			continue
		case isTag(r) || isSelector(r):
			// Tags and selectors taken together: single selectors between
			// tags would otherwise meet once the tags are gone, a run that
			// carries bytes (the fuzzer's find).
			n, end := run(s[i:], hidden)
			if tags, _ := run(s[i:], isTag); tags == n {
				note(n, "Unicode tag characters")
			} else if sel, _ := run(s[i:], isSelector); sel == n && n > 1 {
				note(n, "variation selectors")
			} else if sel == n {
				break // one selector after a character: its own use
			} else {
				note(n, "invisible characters (Unicode tags and variation selectors)")
			}
			i += end
			prev = 0
			continue
		}
		b.WriteString(s[i : i+size])
		prev = r
		i += size
	}
	if runs > 1 {
		fmt.Fprintf(&b, "\n[%d more invisible characters were removed from %d more places in this text]", later, runs-1)
	}
	return b.String(), removed
}

// mayHide is a quick test for the leading bytes of the characters Unhide
// removes (U+E0000 and up start with F3 A0; U+FE00–FE0F with EF B8): most
// text has none and is returned without a copy.
func mayHide(s string) bool {
	return strings.Contains(s, "\xf3\xa0") || strings.Contains(s, "\xef\xb8")
}

func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// hidden reports whether r is a tag character or a variation selector.
func hidden(r rune) bool { return isTag(r) || isSelector(r) }

func isSelector(r rune) bool {
	return (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF)
}

// run counts the characters at the start of s that match and returns the
// byte length they take.
func run(s string, match func(rune) bool) (n, end int) {
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if !match(r) {
			break
		}
		n++
		end += size
	}
	return n, end
}

// flagTags returns the byte length of a subdivision flag's tags at the
// start of s (one to seven tag letters or digits, then the cancel tag
// U+E007F), 0 when s does not start with them.
func flagTags(s string) int {
	end := 0
	for k := 0; k < 8 && end < len(s); k++ {
		r, size := utf8.DecodeRuneInString(s[end:])
		end += size
		switch {
		case r == 0xE007F:
			if k == 0 {
				return 0
			}
			return end
		case r < 0xE0030 || r > 0xE007A:
			return 0
		}
	}
	return 0
}
