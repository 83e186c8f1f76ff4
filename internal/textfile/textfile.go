// Package textfile tells how a text file spells its characters and ends
// its lines, turns its bytes into the UTF-8 text a model reads, and turns
// text back into bytes the same way, so a file the file tools change keeps
// its form.
//
// Forms: UTF-8, with or without a byte-order mark; UTF-16, little- or
// big-endian, with its byte-order mark (what Windows PowerShell's `>` and
// Notepad's "Unicode" write); and a legacy 8-bit file (not UTF-8, no NUL
// bytes), read as Windows-1252, the Latin-1 superset Windows wrote for
// Western languages. Every one of Windows-1252's 256 bytes reads as one
// character and writes back as the same byte (the five it leaves
// undefined as the C1 controls of the same number, as browsers read
// them), so no byte of a legacy file changes unless a change touched it,
// even when the file was in another code page and reads as nonsense.
// Text that mostly is UTF-8 with a stray byte stays UTF-8.
//
// A file whose every line ends in "\r\n" keeps those endings: text
// written to it with bare "\n" gets "\r\n". Text holding a character the
// file's encoding has not (a legacy file given "→") is refused, saying
// which, rather than written with a replacement.
package textfile

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding is how a file spells its characters in bytes.
type Encoding int

// The encodings a text file is read in.
const (
	UTF8 Encoding = iota
	UTF16LE
	UTF16BE
	Windows1252
)

// String names the encoding (iconv takes the name in capitals).
func (e Encoding) String() string {
	switch e {
	case UTF16LE:
		return "UTF-16LE"
	case UTF16BE:
		return "UTF-16BE"
	case Windows1252:
		return "Windows-1252"
	}
	return "UTF-8"
}

// Form is how a text file is written: its encoding, whether it starts
// with a byte-order mark and whether its lines end in "\r\n".
type Form struct {
	Encoding Encoding
	// BOM is set when the file starts with a byte-order mark (always, for
	// UTF-16).
	BOM bool
	// CRLF is set when the file has line breaks and every one is "\r\n".
	CRLF bool
}

// Plain reports whether the form is UTF-8 without a byte-order mark:
// bytes and text are the same.
func (f Form) Plain() bool { return f.Encoding == UTF8 && !f.BOM }

// String describes the form for a person or a model: "UTF-8",
// "UTF-16LE with a byte-order mark, CRLF line endings".
func (f Form) String() string {
	s := f.Encoding.String()
	if f.BOM {
		s += " with a byte-order mark"
	}
	if f.CRLF {
		s += ", CRLF line endings"
	}
	return s
}

var (
	bomUTF8    = []byte{0xef, 0xbb, 0xbf}
	bomUTF16LE = []byte{0xff, 0xfe}
	bomUTF16BE = []byte{0xfe, 0xff}
)

// Sniff tells the encoding of a file from its first bytes (head; whole
// when head is the whole file, so a character cut at its end is not
// mistaken for a broken one). CRLF is left unset: [Read] sets it.
// Sniff does not tell text from binary data (see package sniff): a
// binary file reads as Windows-1252 or UTF-16.
func Sniff(head []byte, whole bool) Form {
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		return Form{Encoding: UTF8, BOM: true}
	case bytes.HasPrefix(head, bomUTF16LE) && !bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}): // not UTF-32
		return Form{Encoding: UTF16LE, BOM: true}
	case bytes.HasPrefix(head, bomUTF16BE):
		return Form{Encoding: UTF16BE, BOM: true}
	}
	if !whole {
		head = head[:completeUTF8(head)]
	}
	if utf8.Valid(head) || bytes.IndexByte(head, 0) >= 0 || mostlyUTF8(head) {
		return Form{}
	}
	return Form{Encoding: Windows1252}
}

// completeUTF8 is the length of b without a UTF-8 character cut at its
// end.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// mostlyUTF8 reports whether b, which is not valid UTF-8, holds more
// characters UTF-8 spells in several bytes than bytes it cannot read: a
// UTF-8 file with a stray byte, not a legacy file.
func mostlyUTF8(b []byte) bool {
	wide, bad := 0, 0
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n == 1:
			bad++
		case n > 1:
			wide++
		}
		b = b[n:]
	}
	return wide > bad
}

// Read tells a whole file's form and returns its text.
func Read(b []byte) (string, Form) {
	f := Sniff(b, true)
	text := f.Decode(b)
	f.CRLF = crlf(text)
	return text, f
}

// Of tells a file's form from its first bytes (head; whole when that is
// the whole file), its line endings included.
func Of(head []byte, whole bool) Form {
	f := Sniff(head, whole)
	if !whole {
		head = f.Cut(head)
	}
	f.CRLF = crlf(f.Decode(head))
	return f
}

// crlf reports whether text has line breaks and every one is "\r\n".
func crlf(text string) bool {
	n := strings.Count(text, "\n")
	return n > 0 && strings.Count(text, "\r\n") == n
}

// Decode returns b's text (without its byte-order mark) as UTF-8. A
// UTF-16 character cut at b's end, or a lone surrogate, reads as U+FFFD;
// so does nothing else. Plain UTF-8 is returned as it is, invalid bytes
// included.
func (f Form) Decode(b []byte) string {
	switch f.Encoding {
	case UTF8:
		return string(bytes.TrimPrefix(b, bomUTF8))
	case Windows1252:
		out := make([]byte, 0, len(b)+len(b)/8)
		for _, c := range b {
			out = utf8.AppendRune(out, cp1252[c])
		}
		return string(out)
	}
	// A piece from inside the file has no byte-order mark: read as it is.
	order, bom := unicode.LittleEndian, bomUTF16LE
	if f.Encoding == UTF16BE {
		order, bom = unicode.BigEndian, bomUTF16BE
	}
	b = bytes.TrimPrefix(b, bom)
	s, _, err := transform.Bytes(unicode.UTF16(order, unicode.IgnoreBOM).NewDecoder(), b)
	if err != nil { // the decoder replaces what it cannot read; it does not fail
		return string(b)
	}
	return string(s)
}

// Cut returns b without a character cut at its end: b is the start of a
// longer file.
func (f Form) Cut(b []byte) []byte {
	switch f.Encoding {
	case UTF8:
		return b[:completeUTF8(b)]
	case UTF16LE, UTF16BE:
		b = b[:len(b)&^1]
		if n := len(b); n >= 2 {
			unit := uint16(b[n-2]) | uint16(b[n-1])<<8
			if f.Encoding == UTF16BE {
				unit = uint16(b[n-2])<<8 | uint16(b[n-1])
			}
			if unit >= 0xd800 && unit < 0xdc00 { // the first half of a pair
				b = b[:n-2]
			}
		}
	}
	return b
}

// Reader returns r's text as UTF-8, r being a file of this form read from
// its start.
func (f Form) Reader(r io.Reader) io.Reader {
	switch f.Encoding {
	case UTF8:
		if f.BOM {
			return transform.NewReader(r, unicode.UTF8BOM.NewDecoder())
		}
		return r
	case Windows1252:
		return transform.NewReader(r, legacyDecoder{})
	}
	return transform.NewReader(r, f.utf16().NewDecoder())
}

// utf16 is the form's UTF-16 encoding, which removes (and writes) the
// byte-order mark.
func (f Form) utf16() encoding.Encoding {
	if f.Encoding == UTF16BE {
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	}
	return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
}

// Text returns content with the form's line endings: every bare "\n"
// made "\r\n" in a CRLF file, as it is otherwise.
func (f Form) Text(content string) string {
	if !f.CRLF || strings.Count(content, "\n") == strings.Count(content, "\r\n") {
		return content
	}
	return strings.ReplaceAll(strings.ReplaceAll(content, "\r\n", "\n"), "\n", "\r\n")
}

// UnencodableError is the refusal of text holding characters the form's
// encoding has not.
type UnencodableError struct {
	Encoding Encoding
	// Chars are the characters it has not, each once, at most 5.
	Chars []rune
	// More is how many other characters it has not.
	More int
}

// Error names the encoding and the characters.
func (e *UnencodableError) Error() string {
	quoted := make([]string, len(e.Chars))
	for i, r := range e.Chars {
		quoted[i] = fmt.Sprintf("%q (%U)", r, r)
	}
	more := ""
	if e.More > 0 {
		more = fmt.Sprintf(" and %d more", e.More)
	}
	return fmt.Sprintf("%s has no %s%s", e.Encoding, strings.Join(quoted, ", "), more)
}

// Encode returns text (as [Form.Text] gives it) as the form's bytes, its
// byte-order mark first. It fails with an [*UnencodableError] when the
// encoding has not every character of text.
func (f Form) Encode(text string) ([]byte, error) {
	switch f.Encoding {
	case UTF8:
		if f.BOM {
			return append(bytes.Clone(bomUTF8), text...), nil
		}
		return []byte(text), nil
	case Windows1252:
		out := make([]byte, 0, len(text))
		var bad *UnencodableError
		seen := map[rune]bool{}
		for _, r := range text {
			c, ok := fromCP1252[r]
			if !ok && r < 0x80 {
				c, ok = byte(r), true
			}
			if ok {
				out = append(out, c)
				continue
			}
			if bad == nil {
				bad = &UnencodableError{Encoding: f.Encoding}
			}
			switch {
			case seen[r]:
			case len(bad.Chars) < 5:
				bad.Chars = append(bad.Chars, r)
			default:
				bad.More++
			}
			seen[r] = true
		}
		if bad != nil {
			return nil, bad
		}
		return out, nil
	}
	// The encoder writes the byte-order mark itself (ExpectBOM).
	b, _, err := transform.Bytes(f.utf16().NewEncoder(), []byte(text))
	if err != nil {
		return nil, fmt.Errorf("encode as %s: %w", f.Encoding, err)
	}
	return b, nil
}

// cp1252 maps each Windows-1252 byte to its character; fromCP1252 the
// characters at and above 0x80 back.
var (
	cp1252     [256]rune
	fromCP1252 = map[rune]byte{}
)

func init() {
	for i := range cp1252 {
		r := charmap.Windows1252.DecodeByte(byte(i))
		if r == utf8.RuneError { // 0x81, 0x8d, 0x8f, 0x90, 0x9d: undefined
			r = rune(i)
		}
		cp1252[i] = r
		if i >= 0x80 {
			fromCP1252[r] = byte(i)
		}
	}
}

// legacyDecoder reads Windows-1252 as UTF-8, a byte at a time.
type legacyDecoder struct{ transform.NopResetter }

// Transform implements [transform.Transformer].
func (legacyDecoder) Transform(dst, src []byte, _ bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		r := cp1252[src[nSrc]]
		if utf8.RuneLen(r) > len(dst)-nDst {
			return nDst, nSrc, transform.ErrShortDst
		}
		nDst += utf8.EncodeRune(dst[nDst:], r)
		nSrc++
	}
	return nDst, nSrc, nil
}
