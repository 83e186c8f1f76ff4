package model

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"
)

// pythonCalls reads Python-style calls: [name(k=v, …), …] (Llama 3.2,
// Llama 4), or without the brackets after <|python_tag|> and in Gemma's
// tool_code. Arguments are keyword arguments with literal values
// (strings, numbers, True/False/None, lists, dicts). list requires the
// bracketed form and nothing around it (the whole-message form).
func pythonCalls(s string, known func(string) bool, list bool) ([]api.ToolCall, bool) {
	p := &pyParser{s: strings.TrimSpace(s)}
	bracketed := p.eat('[')
	if list && !bracketed {
		return nil, false
	}
	var calls []api.ToolCall
	for {
		p.space()
		name := p.ident()
		if name == "" || !known(name) {
			return nil, false
		}
		p.space()
		if !p.eat('(') {
			return nil, false
		}
		args, err := p.kwargs()
		if err != nil {
			return nil, true // a registered tool, unreadable arguments
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}})
		p.space()
		if !p.eat(',') && !p.eat(';') {
			break
		}
	}
	p.space()
	if bracketed && !p.eat(']') {
		return nil, false
	}
	p.space()
	if p.i != len(p.s) {
		return nil, false // more than calls: prose, not a call
	}
	return calls, false
}

type pyParser struct {
	s string
	i int
}

var errPy = errors.New("not a python literal")

func (p *pyParser) space() {
	for p.i < len(p.s) && unicode.IsSpace(rune(p.s[p.i])) {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

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
		return p.str()
	case c == '[':
		p.i++
		var out []any
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
	word := p.ident()
	switch word {
	case "True", "true":
		return true, nil
	case "False", "false":
		return false, nil
	case "None", "null":
		return nil, nil
	case "":
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
			p.i++
		}
		if f, err := strconv.ParseFloat(p.s[start:p.i], 64); err == nil {
			if n, err := strconv.ParseInt(p.s[start:p.i], 10, 64); err == nil {
				return n, nil
			}
			return f, nil
		}
	}
	return nil, errPy
}

// str reads a quoted string with Python's common escapes.
func (p *pyParser) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\'') {
		return "", errPy
	}
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == q:
			return b.String(), nil
		case c == '\\' && p.i < len(p.s):
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", errPy
}
