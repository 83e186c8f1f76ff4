package model

import (
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/pyliteral"
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
	p := &pyParser{pyliteral.Reader{S: s}}
	bracketed := p.Eat('[')
	for {
		p.Space()
		name := p.Ident()
		if name == "" || !known(name) {
			return nil, false, 0
		}
		p.Space()
		if !p.Eat('(') {
			return nil, false, 0
		}
		args, err := p.kwargs()
		if err != nil {
			return nil, true, 0 // a registered tool, unreadable arguments
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}})
		p.Space()
		if !p.Eat(',') && !p.Eat(';') {
			break
		}
	}
	p.Space()
	if bracketed && !p.Eat(']') {
		return nil, false, 0
	}
	p.Space()
	return calls, false, p.I
}

// pyParser reads Python-style calls: a name, then keyword arguments
// with literal values.
type pyParser struct{ pyliteral.Reader }

// kwargs reads k=v pairs up to the closing parenthesis.
func (p *pyParser) kwargs() (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	for {
		p.Space()
		if p.Eat(')') {
			return args, nil
		}
		key := p.Ident()
		p.Space()
		if key == "" || !p.Eat('=') {
			return args, pyliteral.ErrNotLiteral
		}
		v, err := p.Value()
		if err != nil {
			return args, err
		}
		args.Set(key, v)
		p.Space()
		if p.Eat(')') {
			return args, nil
		}
		if !p.Eat(',') {
			return args, pyliteral.ErrNotLiteral
		}
	}
}
