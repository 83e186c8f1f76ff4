package lineedit

import (
	"bytes"
	"unicode/utf8"
)

// op is what a key asks of the line.
type op int

const (
	opInsert op = iota // the key's rune goes in at the cursor
	opIgnore
	opEnter
	opBackspace
	opDelete
	opLeft
	opRight
	opWordLeft
	opWordRight
	opHome
	opEnd
	opUp
	opDown
	opKillEnd   // Ctrl-K: from the cursor to the end
	opKillStart // Ctrl-U: from the start to the cursor
	opKillWord  // Ctrl-W, Alt-Backspace: the word before the cursor
	opInterrupt // Ctrl-C
	opEOF       // Ctrl-D: leave on an empty line, else delete
	opTab
	opClear // Ctrl-L
	opPasteStart
	opPasteEnd
)

// key is one key: what it asks, and the rune typed for opInsert.
type key struct {
	op op
	r  rune
}

// pasteEnd is bracketed paste's closing marker.
var pasteEnd = []byte("\x1b[201~")

// controls maps control characters to what they ask.
var controls = map[byte]op{
	1: opHome, 2: opLeft, 3: opInterrupt, 4: opEOF, 5: opEnd, 6: opRight,
	8: opBackspace, 9: opTab, '\n': opEnter, 11: opKillEnd, 12: opClear,
	'\r': opEnter, 14: opDown, 16: opUp, 21: opKillStart, 23: opKillWord,
	0x7f: opBackspace,
}

// sequences maps the escape sequences terminals send for keys (after
// ESC) to what they ask: xterm's, VT220's and the application-cursor
// forms; Ctrl or Alt with an arrow moves by a word.
var sequences = map[string]op{
	"[A": opUp, "[B": opDown, "[C": opRight, "[D": opLeft,
	"OA": opUp, "OB": opDown, "OC": opRight, "OD": opLeft,
	"[H": opHome, "OH": opHome, "[1~": opHome, "[7~": opHome,
	"[F": opEnd, "OF": opEnd, "[4~": opEnd, "[8~": opEnd,
	"[3~":   opDelete,
	"[1;5C": opWordRight, "[1;3C": opWordRight, "[5C": opWordRight,
	"[1;5D": opWordLeft, "[1;3D": opWordLeft, "[5D": opWordLeft,
	"[200~": opPasteStart, "[201~": opPasteEnd,
	"b": opWordLeft, "f": opWordRight, "\x7f": opKillWord, "\b": opKillWord,
}

// next returns the first key in b and how many bytes it took, or 0 bytes
// when b holds only the start of one. Inside a paste every byte is text
// but the paste's end and line ends.
func next(b []byte, paste bool) (key, int) {
	if len(b) == 0 {
		return key{}, 0
	}
	if paste {
		switch {
		case bytes.HasPrefix(b, pasteEnd):
			return key{op: opPasteEnd}, len(pasteEnd)
		case bytes.HasPrefix(pasteEnd, b):
			return key{}, 0 // perhaps the paste's end, in two reads
		case b[0] == '\r' && len(b) > 1 && b[1] == '\n':
			return key{op: opEnter}, 2
		case b[0] == '\r' || b[0] == '\n':
			return key{op: opEnter}, 1
		}
		return runeKey(b)
	}
	switch c := b[0]; {
	case c == 0x1b:
		return escape(b)
	case c == '\r' && len(b) > 1 && b[1] == '\n':
		return key{op: opEnter}, 2 // CR LF is one line end
	case c < 0x20 || c == 0x7f:
		if o, ok := controls[c]; ok {
			return key{op: o}, 1
		}
		return key{op: opIgnore}, 1
	}
	return runeKey(b)
}

// runeKey returns the rune b starts with, U+FFFD for a byte that starts none.
func runeKey(b []byte) (key, int) {
	if !utf8.FullRune(b) {
		return key{}, 0
	}
	r, n := utf8.DecodeRune(b)
	return key{op: opInsert, r: r}, n
}

// escape reads an escape sequence: ESC and a letter (Alt), or ESC [ or
// ESC O, parameters and a final byte. Sequences it does not know are
// skipped whole.
func escape(b []byte) (key, int) {
	if len(b) < 2 {
		return key{}, 0 // ESC alone: the rest of a sequence may follow
	}
	if b[1] != '[' && b[1] != 'O' {
		if o, ok := sequences[string(b[1:2])]; ok {
			return key{op: o}, 2
		}
		return key{op: opIgnore}, 2
	}
	for i := 2; i < len(b) && i < 32; i++ {
		if b[i] >= 0x40 && b[i] <= 0x7e {
			if o, ok := sequences[string(b[1:i+1])]; ok {
				return key{op: o}, i + 1
			}
			return key{op: opIgnore}, i + 1
		}
	}
	if len(b) >= 32 {
		return key{op: opIgnore}, 1 // no sequence: the ESC alone
	}
	return key{}, 0
}
