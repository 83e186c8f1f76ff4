package lineedit

import (
	"unicode"

	"golang.org/x/text/width"
)

// cell returns how r is drawn and the columns it takes: East Asian wide
// and fullwidth characters (CJK, most emoji) take two, combining marks and
// the zero-width joiner none, and a control character is drawn as ^X (two
// columns). A character a terminal would act on rather than draw (bidi
// overrides, other format characters) is drawn as U+FFFD: the line's text
// keeps it, the screen does not reorder.
func cell(r rune) (string, int) {
	switch {
	case r < 0x20 || r == 0x7f:
		return "^" + string(r^0x40), 2
	case r == 0x200d || unicode.In(r, unicode.Mn, unicode.Me):
		return string(r), 0
	case !unicode.IsPrint(r) && r != ' ':
		return "\ufffd", 1
	case r >= 0x1160 && r <= 0x11ff:
		return string(r), 0 // Hangul jamo vowels and finals join the syllable
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return string(r), 2
	}
	return string(r), 1
}

// Width returns the columns s takes on a terminal.
func Width(s string) int {
	n := 0
	for _, r := range s {
		_, w := cell(r)
		n += w
	}
	return n
}
