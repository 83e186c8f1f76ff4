package model

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/ollama/ollama/api"
)

// pythonCalls reads Python-style calls: [name(k=v, …), …] (Llama 3.2,
// Llama 4), or without the brackets after <|python_tag|> and in Gemma's
// tool_code. Arguments are keyword arguments with literal values
// (strings, numbers, True/False/None, lists, dicts). list requires the
// bracketed form and nothing around it (the whole-message form).
func pythonCalls(s string, known func(string) bool, list bool) ([]api.ToolCall, bool) {
	s = strings.TrimSpace(s)
	if list && !strings.HasPrefix(s, "[") {
		return nil, false
	}
	calls, attempted, n := pythonCallsPrefix(s, known)
	if attempted {
		return nil, true
	}
	if n != len(s) {
		return nil, false // more than calls: prose, not a call
	}
	return calls, false
}

// pythonCallsPrefix reads the Python-style calls s starts with and
// returns where they end; attempted means a registered tool's arguments
// could not be read.
func pythonCallsPrefix(s string, known func(string) bool) (calls []api.ToolCall, attempted bool, end int) {
	p := &pyParser{cursor{s: s}}
	bracketed := p.eat('[')
	for {
		p.space()
		name := p.ident()
		if name == "" || !known(name) {
			return nil, false, 0
		}
		p.space()
		if !p.eat('(') {
			return nil, false, 0
		}
		args, err := p.kwargs()
		if err != nil {
			return nil, true, 0 // a registered tool, unreadable arguments
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}})
		p.space()
		if !p.eat(',') && !p.eat(';') {
			break
		}
	}
	p.space()
	if bracketed && !p.eat(']') {
		return nil, false, 0
	}
	p.space()
	return calls, false, p.i
}

// cursor is a place in a text being read by hand.
type cursor struct {
	s string
	i int
}

// space skips blanks.
func (c *cursor) space() {
	for c.i < len(c.s) && unicode.IsSpace(rune(c.s[c.i])) {
		c.i++
	}
}

// eat skips b when it comes next, and says whether it did.
func (c *cursor) eat(b byte) bool {
	if c.i < len(c.s) && c.s[c.i] == b {
		c.i++
		return true
	}
	return false
}

// pyParser reads Python literals.
type pyParser struct{ cursor }

var errPy = errors.New("not a python literal")

// ident reads a tool name: letters, digits, _, . and -.
func (p *pyParser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (p.i > start && c >= '0' && c <= '9') {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// kwargs reads k=v pairs up to the closing parenthesis.
func (p *pyParser) kwargs() (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	for {
		p.space()
		if p.eat(')') {
			return args, nil
		}
		key := p.ident()
		p.space()
		if key == "" || !p.eat('=') {
			return args, errPy
		}
		v, err := p.value()
		if err != nil {
			return args, err
		}
		args.Set(key, v)
		p.space()
		if p.eat(')') {
			return args, nil
		}
		if !p.eat(',') {
			return args, errPy
		}
	}
}

func (p *pyParser) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, errPy
	}
	switch c := p.s[p.i]; {
	case c == '"' || c == '\'':
		// Literals side by side are one string, as in Python
		// ("line one\n" "line two\n": how a model splits long content).
		out, err := p.str()
		for err == nil {
			save := p.i
			p.space()
			if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\'') {
				p.i = save
				break
			}
			var more string
			if more, err = p.str(); err == nil {
				out += more
			}
		}
		return out, err
	case c == '[':
		p.i++
		out := []any{}
		for {
			p.space()
			if p.eat(']') {
				return out, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			p.space()
			if !p.eat(',') && (p.i >= len(p.s) || p.s[p.i] != ']') {
				return nil, errPy
			}
		}
	case c == '{':
		p.i++
		out := map[string]any{}
		for {
			p.space()
			if p.eat('}') {
				return out, nil
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if !p.eat(':') {
				return nil, errPy
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out[k] = v
			p.space()
			if !p.eat(',') && (p.i >= len(p.s) || p.s[p.i] != '}') {
				return nil, errPy
			}
		}
	}
	if c := p.s[p.i]; c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' {
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE_", p.s[p.i]) >= 0 {
			p.i++
		}
		num := strings.ReplaceAll(p.s[start:p.i], "_", "")
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(num, 64); err == nil {
			return f, nil
		}
		return nil, errPy
	}
	word := p.ident()
	switch word {
	case "True", "true":
		return true, nil
	case "False", "false":
		return false, nil
	case "None", "null":
		return nil, nil
	}
	return nil, errPy
}

// str reads a quoted string ('…', "…", or triple-quoted for text over
// several lines) with Python's escapes.
func (p *pyParser) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\'') {
		return "", errPy
	}
	q := p.s[p.i : p.i+1]
	if strings.HasPrefix(p.s[p.i:], strings.Repeat(q, 3)) {
		q = strings.Repeat(q, 3)
	}
	p.i += len(q)
	var b strings.Builder
	for p.i < len(p.s) {
		if strings.HasPrefix(p.s[p.i:], q) {
			p.i += len(q)
			return b.String(), nil
		}
		c := p.s[p.i]
		p.i++
		if c != '\\' || p.i >= len(p.s) {
			b.WriteByte(c)
			continue
		}
		e := p.s[p.i]
		p.i++
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
			for k := 0; k < 2 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
				n = n*8 + uint64(p.s[p.i]-'0')
				p.i++
			}
			b.WriteRune(rune(n))
		case '\n':
			// A line continuation: nothing.
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.i+n > len(p.s) {
				return "", errPy
			}
			r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
			if err != nil {
				return "", errPy
			}
			p.i += n
			if e == 'u' && utf16.IsSurrogate(rune(r)) && strings.HasPrefix(p.s[p.i:], "\\u") && p.i+6 <= len(p.s) {
				// A pair, as JSON writes characters beyond the BMP.
				if lo, err := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 32); err == nil {
					p.i += 6
					r = uint64(utf16.DecodeRune(rune(r), rune(lo)))
				}
			}
			b.WriteRune(rune(r))
		default:
			// Python keeps the backslash of an escape it does not know:
			// a regular expression's \d or \| stays what it was.
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return "", errPy
}
