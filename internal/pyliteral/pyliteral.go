// Package pyliteral reads Python literals as models write them in tool
// calls (Llama 3.2's [name(k=v)], LFM2's, OLMo 3's, Gemma 3's tool_code)
// and in values other forms carry as text (a list written ['a', 'b']):
// strings with Python's escapes (one it does not know keeps its
// backslash), lists, dicts, numbers, True, False and None. Reader is the
// hand-written cursor the model package's call readers build on.
package pyliteral

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Reader is a place in a text being read by hand: S from byte I on.
type Reader struct {
	S string
	I int
}

// Space skips blanks.
func (r *Reader) Space() {
	for r.I < len(r.S) && unicode.IsSpace(rune(r.S[r.I])) {
		r.I++
	}
}

// Eat skips b when it comes next, and says whether it did.
func (r *Reader) Eat(b byte) bool {
	if r.I < len(r.S) && r.S[r.I] == b {
		r.I++
		return true
	}
	return false
}

// ErrNotLiteral is what reading text that is no Python literal gives.
var ErrNotLiteral = errors.New("not a python literal")

// Ident reads a name: letters, digits (not first), _, . and -.
func (r *Reader) Ident() string {
	start := r.I
	for r.I < len(r.S) {
		c := r.S[r.I]
		if c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (r.I > start && c >= '0' && c <= '9') {
			r.I++
			continue
		}
		break
	}
	return r.S[start:r.I]
}

// Value reads one literal: a string (literals side by side are one), a
// list, a dict with string keys, a number, True, False or None (and
// JSON's true, false and null).
func (r *Reader) Value() (any, error) {
	r.Space()
	if r.I >= len(r.S) {
		return nil, ErrNotLiteral
	}
	switch c := r.S[r.I]; {
	case c == '"' || c == '\'':
		// Literals side by side are one string, as in Python
		// ("line one\n" "line two\n": how a model splits long content).
		out, err := r.Str()
		for err == nil {
			save := r.I
			r.Space()
			if r.I >= len(r.S) || (r.S[r.I] != '"' && r.S[r.I] != '\'') {
				r.I = save
				break
			}
			var more string
			if more, err = r.Str(); err == nil {
				out += more
			}
		}
		return out, err
	case c == '[':
		r.I++
		out := []any{}
		for {
			r.Space()
			if r.Eat(']') {
				return out, nil
			}
			v, err := r.Value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			r.Space()
			if !r.Eat(',') && (r.I >= len(r.S) || r.S[r.I] != ']') {
				return nil, ErrNotLiteral
			}
		}
	case c == '{':
		r.I++
		out := map[string]any{}
		for {
			r.Space()
			if r.Eat('}') {
				return out, nil
			}
			k, err := r.Str()
			if err != nil {
				return nil, err
			}
			r.Space()
			if !r.Eat(':') {
				return nil, ErrNotLiteral
			}
			v, err := r.Value()
			if err != nil {
				return nil, err
			}
			out[k] = v
			r.Space()
			if !r.Eat(',') && (r.I >= len(r.S) || r.S[r.I] != '}') {
				return nil, ErrNotLiteral
			}
		}
	}
	if c := r.S[r.I]; c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' {
		start := r.I
		for r.I < len(r.S) && strings.IndexByte("+-0123456789.eE_", r.S[r.I]) >= 0 {
			r.I++
		}
		num := strings.ReplaceAll(r.S[start:r.I], "_", "")
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(num, 64); err == nil {
			return f, nil
		}
		return nil, ErrNotLiteral
	}
	word := r.Ident()
	switch word {
	case "True", "true":
		return true, nil
	case "False", "false":
		return false, nil
	case "None", "null":
		return nil, nil
	}
	return nil, ErrNotLiteral
}

// Str reads a quoted string ('…', "…", or triple-quoted for text over
// several lines) with Python's escapes.
func (r *Reader) Str() (string, error) {
	if r.I >= len(r.S) || (r.S[r.I] != '"' && r.S[r.I] != '\'') {
		return "", ErrNotLiteral
	}
	q := r.S[r.I : r.I+1]
	if strings.HasPrefix(r.S[r.I:], strings.Repeat(q, 3)) {
		q = strings.Repeat(q, 3)
	}
	r.I += len(q)
	var b strings.Builder
	for r.I < len(r.S) {
		if strings.HasPrefix(r.S[r.I:], q) {
			r.I += len(q)
			return b.String(), nil
		}
		c := r.S[r.I]
		r.I++
		if c != '\\' || r.I >= len(r.S) {
			b.WriteByte(c)
			continue
		}
		e := r.S[r.I]
		r.I++
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'a':
			b.WriteByte('\a')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"':
			b.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			// Octal, up to three digits: \0 is NUL, \012 a line feed.
			n := uint64(e - '0')
			for k := 0; k < 2 && r.I < len(r.S) && r.S[r.I] >= '0' && r.S[r.I] <= '7'; k++ {
				n = n*8 + uint64(r.S[r.I]-'0')
				r.I++
			}
			b.WriteRune(rune(n))
		case '\n':
			// A line continuation: nothing.
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if r.I+n > len(r.S) {
				return "", ErrNotLiteral
			}
			code, err := strconv.ParseUint(r.S[r.I:r.I+n], 16, 32)
			if err != nil {
				return "", ErrNotLiteral
			}
			r.I += n
			if e == 'u' && utf16.IsSurrogate(rune(code)) && strings.HasPrefix(r.S[r.I:], "\\u") && r.I+6 <= len(r.S) {
				// A pair, as JSON writes characters beyond the BMP.
				if lo, err := strconv.ParseUint(r.S[r.I+2:r.I+6], 16, 32); err == nil {
					r.I += 6
					code = uint64(utf16.DecodeRune(rune(code), rune(lo)))
				}
			}
			b.WriteRune(rune(code))
		default:
			// Python keeps the backslash of an escape it does not know:
			// a regular expression's \d or \| stays what it was.
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return "", ErrNotLiteral
}

// Parse reads s as one literal with nothing but blanks around it.
func Parse(s string) (any, bool) {
	r := &Reader{S: s}
	v, err := r.Value()
	if err != nil {
		return nil, false
	}
	r.Space()
	return v, r.I == len(r.S)
}
