package lineedit

import (
	"unicode"

	"golang.org/x/text/width"
)

// columns returns the columns r takes on the screen: East Asian wide and
// fullwidth characters (CJK, most emoji) two, combining marks, the
// zero-width joiner and Hangul's medial and final jamo none, a control
// character two (it is drawn as ^X), any other one.
func columns(r rune) int {
	switch {
	case r < 0x20 || r == 0x7f:
		return 2
	case r == 0x200d || unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case !unicode.IsPrint(r) && r != ' ':
		return 1 // drawn as U+FFFD (cell)
	case r >= 0x1160 && r <= 0x11ff:
		return 0 // Hangul jamo vowels and finals join the syllable
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// cell returns how r is drawn and the columns it takes (columns): a
// control character as ^X, and a character a terminal would act on rather
// than draw (bidi overrides, other format characters) as U+FFFD: the
// line's text keeps it, the screen does not reorder.
func cell(r rune) (string, int) {
	w := columns(r)
	switch {
	case r < 0x20 || r == 0x7f:
		return "^" + string(r^0x40), w
	case w == 1 && !unicode.IsPrint(r) && r != ' ':
		return "\ufffd", w
	}
	return string(r), w
}

// Columns returns the columns s takes on a terminal (columns of each
// character), for text laid out beside other text: a table's cells.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n += columns(r)
	}
	return n
}
