// Package textcut finds where UTF-8 text can be cut without splitting a
// character: a piece cut inside one reaches a model or a window as U+FFFD
// (JSON has no half characters), and text in most scripts would lose a
// letter at every cut. Offsets are in bytes; text that is not valid UTF-8
// is cut where asked, but never before a continuation byte.
package textcut

import (
	"strings"
	"unicode/utf8"
)

// Before returns the largest offset at most i that starts a character of
// s (or ends it: len(s)); s[:Before(s, i)] keeps only whole characters.
// An i outside [0, len(s)] is returned as it is.
func Before[T ~string | ~[]byte](s T, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// After returns the smallest offset at least i that starts a character of
// s, or len(s); s[After(s, i):] begins with a whole character.
func After[T ~string | ~[]byte](s T, i int) int {
	for i >= 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// Line returns s on one line, its lines and runs of blanks joined by one
// space, cut after n characters with "…" when it is longer.
func Line(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
