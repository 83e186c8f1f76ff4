package lineedit

import (
	"slices"
	"strconv"
)

// spot is a place on the screen: rows below the prompt's first, and the
// column.
type spot struct{ row, col int }

// advance returns where the cursor stands after runes are drawn from s.
// A character that ends exactly at the row's end puts the cursor at the
// next row's start (the terminal holds it at the row's end until the next
// character; drewTo moves it down when nothing follows). A wide character
// that does not fit in what is left of a row starts the next, as
// terminals draw it.
func (e *Editor) advance(s spot, runes []rune) spot {
	step := func(w int) {
		if s.col > 0 && s.col+w > e.width {
			s = spot{s.row + 1, 0}
		}
		if s.col += w; s.col >= e.width {
			s = spot{s.row + 1, 0}
		}
	}
	for _, r := range runes {
		switch w := columns(r); {
		case r < 0x20 || r == 0x7f:
			step(1) // ^X: two characters a row's end may part
			step(1)
		case w > 0:
			step(w)
		}
	}
	return s
}

// spotOf returns where the cursor stands before line[i] (after the line
// when i is its length).
func (e *Editor) spotOf(line []rune, i int) spot {
	return e.advance(e.advance(spot{}, []rune(e.prompt)), line[:i])
}

// place is spotOf as a row and a column.
func (e *Editor) place(line []rune, i int) (row, col int) {
	s := e.spotOf(line, i)
	return s.row, s.col
}

// move appends the cursor's way from one place to another.
func move(b []byte, fromRow, toRow, toCol int) []byte {
	switch {
	case toRow < fromRow:
		b = append(append(append(b, "\x1b["...), strconv.Itoa(fromRow-toRow)...), 'A')
	case toRow > fromRow:
		b = append(append(append(b, "\x1b["...), strconv.Itoa(toRow-fromRow)...), 'B')
	}
	b = append(b, '\r')
	if toCol > 0 {
		b = append(append(append(b, "\x1b["...), strconv.Itoa(toCol)...), 'C')
	}
	return b
}

// moveTo appends the cursor's way from before drawn[from] to before
// line[to], two lines that are the same up to where it goes.
func (e *Editor) moveTo(b []byte, from, to int, line []rune) []byte {
	fr, fc := e.place(e.drawn, from)
	tr, tc := e.place(line, to)
	if fr == tr && fc == tc {
		return b
	}
	return move(b, fr, tr, tc)
}

// text appends how runes are drawn, and whether any takes a column.
func text(b []byte, runes []rune) ([]byte, bool) {
	wide := false
	for _, r := range runes {
		s, w := cell(r)
		b = append(b, s...)
		wide = wide || w > 0
	}
	return b, wide
}

// drewTo notes that the line is drawn to its end, which is at end, and
// moves the cursor to the next row when what was just drawn (drew) ended
// exactly at a row's end: the terminal holds it there, where place does
// not count it.
func (e *Editor) drewTo(b []byte, drew bool, end spot) []byte {
	if drew && end.col == 0 {
		b = append(b, "\r\n"...)
	}
	e.at, e.shownEnd = len(e.line), end
	return b
}

// draw appends the prompt and the whole line, from the start of the
// prompt's row (erased first when erase), and puts the cursor at pos.
func (e *Editor) draw(b []byte, erase bool) []byte {
	if erase {
		b = append(b, "\r\x1b[J"...)
	}
	b = append(b, e.prompt...)
	b, drew := text(b, e.line)
	e.drawn, e.shown = slices.Clone(e.line), true
	b = e.drewTo(b, drew || e.prompt != "", e.spotOf(e.line, len(e.line)))
	return e.cursor(b)
}

// cursor appends the cursor's way from where it is drawn to pos.
func (e *Editor) cursor(b []byte) []byte {
	if e.at != e.pos {
		b = e.moveTo(b, e.at, e.pos, e.line)
		e.at = e.pos
	}
	return b
}

// render appends what brings the screen from the line drawn to the line
// as it is: from the first character that changed to the end (the
// prompt and what is the same before it stay), then the cursor.
func (e *Editor) render(b []byte) []byte {
	if !e.shown {
		return e.draw(b, false)
	}
	k := 0
	for k < len(e.drawn) && k < len(e.line) && e.drawn[k] == e.line[k] {
		k++
	}
	if k == len(e.drawn) && k == len(e.line) {
		return e.cursor(b)
	}
	if k == len(e.drawn) && e.at == k && e.pos == len(e.line) && !zero(e.line[k]) {
		// Typed or pasted at the end, the cursor there: only what was
		// added is drawn and laid out (a paste of a megabyte comes in
		// thousands of reads). Not a mark, which is drawn with the
		// character before it.
		b, drew := text(b, e.line[k:])
		e.drawn = append(e.drawn, e.line[k:]...)
		return e.drewTo(b, drew, e.advance(e.shownEnd, e.line[k:]))
	}
	// A combining mark is drawn with the character before it.
	for k > 0 && (k < len(e.line) && zero(e.line[k]) || k < len(e.drawn) && zero(e.drawn[k])) {
		k--
	}
	if k == 0 && (len(e.drawn) > 0 && zero(e.drawn[0]) || len(e.line) > 0 && zero(e.line[0])) {
		// A mark at the line's start is drawn on the prompt's last cell:
		// the prompt is drawn again.
		row, _ := e.place(e.drawn, e.at)
		return e.draw(move(b, row, 0, 0), true)
	}
	b = e.moveTo(b, e.at, k, e.drawn)
	if k < len(e.drawn) {
		b = append(b, "\x1b[J"...) // what was drawn after k goes
	}
	b, drew := text(b, e.line[k:])
	e.drawn = slices.Clone(e.line)
	b = e.drewTo(b, drew, e.spotOf(e.line, len(e.line)))
	return e.cursor(b)
}

// zero reports whether r takes no column of its own.
func zero(r rune) bool {
	return columns(r) == 0
}
